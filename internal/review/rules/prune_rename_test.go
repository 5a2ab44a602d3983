package rules

import (
	"testing"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// TestPruneTransientRenameSuggestion: an object renamed by its Kustomization's
// targetNamespace was moved by nobody, so the suggestion says what the two steps do for a
// rename (the old object stays, outside the inventory); a child Kustomization renamed so
// gets the FAQ's `prune: false` first; a real move keeps "then move it".
func TestPruneTransientRenameSuggestion(t *testing.T) {
	renamed := func(ns string) map[string]string {
		return map[string]string{
			tierFile("a"): tier("a", "./a", true, "targetNamespace: "+ns),
			"a/cm.yaml":   configMap("", "cm"),
		}
	}
	got := changeRule(t, "prune-transient")(renderTree(t, renamed("one")), renderTree(t, renamed("two")), testEnv())
	if len(got) != 1 {
		t.Fatalf("got %d findings, want 1:\n%s", len(got), dump(got))
	}
	const want = "Nothing moves ConfigMap/one/cm: its new identity comes from the spec.targetNamespace of flux-system/a, and the new object is created whatever the order. " +
		"To keep the old one from being pruned first, merge it in two steps: add the annotation `kustomize.toolkit.fluxcd.io/prune: disabled` to ConfigMap/one/cm in a/cm.yaml and let Flux apply it, then merge the change of spec.targetNamespace of flux-system/a. " +
		"Flux creates ConfigMap/two/cm and leaves ConfigMap/one/cm in the cluster, outside its inventory: delete ConfigMap/one/cm by hand once ConfigMap/two/cm serves (and drop the annotation then). " +
		"Or set `prune: false` on Kustomization flux-system/a for that merge and restore `prune: true` after it: the old object stays the same way."
	if got[0].Suggestion != want {
		t.Errorf("suggestion:\n got %q\nwant %q", got[0].Suggestion, want)
	}

	// A Kustomization object renamed by its parent's targetNamespace.
	parent := func(ns string) map[string]string {
		return map[string]string{
			tierFile("p"):   tier("p", "./p", true, "targetNamespace: "+ns),
			"p/child.yaml":  tier("child", "./child", true),
			"child/cm.yaml": configMap("default", "cm"),
		}
	}
	got = changeRule(t, "prune-transient")(renderTree(t, parent("one")), renderTree(t, parent("two")), testEnv())
	var ks []Finding
	for _, f := range got {
		if f.Object != nil && f.Object.Kind == "Kustomization" {
			ks = append(ks, f)
		}
	}
	if len(ks) != 1 {
		t.Fatalf("got %d Kustomization findings, want 1:\n%s", len(ks), dump(got))
	}
	const wantKS = "Nothing moves Kustomization one/child: its new identity comes from the spec.targetNamespace of flux-system/p. " +
		"Merge it in two steps: first set `prune: false` in the spec of Kustomization one/child (p/child.yaml:2) and let Flux apply it, then merge the change of spec.targetNamespace of flux-system/p: " +
		"the parent prunes the old Kustomization, whose finalizer then deletes nothing (its deletionPolicy is MirrorPrune unless set), and two/child applies the same objects and takes them over. Restore `prune: true` afterwards."
	if ks[0].Suggestion != wantKS {
		t.Errorf("suggestion:\n got %q\nwant %q", ks[0].Suggestion, wantKS)
	}

	// Negative: a real move still says "then move it".
	base := map[string]string{tierFile("a"): tier("a", "./a", true), tierFile("b"): tier("b", "./b", true), "a/cm.yaml": configMap("default", "cm"), "b/keep.yaml": configMap("default", "keep")}
	head := map[string]string{tierFile("a"): tier("a", "./a", true), tierFile("b"): tier("b", "./b", true), "b/cm.yaml": configMap("default", "cm"), "a/keep.yaml": configMap("default", "keep-a"), "b/keep.yaml": configMap("default", "keep")}
	base["a/keep.yaml"] = configMap("default", "keep-a")
	got = changeRule(t, "prune-transient")(renderTree(t, base), renderTree(t, head), testEnv())
	if len(got) != 1 {
		t.Fatalf("move: got %d findings, want 1:\n%s", len(got), dump(got))
	}
	const wantMove = "Merge the move in two steps: first add the annotation `kustomize.toolkit.fluxcd.io/prune: disabled` to ConfigMap/default/cm in a/cm.yaml and let Flux apply it, then move it (and drop the annotation later). " +
		"Or set `prune: false` on Kustomization flux-system/a, merge, move the object, then restore `prune: true`."
	if got[0].Suggestion != wantMove {
		t.Errorf("move suggestion:\n got %q\nwant %q", got[0].Suggestion, wantMove)
	}
}

// TestRenameLeftOver: what a rename's suggestion says of the old object left in the
// cluster: never to delete a CRD, a Namespace or a claim without saying what goes with it.
func TestRenameLeftOver(t *testing.T) {
	id := func(group, kind, ns, name string) graph.ObjectID {
		return graph.ObjectID{Group: group, Kind: kind, Namespace: ns, Name: name}
	}
	for _, tc := range []struct {
		old, n graph.ObjectID
		want   string
	}{
		{id("", "ConfigMap", "one", "cm"), id("", "ConfigMap", "two", "cm"), "delete ConfigMap/one/cm by hand once ConfigMap/two/cm serves"},
		{id("", "Namespace", "", "one"), id("", "Namespace", "", "two"), "delete Namespace/one by hand only once nothing in it is needed, since deleting a Namespace deletes every object in it"},
		{id("", "PersistentVolumeClaim", "one", "data"), id("", "PersistentVolumeClaim", "two", "data"),
			"delete PersistentVolumeClaim/one/data by hand only once its data is no longer needed (under the usual Delete reclaim policy its volume goes with it)"},
		{id("apiextensions.k8s.io", "CustomResourceDefinition", "", "widgets.example.com"), id("apiextensions.k8s.io", "CustomResourceDefinition", "", "p-widgets.example.com"),
			"leave CustomResourceDefinition.apiextensions.k8s.io/widgets.example.com: deleting a CRD makes the API server delete every custom resource of its kind"},
	} {
		if got := leftOver(tc.old, tc.n); got != tc.want {
			t.Errorf("leftOver(%s):\n got %q\nwant %q", tc.old, got, tc.want)
		}
	}
}
