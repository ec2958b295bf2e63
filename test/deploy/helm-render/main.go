// helm-render renders a chart directory the way `helm template` (Helm 3) does, for the tests of a
// machine without helm: the same values (values.yaml, -f files merged and coalesced, null
// deleting a key), the same template functions and built-in objects, the same output.
//
//	helm-render [--name N] [--namespace NS] [-f values.yaml]... [--kube-version v1.34.0]
//	            [--api-versions group/version]... [--is-upgrade] [--skip-tests] [--no-hooks]
//	            [--values-out coalesced.json] CHART_DIR
//
// Not done here: values.schema.json (the caller validates --values-out, as helm validates those
// values), subcharts, .helmignore, --set, toToml, and talking to a cluster (lookup finds nothing).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path"
	"strings"

	"github.com/Masterminds/semver/v3"
)

type list []string

func (l *list) String() string     { return fmt.Sprint(*l) }
func (l *list) Set(v string) error { *l = append(*l, v); return nil }

// KubeVersion is .Capabilities.KubeVersion.
type KubeVersion struct {
	Version string
	Major   string
	Minor   string
}

func (k *KubeVersion) String() string     { return k.Version }
func (k *KubeVersion) GitVersion() string { return k.Version }

// VersionSet is .Capabilities.APIVersions.
type VersionSet []string

// Has says whether an API version ("apps/v1") is known.
func (v VersionSet) Has(apiVersion string) bool {
	for _, known := range v {
		if known == apiVersion {
			return true
		}
	}
	return false
}

// BuildInfo is .Capabilities.HelmVersion.
type BuildInfo struct {
	Version      string `json:"version,omitempty"`
	GitCommit    string `json:"git_commit,omitempty"`
	GitTreeState string `json:"git_tree_state,omitempty"`
	GoVersion    string `json:"go_version,omitempty"`
}

// Capabilities is .Capabilities.
type Capabilities struct {
	KubeVersion KubeVersion
	APIVersions VersionSet
	HelmVersion BuildInfo
}

// The API group versions a client-only `helm template` knows (Kubernetes' built-in groups).
var defaultAPIVersions = VersionSet{
	"v1", "admissionregistration.k8s.io/v1", "apiextensions.k8s.io/v1", "apiregistration.k8s.io/v1",
	"apps/v1", "authentication.k8s.io/v1", "authorization.k8s.io/v1", "autoscaling/v1", "autoscaling/v2",
	"batch/v1", "certificates.k8s.io/v1", "coordination.k8s.io/v1", "discovery.k8s.io/v1", "events.k8s.io/v1",
	"flowcontrol.apiserver.k8s.io/v1", "networking.k8s.io/v1", "node.k8s.io/v1", "policy/v1",
	"rbac.authorization.k8s.io/v1", "scheduling.k8s.io/v1", "storage.k8s.io/v1",
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "Error: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	var valueFiles, apiVersions list
	flags := flag.NewFlagSet("helm-render", flag.ContinueOnError)
	name := flags.String("name", "release-name", "release name")
	namespace := flags.String("namespace", "default", "release namespace")
	kubeVersion := flags.String("kube-version", "v1.34.0", "Kubernetes version (.Capabilities.KubeVersion)")
	isUpgrade := flags.Bool("is-upgrade", false, ".Release.IsUpgrade instead of .Release.IsInstall")
	skipTests := flags.Bool("skip-tests", false, "leave test hooks out")
	noHooks := flags.Bool("no-hooks", false, "leave every hook out")
	valuesOut := flags.String("values-out", "", "write the coalesced values here (JSON)")
	flags.Var(&valueFiles, "f", "a values file (repeatable; later ones win)")
	flags.Var(&apiVersions, "api-versions", "an extra API version for .Capabilities.APIVersions (repeatable)")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if flags.NArg() != 1 {
		return fmt.Errorf("one chart directory expected, got %d arguments", flags.NArg())
	}
	chart, err := loadChart(flags.Arg(0))
	if err != nil {
		return err
	}
	user := map[string]interface{}{}
	for _, file := range valueFiles {
		values, err := readValues(file)
		if err != nil {
			return err
		}
		user = mergeMaps(user, values)
	}
	values, err := coalesceRoot(chart.Values, user)
	if err != nil {
		return err
	}
	if *valuesOut != "" {
		data, _ := json.Marshal(values)
		if err := os.WriteFile(*valuesOut, data, 0o600); err != nil {
			return err
		}
	}
	capabilities, err := capabilitiesFor(*kubeVersion, apiVersions)
	if err != nil {
		return err
	}
	if c := chart.Metadata.KubeVersion; c != "" && !compatible(c, capabilities.KubeVersion.Version) {
		return fmt.Errorf("chart requires kubeVersion: %s which is incompatible with Kubernetes %s", c, capabilities.KubeVersion.Version)
	}
	top := map[string]interface{}{
		"Chart": struct {
			Metadata
			IsRoot bool
		}{*chart.Metadata, true},
		"Capabilities": capabilities,
		"Release": map[string]interface{}{
			"Name": *name, "Namespace": *namespace, "IsUpgrade": *isUpgrade, "IsInstall": !*isUpgrade,
			"Revision": 1, "Service": "Helm",
		},
		"Values":    Values(values),
		"Files":     Files(chart.Files),
		"Subcharts": map[string]interface{}{},
	}
	templates := map[string]string{}
	for file, text := range chart.Templates {
		templates[path.Join(chart.Metadata.Name, file)] = text
	}
	rendered, err := renderTemplates(templates, top, path.Join(chart.Metadata.Name, "templates"))
	if err != nil {
		return err
	}
	// NOTES.txt files are rendered (their errors count) but never part of the manifests.
	for name := range rendered {
		if strings.HasSuffix(name, "NOTES.txt") {
			delete(rendered, name)
		}
	}
	manifests, hooks, err := sortManifests(rendered)
	if err != nil {
		return err
	}
	fmt.Print(output(manifests, hooks, !*noHooks, !*skipTests))
	return nil
}

func capabilitiesFor(kubeVersion string, extra []string) (*Capabilities, error) {
	version, err := semver.NewVersion(kubeVersion)
	if err != nil {
		return nil, fmt.Errorf("invalid kube version '%s': %v", kubeVersion, err)
	}
	apis := append(append(VersionSet{}, defaultAPIVersions...), extra...)
	return &Capabilities{
		KubeVersion: KubeVersion{
			Version: fmt.Sprintf("v%d.%d.%d", version.Major(), version.Minor(), version.Patch()),
			Major:   fmt.Sprint(version.Major()),
			Minor:   fmt.Sprint(version.Minor()),
		},
		APIVersions: apis,
		HelmVersion: BuildInfo{Version: "v3.19.0+helm-render", GoVersion: "go1.19"},
	}, nil
}

func compatible(constraint, version string) bool {
	v, err := semver.NewVersion(version)
	if err != nil {
		return false
	}
	c, err := semver.NewConstraint(constraint)
	return err == nil && c.Check(v)
}
