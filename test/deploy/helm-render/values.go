package main

// Helm's values: parsed as sigs.k8s.io/yaml parses them (YAML → JSON → Go, so every number is a
// float64), the -f files merged into one another, then coalesced with the chart's values.yaml.

import (
	"fmt"
	"os"
	"strings"

	"github.com/ghodss/yaml"
	"github.com/mitchellh/copystructure"
)

// Values is what .Values is in a template (helm's chartutil.Values), with its methods.
type Values map[string]interface{}

// YAML is the values as YAML.
func (v Values) YAML() (string, error) {
	data, err := yaml.Marshal(v)
	return string(data), err
}

// AsMap is the values as a plain map.
func (v Values) AsMap() map[string]interface{} {
	if len(v) == 0 {
		return map[string]interface{}{}
	}
	return v
}

// Table is the table at a dotted path ("a.b"), or an error when there is none.
func (v Values) Table(name string) (Values, error) {
	table := v
	for _, part := range strings.Split(name, ".") {
		next, ok := table[part]
		if !ok {
			return Values{}, fmt.Errorf("no table named %q", name)
		}
		switch value := next.(type) {
		case map[string]interface{}:
			table = value
		case Values:
			table = value
		default:
			return Values{}, fmt.Errorf("no table named %q", name)
		}
	}
	return table, nil
}

// PathValue is the non-table value at a dotted path.
func (v Values) PathValue(path string) (interface{}, error) {
	parts := strings.Split(path, ".")
	table := v
	if len(parts) > 1 {
		var err error
		if table, err = v.Table(strings.Join(parts[:len(parts)-1], ".")); err != nil {
			return nil, fmt.Errorf("%v is not a value", path)
		}
	}
	value, ok := table[parts[len(parts)-1]]
	if !ok || isTable(value) {
		return nil, fmt.Errorf("%v is not a value", path)
	}
	return value, nil
}

func isTable(value interface{}) bool {
	switch value.(type) {
	case map[string]interface{}, Values:
		return true
	}
	return false
}

// readValues parses one values file; an empty file (or only comments) is an empty map.
func readValues(file string) (map[string]interface{}, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	values := map[string]interface{}{}
	if err := yaml.Unmarshal(data, &values); err != nil {
		return nil, fmt.Errorf("failed to parse %s: %v", file, err)
	}
	if values == nil {
		values = map[string]interface{}{}
	}
	return values, nil
}

// mergeMaps is how helm merges the -f files into one another: maps merge key by key, anything
// else (a list, a scalar, null) replaces; nulls are kept for the coalescing to act on.
func mergeMaps(a, b map[string]interface{}) map[string]interface{} {
	out := make(map[string]interface{}, len(a))
	for key, value := range a {
		out[key] = value
	}
	for key, value := range b {
		if table, ok := value.(map[string]interface{}); ok {
			if current, ok := out[key].(map[string]interface{}); ok {
				out[key] = mergeMaps(current, table)
				continue
			}
		}
		out[key] = value
	}
	return out
}

// coalesceRoot gives the values a root chart's templates see: the user's values over the chart's
// values.yaml, where a user's null deletes the chart's key.
func coalesceRoot(chartValues, user map[string]interface{}) (map[string]interface{}, error) {
	copied, err := copystructure.Copy(user)
	if err != nil {
		return nil, err
	}
	dest, _ := copied.(map[string]interface{})
	if dest == nil {
		dest = map[string]interface{}{}
	}
	defaults, err := copystructure.Copy(chartValues)
	if err != nil {
		return nil, err
	}
	source, _ := defaults.(map[string]interface{})
	for key, value := range source {
		current, present := dest[key]
		switch {
		case !present:
			dest[key] = value
		case current == nil:
			delete(dest, key)
		default:
			destTable, destIsTable := current.(map[string]interface{})
			sourceTable, sourceIsTable := value.(map[string]interface{})
			if destIsTable && sourceIsTable {
				coalesceTables(destTable, sourceTable, key)
			} else if destIsTable && value != nil {
				warn("warning: skipped value for %s: Not a table.", key)
			}
		}
	}
	return dest, nil
}

// coalesceTables merges src into dst, dst winning; a null in dst deletes the key src has.
func coalesceTables(dst, src map[string]interface{}, prefix string) {
	if dst == nil || src == nil {
		return
	}
	for key, value := range dst {
		if value == nil {
			src[key] = nil
		}
	}
	for key, value := range src {
		full := prefix + "." + key
		current, present := dst[key]
		switch {
		case present && current == nil:
			delete(dst, key)
		case !present:
			dst[key] = value
		case isTable(value):
			if isTable(current) {
				coalesceTables(current.(map[string]interface{}), value.(map[string]interface{}), full)
			} else {
				warn("warning: cannot overwrite table with non table for %s (%v)", full, value)
			}
		case isTable(current) && value != nil:
			warn("warning: destination for %s is a table. Ignoring non-table value (%v)", full, value)
		}
	}
}

func warn(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
}
