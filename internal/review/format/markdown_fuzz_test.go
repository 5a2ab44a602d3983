package format

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/review"
	"github.com/tiergate/tiergate/internal/review/rules"
)

// FuzzMarkdown renders reports made of a fuzzed JSON report plus n findings, moves,
// partial notes, graphs and changed objects whose every string is the fuzzed text
// (and whose diffs are the fuzzed diff). Invariants, at the default limit and at a fuzzed
// one of at least 512: the comment fits the limit; the marker is its first line and appears
// nowhere else, and no other HTML comment opens; every code fence (CommonMark rules: up to
// three spaces of indent, a closing fence at least as long) is closed; <details> blocks
// outside fences balance.
func FuzzMarkdown(f *testing.F) {
	seed, err := json.Marshal(fixture())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed, hostile, "--- base\n+++ head\n+```\n+"+Marker+"\n", uint8(1), uint16(0))
	f.Add([]byte(`{"findings":[{"rule":"x","severity":"error","status":"new","suggestion":"a\n   `+"```"+`\nb"}]}`), "  ```", "~~~\n````\n", uint8(3), uint16(400))
	f.Add([]byte(`{}`), "<!-- tiergate -->\n</details>", strings.Repeat("+x\n", 2000), uint8(40), uint16(3000))
	if golden, err := os.ReadFile(filepath.Join("testdata", "markdown.golden.md")); err == nil {
		f.Add([]byte(`{}`), string(golden[:min(len(golden), 2000)]), string(golden), uint8(2), uint16(65535))
	}
	f.Fuzz(func(t *testing.T, reportJSON []byte, text, diff string, n uint8, maxChars uint16) {
		r := &review.Report{}
		_ = json.Unmarshal(reportJSON, r) // whatever decodes is kept
		addHostile(r, text, diff, int(n))
		for _, limit := range []int{0, 512 + int(maxChars)} {
			md := Markdown(r, MarkdownOptions{MaxChars: limit})
			if limit == 0 {
				limit = 65536
			}
			if len(md) > limit {
				t.Fatalf("comment is %d bytes, limit %d", len(md), limit)
			}
			checkComment(t, md)
		}
	})
}

// addHostile adds n items (at most 49) of every kind, all made of text and diff, spread
// over up to four clusters with one graph each, as Review reports them: more would only
// repeat work and slow each run down.
func addHostile(r *review.Report, text, diff string, n int) {
	id := graph.ObjectID{Group: text, Kind: text, Namespace: text, Name: text}
	for i := range n % 50 {
		cluster := fmt.Sprint(text, i%4)
		status := []rules.Status{rules.StatusNew, rules.StatusExisting, rules.StatusResolved}[i%3]
		r.Findings = append(r.Findings, rules.Finding{Rule: text, Severity: rules.Severity(i % 4), Status: status, Cluster: cluster,
			Object: &id, Kustomization: text, Message: text, Suggestion: text + "\n" + diff, DependsOn: fmt.Sprint(text, i), File: text, Line: i})
		r.Moves = append(r.Moves, rules.Move{Cluster: cluster, Object: id, From: text, To: fmt.Sprint(text, i)})
		if i < 4 {
			r.Clusters = append(r.Clusters, review.ClusterSummary{Name: cluster, Root: text,
				Partial: []graph.Partial{{Kustomization: text, Reason: text, URLs: []string{text}}}})
			r.Graphs = append(r.Graphs, review.ClusterGraph{Cluster: cluster, Nodes: []review.GraphNode{
				{Kustomization: text, Parent: text, DependsOn: []string{text, diff}, Failed: i%2 == 0}}})
		}
		c := review.ObjectChange{Cluster: cluster, Object: id, Kustomization: text, File: text, Line: i, Diff: diff}
		r.Added, r.Removed, r.Changed = append(r.Added, c), append(r.Removed, c), append(r.Changed, c)
		r.KustomizationChanges = append(r.KustomizationChanges, review.KustomizationChange{Cluster: cluster, Kustomization: text,
			Change: []review.Change{review.Added, review.Removed, review.Changed}[i%3], File: text, Line: i, Diff: diff})
	}
	r.Base, r.Head = text, text
}

// checkComment asserts the structure a forge relies on, with CommonMark's fence rules.
func checkComment(t *testing.T, md string) {
	t.Helper()
	if !strings.HasPrefix(md, Marker+"\n") {
		t.Fatalf("comment does not start with the marker line: %q", md[:min(len(md), 80)])
	}
	if n := strings.Count(md, Marker); n != 1 {
		t.Fatalf("marker appears %d times", n)
	}
	if n := strings.Count(md, "<!--"); n != 1 {
		t.Fatalf("%d HTML comments open, want only the marker", n)
	}
	// CommonMark line endings are \n, \r\n and \r.
	lines := strings.Split(strings.ReplaceAll(strings.ReplaceAll(md, "\r\n", "\n"), "\r", "\n"), "\n")
	fence, depth := "", 0
	for i, l := range lines {
		indented := strings.TrimLeft(l, " ")
		if len(l)-len(indented) > 3 {
			indented = ""
		}
		run := len(indented) - len(strings.TrimLeft(indented, "`"))
		switch {
		case fence == "" && run >= 3 && !strings.Contains(indented[run:], "`"):
			fence = indented[:run]
		case fence != "" && run >= len(fence) && strings.TrimSpace(indented[run:]) == "":
			fence = ""
		case fence == "":
			depth += strings.Count(l, "<details") - strings.Count(l, "</details>")
			if depth < 0 {
				t.Fatalf("line %d: </details> without <details>", i+1)
			}
		}
	}
	if fence != "" {
		t.Fatalf("code fence %q never closed", fence)
	}
	if depth != 0 {
		t.Fatalf("%d <details> left open", depth)
	}
}
