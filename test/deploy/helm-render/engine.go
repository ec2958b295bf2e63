package main

// Helm's template engine: Go's text/template with sprig's functions (env and expandenv removed),
// helm's own (toYaml, fromYaml, toJson, fromJson, include, tpl, required, fail, lookup), every
// template of the chart parsed into one set (so any file's `define` can be included), missing
// keys rendering as zero values and "<no value>" removed, partials (_*) never rendered.

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	"github.com/ghodss/yaml"
	"github.com/gobwas/glob"
	yaml3 "gopkg.in/yaml.v3"
)

const recursionMax = 1000

// A failure of required or fail: helm shows only its message, at its template's position.
var warnPattern = regexp.MustCompile(`HELM_ERR_START((?s).*)HELM_ERR_END`)

func warnWrap(message string) string { return "HELM_ERR_START" + message + "HELM_ERR_END" }

// Files is .Files: the chart's files other than templates and values.
type Files map[string][]byte

// GetBytes is a file's content; a missing file is empty.
func (f Files) GetBytes(name string) []byte {
	if data, ok := f[name]; ok {
		return data
	}
	return []byte{}
}

// Get is a file's content as a string.
func (f Files) Get(name string) string { return string(f.GetBytes(name)) }

// Glob is the files whose path matches a glob ("**" crosses folders).
func (f Files) Glob(pattern string) Files {
	matcher, err := glob.Compile(pattern, '/')
	if err != nil {
		matcher, _ = glob.Compile("**")
	}
	out := Files{}
	for name, data := range f {
		if matcher.Match(name) {
			out[name] = data
		}
	}
	return out
}

// AsConfig is the files as a ConfigMap's data (base names as keys).
func (f Files) AsConfig() string {
	if f == nil {
		return ""
	}
	data := map[string]string{}
	for name, content := range f {
		data[path.Base(name)] = string(content)
	}
	return toYAML(data)
}

// AsSecrets is the files as a Secret's data (base64).
func (f Files) AsSecrets() string {
	if f == nil {
		return ""
	}
	data := map[string]string{}
	for name, content := range f {
		data[path.Base(name)] = base64.StdEncoding.EncodeToString(content)
	}
	return toYAML(data)
}

// Lines is a file's lines (without a final empty one).
func (f Files) Lines(name string) []string {
	if f == nil || f[name] == nil {
		return []string{}
	}
	text := string(f[name])
	if strings.HasSuffix(text, "\n") {
		text = text[:len(text)-1]
	}
	return strings.Split(text, "\n")
}

func toYAML(v interface{}) string {
	data, err := yaml.Marshal(v)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(data), "\n")
}

func mustToYAML(v interface{}) string {
	data, err := yaml.Marshal(v)
	if err != nil {
		panic(err)
	}
	return strings.TrimSuffix(string(data), "\n")
}

func toYAMLPretty(v interface{}) string {
	var out strings.Builder
	encoder := yaml3.NewEncoder(&out)
	encoder.SetIndent(2)
	if err := encoder.Encode(v); err != nil {
		return ""
	}
	return strings.TrimSuffix(out.String(), "\n")
}

func fromYAML(text string) map[string]interface{} {
	m := map[string]interface{}{}
	if err := yaml.Unmarshal([]byte(text), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func fromYAMLArray(text string) []interface{} {
	a := []interface{}{}
	if err := yaml.Unmarshal([]byte(text), &a); err != nil {
		a = []interface{}{err.Error()}
	}
	return a
}

func toJSON(v interface{}) string {
	data, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(data)
}

func mustToJSON(v interface{}) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(data)
}

func fromJSON(text string) map[string]interface{} {
	m := map[string]interface{}{}
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func fromJSONArray(text string) []interface{} {
	a := []interface{}{}
	if err := json.Unmarshal([]byte(text), &a); err != nil {
		a = []interface{}{err.Error()}
	}
	return a
}

// funcMap is sprig's functions and helm's, include and tpl bound to the template set t.
func funcMap(t *template.Template, included map[string]int) template.FuncMap {
	funcs := sprig.TxtFuncMap()
	delete(funcs, "env")
	delete(funcs, "expandenv")
	extra := template.FuncMap{
		"toYaml":        toYAML,
		"mustToYaml":    mustToYAML,
		"toYamlPretty":  toYAMLPretty,
		"fromYaml":      fromYAML,
		"fromYamlArray": fromYAMLArray,
		"toJson":        toJSON,
		"mustToJson":    mustToJSON,
		"fromJson":      fromJSON,
		"fromJsonArray": fromJSONArray,
		"include":       includeFunc(t, included),
		"tpl":           tplFunc(t, included),
		"required":      required,
		"fail":          func(message string) (string, error) { return "", errors.New(warnWrap(message)) },
		// helm template talks to no cluster: lookup finds nothing, DNS resolves nothing.
		"lookup": func(string, string, string, string) (map[string]interface{}, error) {
			return map[string]interface{}{}, nil
		},
		"getHostByName": func(string) string { return "" },
	}
	for name, function := range extra {
		funcs[name] = function
	}
	return funcs
}

func required(message string, value interface{}) (interface{}, error) {
	if value == nil {
		return value, errors.New(warnWrap(message))
	}
	if text, ok := value.(string); ok && text == "" {
		return value, errors.New(warnWrap(message))
	}
	return value, nil
}

func includeFunc(t *template.Template, included map[string]int) func(string, interface{}) (string, error) {
	return func(name string, data interface{}) (string, error) {
		if included[name] > recursionMax {
			return "", fmt.Errorf("rendering template has a nested reference name: %s: unable to execute template", name)
		}
		included[name]++
		defer func() { included[name]-- }()
		var out strings.Builder
		err := t.ExecuteTemplate(&out, name, data)
		return out.String(), err
	}
}

// tplFunc renders a string as a template in a clone of the set, so its defines stay local.
func tplFunc(parent *template.Template, included map[string]int) func(string, interface{}) (string, error) {
	return func(text string, data interface{}) (string, error) {
		t, err := parent.Clone()
		if err != nil {
			return "", fmt.Errorf("cannot clone template: %w", err)
		}
		t.Option("missingkey=zero")
		t.Funcs(template.FuncMap{"include": includeFunc(t, included), "tpl": tplFunc(t, included)})
		if t, err = t.New(parent.Name()).Parse(text); err != nil {
			return "", fmt.Errorf("cannot parse template %q: %w", text, err)
		}
		var out strings.Builder
		if err := t.Execute(&out, data); err != nil {
			return "", fmt.Errorf("error during tpl function execution for %q: %w", text, err)
		}
		return strings.ReplaceAll(out.String(), "<no value>", ""), nil
	}
}

// renderTemplates executes every non-partial template with its values; by template name.
func renderTemplates(templates map[string]string, values map[string]interface{}, basePath string) (rendered map[string]string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("rendering template failed: %v", r)
		}
	}()
	t := template.New("gotpl")
	t.Option("missingkey=zero")
	t.Funcs(funcMap(t, map[string]int{}))
	names := templateNames(templates)
	for _, name := range names {
		if _, err := t.New(name).Parse(templates[name]); err != nil {
			return nil, parseError(name, err)
		}
	}
	rendered = map[string]string{}
	for _, name := range names {
		if strings.HasPrefix(path.Base(name), "_") {
			continue
		}
		values["Template"] = Values{"Name": name, "BasePath": basePath}
		var out strings.Builder
		if err := t.ExecuteTemplate(&out, name, values); err != nil {
			return nil, execError(name, err)
		}
		rendered[name] = strings.ReplaceAll(out.String(), "<no value>", "")
	}
	return rendered, nil
}

func parseError(name string, err error) error {
	tokens := strings.Split(err.Error(), ": ")
	if len(tokens) == 1 {
		return fmt.Errorf("parse error in (%s): %s", name, err)
	}
	return fmt.Errorf("parse error at (%s): %s", tokens[1], tokens[len(tokens)-1])
}

func execError(name string, err error) error {
	var exec template.ExecError
	if !errors.As(err, &exec) {
		return err
	}
	tokens := strings.SplitN(err.Error(), ": ", 3)
	if len(tokens) != 3 {
		return fmt.Errorf("execution error in (%s): %s", name, err)
	}
	if parts := warnPattern.FindStringSubmatch(tokens[2]); len(parts) >= 2 {
		return fmt.Errorf("execution error at (%s): %s", tokens[1], parts[1])
	}
	return err
}
