package render

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/rendertest"
)

// A schema error about an object quotes the field's value: the object's Secret-derived
// parts (its SecretFields) are masked there whatever their length, in the error the
// Kustomization that applies it fails with (review's render-error, build's stderr).
// Before, `spec.retryInterval: "zq"` and `spec.timeout: "3q"` showed (hostile5 err).
// Negative: what the message says besides (the field, the pattern, the file and line)
// stays, and a violation not quoting a value (wait: a string) is as before.
func TestRejectedSecretValuesMasked(t *testing.T) {
	g, err := Render(context.Background(), "testdata/hostile5/err/head", Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := g.Cluster("dev")
	got := map[string]string{}
	for _, name := range []string{"e1", "e2", "e6"} {
		ks := c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: name}]
		if ks == nil || ks.Err == nil {
			t.Fatalf("flux-system/%s: want a build error, got %+v", name, ks)
		}
		got[name] = ks.Err.Message
	}
	const dur = ` is not a duration such as 30s, 5m or 1h30m (the schema's pattern ^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$)`
	want := map[string]string{
		"e1": `the API server rejects Kustomization flux-system/c-iv: spec.retryInterval: "<redacted>"` + dur + ` (e1/ks.yaml:13)`,
		"e2": `the API server rejects Kustomization flux-system/c-to: spec.timeout: "<redacted>"` + dur + ` (e2/ks.yaml:13)`,
		"e6": `the API server rejects Kustomization flux-system/c-pr: spec.wait: expected a boolean, got a string (e6/ks.yaml:13)`,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("build errors (-want +got):\n%s", d)
	}
}

// A Kustomization's own build error quotes its spec (a path its parent substituted from a
// Secret): its Secret-derived parts are masked there, any length. Negative: a literal path
// in the same error stays.
func TestBuildErrorOfSecretPath(t *testing.T) {
	dir := rendertest.Tree(t, rendertest.DevFleet("config", "s", map[string]string{
		"config/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: flux-system}\nstringData: {P: zq}\n",
		"apps/ks.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: child, namespace: flux-system}
spec: {interval: 10m, path: "./gone/${P}", prune: true, sourceRef: {kind: GitRepository, name: flux-system}}
`,
	}))
	g, err := Render(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ks := g.Cluster("dev").Kustomizations[graph.Ref{Namespace: "flux-system", Name: "child"}]
	if ks == nil || ks.Err == nil {
		t.Fatalf("child: want a build error, got %+v", ks)
	}
	if want := "kustomization path not found: ./gone/<redacted>"; ks.Err.Message != want {
		t.Errorf("child's error %q, want %q", ks.Err.Message, want)
	}
}

// kustomize's error quotes the node a replacement fails at, here a Secret's value (a
// 3-byte one, and a multi-line one kustomize re-flows onto one line): every Secret value
// of the build's inputs is masked in the build error, each line of a multi-line one too,
// whatever the length (hostile5 rerr). Negative: the field path and the rest stay.
func TestBuildErrorQuotesSecretNode(t *testing.T) {
	g, err := Render(context.Background(), "testdata/hostile5/rerr/head", Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, name := range []string{"config", "config2"} {
		ks := g.Cluster("dev").Kustomizations[graph.Ref{Namespace: "flux-system", Name: name}]
		if ks == nil || ks.Err == nil {
			t.Fatalf("flux-system/%s: want a build error, got %+v", name, ks)
		}
		got[name] = ks.Err.Message + "|" + ks.Err.Details
	}
	const pre = `unable to find field "stringData.%s.sub" in replacement target: wrong node kind: expected MappingNode but got ScalarNode: node contents:` + "\n<redacted>\n"
	want := map[string]string{
		"config":  fmt.Sprintf(pre, "short") + "|",
		"config2": fmt.Sprintf(pre, "multi") + "|",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("build errors (-want +got):\n%s", d)
	}
}
