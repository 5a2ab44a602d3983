package rules

import "testing"

// substitute returns the spec lines of a postBuild.substitute with one variable per pair.
func substitute(kv ...string) []string {
	out := []string{"postBuild:", "  substitute:"}
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, "    "+kv[i]+": \""+kv[i+1]+"\"")
	}
	return out
}

// substituteFrom returns the spec lines of a postBuild.substituteFrom of one ConfigMap.
func substituteFrom(name string, optional bool) []string {
	out := []string{"postBuild:", "  substituteFrom:", "    - kind: ConfigMap", "      name: " + name}
	if optional {
		out = append(out, "      optional: true")
	}
	return out
}

func TestUndefinedVariable(t *testing.T) {
	// app returns tier apps with spec and its ConfigMap apps/cm.yaml with the given lines
	// after metadata.name/namespace (line 6 on).
	app := func(spec []string, rest ...string) map[string]string {
		return map[string]string{
			tierFile("apps"): tier("apps", "./apps", true, spec...),
			"apps/cm.yaml":   configMap("default", "cm", rest...),
		}
	}
	// apps puts ${Y} on line 7 and expr on line 8.
	apps := func(expr string, spec []string) map[string]string {
		return app(spec, "data:", "  y: ${Y}", "  x: "+expr)
	}
	undefined := func(sev Severity, name string, line int) want {
		return want{
			Rule: "undefined-variable", Severity: sev, Kustomization: "flux-system/apps",
			Object: "ConfigMap/default/cm", File: "apps/cm.yaml", Line: line,
			Msg: []string{"${" + name + "} in ConfigMap/default/cm is defined by neither postBuild.substitute nor substituteFrom of flux-system/apps"},
			Sugg: []string{"`${" + name + ":=value}`", "`$${" + name + "}`",
				"`kustomize.toolkit.fluxcd.io/substitute: disabled`"},
		}
	}
	rootVars := map[string]string{
		"clusters/dev/vars.yaml": configMap("flux-system", "cluster-vars", "data:", "  X: dev", "  Y: \"1\""),
	}
	cases := []struct {
		name   string
		files  map[string]string
		strict bool
		bug    string
		want   []want
	}{
		{
			name:   "undefined with strict substitution",
			files:  apps("${X}", substitute("Y", "1")),
			strict: true,
			want:   []want{undefined(Error, "X", 8)},
		},
		{
			name:  "undefined without strict substitution",
			files: apps("${X}", substitute("Y", "1")),
			want:  []want{undefined(Warning, "X", 8)},
		},
		{
			name:   "two undefined variables",
			files:  apps("a${Z}b${X}c", substitute("Y", "1")),
			strict: true,
			want:   []want{undefined(Error, "X", 8), undefined(Error, "Z", 8)},
		},
		{
			name:   "defined by substitute",
			files:  apps("${X}", substitute("X", "a", "Y", "1")),
			strict: true,
		},
		{
			name:   "default operator colon equals",
			files:  apps("${X:=d}", substitute("Y", "1")),
			strict: true,
		},
		{
			name:   "default operator colon dash",
			files:  apps("${X:-d}", substitute("Y", "1")),
			strict: true,
		},
		{
			name:   "default operator equals",
			files:  apps("${X=d}", substitute("Y", "1")),
			strict: true,
		},
		{
			name:   "escaped",
			files:  apps("$${X}", substitute("Y", "1")),
			strict: true,
		},
		{
			name: "object annotated substitute disabled",
			files: app(substitute("Y", "1"),
				"  annotations:", "    kustomize.toolkit.fluxcd.io/substitute: disabled", "data:", "  x: ${X}"),
			strict: true,
		},
		{
			name:   "defined through substituteFrom a ConfigMap the root emits",
			files:  merge(apps("${X}", substituteFrom("cluster-vars", false)), rootVars),
			strict: true,
		},
		{
			name: "substituteFrom a Secret the repository does not render",
			files: apps("${X}", []string{"postBuild:", "  substitute:", "    Y: \"1\"",
				"  substituteFrom:", "    - kind: Secret", "      name: made-at-runtime"}),
			strict: true,
		},
		{
			name:   "postBuild resolves nothing",
			files:  apps("${X}", substituteFrom("absent", true)),
			strict: true,
		},
		{
			name:   "undefined variable whose name prefixes a defined one on an earlier line",
			files:  app(substitute("XY", "1"), "data:", "  a: ${XY}", "  x: ${X}"),
			strict: true,
			want:   []want{undefined(Error, "X", 8)},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.bug != "" {
				t.Skip("BUG: " + tc.bug)
			}
			c := renderTree(t, tc.files)
			checkBuilt(t, c)
			env := &Env{Catalog: NewCatalog(nil), Strict: tc.strict}
			checkFindings(t, stateRule(t, "undefined-variable")(c, nil, env), tc.want)
		})
	}
}

func TestUnsubstitutedVariable(t *testing.T) {
	// apps/cm.yaml: the tested expression on line 7.
	apps := func(expr string, spec []string, meta ...string) map[string]string {
		return map[string]string{
			tierFile("apps"): tier("apps", "./apps", true, spec...),
			"apps/cm.yaml": configMap("default", "cm",
				append(append([]string(nil), meta...), "data:", "  x: "+expr)...),
		}
	}
	literal := func(line int, msg ...string) want {
		return want{
			Rule: "unsubstituted-variable", Severity: Warning, Kustomization: "flux-system/apps",
			Object: "ConfigMap/default/cm", File: "apps/cm.yaml", Line: line, Msg: msg,
			Sugg: []string{"Add spec.postBuild.substitute (or substituteFrom) to flux-system/apps"},
		}
	}
	cases := []struct {
		name  string
		files map[string]string
		want  []want
	}{
		{
			name:  "no postBuild",
			files: apps("${X}", nil),
			want:  []want{literal(7, "ConfigMap/default/cm contains ${X}, but flux-system/apps has no postBuild")},
		},
		{
			name:  "no postBuild with a default operator",
			files: apps("${X:=d}", nil),
			want:  []want{literal(7, "contains ${X:=d}, but flux-system/apps has no postBuild")},
		},
		{
			name:  "several expressions",
			files: apps("${B}-${A}", nil),
			want:  []want{literal(7, "contains ${A}, ${B}, but")},
		},
		{
			name:  "postBuild whose substitute resolves nothing",
			files: apps("${X}", []string{"postBuild:", "  substitute: {}"}),
			want:  []want{literal(7, "contains ${X}, but flux-system/apps resolves no postBuild variable")},
		},
		{
			name:  "postBuild whose optional substituteFrom is absent",
			files: apps("${X}", substituteFrom("absent", true)),
			want:  []want{literal(7, "resolves no postBuild variable")},
		},
		{
			name:  "postBuild resolves a variable",
			files: apps("${X}", substitute("X", "a")),
		},
		{
			name:  "escaped",
			files: apps("$${X}", nil),
		},
		{
			name: "object annotated substitute disabled",
			files: apps("${X}", nil,
				"  annotations:", "    kustomize.toolkit.fluxcd.io/substitute: disabled"),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := renderTree(t, tc.files)
			checkBuilt(t, c)
			checkFindings(t, stateRule(t, "unsubstituted-variable")(c, nil, testEnv()), tc.want)
		})
	}
}
