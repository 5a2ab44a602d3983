package forgetest

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// spec is an API description (OpenAPI 3 or Swagger 2) reduced to what the fakes check:
// which method + path templates exist, the type of path parameters, and the schema of
// the JSON body.
type spec struct {
	doc      map[string]any
	basePath string // Swagger 2 only ("/api/v1")
	swagger2 bool
	routes   []*route
}

type route struct {
	method, template string
	re               *regexp.Regexp
	names            []string
	literal          int // characters outside {params}: the most literal match wins
	op               map[string]any
	params           []map[string]any // path-level and operation-level, $refs resolved
}

var specs sync.Map // file → *spec (or error): the GitHub description is 3.6 MB

func loadSpec(file string) (*spec, error) {
	if v, ok := specs.Load(file); ok {
		if err, isErr := v.(error); isErr {
			return nil, err
		}
		return v.(*spec), nil
	}
	s, err := parseSpec(file)
	if err != nil {
		specs.Store(file, err)
		return nil, err
	}
	specs.Store(file, s)
	return s, nil
}

func parseSpec(file string) (*spec, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	s := &spec{}
	if err := json.Unmarshal(raw, &s.doc); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	_, s.swagger2 = s.doc["swagger"]
	s.basePath, _ = s.doc["basePath"].(string)
	paths, _ := s.doc["paths"].(map[string]any)
	for tmpl, v := range paths {
		item, _ := s.resolve(v).(map[string]any)
		for method, o := range item {
			op, ok := o.(map[string]any)
			if !ok || method == "parameters" {
				continue
			}
			rt := &route{method: strings.ToUpper(method), template: tmpl, op: op}
			rt.re, rt.names, rt.literal = compileTemplate(s.basePath + tmpl)
			rt.params = append(s.paramList(item["parameters"]), s.paramList(op["parameters"])...)
			s.routes = append(s.routes, rt)
		}
	}
	sort.Slice(s.routes, func(i, j int) bool {
		a, b := s.routes[i], s.routes[j]
		if a.literal != b.literal {
			return a.literal > b.literal
		}
		return a.template+" "+a.method < b.template+" "+b.method
	})
	return s, nil
}

var paramRE = regexp.MustCompile(`\{([^}]+)\}`)

// compileTemplate turns "/repos/{owner}/{repo}/pulls/{index}.{diffType}" into a regexp
// whose parameters match one path segment (or part of one).
func compileTemplate(t string) (*regexp.Regexp, []string, int) {
	var b strings.Builder
	var names []string
	last, literal := 0, 0
	for _, m := range paramRE.FindAllStringSubmatchIndex(t, -1) {
		b.WriteString(regexp.QuoteMeta(t[last:m[0]]))
		literal += m[0] - last
		b.WriteString(`([^/]+)`)
		names = append(names, t[m[2]:m[3]])
		last = m[1]
	}
	b.WriteString(regexp.QuoteMeta(t[last:]))
	literal += len(t) - last
	return regexp.MustCompile("^" + b.String() + "$"), names, literal
}

func (s *spec) paramList(v any) []map[string]any {
	list, _ := v.([]any)
	out := make([]map[string]any, 0, len(list))
	for _, p := range list {
		if m, ok := s.resolve(p).(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// resolve follows a local "$ref" ("#/components/schemas/x", "#/definitions/x").
func (s *spec) resolve(v any) any {
	for i := 0; i < 32; i++ {
		m, ok := v.(map[string]any)
		if !ok {
			return v
		}
		ref, ok := m["$ref"].(string)
		if !ok {
			return v
		}
		var cur any = s.doc
		for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
			m, _ := cur.(map[string]any)
			cur = m[part]
		}
		v = cur
	}
	return v
}

// match finds the operation for method and path and returns its path parameters.
func (s *spec) match(method, path string) (*route, map[string]string, error) {
	found := false
	for _, rt := range s.routes {
		m := rt.re.FindStringSubmatch(path)
		if m == nil {
			continue
		}
		found = true
		if rt.method != method {
			continue
		}
		params := map[string]string{}
		for i, n := range rt.names {
			params[n] = m[i+1]
		}
		return rt, params, s.checkPathParams(rt, params)
	}
	if found {
		return nil, nil, fmt.Errorf("the API description has no %s operation on %s", method, path)
	}
	return nil, nil, fmt.Errorf("the API description has no path matching %s", path)
}

func (s *spec) checkPathParams(rt *route, params map[string]string) error {
	for _, p := range rt.params {
		if p["in"] != "path" {
			continue
		}
		name, _ := p["name"].(string)
		typ, _ := p["type"].(string)
		if sch, ok := s.resolve(p["schema"]).(map[string]any); ok {
			typ, _ = sch["type"].(string)
		}
		if typ == "integer" {
			if _, err := strconv.ParseInt(params[name], 10, 64); err != nil {
				return fmt.Errorf("path parameter %s=%q is not an integer", name, params[name])
			}
		}
	}
	return nil
}

// bodySchema returns the JSON body schema of an operation, whether a body is required,
// and whether the operation takes a body at all.
func (s *spec) bodySchema(rt *route) (schema any, required, takes bool) {
	if s.swagger2 {
		for _, p := range rt.params {
			if p["in"] == "body" {
				req, _ := p["required"].(bool)
				return p["schema"], req, true
			}
		}
		return nil, false, false
	}
	rb, ok := s.resolve(rt.op["requestBody"]).(map[string]any)
	if !ok {
		return nil, false, false
	}
	req, _ := rb["required"].(bool)
	content, _ := rb["content"].(map[string]any)
	media, _ := content["application/json"].(map[string]any)
	return media["schema"], req, true
}
