package main

// .helmignore as helm reads it: one glob a line (# comments), "!" negates, a trailing "/"
// matches folders only, a leading "/" or any "/" matches the whole path, otherwise the base name;
// "**" is refused. Helm adds templates/.?* to every chart's rules.

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

type ignoreRule struct {
	glob            string
	negate, dirOnly bool
	wholePath       bool
}

type ignoreRules []ignoreRule

func readIgnoreRules(file string) (ignoreRules, error) {
	var rules ignoreRules
	data, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	scanner := bufio.NewScanner(bytes.NewReader(bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))))
	for scanner.Scan() {
		if err := rules.add(scanner.Text()); err != nil {
			return nil, err
		}
	}
	return rules, rules.add("templates/.?*")
}

func (rules *ignoreRules) add(line string) error {
	line = strings.TrimSpace(line)
	if line == "" || strings.HasPrefix(line, "#") {
		return nil
	}
	if strings.Contains(line, "**") {
		return errors.New("double-star (**) syntax is not supported")
	}
	if _, err := filepath.Match(line, "abc"); err != nil {
		return err
	}
	rule := ignoreRule{}
	if strings.HasPrefix(line, "!") {
		rule.negate, line = true, line[1:]
	}
	if strings.HasSuffix(line, "/") {
		rule.dirOnly, line = true, strings.TrimSuffix(line, "/")
	}
	rule.wholePath = strings.Contains(line, "/")
	rule.glob = strings.TrimPrefix(line, "/")
	*rules = append(*rules, rule)
	return nil
}

func (rule ignoreRule) matches(name string) bool {
	if !rule.wholePath {
		name = filepath.Base(name)
	}
	ok, err := filepath.Match(rule.glob, name)
	return err == nil && ok
}

// ignored says whether a path (relative, with "/") is left out of the chart.
func (rules ignoreRules) ignored(name string, isDir bool) bool {
	if name == "" || name == "." || name == "./" {
		return false
	}
	for _, rule := range rules {
		if rule.negate {
			if (rule.dirOnly && !isDir) || !rule.matches(name) {
				return true
			}
			continue
		}
		if rule.dirOnly && !isDir {
			continue
		}
		if rule.matches(name) {
			return true
		}
	}
	return false
}
