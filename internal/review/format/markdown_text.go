package format

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/review"
	"github.com/tiergate/tiergate/internal/review/rules"
)

// NewCounts says how many new findings r has, by severity: "2 new errors, 1 new warning",
// or "no new findings". The comment's verdict and the commit status both use it.
func NewCounts(r *review.Report) string {
	c := r.Counts(rules.StatusNew)
	var parts []string
	for _, s := range []struct {
		sev       rules.Severity
		one, many string
	}{
		{rules.Error, "new error", "new errors"},
		{rules.Warning, "new warning", "new warnings"},
		{rules.Notice, "new notice", "new notices"},
		{rules.None, "new finding without severity", "new findings without severity"},
	} {
		if n := c[s.sev]; n > 0 {
			parts = append(parts, plural(n, s.one, s.many))
		}
	}
	if len(parts) == 0 {
		return "no new findings"
	}
	return strings.Join(parts, ", ")
}

// NotReviewed says how many of the head's Kustomizations were not built in full, and how
// many objects of other kinds (HelmReleases, ResourceSets with live inputs) were not
// rendered: "3 of 79 Kustomizations not reviewed, 1 HelmRelease not reviewed", or "" when
// everything was. A HelmRelease or ResourceSet file that several clusters apply is one
// cause, counted once as findings shared by clusters are; when the clusters do not all
// have every one, the count is said per cluster ("2 HelmReleases not reviewed (production 2,
// staging 1)"), as the partial note says it. It leads the comment's verdict and the commit
// status, so that a review with unknowns never reads as a pass.
func NotReviewed(r *review.Report) string {
	byKind := map[string]int{}
	perCluster := map[string]map[string]int{} // kind → cluster → causes
	seen := map[string]bool{}
	for _, u := range r.Unreviewed {
		key := causeKey(u)
		if !seen[key] {
			seen[key] = true
			byKind[u.Kind]++
		}
		if ck := key + "\x00" + u.Cluster; !seen[ck] {
			seen[ck] = true
			if perCluster[u.Kind] == nil {
				perCluster[u.Kind] = map[string]int{}
			}
			perCluster[u.Kind][u.Cluster]++
		}
	}
	var parts []string
	if n := byKind["Kustomization"]; n > 0 {
		parts = append(parts, num(n)+" of "+plural(r.KustomizationCount(), "Kustomization", "Kustomizations")+" not reviewed")
	}
	for _, kind := range slices.Sorted(maps.Keys(byKind)) {
		if kind != "Kustomization" {
			parts = append(parts, plural(byKind[kind], kind, kind+"s")+" not reviewed"+byCluster(r, perCluster[kind], byKind[kind]))
		}
	}
	return strings.Join(parts, ", ")
}

// causeKey is what one not-reviewed cause is told by: a Kustomization is one per cluster (of
// the clusters' Kustomizations); an object of another kind is its file and line, which
// every cluster that applies the file shares.
func causeKey(u review.Unreviewed) string {
	key := fmt.Sprintf("%s\x00%s\x00%s:%d", u.Kind, u.Name, u.File, u.Line)
	if u.Kind == "Kustomization" || u.File == "" {
		key += "\x00" + u.Cluster
	}
	return key
}

// byCluster is " (production 2, staging 1)", the clusters of r with a non-zero count, when
// r has several clusters and one of them does not count total; else "" (also when no cluster
// of r counts any). A count of causes shared by clusters then still adds up for a reader
// who sees each cluster's; a cluster with none is left out ("production 0" reads as one
// with a problem).
func byCluster(r *review.Report, counts map[string]int, total int) string {
	if len(r.Clusters) < 2 {
		return ""
	}
	differs, any := false, false
	var parts []string
	for _, c := range r.Clusters {
		n := counts[c.Name]
		differs = differs || n != total
		if n > 0 {
			any = true
			parts = append(parts, esc(c.Name)+" "+num(n))
		}
	}
	if !differs || !any {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// sharedByCluster is byCluster for a count of Kustomizations, which are per cluster: said
// only when the note names a Kustomization once for several clusters (distinct names
// fewer than total), where the count would not add up to the names shown.
func sharedByCluster(r *review.Report, counts map[string]int, total, names int) string {
	if names == total {
		return ""
	}
	return byCluster(r, counts, total)
}

// verdictLine is the comment's headline: ❌ with a new error, ⚠️ with a new warning or
// anything not reviewed, else ✅.
func verdictLine(r *review.Report) string {
	c := r.Counts(rules.StatusNew)
	icon, text := "✅", NewCounts(r)
	nr := NotReviewed(r)
	if nr != "" {
		text = nr + " · " + text
	}
	if n := len(r.Unread); n > 0 { // "no new findings" is not "reviewed and safe" for these
		text += " · " + plural(n, "changed file", "changed files") + " no cluster reads"
	}
	switch {
	case c[rules.Error] > 0:
		icon = "❌"
	case c[rules.Warning] > 0 || len(r.Unreviewed) > 0:
		icon = "⚠️"
	}
	return "### " + icon + " tiergate: " + text + "\n"
}

// discoveryLine says, right under the verdict, that no Flux root was found and what was
// reviewed instead: folders stand in for clusters and may not be what Flux reconciles.
func discoveryLine(r *review.Report) string {
	if r.Discovery != graph.DiscoveryFolders {
		return ""
	}
	return fmt.Sprintf("\n> no Flux root found; reviewing %s as clusters (folders of Kustomizations that no other Kustomization's path covers; "+
		"a bootstrap gotk-sync.yaml, a FluxInstance or `clusters:` in .tiergate.yaml names the real ones)\n", plural(len(r.Clusters), "folder", "folders"))
}

func statsLine(r *review.Report) string {
	total := func(s rules.Status) int {
		n := 0
		for _, v := range r.Counts(s) {
			n += v
		}
		return n
	}
	ks, objs := 0, 0
	for _, c := range r.Clusters {
		ks += c.Kustomizations
		objs += c.Objects
	}
	s := fmt.Sprintf("\n%s existing, %s resolved · %s, %s, %s", num(total(rules.StatusExisting)), num(total(rules.StatusResolved)),
		plural(len(r.Clusters), "cluster", "clusters"), plural(ks, "Kustomization", "Kustomizations"), plural(objs, "object", "objects"))
	if n := len(r.Ignored); n > 0 {
		s += " · " + plural(n, "finding", "findings") + " ignored by .tiergate.yaml"
	}
	if r.Base != "" || r.Head != "" {
		s += " · " + code(r.Base) + " → " + code(r.Head)
	}
	return s + "\n"
}

// partialNote lists the Kustomizations that did not render completely: their findings,
// moves and diffs may be missing, which a reviewer must know before trusting a green verdict.
// Kustomizations with the same reason share one line ("62 Kustomizations: substituteFrom …"),
// and one Kustomization several clusters have for the same reason is named once with its
// clusters ("clusters: production, staging · flux-system/apps"), as a shared finding is.
func partialNote(r *review.Report) string {
	var reasons []string
	who := map[string]*partialGroup{}
	distinct := map[[2]string]bool{} // the Kustomizations, counted once however many notes they have
	perCluster := map[string]int{}
	remote, hosts := remoteCharts(r)
	for _, c := range r.Clusters {
		for _, p := range c.Partial {
			if k := [2]string{c.Name, p.Kustomization}; !distinct[k] {
				distinct[k] = true
				perCluster[c.Name]++
			}
			if remote[[3]string{c.Name, p.Kustomization, p.Reason}] {
				continue // in the remote charts line
			}
			reason := esc(p.Reason)
			if len(p.URLs) > 0 {
				reason += " (" + esc(strings.Join(p.URLs, ", ")) + ")"
			}
			g := who[reason]
			if g == nil {
				g = &partialGroup{clusters: map[string][]string{}, count: map[string]int{}}
				who[reason] = g
				reasons = append(reasons, reason)
			}
			g.add(c.Name, p.Kustomization)
		}
	}
	total := len(distinct)
	if total == 0 {
		return notReviewedNote(r, distinct)
	}
	var b strings.Builder
	// The count is of Kustomizations reviewed in part, not of failed builds: next to "67
	// HelmReleases not rendered", "67 Kustomizations were not rendered" read as 67 more.
	names := map[string]bool{}
	for k := range distinct {
		names[k[1]] = true
	}
	b.WriteString("\n> ⚠️ <b>Partial render</b>: " + plural(total, "Kustomization", "Kustomizations") +
		sharedByCluster(r, perCluster, total, len(names)) + pick(total, " is", " are") + " reviewed in part (not everything " +
		pick(total, "it applies", "they apply") + " was rendered), so findings may be missing:\n")
	for _, reason := range reasons {
		g := who[reason]
		names := g.names()
		if len(names) == 1 {
			b.WriteString("> - " + names[0] + ": " + reason + "\n")
			continue
		}
		shown := names[:min(len(names), maxPartialNames)]
		list := strings.Join(shown, ", ")
		if more := len(names) - len(shown); more > 0 {
			list += " and " + num(more) + " more"
		}
		fmt.Fprintf(&b, "> - %s Kustomizations%s: %s — %s\n", num(g.total), sharedByCluster(r, g.count, g.total, len(names)), reason, list)
	}
	b.WriteString(hosts)
	return b.String() + notReviewedNote(r, distinct)
}

// partialGroup is the Kustomizations of one partial reason: their names in the order first
// seen, the clusters of each, and how many each cluster has.
type partialGroup struct {
	order    []string
	clusters map[string][]string // Kustomization → clusters
	count    map[string]int      // cluster → Kustomizations
	total    int
}

func (g *partialGroup) add(cluster, ks string) {
	if _, ok := g.clusters[ks]; !ok {
		g.order = append(g.order, ks)
	}
	g.clusters[ks] = append(g.clusters[ks], cluster)
	g.count[cluster]++
	g.total++
}

// names are "production · flux-system/a" or "clusters: production, staging · flux-system/a".
func (g *partialGroup) names() []string {
	var out []string
	for _, ks := range g.order {
		cs := g.clusters[ks]
		where := esc(cs[0])
		if len(cs) > 1 {
			where = "clusters: " + esc(strings.Join(cs, ", "))
		}
		out = append(out, where+" · "+esc(ks))
	}
	return out
}

// unreadNote names the changed files that no cluster reads (review.Report.Unread): no
// finding can come from them, and the reader must know that they were not reviewed.
func unreadNote(r *review.Report) string {
	n := len(r.Unread)
	if n == 0 {
		return ""
	}
	var names []string
	for _, f := range r.Unread[:min(n, maxUnreadNames)] {
		names = append(names, code(clipTo(f, maxNameBytes)))
	}
	list := strings.Join(names, ", ")
	if n > maxUnreadNames {
		list += " and " + num(n-maxUnreadNames) + " more (the JSON report's `unread` lists them all)"
	}
	return "\n> ℹ️ <b>Outside every cluster</b>: " + plural(n, "changed file is", "changed files are") +
		" read by no cluster (no Kustomization's path holds " + pick(n, "it", "them") + ", no rendered object or in-repo chart comes from " +
		pick(n, "it", "them") + "), so nothing here reviews " + pick(n, "it", "them") + ": " + list + "\n"
}

// maxUnreadNames is how many unread files the note names.
const maxUnreadNames = 10

// notReviewedNote names each Kustomization or HelmRelease of r.Unreviewed that the partial
// note does not (its Kustomization is not in partial, by cluster and name), with its reason:
// one stopped by tiergate's own limit (graph.Kustomization.NotReviewed) is not built at all,
// so the verdict's count alone would not say which to look at or which flag to raise.
func notReviewedNote(r *review.Report, partial map[[2]string]bool) string {
	var lines []string
	for _, u := range r.Unreviewed {
		if partial[[2]string{u.Cluster, u.Kustomization}] {
			continue
		}
		who := esc(u.Cluster) + " · " + esc(u.Name)
		if u.Kind != "Kustomization" {
			who = esc(u.Cluster) + " · " + esc(u.Kustomization) + " · " + esc(u.Kind) + " " + esc(u.Name)
		}
		lines = append(lines, "> - "+who+": "+esc(u.Reason)+"\n")
	}
	n := len(lines)
	if n == 0 {
		return ""
	}
	if n > maxNotReviewedLines { // the comment stays readable; the JSON report lists them all
		lines = append(lines[:maxNotReviewedLines], "> - and "+num(n-maxNotReviewedLines)+" more (the JSON report's `unreviewed` lists them all)\n")
	}
	return "\n> ⚠️ <b>Not reviewed</b>: " + plural(n, "object was", "objects were") +
		" not rendered, so " + pick(n, "its", "their") + " findings are unknown:\n" + strings.Join(lines, "")
}

// maxNotReviewedLines is how many not-reviewed objects the Not reviewed note names.
const maxNotReviewedLines = 10

// remoteCharts finds the HelmReleases not rendered because their chart's host is not
// allowed, and writes them as one line grouped by host: "67 HelmReleases not rendered,
// their charts are remote: allow ghcr.io and pkg-containers.githubusercontent.com (the
// charts of 58 HelmReleases: default/atuin, … and 55 more), quay.io (the charts of 2
// HelmReleases: …) to render them": the hosts one pull needs stay together, and each
// group says in words what it lists. A HelmRelease file several clusters apply counts once,
// as in NotReviewed, and per cluster where the clusters differ. It returns the partial
// entries the line stands for (cluster, Kustomization, reason).
func remoteCharts(r *review.Report) (map[[3]string]bool, string) {
	covered := map[[3]string]bool{}
	var order []string
	byHost := map[string][]string{}
	seen := map[string]bool{}
	perCluster := map[string]int{}
	n := 0
	for _, u := range r.Unreviewed {
		hosts := append([]string{u.Host}, u.AlsoAllow...)
		hint := strings.Join(hosts[:len(hosts)-1], ", ")
		if hint != "" {
			hint += " and "
		}
		hint += hosts[len(hosts)-1]
		if u.Kind != "HelmRelease" || u.Host == "" || !strings.HasSuffix(u.Reason, " is remote (allow "+hint+" to render it)") {
			continue
		}
		covered[[3]string{u.Cluster, u.Kustomization, u.Reason}] = true
		key := causeKey(u) // one file several clusters apply is one HelmRelease to allow
		if ck := key + "\x00" + u.Cluster; !seen[ck] {
			seen[ck] = true
			perCluster[u.Cluster]++
		}
		if !seen[key] {
			seen[key] = true
			if _, ok := byHost[hint]; !ok {
				order = append(order, hint)
			}
			byHost[hint] = append(byHost[hint], esc(u.Name))
			n++
		}
	}
	if n == 0 {
		return covered, ""
	}
	sort.SliceStable(order, func(i, j int) bool { return len(byHost[order[i]]) > len(byHost[order[j]]) })
	var parts []string
	for _, h := range order {
		names := byHost[h]
		list := strings.Join(names[:min(len(names), maxPartialNames)], ", ")
		if more := len(names) - maxPartialNames; more > 0 {
			list += " and " + num(more) + " more"
		}
		what := "the chart of HelmRelease " + list
		if len(names) > 1 {
			what = "the charts of " + num(len(names)) + " HelmReleases: " + list
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", esc(h), what))
	}
	their, them := "their charts are", "them"
	if n == 1 {
		their, them = "its chart is", "it"
	}
	return covered, fmt.Sprintf("> - %s%s not rendered, %s remote: allow %s to render %s (`--allow-remote`)\n",
		plural(n, "HelmRelease", "HelmReleases"), byCluster(r, perCluster, n), their, strings.Join(parts, ", "), them)
}

// maxPartialNames is how many Kustomizations a grouped partial line names.
const maxPartialNames = 3

// findingRow is one table row: severity, rule, where (the cluster when the report has several,
// every cluster when the cause is shared, the Kustomization, the object, file:line on lines
// of their own) and message.
func findingRow(f rules.Finding, withCluster bool) string {
	var where []string
	if f.Kustomization != "" {
		where = append(where, esc(clipTo(f.Kustomization, maxNameBytes)))
	}
	if f.Object != nil {
		where = append(where, esc(clipTo(f.Object.String(), maxNameBytes)))
	}
	if withCluster {
		if len(where) == 0 {
			where = append(where, "")
		}
		where[0] = clustersOf(f) + " · " + where[0]
	}
	if f.File != "" {
		where = append(where, code(fileLine(f.File, f.Line)))
	}
	return row(severityLabel(f.Severity), code(f.Rule), strings.Join(where, "<br>"), prose(clip(f.Message)))
}

// clustersOf is the finding's cluster, or "clusters: a, b" when the cause is shared.
func clustersOf(f rules.Finding) string {
	if len(f.Clusters) > 1 {
		return "clusters: " + esc(strings.Join(f.Clusters, ", "))
	}
	return esc(f.Cluster)
}

func row(cells ...string) string {
	return "| " + strings.Join(cells, " | ") + " |\n"
}

func severityLabel(s rules.Severity) string {
	switch s {
	case rules.Error:
		return "❌ error"
	case rules.Warning:
		return "⚠️ warning"
	case rules.Notice:
		return "ℹ️ notice"
	}
	return "none"
}

// suggestionText is one new finding's suggestion; one that spans lines is YAML to paste, so
// it goes in a code block.
func suggestionText(f rules.Finding) string {
	head := code(f.Rule)
	if c := clustersOf(f); c != "" {
		head += " · " + c
	} else if f.File != "" { // a finding of no cluster (config-error): its file
		head += " · " + location(f.File, f.Line, "")
	}
	if f.Kustomization != "" {
		head += " · " + esc(clipTo(f.Kustomization, maxNameBytes))
	}
	if f.Object != nil {
		head += " · " + esc(clipTo(f.Object.String(), maxNameBytes))
	}
	details := ""
	if f.Details != "" { // the whole chain, after the advice
		details = "\n  The whole error:\n\n" + fenced("", clip(f.Details))
	}
	if strings.ContainsAny(f.Suggestion, "\r\n") {
		return head + ":\n\n" + fenced("", clip(f.Suggestion)) + details
	}
	return head + ": " + prose(clip(f.Suggestion)) + "\n" + details
}

// maxTextBytes caps one finding's message or suggestion in the comment, maxNameBytes its
// Kustomization and object names (Kubernetes names have at most 253 characters; a PR can
// write longer ones): a dependsOn cycle through thousands of Kustomizations names them
// all, and a row the comment cannot hold would cut every row after it too. The JSON
// report keeps the whole text.
const (
	maxTextBytes = 2000
	maxNameBytes = 600
)

// clip shortens s to maxTextBytes; see clipTo.
func clip(s string) string { return clipTo(s, maxTextBytes) }

// clipTo shortens s to n bytes, on a rune boundary, saying how much was left out.
func clipTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	t := truncateBytes(s, n)
	return t + fmt.Sprintf(" … (%s more bytes in the JSON report)", num(len(s)-len(t)))
}

var escaper = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;", "|", "&#124;", "`", "&#96;", `\`, "&#92;",
	"[", "&#91;", "]", "&#93;", "@", "&#64;",
	"\r\n", "<br>", "\n", "<br>", "\r", "<br>",
)

// esc makes untrusted text safe anywhere inline, table cells included: it cannot open HTML,
// a code span, a link or a new line, end a cell, mention a user or team, or spell the
// comment marker.
func esc(s string) string { return escaper.Replace(s) }

// prose is esc(s), except that text between pairs of backticks stays a code span (see
// code): rules write `prune: disabled` and `<redacted>` in messages and suggestions.
func prose(s string) string {
	parts := strings.Split(s, "`")
	if len(parts)%2 == 0 {
		return esc(s) // an unpaired backtick: no span is meant
	}
	for i, p := range parts {
		switch {
		case i%2 == 0:
			parts[i] = esc(p)
		case p == "":
			parts[i] = esc("``")
		default:
			parts[i] = code(p)
		}
	}
	return strings.Join(parts, "")
}

// code is s as a code span: between backticks when s is plain enough, else as the HTML
// element <code> around esc(s), which renders the same. Inside backticks nothing is Markdown
// or HTML (CommonMark 6.1, so `<redacted>`, `&` and `\` stay as they are); what a span
// cannot hold is a backtick, a line break, a `|` (GFM splits the table cell on it even
// there), leading and trailing spaces (CommonMark strips one of each) and the spellings of
// the comment's own structure ("<!--", "<details", "</details"), which readers of the
// comment find by their text.
func code(s string) string {
	if s == "" {
		return ""
	}
	if plainSpan(s) {
		return "`" + s + "`"
	}
	return "<code>" + esc(s) + "</code>"
}

// plainSpan reports whether s can go between single backticks as it is; see code.
func plainSpan(s string) bool {
	if strings.ContainsAny(s, "`|\r\n") || strings.TrimSpace(s) != s {
		return false
	}
	l := strings.ToLower(s)
	return !strings.Contains(l, "<!--") && !strings.Contains(l, "<details") && !strings.Contains(l, "</details")
}

// fenced puts body in a code block whose fence is longer than any backtick run in body, so
// nothing inside can close it. HTML comments are broken with a zero-width space so that the
// comment marker appears only on the first line.
func fenced(info, body string) string {
	fence := strings.Repeat("`", max(3, longestRun(body, '`')+1))
	body = strings.ReplaceAll(body, "<!--", "<!\u200b--")
	if !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	return fence + info + "\n" + body + fence + "\n"
}

func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return num(n) + " " + many
}

// num writes n with thousands separators.
func num(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return s
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func fileLine(file string, line int) string {
	if line > 0 {
		return fmt.Sprintf("%s:%d", file, line)
	}
	return file
}

// pick is one when n is 1, else many.
func pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
