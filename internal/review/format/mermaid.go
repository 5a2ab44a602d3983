package format

import (
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/tiergate/tiergate/internal/review"
	"github.com/tiergate/tiergate/internal/review/rules"
)

// maxGraphNodes bounds a drawn graph: GitHub's Mermaid renders larger ones unreadably small.
const maxGraphNodes = 150

// maxWholeGraph is the most Kustomizations drawn whole in the comment: scaled to the
// comment's width, a larger graph's labels are too small to read (seen at 79). A larger
// graph is cut down to what the PR touches (focus).
const maxWholeGraph = 40

// graphBlock draws one cluster's Kustomizations with moved objects and missing dependsOn,
// open when the cluster has something new to look at.
func graphBlock(r *review.Report, g review.ClusterGraph) string {
	summary := esc(g.Cluster) + ": " + plural(len(g.Nodes), "Kustomization", "Kustomizations")
	if len(g.Nodes) > maxGraphNodes {
		return fmt.Sprintf("<i>Graph of %s not drawn: more than %d.</i>\n", summary, maxGraphNodes)
	}
	if keep := focus(r, g); keep != nil {
		summary = fmt.Sprintf("%s: %s of %s Kustomizations (those this change touches, their parents and dependencies)",
			esc(g.Cluster), num(len(keep)), num(len(g.Nodes)))
	}
	tag := "<details>"
	if active(r, g.Cluster) {
		tag = "<details open>"
	}
	return tag + "<summary>" + summary + "</summary>\n\n```mermaid\n" + flowchart(r, g) + "```\n\n</details>\n"
}

func active(r *review.Report, cluster string) bool {
	for _, f := range r.Findings {
		if f.Cluster == cluster && f.Status == rules.StatusNew {
			return true
		}
	}
	for _, m := range r.Moves {
		if m.Cluster == cluster {
			return true
		}
	}
	return false
}

// focus is the set of Kustomizations a graph over maxWholeGraph is cut down to: those a move
// or a new finding names, their parents and what they dependsOn. It is nil when the graph is
// drawn whole: small enough, or nothing in it is new.
func focus(r *review.Report, g review.ClusterGraph) map[string]bool {
	if len(g.Nodes) <= maxWholeGraph {
		return nil
	}
	seeds := map[string]bool{}
	for _, m := range r.Moves {
		if m.Cluster == g.Cluster {
			seeds[m.From], seeds[m.To] = true, true
		}
	}
	for _, f := range r.Findings {
		if f.Cluster == g.Cluster && f.Status == rules.StatusNew && f.Kustomization != "" {
			seeds[f.Kustomization] = true
			if f.DependsOn != "" {
				seeds[f.DependsOn] = true
			}
		}
	}
	if len(seeds) == 0 {
		return nil
	}
	keep := maps.Clone(seeds)
	for _, n := range g.Nodes {
		if !seeds[n.Kustomization] {
			continue
		}
		if n.Parent != "" {
			keep[n.Parent] = true
		}
		for _, d := range n.DependsOn {
			keep[d] = true
		}
	}
	return keep
}

func flowchart(r *review.Report, g review.ClusterGraph) string { return drawChart(r, g).String() }

// drawChart lays out the flowchart of g: one node per entry of g.Nodes (its index, not its
// text, is its identity: two names masked alike stay two nodes), edges of dependsOn,
// parents, moves and missing dependsOn.
func drawChart(r *review.Report, g review.ClusterGraph) *chart {
	keep := focus(r, g)
	in := func(ks string) bool { return keep == nil || keep[ks] }
	c := &chart{ids: map[string]string{}, used: map[string]bool{}, byText: map[string]string{}}
	inGraph := map[string]bool{}
	notReviewed := map[string]bool{}
	for _, u := range r.Unreviewed {
		if u.Cluster == g.Cluster && u.Kind == "Kustomization" {
			notReviewed[u.Name] = true
		}
	}
	for i, n := range g.Nodes {
		inGraph[n.Kustomization] = true
		if _, ok := c.byText[n.Kustomization]; !ok {
			c.byText[n.Kustomization] = nodeKey(i)
		}
		if !in(n.Kustomization) {
			continue
		}
		// A build tiergate's own limit stopped has an error but is no render error: Flux may apply it.
		switch id := c.node(g, i); {
		case notReviewed[n.Kustomization]:
			c.unreviewed = append(c.unreviewed, id)
		case n.Failed:
			c.failed = append(c.failed, id)
		}
	}
	c.sealed = true
	// drawn: both ends are drawn, or the far end is named but not in the graph at all.
	drawn := func(from, to string) bool { return in(from) && (in(to) || !inGraph[to]) }
	for i, n := range g.Nodes {
		for j, dep := range n.DependsOn {
			if drawn(n.Kustomization, dep) {
				// A dependsOn on a Kustomization that is not in the graph never becomes Ready.
				c.edge(c.node(g, i)+" --> "+c.at(g, dep, n.DependsOnNodes, j), !inGraph[dep])
			}
		}
	}
	for i, n := range g.Nodes {
		if n.Parent != "" && drawn(n.Parent, n.Kustomization) {
			c.edge(c.at(g, n.Parent, []int{n.ParentNode}, 0)+" -.-> "+c.node(g, i), false)
		}
	}
	c.moves(r.Moves, g.Cluster)
	c.missing(r.Findings, g.Cluster, drawn)
	return c
}

// nodeKey is the chart's key of g.Nodes[i]; no Kustomization's text starts with '#'.
func nodeKey(i int) string { return "#" + strconv.Itoa(i) }

// chart collects a Mermaid flowchart; Kustomizations referenced but not in the graph (a
// deleted old owner, a dependsOn that names nothing) are drawn dashed.
type chart struct {
	ids            map[string]string // by nodeKey, or by text for a Kustomization not in the graph
	byText         map[string]string // a text's first node: for moves and findings, which name by text
	used           map[string]bool
	sealed         bool
	nodes, edges   []string
	red            []string
	failed, absent []string
	unreviewed     []string // Kustomizations not reviewed (review.Unreviewed): amber, not red
}

// ref is the id of the Kustomization named ks: the first node of that text, else a node
// drawn for the name alone (absent once the graph's own nodes are drawn).
func (c *chart) ref(ks string) string {
	if key, ok := c.byText[ks]; ok {
		return c.add(key, ks)
	}
	return c.add(ks, ks)
}

// node is the id of g.Nodes[i].
func (c *chart) node(g review.ClusterGraph, i int) string {
	return c.add(nodeKey(i), g.Nodes[i].Kustomization)
}

// at is the id of the Kustomization named ks whose node, plus one, is nodes[j] when known.
func (c *chart) at(g review.ClusterGraph, ks string, nodes []int, j int) string {
	if j < len(nodes) && nodes[j] > 0 && nodes[j] <= len(g.Nodes) {
		return c.node(g, nodes[j]-1)
	}
	return c.ref(ks)
}

// add returns the id of key, drawing a node labelled ks the first time.
func (c *chart) add(key, ks string) string {
	if id, ok := c.ids[key]; ok {
		return id
	}
	id := c.unique(nodeID(ks))
	c.ids[key] = id
	c.nodes = append(c.nodes, "  "+id+`["`+mlabel(ks)+`"]`+"\n")
	if c.sealed {
		c.absent = append(c.absent, id)
	}
	return id
}

// unique returns id, or id with the first free "_N" suffix, and marks it used.
func (c *chart) unique(id string) string {
	u := id
	for i := 2; c.used[u]; i++ {
		u = id + "_" + strconv.Itoa(i)
	}
	c.used[u] = true
	return u
}

func (c *chart) edge(line string, red bool) {
	if red {
		c.red = append(c.red, strconv.Itoa(len(c.edges)))
	}
	c.edges = append(c.edges, "  "+line+"\n")
}

// moves draws one labelled edge per (from, to) pair, however many objects take it.
func (c *chart) moves(ms []rules.Move, cluster string) {
	type pair struct{ from, to string }
	var order []pair
	label := map[pair]string{}
	count := map[pair]int{}
	for _, m := range ms {
		if m.Cluster != cluster {
			continue
		}
		p := pair{m.From, m.To}
		if count[p] == 0 {
			order = append(order, p)
			label[p] = "moves: " + m.Object.Kind + "/" + m.Object.Name
		}
		count[p]++
	}
	for _, p := range order {
		l := label[p]
		if count[p] > 1 {
			l = fmt.Sprintf("moves: %d objects", count[p])
		}
		c.edge(c.ref(p.from)+` -. "`+mlabel(l)+`" .-> `+c.ref(p.to), false)
	}
}

// missing draws the dependsOn edges that missing-depends-on findings ask for.
func (c *chart) missing(fs []rules.Finding, cluster string, drawn func(from, to string) bool) {
	seen := map[[2]string]bool{}
	for _, f := range fs {
		if f.Rule != "missing-depends-on" || f.Cluster != cluster || f.Status == rules.StatusResolved || f.Kustomization == "" {
			continue
		}
		to := f.DependsOn
		key := [2]string{f.Kustomization, to}
		if to == "" || seen[key] || !drawn(f.Kustomization, to) {
			continue
		}
		seen[key] = true
		c.edge(c.ref(f.Kustomization)+` == "missing dependsOn" ==> `+c.ref(to), true)
	}
}

func (c *chart) String() string {
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	writeAll(&b, c.nodes)
	writeAll(&b, c.edges)
	if len(c.failed) > 0 {
		b.WriteString("  classDef failed fill:#ffebe9,stroke:#cf222e,color:#82071e\n  class " + strings.Join(c.failed, ",") + " failed\n")
	}
	if len(c.unreviewed) > 0 {
		b.WriteString("  classDef unreviewed fill:#fff8c5,stroke:#9a6700,color:#4d2d00\n  class " + strings.Join(c.unreviewed, ",") + " unreviewed\n")
	}
	if len(c.absent) > 0 {
		b.WriteString("  classDef absent stroke-dasharray:5 5\n  class " + strings.Join(c.absent, ",") + " absent\n")
	}
	if len(c.red) > 0 {
		b.WriteString("  linkStyle " + strings.Join(c.red, ",") + " stroke:#cf222e,stroke-width:2px\n")
	}
	return b.String()
}

// nodeID is a Mermaid node id: prefixed so that no id is a keyword such as "end".
func nodeID(ks string) string {
	b := []byte("k_")
	for _, r := range ks {
		if isWord(r) {
			b = append(b, byte(r))
		} else {
			b = append(b, '_')
		}
	}
	return string(b)
}

// mlabel writes a quoted Mermaid label; anything but plain characters becomes a Mermaid
// entity (#60;), so a label can neither end its quotes nor carry HTML or a code fence.
func mlabel(s string) string {
	var b strings.Builder
	for _, r := range s {
		if isWord(r) || strings.ContainsRune(" /._:-", r) {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, "#%d;", r)
		}
	}
	return b.String()
}

func isWord(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_'
}

// Mermaid returns the Mermaid flowchart of one cluster's Kustomizations (dependsOn and
// parent edges; Kustomizations that are named but absent drawn dashed), as `bot graph`
// prints it.
// Each HelmRelease is drawn under its Kustomization, with the count of objects its chart
// renders.
func Mermaid(g review.ClusterGraph) string {
	c := drawChart(&review.Report{}, g)
	out := c.String()
	var extra strings.Builder
	for i, n := range g.Nodes {
		ks := c.node(g, i)
		for _, hr := range n.HelmReleases {
			id := c.unique("h_" + ks[2:] + "_" + nodeID(hr.HelmRelease)[2:])
			label := "HelmRelease " + hr.HelmRelease
			switch {
			case hr.NotRendered != "":
				label += " (not rendered)"
			case hr.Error != "":
				label += " (fails)"
			default:
				label += fmt.Sprintf(" (%d objects)", len(hr.Objects))
			}
			fmt.Fprintf(&extra, "  %s[\"%s\"]\n  %s --- %s\n", id, mlabel(label), ks, id)
		}
	}
	return out + extra.String() // after the edges: linkStyle counts them from the first
}
