package kustomize

import (
	"testing"

	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// TestNodeJSONIsKyamls: NodeJSON gives kyaml's RNode.MarshalJSON bytes for objects with
// every kind of scalar (quoted numbers, floats, nulls, booleans, timestamps, binary,
// multi-line text), sequences, empty collections and a top-level sequence.
func TestNodeJSONIsKyamls(t *testing.T) {
	for _, doc := range []string{
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations: {x: \"1\", y: 'true'}\ndata:\n  n: \"010\"\n  t: |\n    line one\n    line two\n",
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, labels: {}}\nspec:\n  replicas: 3\n  ratio: 0.5\n  big: 12345678901234\n  exp: 1e3\n  hex: 0x1f\n  none: null\n  tilde: ~\n  yes: true\n  when: 2024-01-02T03:04:05Z\n  list: [1, \"2\", 3.0, {a: b}, []]\n",
		"apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ntype: Opaque\ndata:\n  k: !!binary aGVsbG8=\n",
		"- a\n- 1\n- {b: [c]}\n",
		"{}\n",
	} {
		rn, err := kyaml.Parse(doc)
		if err != nil {
			t.Fatal(err)
		}
		want, werr := rn.MarshalJSON()
		got, gerr := NodeJSON(rn)
		if (werr == nil) != (gerr == nil) || string(got) != string(want) {
			t.Errorf("%q:\n got %s (%v)\nwant %s (%v)", doc, got, gerr, want, werr)
		}
	}
	if got, err := NodeJSON(kyaml.NewRNode(nil)); err != nil || string(got) != "null" {
		t.Errorf("nil node: %s, %v", got, err)
	}
}
