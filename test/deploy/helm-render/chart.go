package main

// A chart directory as helm's loader reads it: Chart.yaml, values.yaml, the templates (every file
// under templates/, dot files excepted) and the other files (.Files).

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ghodss/yaml"
)

// Maintainer is one entry of Chart.yaml's maintainers.
type Maintainer struct {
	Name  string `json:"name,omitempty"`
	Email string `json:"email,omitempty"`
	URL   string `json:"url,omitempty"`
}

// Dependency is one entry of Chart.yaml's dependencies.
type Dependency struct {
	Name       string `json:"name"`
	Version    string `json:"version,omitempty"`
	Repository string `json:"repository"`
	Condition  string `json:"condition,omitempty"`
	Alias      string `json:"alias,omitempty"`
}

// Metadata is Chart.yaml, with helm's field names (.Chart.Name, .Chart.AppVersion, …).
type Metadata struct {
	Name         string            `json:"name,omitempty"`
	Home         string            `json:"home,omitempty"`
	Sources      []string          `json:"sources,omitempty"`
	Version      string            `json:"version,omitempty"`
	Description  string            `json:"description,omitempty"`
	Keywords     []string          `json:"keywords,omitempty"`
	Maintainers  []*Maintainer     `json:"maintainers,omitempty"`
	Icon         string            `json:"icon,omitempty"`
	APIVersion   string            `json:"apiVersion,omitempty"`
	Condition    string            `json:"condition,omitempty"`
	Tags         string            `json:"tags,omitempty"`
	AppVersion   string            `json:"appVersion,omitempty"`
	Deprecated   bool              `json:"deprecated,omitempty"`
	Annotations  map[string]string `json:"annotations,omitempty"`
	KubeVersion  string            `json:"kubeVersion,omitempty"`
	Dependencies []*Dependency     `json:"dependencies,omitempty"`
	Type         string            `json:"type,omitempty"`
}

// Chart is a loaded chart directory.
type Chart struct {
	Metadata  *Metadata
	Values    map[string]interface{}
	Templates map[string]string // path in the chart (templates/x.yaml) → text
	Files     map[string][]byte // every other file, by path in the chart
}

func loadChart(dir string) (*Chart, error) {
	data, err := os.ReadFile(filepath.Join(dir, "Chart.yaml"))
	if err != nil {
		return nil, fmt.Errorf("Chart.yaml file is missing: %v", err)
	}
	chart := &Chart{Metadata: &Metadata{}, Values: map[string]interface{}{}, Templates: map[string]string{}, Files: map[string][]byte{}}
	if err := yaml.Unmarshal(data, chart.Metadata); err != nil {
		return nil, fmt.Errorf("cannot load Chart.yaml: %v", err)
	}
	if err := checkMetadata(chart.Metadata); err != nil {
		return nil, err
	}
	rules, err := readIgnoreRules(filepath.Join(dir, ".helmignore"))
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, "values.yaml")); err == nil {
		if chart.Values, err = readValues(filepath.Join(dir, "values.yaml")); err != nil {
			return nil, err
		}
	}
	err = filepath.Walk(dir, func(file string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, file)
		name := filepath.ToSlash(rel)
		switch {
		case rel == ".":
			return nil
		case info.IsDir() && rules.ignored(name, true):
			return filepath.SkipDir
		case info.IsDir() || rules.ignored(name, false):
			return nil
		}
		return chart.add(name, file)
	})
	return chart, err
}

func checkMetadata(metadata *Metadata) error {
	switch {
	case metadata.Name == "":
		return fmt.Errorf("validation: chart.metadata.name is required")
	case metadata.Version == "":
		return fmt.Errorf("validation: chart.metadata.version is required")
	case metadata.APIVersion != "v1" && metadata.APIVersion != "v2":
		return fmt.Errorf("validation: chart.metadata.apiVersion %q is invalid", metadata.APIVersion)
	case metadata.Type == "library":
		return fmt.Errorf("library charts are not installable")
	case len(metadata.Dependencies) > 0:
		// helm needs them in charts/ (helm dependency build); this renderer renders one chart.
		return fmt.Errorf("chart dependencies are not supported by this renderer")
	}
	return nil
}

func (chart *Chart) add(name, file string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	switch {
	case name == "Chart.yaml", name == "values.yaml", name == "values.schema.json", name == "Chart.lock":
		return nil
	case strings.HasPrefix(name, "charts/"):
		return fmt.Errorf("%s: subcharts are not supported by this renderer", name)
	case strings.HasPrefix(name, "templates/"):
		chart.Templates[name] = string(data)
	default:
		chart.Files[name] = data
	}
	return nil
}

// templateNames is the order helm parses templates in: deeper paths first, then reverse
// lexical order (a later definition of the same name wins).
func templateNames(templates map[string]string) []string {
	names := make([]string, 0, len(templates))
	for name := range templates {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := names[i], names[j]
		ca, cb := strings.Count(a, "/"), strings.Count(b, "/")
		if ca == cb {
			return a > b
		}
		return ca > cb
	})
	return names
}
