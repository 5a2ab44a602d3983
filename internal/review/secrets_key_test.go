package review

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tiergate/tiergate/internal/render"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/rendertest"
	"github.com/tiergate/tiergate/internal/review/rules"
)

// reviewCase renders testdata/hostile5/NAME/{base,head} and reviews them.
func reviewCase(t *testing.T, name string) (base, head *graph.Graph, r *Report) {
	t.Helper()
	dir := filepath.Join("testdata", "hostile5", name)
	var err error
	if base, err = render.Render(context.Background(), filepath.Join(dir, "base"), render.Options{}); err != nil {
		t.Fatal(err)
	}
	if head, err = render.Render(context.Background(), filepath.Join(dir, "head"), render.Options{}); err != nil {
		t.Fatal(err)
	}
	return base, head, strictReview(base, head)
}

// The identity of a finding (Key, which SARIF hashes into partialFingerprints and the
// suppression guid) is built from the redacted report: the Kustomizations a finding is
// about and its rule-specific detail are unexported, and were hashed as the repository
// gave them, so 1,296 guesses told a 2-byte dependsOn (hostile5 fp2).
func TestFindingKeysRedacted(t *testing.T) {
	_, _, r := reviewCase(t, "fp2")
	want := "depends-on-not-found\x00dev\x00\x00flux-system/tier-<redacted>\x00flux-system/<redacted>"
	found := false
	for _, f := range append(r.Findings, ignoredFindings(r)...) {
		k := f.Key()
		if k == want {
			found = true
		}
		if strings.Contains(k, "vk9plm") || containsToken(k, "jw") {
			t.Errorf("finding key %q holds a Secret value", k)
		}
	}
	if !found {
		t.Errorf("no finding with key %q", want)
	}
	// Negative: a finding about Kustomizations named literally keeps their names.
	keys := map[string]bool{}
	for _, f := range r.Findings {
		keys[f.Key()] = true
	}
	for _, k := range []string{"render-error\x00dev\x00\x00flux-system/t2\x00", "substitution-type-change\x00dev\x00ConfigMap/default/lenx\x00\x00data.len"} {
		if !keys[k] {
			t.Errorf("no finding with key %q; have %v", k, keys)
		}
	}
}

func ignoredFindings(r *Report) []rules.Finding {
	var out []rules.Finding
	for _, ig := range r.Ignored {
		out = append(out, ig.Finding)
	}
	return out
}

// containsToken reports whether v stands in s with no name byte on either side.
func containsToken(s, v string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], v)
		if j < 0 {
			return false
		}
		j += i
		if tokenStart(s, j) && tokenEnd(s, j+len(v)) {
			return true
		}
		i = j + 1
	}
}

// Two Kustomizations named from different Secret values (k-${DEP}, k-${DEP2}) are two
// nodes of the report's graph with the same masked text; their parent is found by its
// place in the graph (ParentNode), which the drawn graph uses (hostile5 ord).
func TestGraphNodesOfMaskedNames(t *testing.T) {
	_, _, r := reviewCase(t, "ord")
	if len(r.Graphs) != 1 {
		t.Fatalf("graphs: %d", len(r.Graphs))
	}
	nodes := r.Graphs[0].Nodes
	var masked []int
	o1 := 0
	for i, n := range nodes {
		switch n.Kustomization {
		case "flux-system/k-<redacted>":
			masked = append(masked, i)
		case "flux-system/o1":
			o1 = i + 1
		}
	}
	if len(masked) != 2 || o1 == 0 {
		t.Fatalf("want two masked nodes and o1, got %+v", nodes)
	}
	for _, i := range masked {
		if nodes[i].ParentNode != o1 || nodes[i].Parent != "flux-system/o1" {
			t.Errorf("node %d: parent %q at %d, want flux-system/o1 at %d", i, nodes[i].Parent, nodes[i].ParentNode, o1)
		}
	}
	// Negative: the root has no parent.
	if nodes[0].ParentNode != 0 || nodes[0].Parent != "" {
		t.Errorf("root: %+v", nodes[0])
	}
}

// The "Kustomization changes" diff masks the fields the parent substituted from a Secret
// at their positions (the Kustomization's SecretFields), as object diffs do: a 3-byte
// `${LONGV:0:3}` showed as `"Y": Lq4` (hostile5 relay). Negative: a literal field of the
// same spec (path) shows as written.
func TestKustomizationDiffMasksSecretFields(t *testing.T) {
	_, _, r := reviewCase(t, "relay")
	var diff string
	for _, c := range r.KustomizationChanges {
		if c.Kustomization == "flux-system/child" {
			diff = c.Diff
		}
	}
	if diff == "" {
		t.Fatalf("no change of flux-system/child: %+v", r.KustomizationChanges)
	}
	for _, line := range []string{`-      X: <redacted>`, `+      X: <redacted, changed>`, `       "Y": <redacted>`} {
		if !strings.Contains(diff, line+"\n") {
			t.Errorf("diff lacks %q:\n%s", line, diff)
		}
	}
	for _, v := range []string{"Lq4", "jw", "JW", "LQ4"} {
		if containsToken(diff, v) || strings.Contains(diff, "Lq4") {
			t.Errorf("diff holds %q:\n%s", v, diff)
		}
	}
	if !strings.Contains(diff, "   path: ./rc\n") {
		t.Errorf("diff lacks its literal context:\n%s", diff)
	}
}

// A finding's texts have the Secret-derived parts of the object it is about masked, any
// length, as a token or quoted value; a finding about another object keeps the same text
// (negative), and so does a part inside a larger word.
func TestFindingTextsMaskTheirObject(t *testing.T) {
	files := rendertest.DevFleet("secrets", "s", map[string]string{
		"secrets/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: flux-system}\nstringData: {AB: zq}\n",
		"apps/cm.yaml":        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: default}\ndata: {v: \"${AB}\"}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: default}\ndata: {v: zq}\n",
	})
	g := renderFiles(t, files)
	a := graph.ObjectID{Kind: "ConfigMap", Namespace: "default", Name: "a"}
	b := graph.ObjectID{Kind: "ConfigMap", Namespace: "default", Name: "b"}
	fs := []rules.Finding{
		{Rule: "x", Cluster: "dev", Object: &a, Message: `data.v: "zq" is odd; zqx stays`, Suggestion: "change zq"},
		{Rule: "x", Cluster: "dev", Object: &b, Message: `data.v: "zq" is odd; zqx stays`, Suggestion: "change zq"},
	}
	maskByObject(fs, g)
	got := []string{fs[0].Message + " | " + fs[0].Suggestion, fs[1].Message + " | " + fs[1].Suggestion}
	want := []string{`data.v: "<redacted>" is odd; zqx stays | change <redacted>`, `data.v: "zq" is odd; zqx stays | change zq`}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("finding %d: %q, want %q", i, got[i], want[i])
		}
	}
}
