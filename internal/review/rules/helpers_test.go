package rules

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render"
	"github.com/tiergate/tiergate/internal/render/graph"
)

// Fixtures are small Flux repositories written by renderTree. Every tier is a Flux
// Kustomization flux-system/<name> in clusters/dev/<name>.yaml (made by tier), so the root
// Kustomization flux-system emits it; its objects live in the top-level folder <name>/,
// outside the root's path. Object manifests made by obj have `kind:` on line 2.

const bootstrapSync = `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 1m0s
  ref:
    branch: main
  url: https://example.com/fleet.git
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 10m0s
  path: ./clusters/dev
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
`

const bootstrapKustomization = `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - gotk-sync.yaml
`

// renderTree writes files (repo-relative path → content) next to a minimal flux bootstrap
// of cluster "dev" in a temporary directory, renders it and returns the "dev" cluster.
// Test names must stay within [a-zA-Z0-9 _.:-]: t.TempDir() embeds them in the path, and
// kustomize's in-memory filesystem refuses any other character in a directory name.
func renderTree(t *testing.T, files map[string]string) *graph.Cluster {
	t.Helper()
	dir := t.TempDir()
	all := map[string]string{
		"clusters/dev/flux-system/gotk-sync.yaml":     bootstrapSync,
		"clusters/dev/flux-system/kustomization.yaml": bootstrapKustomization,
	}
	maps.Copy(all, files)
	for name, data := range all {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g, err := render.Render(context.Background(), dir, render.Options{})
	if err != nil {
		t.Fatalf("render %s: %v", dir, err)
	}
	c := g.Cluster("dev")
	if c == nil {
		var names []string
		for _, c := range g.Clusters {
			names = append(names, c.Name)
		}
		t.Fatalf("cluster dev not rendered; clusters: %v", names)
	}
	return c
}

// tierFile is where tier(name, ...) is expected: the root's folder.
func tierFile(name string) string { return "clusters/dev/" + name + ".yaml" }

// tier returns the manifest of Flux Kustomization flux-system/<name> applying path from
// the flux-system GitRepository. Lines: kind 2, path 8, prune 9; each extra line is a
// spec line (indented two more spaces), the first one on line 13.
func tier(name, path string, prune bool, extra ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: %s
  namespace: flux-system
spec:
  interval: 10m0s
  path: %s
  prune: %t
  sourceRef:
    kind: GitRepository
    name: flux-system
`, name, path, prune)
	for _, l := range extra {
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}

// dependsOn returns the spec lines of a dependsOn list, for tier.
func dependsOn(names ...string) []string {
	out := []string{"dependsOn:"}
	for _, n := range names {
		out = append(out, "  - name: "+n)
	}
	return out
}

// obj returns one object manifest with `kind:` on line 2. rest follows the metadata name
// and namespace lines verbatim, so "  labels:" or "  annotations:" continue metadata.
func obj(apiVersion, kind, namespace, name string, rest ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: %s\nkind: %s\nmetadata:\n  name: %s\n", apiVersion, kind, name)
	if namespace != "" {
		fmt.Fprintf(&b, "  namespace: %s\n", namespace)
	}
	for _, l := range rest {
		b.WriteString(l + "\n")
	}
	return b.String()
}

func configMap(namespace, name string, rest ...string) string {
	if len(rest) == 0 {
		rest = []string{"data:", "  key: value"}
	}
	return obj("v1", "ConfigMap", namespace, name, rest...)
}

func namespaceObj(name string, rest ...string) string {
	return obj("v1", "Namespace", "", name, rest...)
}

// pvc returns a PersistentVolumeClaim; storageClass "" leaves storageClassName out.
// rest continues metadata.
func pvc(namespace, name, storageClass string, rest ...string) string {
	rest = append(rest,
		"spec:",
		"  accessModes: [ReadWriteOnce]",
		"  resources:",
		"    requests:",
		"      storage: 1Gi")
	if storageClass != "" {
		rest = append(rest, "  storageClassName: "+storageClass)
	}
	return obj("v1", "PersistentVolumeClaim", namespace, name, rest...)
}

func deployment(namespace, name string) string {
	return obj("apps/v1", "Deployment", namespace, name,
		"spec:",
		"  selector:",
		"    matchLabels: {app: "+name+"}",
		"  template:",
		"    metadata:",
		"      labels: {app: "+name+"}",
		"    spec:",
		"      containers:",
		"        - name: app",
		"          image: nginx:1.27")
}

// crd returns a CustomResourceDefinition of kind in group with the given scope.
func crd(group, kind, plural, scope string) string {
	return obj("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", plural+"."+group,
		"spec:",
		"  group: "+group,
		"  names:",
		"    kind: "+kind,
		"    plural: "+plural,
		"  scope: "+scope,
		"  versions:",
		"    - name: v1",
		"      served: true",
		"      storage: true",
		"      schema:",
		"        openAPIV3Schema:",
		"          type: object",
		"          x-kubernetes-preserve-unknown-fields: true")
}

// cdiObj is the CDI resource that makes cdi-operator create CDI's CRDs.
func cdiObj() string { return obj("cdi.kubevirt.io/v1beta1", "CDI", "", "cdi", "spec: {}") }

func storageProfile(name string) string {
	return obj("cdi.kubevirt.io/v1beta1", "StorageProfile", "", name, "spec: {}")
}

// merge combines fixture maps; later ones win.
func merge(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		maps.Copy(out, m)
	}
	return out
}

func testEnv() *Env { return &Env{Catalog: NewCatalog(nil), Strict: true} }

// stateRule returns the check registered in State under id.
func stateRule(t *testing.T, id string) func(c, other *graph.Cluster, env *Env) []Finding {
	t.Helper()
	for _, r := range State {
		if r.ID == id {
			return r.Check
		}
	}
	t.Fatalf("state rule %q is not registered", id)
	return nil
}

// changeRule returns the check registered in Change under id.
func changeRule(t *testing.T, id string) func(base, head *graph.Cluster, env *Env) []Finding {
	t.Helper()
	for _, r := range Change {
		if r.ID == id {
			return r.Check
		}
	}
	t.Fatalf("change rule %q is not registered", id)
	return nil
}

// want is the expected projection of a Finding; Msg and Sugg are substrings that the
// message and the suggestion must contain.
type want struct {
	Rule          string
	Severity      Severity
	Kustomization string
	Object        string // graph.ObjectID.String(); "" for a Kustomization finding
	File          string
	Line          int
	Msg           []string
	Sugg          []string
}

// row is the part of a finding compared with cmp.Diff.
type row struct {
	Rule, Severity, Kustomization, Object, File string
	Line                                        int
}

func (w want) row() row {
	return row{w.Rule, w.Severity.String(), w.Kustomization, w.Object, w.File, w.Line}
}

func rowOf(f Finding) row {
	id := ""
	if f.Object != nil {
		id = f.Object.String()
	}
	return row{f.Rule, f.Severity.String(), f.Kustomization, id, f.File, f.Line}
}

// checkFindings asserts that got is exactly want, in order.
func checkFindings(t *testing.T, got []Finding, want []want) {
	t.Helper()
	gr, wr := []row{}, []row{}
	for _, f := range got {
		gr = append(gr, rowOf(f))
	}
	for _, w := range want {
		wr = append(wr, w.row())
	}
	if diff := cmp.Diff(wr, gr); diff != "" {
		t.Fatalf("findings mismatch (-want +got):\n%s\ngot:\n%s", diff, dump(got))
	}
	for i, w := range want {
		f := got[i]
		if f.Cluster != "dev" {
			t.Errorf("finding %d: cluster = %q, want dev", i, f.Cluster)
		}
		if f.Message == "" || f.Suggestion == "" {
			t.Errorf("finding %d: empty message or suggestion:\n%s", i, dump(got[i:i+1]))
		}
		for _, s := range w.Msg {
			if !strings.Contains(f.Message, s) {
				t.Errorf("finding %d: message %q does not contain %q", i, f.Message, s)
			}
		}
		for _, s := range w.Sugg {
			if !strings.Contains(f.Suggestion, s) {
				t.Errorf("finding %d: suggestion %q does not contain %q", i, f.Suggestion, s)
			}
		}
	}
}

func dump(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "  %+v\n    message: %s\n    suggestion: %s\n", rowOf(f), f.Message, f.Suggestion)
	}
	return b.String()
}

// checkBuilt fails the test when a Kustomization of c did not build, unless it is listed in
// broken: a fixture typo would otherwise pass as "no finding".
func checkBuilt(t *testing.T, c *graph.Cluster, broken ...string) {
	t.Helper()
	for _, ref := range c.Order {
		ks := c.Kustomizations[ref]
		bad := ks.Err != nil || ks.Skipped != ""
		want := false
		for _, b := range broken {
			if b == ref.Name {
				want = true
			}
		}
		if bad != want {
			t.Fatalf("Kustomization %s: error %v, skipped %q; want broken=%t", ref, ks.Err, ks.Skipped, want)
		}
	}
}

// renderBuilt renders the base and head trees and fails the test unless every
// Kustomization of both built.
func renderBuilt(t *testing.T, base, head map[string]string) (*graph.Cluster, *graph.Cluster) {
	t.Helper()
	b, h := renderTree(t, base), renderTree(t, head)
	checkBuilt(t, b)
	checkBuilt(t, h)
	return b, h
}
