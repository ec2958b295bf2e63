package main

// What `helm template` prints: the rendered files split into documents, hooks set apart, each
// group sorted by kind in helm's install order (stable), every document under
// "---\n# Source: <chart>/templates/<file>"; the hooks (tests among them) after the rest.

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/ghodss/yaml"
)

var installOrder = []string{
	"PriorityClass", "Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange", "PodSecurityPolicy",
	"PodDisruptionBudget", "ServiceAccount", "Secret", "SecretList", "ConfigMap", "StorageClass",
	"PersistentVolume", "PersistentVolumeClaim", "CustomResourceDefinition", "ClusterRole",
	"ClusterRoleList", "ClusterRoleBinding", "ClusterRoleBindingList", "Role", "RoleList",
	"RoleBinding", "RoleBindingList", "Service", "DaemonSet", "Pod", "ReplicationController",
	"ReplicaSet", "Deployment", "HorizontalPodAutoscaler", "StatefulSet", "Job", "CronJob",
	"IngressClass", "Ingress", "APIService",
}

var hookEvents = map[string]bool{
	"pre-install": true, "post-install": true, "pre-delete": true, "post-delete": true,
	"pre-upgrade": true, "post-upgrade": true, "pre-rollback": true, "post-rollback": true,
	"test": true, "test-success": true,
}

var documentSeparator = regexp.MustCompile("(?:^|\\s*\n)---\\s*")

type head struct {
	Kind     string `json:"kind,omitempty"`
	Metadata *struct {
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata,omitempty"`
}

type manifest struct {
	path, content, kind string
	test                bool
}

func splitDocuments(text string) []string {
	var documents []string
	for _, document := range documentSeparator.Split(strings.TrimSpace(text), -1) {
		if document != "" {
			documents = append(documents, strings.TrimSpace(document))
		}
	}
	return documents
}

// sortManifests splits the rendered files into manifests and hooks, each sorted by kind.
func sortManifests(files map[string]string) (manifests, hooks []manifest, err error) {
	paths := make([]string, 0, len(files))
	for name := range files {
		paths = append(paths, name)
	}
	sort.Strings(paths)
	for _, name := range paths {
		if strings.HasPrefix(path.Base(name), "_") || strings.TrimSpace(files[name]) == "" {
			continue
		}
		for _, document := range splitDocuments(files[name]) {
			var h head
			if err := yaml.Unmarshal([]byte(document), &h); err != nil {
				return nil, nil, fmt.Errorf("YAML parse error on %s: %v", name, err)
			}
			m := manifest{path: name, content: document, kind: h.Kind}
			hook, isHook := "", false
			if h.Metadata != nil {
				hook, isHook = h.Metadata.Annotations["helm.sh/hook"]
			}
			if !isHook {
				manifests = append(manifests, m)
				continue
			}
			known := true
			for _, event := range strings.Split(hook, ",") {
				event = strings.ToLower(strings.TrimSpace(event))
				known = known && hookEvents[event]
				m.test = m.test || event == "test" || event == "test-success"
			}
			if known {
				hooks = append(hooks, m)
			}
		}
	}
	return byKind(manifests), byKind(hooks), nil
}

func byKind(manifests []manifest) []manifest {
	rank := map[string]int{}
	for i, kind := range installOrder {
		rank[kind] = i
	}
	sort.SliceStable(manifests, func(i, j int) bool {
		a, aKnown := rank[manifests[i].kind]
		b, bKnown := rank[manifests[j].kind]
		switch {
		case !aKnown && !bKnown:
			return manifests[i].kind < manifests[j].kind
		case !aKnown:
			return false
		case !bKnown:
			return true
		}
		return a < b
	})
	return manifests
}

// output is `helm template`'s standard output.
func output(manifests, hooks []manifest, withHooks, withTests bool) string {
	var body strings.Builder
	for _, m := range manifests {
		fmt.Fprintf(&body, "---\n# Source: %s\n%s\n", m.path, m.content)
	}
	out := strings.TrimSpace(body.String()) + "\n"
	if !withHooks {
		return out
	}
	for _, m := range hooks {
		if m.test && !withTests {
			continue
		}
		out += fmt.Sprintf("---\n# Source: %s\n%s\n", m.path, m.content)
	}
	return out
}
