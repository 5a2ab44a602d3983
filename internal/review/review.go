package review

import (
	"cmp"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/tiergate/tiergate/internal/config"
	"github.com/tiergate/tiergate/internal/render"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/review/rules"
)

// Options configures a review.
type Options struct {
	Env rules.Env
	// BaseRev and HeadRev are written into the report as they are (commit shas).
	BaseRev, HeadRev string
	// Config supplies the rule severities and the ignore list of .tiergate.yaml; nil: none.
	Config *config.Config
	// ConfigErrors are the config-error findings of a head .tiergate.yaml that could not be
	// used (pipeline), one per error in it. No ignore entry or rule severity applies to
	// them: the configuration that would say so is the one that is broken.
	ConfigErrors []rules.Finding
}

// Review compares base and head cluster by cluster (matched by identity,
// graph.MatchClusters, and shown by the head's name) and returns the report. State rules run on both graphs: a finding only at head is new, at both is
// existing, only at base is resolved. Change rules run on the transition and are new.
func Review(base, head *graph.Graph, opts Options) *Report {
	r := &Report{Base: opts.BaseRev, Head: opts.HeadRev, Discovery: head.Discovery}
	var diffTime, rulesTime time.Duration
	// One set for the whole review: a value common in one cluster is redacted at its
	// positions only in every object of both commits (Common).
	common := CommonValues(base, head)
	rd := redactionWith(common, base, head)
	var redactText func(string) string // nil when nothing is to be redacted
	if len(rd.pairs) > 0 || len(rd.tokens) > 0 {
		redactText = rd.replacer().Replace
	}
	for _, p := range graph.MatchClusters(base, head) {
		b, h := sameName(p)
		if u, ok := rootUnreadable(b, h, head); ok {
			r.Unreviewed = append(r.Unreviewed, u) // unknown at head: neither gone nor resolved
			continue
		}
		start := time.Now()
		r.summarize(b, h)
		env := &opts.Env
		var atBase, atHead []rules.Finding
		for _, rule := range rules.State {
			if b != nil {
				atBase = append(atBase, rule.Check(b, h, env)...)
			}
			if h != nil {
				atHead = append(atHead, rule.Check(h, b, env)...)
			}
		}
		stated := withStatus(atBase, atHead, rules.Renames(b, h))
		rules.NamespaceDeleted(stated, b, h)
		r.Findings = append(r.Findings, unknownAtHead(stated, b, h)...)
		if b != nil && h == nil {
			r.Findings = append(r.Findings, clusterGone(b))
		}
		if b != nil && h != nil {
			for _, rule := range rules.Change {
				for _, f := range rule.Check(b, h, env) {
					f.Status = rules.StatusNew
					r.Findings = append(r.Findings, f)
				}
			}
			r.Moves = append(r.Moves, rules.Moves(b, h)...)
		}
		mid := time.Now()
		rulesTime += mid.Sub(start)
		r.diffObjects(b, h, common, redactText)
		r.diffKustomizations(b, h, common)
		r.diffReleases(b, h)
		if h != nil {
			r.Graphs = append(r.Graphs, graphOf(h))
			r.Unreviewed = append(r.Unreviewed, unreviewed(h)...)
		}
		diffTime += time.Since(mid)
	}
	applyConfig(r, opts.Config)
	r.Findings = append(r.Findings, opts.ConfigErrors...)
	groupCauses(r.Findings)
	sortFindings(r.Findings)
	sort.SliceStable(r.Ignored, func(i, j int) bool { return findingLess(r.Ignored[i].Finding, r.Ignored[j].Finding) })
	r.Timings = map[string]float64{"diff": diffTime.Seconds(), "rules": rulesTime.Seconds()}
	r.Unread = unreadFiles(base, head)
	mask := objectMasker(base, head)
	mask(r.Findings)
	for i := range r.Ignored {
		one := []rules.Finding{r.Ignored[i].Finding}
		mask(one)
		r.Ignored[i].Finding = one[0]
	}
	if len(rd.pairs) > 0 || len(rd.ids) > 0 || len(rd.tokens) > 0 {
		redactStrings(reflect.ValueOf(r).Elem(), rd.replacer(), rd.ids)
	}
	return r
}

// clusterGone reports a cluster whose root folder the change removes: the root
// Kustomization lives in the cluster, not in git, and fails with 'kustomization path not
// found' until someone deletes it (nothing is pruned meanwhile).
func clusterGone(b *graph.Cluster) rules.Finding {
	root := b.Kustomizations[b.Root]
	return rules.Finding{
		Rule: "render-error", Severity: rules.Error, Status: rules.StatusNew, Cluster: b.Name, Kustomization: b.Root.String(),
		Message:    fmt.Sprintf("Cluster %s is gone at head: its root Kustomization %s still runs in the cluster and fails with 'kustomization path not found: %s'.", b.Name, b.Root, b.RootDir),
		Suggestion: fmt.Sprintf("If the cluster is decommissioned, uninstall Flux from it (or delete Kustomization %s) before merging; otherwise restore %s.", b.Root, b.RootDir),
		File:       root.File, Line: root.Line,
	}
}

// rootUnreadable reports base cluster b, unmatched at head (h nil), as not reviewed when a
// head cluster comes from b's root file and its root fails to build there (a YAML error in
// gotk-sync.yaml: discovery then finds the folder under another identity). The root object
// in the cluster keeps running its last applied revision: the cluster is not gone, and
// nothing of it is known at head (its render-error is the head cluster's finding).
func rootUnreadable(b, h *graph.Cluster, head *graph.Graph) (Unreviewed, bool) {
	if b == nil || h != nil || b.RootFile == "" {
		return Unreviewed{}, false
	}
	for _, c := range head.Clusters {
		root := c.Kustomizations[c.Root]
		if root == nil || root.Err == nil || (c.RootFile != b.RootFile && root.Err.File != b.RootFile) {
			continue
		}
		u := Unreviewed{Cluster: b.Name, Kind: "Kustomization", Name: b.Root.String(), Kustomization: b.Root.String(),
			Reason: fmt.Sprintf("cluster %s is not reviewed at head: its root %s cannot be read there (see its render-error), so what the cluster runs after the merge is unknown; it is not gone", b.Name, b.RootFile),
			File:   b.RootFile}
		if ks := b.Kustomizations[b.Root]; ks != nil {
			u.File, u.Line = ks.File, ks.Line
		}
		return u, true
	}
	return Unreviewed{}, false
}

// sameName returns the pair with the base cluster under the head's name, so that findings
// and diffs of a renamed cluster carry one name and unchanged findings stay existing. The
// base is a shallow copy: rendered graphs are shared and never modified.
func sameName(p graph.ClusterPair) (b, h *graph.Cluster) {
	b, h = p.Base, p.Head
	if b != nil && h != nil && b.Name != h.Name {
		c := *b
		c.Name = h.Name
		b = &c
	}
	return b, h
}

func (r *Report) summarize(b, h *graph.Cluster) {
	c := h
	if c == nil {
		c = b
	}
	partial := render.Partials(c)
	if partial == nil {
		partial = []graph.Partial{}
	}
	r.Clusters = append(r.Clusters, ClusterSummary{Name: c.Name, Root: cmp.Or(c.RootDir, "."), Kustomizations: len(c.Kustomizations), Objects: c.ObjectCount(), Partial: partial})
}

// unreviewed lists the Kustomizations of the head cluster c that were not built in full,
// the ResourceSets whose inputs need a live service and the HelmReleases whose charts were
// not rendered or that tiergate's bounds stopped (their resources are unknown).
func unreviewed(c *graph.Cluster) []Unreviewed {
	var out []Unreviewed
	for _, ref := range c.Order {
		ks := c.Kustomizations[ref]
		if reason := ks.NotReviewed(); reason != "" {
			out = append(out, Unreviewed{Cluster: c.Name, Kind: "Kustomization", Name: ref.String(), Kustomization: ref.String(),
				Reason: reason, URLs: ks.Remote, File: ks.File, Line: ks.Line})
		}
		for _, skip := range ks.ResourceSetSkipped {
			rs := skip.ResourceSet
			out = append(out, Unreviewed{Cluster: c.Name, Kind: rs.Kind, Name: rs.Namespace + "/" + rs.Name, Kustomization: ref.String(), Reason: skip.Reason})
		}
		for _, skip := range ks.HelmReleaseSkipped {
			if skip.Suspended {
				continue // not reconciled: nothing unknown
			}
			hr := skip.HelmRelease
			out = append(out, Unreviewed{Cluster: c.Name, Kind: hr.Kind, Name: hr.Namespace + "/" + hr.Name, Kustomization: ref.String(),
				Reason: skip.Reason, Chart: skip.Chart, Host: skip.Host, AlsoAllow: skip.AlsoAllow, File: skip.File, Line: skip.Line})
		}
		// A chart that fails to render is a helm-render-error finding, reviewed: Flux fails
		// it the same way. A render tiergate's own bounds refused is not reviewed: the
		// chart may render in the cluster, and what it installs is unknown.
		for _, e := range ks.HelmReleaseErrors {
			if !e.Err.Limit {
				continue
			}
			hr := e.HelmRelease
			out = append(out, Unreviewed{Cluster: c.Name, Kind: hr.Kind, Name: hr.Namespace + "/" + hr.Name, Kustomization: ref.String(),
				Reason: e.Err.Message, File: e.Err.File, Line: e.Err.Line})
		}
	}
	return out
}

// unknownAtHead drops the resolved findings about objects of a Kustomization whose head
// build is not known (it fails, is partial, or a failing parent hides it): their absence at
// head is not a fix, and the render-error or partial note already says so.
func unknownAtHead(fs []rules.Finding, b, h *graph.Cluster) []rules.Finding {
	if b == nil || h == nil {
		return fs
	}
	var out []rules.Finding
	for _, f := range fs {
		ns, name, _ := strings.Cut(f.Kustomization, "/")
		if f.Status == rules.StatusResolved && f.Object != nil && !rules.KnownGone(graph.Ref{Namespace: ns, Name: name}, b, h) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// withStatus merges the state findings of both commits by key, a base finding's
// Kustomizations written under their head names where the change renames them.
func withStatus(atBase, atHead []rules.Finding, renames map[graph.Ref]graph.Ref) []rules.Finding {
	inBase := map[string]bool{}
	for _, f := range atBase {
		inBase[f.KeyAs(renames)] = true
	}
	inHead := map[string]bool{}
	var out []rules.Finding
	for _, f := range atHead {
		inHead[f.Key()] = true
		f.Status = rules.StatusNew
		if inBase[f.Key()] {
			f.Status = rules.StatusExisting
		}
		out = append(out, f)
	}
	for _, f := range atBase {
		if !inHead[f.KeyAs(renames)] {
			out = append(out, f.Resolved())
		}
	}
	return out
}

var statusOrder = map[rules.Status]int{rules.StatusNew: 0, rules.StatusExisting: 1, rules.StatusResolved: 2}

// sortFindings orders new before existing before resolved, then by severity (highest
// first), cluster, rule, Kustomization, object and location.
func sortFindings(fs []rules.Finding) {
	sort.SliceStable(fs, func(i, j int) bool { return findingLess(fs[i], fs[j]) })
}

func findingLess(a, b rules.Finding) bool {
	if statusOrder[a.Status] != statusOrder[b.Status] {
		return statusOrder[a.Status] < statusOrder[b.Status]
	}
	if a.Severity != b.Severity {
		return a.Severity > b.Severity
	}
	if a.Cluster != b.Cluster {
		return a.Cluster < b.Cluster
	}
	if a.Rule != b.Rule {
		return a.Rule < b.Rule
	}
	if a.Kustomization != b.Kustomization {
		return a.Kustomization < b.Kustomization
	}
	if a.File != b.File {
		return a.File < b.File
	}
	return a.Line < b.Line
}

func graphOf(c *graph.Cluster) ClusterGraph {
	g := ClusterGraph{Cluster: c.Name}
	at := make(map[graph.Ref]int, len(c.Order)) // a node's index plus one
	for i, ref := range c.Order {
		at[ref] = i + 1
	}
	for _, ref := range c.Order {
		ks := c.Kustomizations[ref]
		n := GraphNode{Kustomization: ref.String(), Failed: ks.Err != nil}
		if ks.Parent != nil {
			n.Parent, n.ParentNode = ks.Parent.String(), at[*ks.Parent]
		}
		for _, d := range ks.Spec.DependsOn {
			n.DependsOn = append(n.DependsOn, d.String())
			n.DependsOnNodes = append(n.DependsOnNodes, at[d])
		}
		n.HelmReleases = graphReleases(ks)
		g.Nodes = append(g.Nodes, n)
	}
	return g
}

// graphReleases lists the HelmReleases of ks in manifest order: rendered ones with their
// objects, the others with why.
func graphReleases(ks *graph.Kustomization) []GraphRelease {
	var out []GraphRelease
	at := map[string]int{}
	name := func(id graph.ObjectID) string { return id.Namespace + "/" + id.Name }
	for _, o := range ks.Objects {
		if o.HelmRelease != "" || o.ID.Group != "helm.toolkit.fluxcd.io" || o.ID.Kind != "HelmRelease" {
			continue
		}
		at[name(o.ID)] = len(out)
		out = append(out, GraphRelease{HelmRelease: name(o.ID)})
	}
	for _, rel := range ks.Releases {
		if i, ok := at[name(rel.HelmRelease)]; ok {
			out[i].Chart, out[i].Version, out[i].Notes = rel.Chart, rel.Version, rel.Notes
		}
	}
	for _, o := range ks.Objects {
		if i, ok := at[o.HelmRelease]; ok {
			out[i].Objects = append(out[i].Objects, o.ID)
		}
	}
	for _, s := range ks.HelmReleaseSkipped {
		if i, ok := at[name(s.HelmRelease)]; ok {
			out[i].NotRendered = s.Reason
		}
	}
	for _, e := range ks.HelmReleaseErrors {
		if i, ok := at[name(e.HelmRelease)]; ok {
			out[i].Error = e.Err.Error()
		}
	}
	return out
}
