package config_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"github.com/tiergate/tiergate/internal/config"
	"github.com/tiergate/tiergate/internal/review/rules"
)

const schemaFile = "../../docs/tiergate.schema.json"

// rawSchema is the schema as plain JSON values, for walking it next to the Go types.
func rawSchema(t *testing.T) map[string]any {
	t.Helper()
	data, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func compiledSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	s, err := c.Compile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSchemaMatchesConfig walks config.Config by its yaml tags and the schema side by side:
// every struct is a closed object with exactly the struct's keys, and every leaf has the
// JSON type the Go type decodes from.
func TestSchemaMatchesConfig(t *testing.T) {
	root := rawSchema(t)
	defs, _ := root["$defs"].(map[string]any)
	resolve := func(node map[string]any) map[string]any {
		if ref, ok := node["$ref"].(string); ok {
			def, ok := defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
			if !ok {
				t.Fatalf("unresolved %s", ref)
			}
			return def
		}
		return node
	}
	var walk func(path string, typ reflect.Type, node map[string]any)
	walk = func(path string, typ reflect.Type, node map[string]any) {
		node = resolve(node)
		if typ == reflect.TypeFor[time.Duration]() {
			if node["type"] != "string" {
				t.Errorf("%s: a duration is a string in YAML, schema says %v", path, node["type"])
			}
			return
		}
		switch typ.Kind() {
		case reflect.Pointer:
			walk(path, typ.Elem(), node)
		case reflect.Struct:
			if node["type"] != "object" || node["additionalProperties"] != false {
				t.Errorf("%s: want a closed object (type object, additionalProperties false)", path)
			}
			props, _ := node["properties"].(map[string]any)
			var fields []string
			for f := range typ.Fields() {
				name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
				if name == "-" || !f.IsExported() {
					continue
				}
				fields = append(fields, name)
				child, ok := props[name].(map[string]any)
				if !ok {
					continue // reported below
				}
				walk(path+"."+name, f.Type, child)
			}
			if d := cmp.Diff(slices.Sorted(slices.Values(fields)), slices.Sorted(mapKeys(props))); d != "" {
				t.Errorf("%s: keys (-Go +schema):\n%s", path, d)
			}
		case reflect.Slice:
			if node["type"] != "array" {
				t.Errorf("%s: want type array, got %v", path, node["type"])
			}
			items, _ := node["items"].(map[string]any)
			walk(path+"[]", typ.Elem(), items)
		case reflect.Map:
			if node["type"] != "object" {
				t.Errorf("%s: want type object, got %v", path, node["type"])
			}
			if typ.Elem().Kind() == reflect.Interface {
				return // free-form (kustomizationDefaults)
			}
			values, _ := node["additionalProperties"].(map[string]any)
			walk(path+".*", typ.Elem(), values)
		case reflect.String:
			if node["type"] != "string" && node["enum"] == nil {
				t.Errorf("%s: want type string or an enum, got %v", path, node)
			}
		case reflect.Bool:
			if node["type"] != "boolean" {
				t.Errorf("%s: want type boolean, got %v", path, node["type"])
			}
		case reflect.Int, reflect.Int64:
			if node["type"] != "integer" {
				t.Errorf("%s: want type integer, got %v", path, node["type"])
			}
		default:
			t.Errorf("%s: Go kind %s has no schema check", path, typ.Kind())
		}
	}
	walk("", reflect.TypeFor[config.Config](), root)

	// Rule ids: the schema lists exactly the rules the review runs, for rules and ignore.
	props := root["properties"].(map[string]any)
	ruleNames := props["rules"].(map[string]any)["propertyNames"].(map[string]any)["enum"]
	ignoreRule := defs["ignore"].(map[string]any)["properties"].(map[string]any)["rule"].(map[string]any)["enum"]
	for name, got := range map[string]any{"rules": ruleNames, "ignore.rule": ignoreRule} {
		if d := cmp.Diff(anyStrings(rules.IDs()), got); d != "" {
			t.Errorf("%s rule ids (-rules.IDs +schema):\n%s", name, d)
		}
	}
	severity := defs["rule"].(map[string]any)["properties"].(map[string]any)["severity"].(map[string]any)["enum"]
	if d := cmp.Diff(anyStrings(config.Severities), severity); d != "" {
		t.Errorf("rule severities (-Go +schema):\n%s", d)
	}
	allow := defs["remote"].(map[string]any)["properties"].(map[string]any)["allow"].(map[string]any)["items"].(map[string]any)["pattern"]
	if allow != config.HostPattern.String() {
		t.Errorf("remote.allow pattern %v, Go checks %s", allow, config.HostPattern)
	}
}

func mapKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func anyStrings(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// validate checks YAML text against the schema, as an editor with the schema would.
func validate(s *jsonschema.Schema, data []byte) error {
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return err
	}
	if v == nil {
		v = map[string]any{}
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	return s.Validate(inst)
}

// parse is what tiergate does with a configuration: Parse, then the rule ids.
func parse(name string, data []byte) error {
	c, err := config.Parse(name, data)
	if err == nil {
		err = c.CheckRules(rules.IDs())
	}
	return err
}

var yamlBlock = regexp.MustCompile("(?s)```yaml\n(.*?)```")

// TestExamplesAreValid holds every YAML example of docs/config.md and every configuration
// file of the repository to both the schema and Parse.
func TestExamplesAreValid(t *testing.T) {
	s := compiledSchema(t)
	examples := map[string][]byte{}
	doc, err := os.ReadFile("../../docs/config.md")
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range yamlBlock.FindAllSubmatch(doc, -1) {
		examples[fmt.Sprintf("docs/config.md example %d", i+1)] = m[1]
	}
	if len(examples) < 3 {
		t.Fatalf("docs/config.md has %d yaml examples, want the full one and one per section", len(examples))
	}
	files, _ := filepath.Glob("../../docs/corpus/*.tiergate.yaml")
	more, _ := filepath.Glob("../../testdata/scenarios/*/*/.tiergate.yaml")
	others, _ := filepath.Glob("../../cmd/bot/testdata/*.tiergate.yaml")
	for _, f := range slices.Concat(files, more, others) {
		if f == "../../testdata/scenarios/config-error/head/.tiergate.yaml" {
			continue // broken on purpose: the scenario of a config-error
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		examples[strings.TrimPrefix(f, "../../")] = data
	}
	if len(examples) < 6 {
		t.Fatalf("found %d configurations, the repository has at least 6", len(examples))
	}
	for name, data := range examples {
		if err := parse(name, data); err != nil {
			t.Errorf("%s: Parse: %v", name, err)
		}
		if err := validate(s, data); err != nil {
			t.Errorf("%s: schema: %v", name, err)
		}
	}
}

// TestSchemaAndParseRejectTheSame runs configurations that both must refuse.
func TestSchemaAndParseRejectTheSame(t *testing.T) {
	s := compiledSchema(t)
	cases := map[string]string{
		"unknown top-level key":     "clustres: []\n",
		"unknown cluster key":       "clusters:\n  - {name: a, path: b, paht: c}\n",
		"cluster without path":      "clusters:\n  - name: a\n",
		"bad sourceRef":             "clusters:\n  - {name: a, path: b, sourceRef: OCIRepository/x}\n",
		"bad source key":            "sources:\n  OCIRepository/x: kubernetes\n",
		"bad scope":                 "runtimeCRDs:\n  - createdWhen: a.io/B\n    kinds: [{group: a.io, kind: C, scope: Global}]\n",
		"runtime kind without kind": "runtimeCRDs:\n  - createdWhen: a.io/B\n    kinds: [{group: a.io, scope: Cluster}]\n",
		"bad createdWhen":           "runtimeCRDs:\n  - createdWhen: B\n",
		"bad failOn":                "failOn: sometimes\n",
		"strictSubstitution string": "strictSubstitution: maybe\n",
		"unknown rule":              "rules:\n  missing-wai: {severity: notice}\n",
		"bad severity":              "rules:\n  missing-wait: {severity: loud}\n",
		"rule without severity":     "rules:\n  missing-wait: {}\n",
		"rule shorthand":            "rules:\n  missing-wait: notice\n",
		"ignore without matcher":    "ignore:\n  - reason: legacy\n",
		"ignore unknown rule":       "ignore:\n  - rule: tier-mvoe\n",
		"ignore unknown key":        "ignore:\n  - paths: apps/**\n",
		"ignore ./ path":            "ignore:\n  - path: ./apps/**\n",
		"ignore absolute path":      "ignore:\n  - path: /apps/**\n",
		"ignore bare Kustomization": "ignore:\n  - kustomization: apps\n",
		"ignore empty object":       "ignore:\n  - object: {}\n",
		"ignore object apiVersion":  "ignore:\n  - object: {apiVersion: v1}\n",
		"remote scheme":             "remote:\n  allow: [https://github.com]\n",
		"remote port":               "remote:\n  allow: [git.example.com:8443]\n",
		"remote inner wildcard":     "remote:\n  allow: [git*.example.com]\n",
		"remote TLD wildcard":       "remote:\n  allow: ['*.com']\n",
		"remote any host":           "remote:\n  allow: ['*']\n",
		"remote upper case":         "remote:\n  allow: [GitHub.com]\n",
		"remote timeout number":     "remote:\n  timeout: 30\n",
		"remote maxBytes too big":   "remote:\n  maxBytes: 67108865\n",
		"remote unknown key":        "remote:\n  hosts: [github.com]\n",
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			if parse("x.yaml", []byte(in)) == nil {
				t.Error("Parse accepts it")
			}
			if validate(s, []byte(in)) == nil {
				t.Error("the schema accepts it")
			}
		})
	}
}
