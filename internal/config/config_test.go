package config

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseErrorsNameTheKey(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"unknown top-level key", "clustres: []\n", "x.yaml:1: clustres: unknown key"},
		{"unknown nested key", "clusters:\n  - name: a\n    path: b\n    paht: c\n", "x.yaml:4: clusters[0].paht: unknown key"},
		{"two unknown keys", "failOn: error\nrule: {}\nignores: []\n", "x.yaml:2: rule: unknown key\nx.yaml:3: ignores: unknown key"},
		{"wrong type", "strictSubstitution: maybe\n", "x.yaml:1: strictSubstitution: cannot unmarshal !!str `maybe` into bool"},
		{"syntax error", "failOn: error\nx: y: z\n", "x.yaml:2: mapping values are not allowed in this context"},
		{"duplicate key", "failOn: error\nfailOn: never\n", `x.yaml:2: failOn: mapping key "failOn" already defined at line 1`},
		{"cluster without path", "clusters:\n  - name: a\n", "x.yaml:2: clusters[0]: name and path are required"},
		{"bad sourceRef", "clusters:\n  - {name: a, path: b, sourceRef: OCIRepository/x}\n", `x.yaml:2: clusters[0].sourceRef: want Kind/namespace/name, got "OCIRepository/x"`},
		{"bad source key", "sources:\n  OCIRepository/x: kubernetes\n", `x.yaml:2: sources.OCIRepository/x: want a key Kind/namespace/name (globs allowed)`},
		{"bad scope", "runtimeCRDs:\n  - createdWhen: a.io/B\n    kinds: [{group: a.io, kind: C, scope: Global}]\n", `x.yaml:3: runtimeCRDs[0].kinds[0].scope: want Namespaced or Cluster, got "Global"`},
		{"bad createdWhen", "runtimeCRDs:\n  - createdWhen: B\n", `x.yaml:2: runtimeCRDs[0].createdWhen: want group/Kind, got "B"`},
		{"bad failOn", "failOn: sometimes\n", `x.yaml:1: failOn: want error, warning, notice or never, got "sometimes"`},
		// Every error of the file, in line order: a decode error does not hide a bad value.
		{"unknown key and bad value", "rulez: {}\nfailOn: sometimes\n", "x.yaml:1: rulez: unknown key\n" + `x.yaml:2: failOn: want error, warning, notice or never, got "sometimes"`},
		{"bad value before unknown key", "failOn: sometimes\nrulez: {}\n", `x.yaml:1: failOn: want error, warning, notice or never, got "sometimes"` + "\nx.yaml:2: rulez: unknown key"},
		{"wrong type, bad severity, bad ignore", "strictSubstitution: maybe\nrules:\n  tier-move: {severity: loud}\nignore:\n  - reason: x\n  - path: ./a\n",
			"x.yaml:1: strictSubstitution: cannot unmarshal !!str `maybe` into bool\n" +
				`x.yaml:3: rules.tier-move.severity: want error, warning, notice or off, got "loud"` + "\n" +
				"x.yaml:5: ignore[0]: give at least one of rule, cluster, path, kustomization, object\n" +
				`x.yaml:6: ignore[1].path: want a path relative to the repository root, without a leading / or ./, got "./a"`},

		{"bad severity", "rules:\n  missing-wait:\n    severity: loud\n", `x.yaml:3: rules.missing-wait.severity: want error, warning, notice or off, got "loud"`},
		{"rule without severity", "failOn: error\nrules:\n  missing-wait: {}\n", `x.yaml:3: rules.missing-wait.severity: want error, warning, notice or off, got ""`},
		{"shorthand severity", "rules:\n  missing-wait: notice\n", "x.yaml:2: rules.missing-wait: cannot unmarshal !!str `notice` into config.Rule"},
		{"unknown rule option", "rules:\n  missing-wait: {severity: notice, level: x}\n", "x.yaml:2: rules.missing-wait.level: unknown key"},

		{"ignore without matcher", "ignore:\n  - reason: legacy\n", "x.yaml:2: ignore[0]: give at least one of rule, cluster, path, kustomization, object"},
		{"ignore unknown key", "ignore:\n  - rule: tier-move\n  - paths: apps/**\n", "x.yaml:3: ignore[1].paths: unknown key"},
		{"ignore bad path glob", "ignore:\n  - rule: tier-move\n    path: 'apps/[a'\n", `x.yaml:3: ignore[0].path: bad glob "apps/[a"`},
		{"ignore absolute path", "ignore:\n  - path: ./apps/**\n", `x.yaml:2: ignore[0].path: want a path relative to the repository root, without a leading / or ./, got "./apps/**"`},
		{"ignore bad cluster glob", "ignore:\n  - cluster: 'prod-{a'\n", `x.yaml:2: ignore[0].cluster: bad glob "prod-{a"`},
		{"ignore Kustomization without namespace", "ignore:\n  - kustomization: apps\n", `x.yaml:2: ignore[0].kustomization: want namespace/name (globs allowed), got "apps"`},
		{"ignore empty object", "ignore:\n  - object: {}\n", "x.yaml:2: ignore[0].object: give at least one of group, kind, namespace, name"},
		{"ignore bad object glob", "ignore:\n  - object:\n      kind: ConfigMap\n      name: '[x'\n", `x.yaml:4: ignore[0].object.name: bad glob "[x"`},
		{"ignore unknown object key", "ignore:\n  - object: {apiVersion: v1}\n", "x.yaml:2: ignore[0].object.apiVersion: unknown key"},

		{"source folder outside the repository", "sources:\n  GitRepository/*/*: ../../etc\n", `x.yaml:2: sources.GitRepository/*/*: want a folder inside the repository such as kubernetes, got "../../etc"`},
		{"absolute source folder", "sources:\n  OCIRepository/flux-system/x: /etc\n", `x.yaml:2: sources.OCIRepository/flux-system/x: want a folder inside the repository such as kubernetes, got "/etc"`},
		{"cluster path outside the repository", "clusters:\n  - name: x\n    path: ../../etc\n", `x.yaml:3: clusters[0].path: want a folder inside the repository such as clusters/prod, got "../../etc"`},

		{"remote with scheme", "remote:\n  allow: [https://github.com]\n", `x.yaml:2: remote.allow[0]: want a lower-case host name such as github.com or *.example.com (fetched over https only), got "https://github.com"`},
		{"remote with port", "remote:\n  allow:\n    - github.com\n    - git.example.com:8443\n", `x.yaml:4: remote.allow[1]: want a lower-case host name such as github.com or *.example.com (fetched over https only), got "git.example.com:8443"`},
		{"remote inner wildcard", "remote:\n  allow: [git*.example.com]\n", `x.yaml:2: remote.allow[0]: want a lower-case host name such as github.com or *.example.com (fetched over https only), got "git*.example.com"`},
		{"remote wildcard on a TLD", "remote:\n  allow: ['*.com']\n", `x.yaml:2: remote.allow[0]: want a lower-case host name such as github.com or *.example.com (fetched over https only), got "*.com"`},
		{"remote any host", "remote:\n  allow: ['*']\n", `x.yaml:2: remote.allow[0]: want a lower-case host name such as github.com or *.example.com (fetched over https only), got "*"`},
		{"remote upper case", "remote:\n  allow: [GitHub.com]\n", `x.yaml:2: remote.allow[0]: want a lower-case host name such as github.com or *.example.com (fetched over https only), got "GitHub.com"`},
		{"remote timeout too long", "remote:\n  allow: [github.com]\n  timeout: 10m\n", "x.yaml:3: remote.timeout: want a duration above 0s and at most 2m0s, got 10m0s"},
		{"remote timeout without unit", "remote:\n  timeout: 30\n", "x.yaml:2: remote.timeout: cannot unmarshal !!int `30` into time.Duration"},
		{"remote maxBytes negative", "remote:\n  maxBytes: -1\n", "x.yaml:2: remote.maxBytes: want 1 to 67108864 bytes, got -1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("x.yaml", []byte(tc.in))
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error = %v, want %s", err, tc.want)
			}
		})
	}
}

func TestCheckRules(t *testing.T) {
	known := []string{"missing-wait", "tier-move"}
	cases := []struct{ name, in, want string }{
		{"known", "rules:\n  tier-move: {severity: off}\nignore:\n  - rule: missing-wait\n", ""},
		{"unknown rule key", "failOn: error\nrules:\n  missing-wai: {severity: notice}\n", `.tiergate.yaml:3: rules.missing-wai: unknown rule "missing-wai" (rules: missing-wait, tier-move)`},
		{"unknown ignore rule", "ignore:\n  - path: apps/**\n  - rule: tier-mvoe\n", `.tiergate.yaml:3: ignore[1].rule: unknown rule "tier-mvoe" (rules: missing-wait, tier-move)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse(FileName, []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if err := c.CheckRules(known); err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Fatalf("error = %q, want %q", got, tc.want)
			}
		})
	}
}

// ParseKnown lists unknown rule ids with the file's other errors, in line order, and All
// splits them one by one.
func TestParseKnownListsEveryError(t *testing.T) {
	in := "rules:\n  missing-wai: {severity: off}\nfailOn: sometimes\nbogus: 1\n"
	_, err := ParseKnown(FileName, []byte(in), []string{"missing-wait"})
	want := []string{
		`.tiergate.yaml:2: rules.missing-wai: unknown rule "missing-wai" (rules: missing-wait)`,
		`.tiergate.yaml:3: failOn: want error, warning, notice or never, got "sometimes"`,
		".tiergate.yaml:4: bogus: unknown key",
	}
	var got []string
	for _, e := range All(err) {
		got = append(got, e.Error())
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("errors (-want +got):\n%s", d)
	}
	if c, err := ParseKnown(FileName, []byte("failOn: never\n"), nil); err != nil || c.FailOn != "never" {
		t.Fatalf("ParseKnown of a good file: %v, %v", c, err)
	}
	if _, err := ParseKnown(FileName, []byte("failOn: x\nx: y: z\n"), nil); err == nil || err.Error() != ".tiergate.yaml:2: mapping values are not allowed in this context" {
		t.Fatalf("ParseKnown of a syntax error: %v", err)
	}
}

func TestParseReviewKeys(t *testing.T) {
	c, err := Parse("repo/.tiergate.yaml", []byte(`rules:
  missing-wait: {severity: notice}
  tier-move:
    severity: off
ignore:
  - rule: prune-transient
    kustomization: flux-system/*
    reason: moved by hand
  - object: {group: "", kind: ConfigMap, name: legacy-*}
remote:
  allow: [github.com, "*.example.com"]
  timeout: 45s
  maxBytes: 1048576
`))
	if err != nil {
		t.Fatal(err)
	}
	str := func(s string) *string { return &s }
	if d := cmp.Diff(map[string]Rule{"missing-wait": {Severity: "notice"}, "tier-move": {Severity: "off"}}, c.Rules); d != "" {
		t.Errorf("rules (-want +got):\n%s", d)
	}
	wantIgnore := []Ignore{
		{Rule: "prune-transient", Kustomization: "flux-system/*", Reason: "moved by hand", At: "repo/.tiergate.yaml:6"},
		{Object: &ObjectPattern{Group: str(""), Kind: str("ConfigMap"), Name: str("legacy-*")}, At: "repo/.tiergate.yaml:9"},
	}
	if d := cmp.Diff(wantIgnore, c.Ignore); d != "" {
		t.Errorf("ignore (-want +got):\n%s", d)
	}
	if d := cmp.Diff(&Remote{Allow: []string{"github.com", "*.example.com"}, Timeout: 45 * time.Second, MaxBytes: 1 << 20}, c.Remote); d != "" {
		t.Errorf("remote (-want +got):\n%s", d)
	}
}

func TestRemoteAllows(t *testing.T) {
	r := &Remote{Allow: []string{"github.com", "*.example.com"}}
	got := map[string]bool{}
	for _, h := range []string{"github.com", "GitHub.com", "api.github.com", "example.com", "git.example.com", "a.b.example.com", "badexample.com", "github.com.evil.io"} {
		got[h] = r.Allows(h)
	}
	want := map[string]bool{"github.com": true, "GitHub.com": true, "api.github.com": false, "example.com": false, "git.example.com": true,
		"a.b.example.com": true, "badexample.com": false, "github.com.evil.io": false}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if (*Remote)(nil).Allows("github.com") {
		t.Error("no remote key allows nothing")
	}
}

func TestSourceDirAndStrict(t *testing.T) {
	c, err := Parse("x.yaml", []byte(`sources:
  OCIRepository/flux-system/flux-system: kubernetes
  ExternalArtifact/*/*: kubernetes/apps
strictSubstitution: false
`))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range []string{"OCIRepository/flux-system/flux-system", "ExternalArtifact/flux-system/web", "GitRepository/flux-system/other"} {
		dir, ok := c.SourceDir(s)
		if ok {
			got[s] = dir
		}
	}
	want := map[string]string{"OCIRepository/flux-system/flux-system": "kubernetes", "ExternalArtifact/flux-system/web": "kubernetes/apps"}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
	if c.Strict() {
		t.Fatal("strictSubstitution: false must make Strict() false")
	}
	if !(&Config{}).Strict() || !(*Config)(nil).Strict() {
		t.Fatal("strict substitution is the default (Flux 2.9)")
	}
}

func TestLoadOptional(t *testing.T) {
	dir := t.TempDir()
	c, err := Load(filepath.Join(dir, FileName), true)
	if err != nil || len(c.Clusters) != 0 {
		t.Fatalf("missing optional file: %v %+v", err, c)
	}
	if _, err := Load(filepath.Join(dir, FileName), false); err == nil {
		t.Fatal("a missing --config file must be an error")
	}
	os.WriteFile(filepath.Join(dir, FileName), []byte("failOn: warning\n"), 0o644)
	if c, err := Load(filepath.Join(dir, FileName), true); err != nil || c.FailOn != "warning" {
		t.Fatalf("%v %+v", err, c)
	}
}

func TestKubeAndAPIVersions(t *testing.T) {
	c, err := Parse("x.yaml", []byte("kubeVersion: v1.32.0\napiVersions: [gateway.networking.k8s.io/v1/HTTPRoute, monitoring.coreos.com/v1]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"v1.32.0", "gateway.networking.k8s.io/v1/HTTPRoute", "monitoring.coreos.com/v1"}, append([]string{c.KubeVersion}, c.APIVersions...)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	for doc, want := range map[string]string{
		"kubeVersion: latest\n":       `x.yaml:1: kubeVersion: want a Kubernetes version such as v1.33.0, got "latest"`,
		"apiVersions:\n  - a/b/c/d\n": `x.yaml:2: apiVersions[0]: want group/version or group/version/Kind, got "a/b/c/d"`,
	} {
		if _, err := Parse("x.yaml", []byte(doc)); err == nil || err.Error() != want {
			t.Errorf("%q: error %v, want %s", doc, err, want)
		}
	}
}
