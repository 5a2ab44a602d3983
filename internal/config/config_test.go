package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseErrorsNameTheKey(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"unknown top-level key", "clustres: []\n", "x.yaml: yaml: unmarshal errors:\n  line 1: field clustres not found in type config.Config"},
		{"unknown nested key", "clusters:\n  - name: a\n    path: b\n    paht: c\n", "x.yaml: yaml: unmarshal errors:\n  line 4: field paht not found in type config.Cluster"},
		{"wrong type", "strictSubstitution: maybe\n", "x.yaml: yaml: unmarshal errors:\n  line 1: cannot unmarshal !!str `maybe` into bool"},
		{"cluster without path", "clusters:\n  - name: a\n", "x.yaml: clusters[0]: name and path are required"},
		{"bad sourceRef", "clusters:\n  - {name: a, path: b, sourceRef: OCIRepository/x}\n", `x.yaml: clusters[0].sourceRef: want Kind/namespace/name, got "OCIRepository/x"`},
		{"bad source key", "sources:\n  OCIRepository/x: kubernetes\n", `x.yaml: sources: key "OCIRepository/x": want Kind/namespace/name (globs allowed)`},
		{"bad scope", "runtimeCRDs:\n  - createdWhen: a.io/B\n    kinds: [{group: a.io, kind: C, scope: Global}]\n", `x.yaml: runtimeCRDs[0].kinds[0].scope: want Namespaced or Cluster, got "Global"`},
		{"bad createdWhen", "runtimeCRDs:\n  - createdWhen: B\n", `x.yaml: runtimeCRDs[0].createdWhen: want group/Kind, got "B"`},
		{"bad failOn", "failOn: sometimes\n", `x.yaml: failOn: want error, warning, notice or never, got "sometimes"`},
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
