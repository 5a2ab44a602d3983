package format

import (
	"fmt"
	"strings"

	"github.com/tiergate/tiergate/internal/review"
	"github.com/tiergate/tiergate/internal/review/rules"
)

// Marker is the hidden first line by which the summary comment is found and updated.
const Marker = "<!-- tiergate -->"

const defaultMaxChars = 65536 // GitHub's comment limit

// maxOpenMoves is the longest moves table shown open; a longer one is collapsed, as the
// tier-move findings already name each object. A longer resolved table is collapsed too.
const maxOpenMoves = 10

// maxExisting is how many existing findings the comment shows, the most severe: they are
// not what the PR changed, and their count says enough.
const maxExisting = 5

// MarkdownOptions tunes the PR comment.
type MarkdownOptions struct {
	// MaxChars caps the comment's length (0 = 65,536). It is counted in bytes, which is
	// never less than the characters (or UTF-16 units) a forge counts.
	MaxChars int
}

// Markdown renders r as the PR summary comment. When the full comment is too long it cuts,
// in order: changed-object diffs, Kustomization diffs, the existing findings shown, the
// moves/added/removed/changed lists, graphs, suggestions, resolved findings, new findings;
// and says so. What the PR changes (new and resolved findings) goes last.
func Markdown(r *review.Report, opts MarkdownOptions) string {
	limit := opts.MaxChars
	if limit <= 0 {
		limit = defaultMaxChars
	}
	d := newDoc(r)
	d.limit = limit
	k := d.full
	if s := d.render(k); len(s) <= limit {
		return s
	}
	for _, c := range cutOrder {
		if d.fit(&k, c.stage, c.floor) {
			return d.render(k)
		}
	}
	return d.fallback()
}

// cutOrder is the order of the cuts, each down to its floor: resolved rows are cut to
// resolvedFloor before any new row is, and past it only when no new row fits beside them.
var cutOrder = []struct{ stage, floor int }{
	{cutChangedDiffs, 0}, {cutKsDiffs, 0}, {cutExistingRows, 0}, {cutLists, 0}, {cutGraphs, 0},
	{cutSuggestions, 0}, {cutResolvedRows, resolvedFloor}, {cutNewRows, 0}, {cutResolvedRows, 0},
}

// resolvedFloor is how many resolved rows survive however many new rows would fill the
// comment: what a PR fixes is as much what it changed as what it breaks.
const resolvedFloor = 10

// The cut stages; cutOrder says in which order, and how far, they are applied.
const (
	cutChangedDiffs = iota
	cutKsDiffs
	cutExistingRows
	cutLists
	cutGraphs
	cutSuggestions
	cutResolvedRows
	cutNewRows
	numCuts
)

// keep is how many items of each cut stage are rendered.
type keep [numCuts]int

// cutNames names what a stage cuts, singular and plural.
var cutNames = [numCuts][2]string{
	{"changed-object diff", "changed-object diffs"},
	{"Kustomization diff", "Kustomization diffs"},
	{"existing finding", "existing findings"},
	{"entry of the moves, added, removed and changed lists", "entries of the moves, added, removed and changed lists"},
	{"Kustomization graph", "Kustomization graphs"},
	{"suggestion", "suggestions"},
	{"resolved finding", "resolved findings"},
	{"new finding", "new findings"},
}

// fit sets k[stage] to the most items that fit, at least floor (or all there are, when
// fewer), other stages unchanged; false when even that many do not fit.
func (d *doc) fit(k *keep, stage, floor int) bool {
	most := k[stage]
	lo := min(floor, most)
	k[stage] = lo
	if len(d.render(*k)) > d.limit {
		return false
	}
	hi := most // lo always fits
	for lo < hi {
		mid := (lo + hi + 1) / 2
		k[stage] = mid
		if len(d.render(*k)) <= d.limit {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	k[stage] = lo
	return true
}

// fallback is the verdict alone, for limits too small for any section.
func (d *doc) fallback() string {
	s := d.verdict + fmt.Sprintf("\n> ✂️ Cut to fit %s characters: everything but the verdict.\n", num(d.limit))
	if len(s) <= d.limit {
		return s
	}
	return truncateBytes(s, d.limit)
}

func truncateBytes(s string, n int) string {
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n-- // do not split a UTF-8 sequence
	}
	return s[:n]
}

func (d *doc) render(k keep) string {
	var b strings.Builder
	b.WriteString(d.verdict)
	b.WriteString(d.partial)
	d.writeFindings(&b, k)
	d.writeGraphs(&b, k[cutGraphs])
	d.writeLists(&b, k)
	d.writeCutNote(&b, k)
	return b.String()
}

func (d *doc) writeCutNote(b *strings.Builder, k keep) {
	var what []string
	for s := range numCuts {
		if n := d.full[s] - k[s]; n > 0 {
			what = append(what, plural(n, cutNames[s][0], cutNames[s][1]))
		}
	}
	if len(what) > 0 {
		fmt.Fprintf(b, "\n> ✂️ Cut to fit %s characters: %s.\n", num(d.limit), strings.Join(what, "; "))
	}
}

// writeFindings writes the new findings as a table a reviewer reads first, then the
// new findings' suggestions collapsed, then the resolved findings (collapsed when long),
// then the count of existing findings with the few most severe collapsed. Four columns:
// GitHub does not wrap a wider table, it scrolls it, and the message went off-screen.
func (d *doc) writeFindings(b *strings.Builder, k keep) {
	newRows := d.newRows[:k[cutNewRows]]
	if len(d.newRows) > 0 {
		b.WriteString("\n#### Findings\n\n" + tableHead)
		writeAll(b, newRows)
		writeMore(b, len(d.newRows)-len(newRows))
	}
	var sugg []string
	for _, s := range d.suggestions {
		if s.row < len(newRows) && len(sugg) < k[cutSuggestions] {
			sugg = append(sugg, s.text)
		}
	}
	if len(sugg) > 0 {
		fmt.Fprintf(b, "\n<details><summary>Suggestions (%s)</summary>\n\n%s\n</details>\n", num(len(sugg)), strings.Join(sugg, "\n"))
	}
	d.writeResolved(b, d.resolvedRows[:k[cutResolvedRows]])
	d.writeExisting(b, d.existingRows[:k[cutExistingRows]])
}

const tableHead = "| Severity | Rule | Where | Message |\n|---|---|---|---|\n"

// writeResolved writes the findings the change fixes, open unless the table is long.
func (d *doc) writeResolved(b *strings.Builder, rows []string) {
	total := len(d.resolvedRows)
	if total == 0 {
		return
	}
	b.WriteString("\n#### Resolved\n\n")
	long := total > maxOpenMoves
	if long {
		fmt.Fprintf(b, "<details><summary>%s</summary>\n\n", countBySeverity(d.resolved, "resolved finding", "resolved findings"))
	}
	if len(rows) > 0 {
		b.WriteString(tableHead)
		writeAll(b, rows)
	}
	writeMore(b, total-len(rows))
	if long {
		b.WriteString("\n</details>\n")
	}
}

// writeExisting writes the count of findings also at base and, collapsed, the most severe.
func (d *doc) writeExisting(b *strings.Builder, rows []string) {
	if len(d.existing) == 0 {
		return
	}
	summary := countBySeverity(d.existing, "existing finding", "existing findings")
	switch {
	case len(rows) == 0:
		fmt.Fprintf(b, "\n%s.\n", summary)
		return
	case len(rows) == 1 && len(d.existing) > 1:
		summary += ": the most severe below"
	case len(rows) < len(d.existing):
		summary += fmt.Sprintf(": the %s most severe below", num(len(rows)))
	}
	fmt.Fprintf(b, "\n<details><summary>%s</summary>\n\n%s", summary, tableHead)
	writeAll(b, rows)
	b.WriteString("\n</details>\n")
}

// countBySeverity is "90 existing findings (12 errors, 3 warnings)".
func countBySeverity(fs []rules.Finding, one, many string) string {
	n := map[rules.Severity]int{}
	for _, f := range fs {
		n[f.Severity]++
	}
	var parts []string
	for _, s := range []struct {
		sev       rules.Severity
		one, many string
	}{{rules.Error, "error", "errors"}, {rules.Warning, "warning", "warnings"}} {
		if n[s.sev] > 0 {
			parts = append(parts, plural(n[s.sev], s.one, s.many))
		}
	}
	out := plural(len(fs), one, many)
	if len(parts) > 0 {
		out += " (" + strings.Join(parts, ", ") + ")"
	}
	return out
}

func (d *doc) writeGraphs(b *strings.Builder, n int) {
	if n == 0 {
		return
	}
	b.WriteString("\n#### Kustomization graphs\n\nSolid arrow: dependsOn (dependent → dependency) · dotted: parent → child · labelled dashed: moved objects · red arrow: a missing dependsOn, or one that names no Kustomization · red box: render error · amber box: not reviewed (see the note above) · dashed box: not in the graph.\n")
	for _, g := range d.graphs[:n] {
		b.WriteString("\n")
		b.WriteString(g)
	}
}

// writeLists writes moves, added, removed, Kustomization changes and changed objects;
// k[cutLists] counts entries across them in that order, so the last lists are cut first.
func (d *doc) writeLists(b *strings.Builder, k keep) {
	left := k[cutLists]
	take := func(n int) int {
		t := min(n, left)
		left -= t
		return t
	}
	if n := take(len(d.moves)); n > 0 {
		b.WriteString("\n#### Moves\n\n")
		long := len(d.moves) > maxOpenMoves
		if long {
			fmt.Fprintf(b, "<details><summary>%s</summary>\n\n", plural(len(d.moves), "object moves", "objects move"))
		}
		b.WriteString("| Cluster | Object | From | To |\n|---|---|---|---|\n")
		writeAll(b, d.moves[:n])
		writeMore(b, len(d.moves)-n)
		if long {
			b.WriteString("\n</details>\n")
		}
	}
	writeObjectList(b, "Added objects", d.added[:take(len(d.added))], len(d.added))
	writeObjectList(b, "Removed objects", d.removed[:take(len(d.removed))], len(d.removed))
	writeObjectList(b, "Left in the cluster by Helm (orphaned, no longer managed)", d.orphaned[:take(len(d.orphaned))], len(d.orphaned))
	writeEntries(b, "Kustomization changes", d.ksChanges, take(len(d.ksChanges)), k[cutKsDiffs])
	writeEntries(b, "Changed objects", d.changed, take(len(d.changed)), k[cutChangedDiffs])
}

func writeObjectList(b *strings.Builder, title string, items []string, total int) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(b, "\n#### %s\n\n<details><summary>%s</summary>\n\n", title, plural(total, "object", "objects"))
	writeAll(b, items)
	writeMore(b, total-len(items))
	b.WriteString("\n</details>\n")
}

// writeEntries writes the first n entries; of those with a diff, only the first `diffs`
// show it, the rest keep their heading.
func writeEntries(b *strings.Builder, title string, es []entry, n, diffs int) {
	if n == 0 {
		return
	}
	fmt.Fprintf(b, "\n#### %s\n", title)
	seen, bullet := 0, false
	for _, e := range es[:n] {
		var block string
		switch {
		case e.diff == "":
			block = e.line
		case seen < diffs:
			block = e.details
			seen++
		default:
			block = e.cut
			seen++
		}
		isBullet := strings.HasPrefix(block, "- ")
		if !isBullet || !bullet {
			b.WriteString("\n") // blank lines around details blocks, none inside a list
		}
		b.WriteString(block)
		bullet = isBullet
	}
	writeMore(b, len(es)-n)
}

func writeAll(b *strings.Builder, lines []string) {
	for _, l := range lines {
		b.WriteString(l)
	}
}

func writeMore(b *strings.Builder, n int) {
	if n > 0 {
		fmt.Fprintf(b, "\n_… and %s more, cut to fit._\n", num(n))
	}
}

// doc holds every piece of the comment rendered and escaped once; render assembles them.
type doc struct {
	verdict, partial string
	newRows          []string
	resolvedRows     []string
	existingRows     []string // the most severe, at most maxExisting
	// resolved and existing are the findings shown once per cause.
	resolved, existing []rules.Finding
	suggestions        []suggestion
	graphs             []string
	moves, added       []string
	removed            []string
	orphaned           []string
	ksChanges, changed []entry
	full               keep
	limit              int
}

// suggestion is a new finding's suggestion; row is the finding's index among new rows.
type suggestion struct {
	row  int
	text string
}

// entry is a changed object or Kustomization: a bullet line without diff, or details with it.
type entry struct {
	diff, line, details, cut string
}

func newDoc(r *review.Report) *doc {
	d := &doc{verdict: Marker + "\n" + verdictLine(r) + discoveryLine(r) + statsLine(r), partial: partialNote(r) + unreadNote(r)}
	multi := len(r.Clusters) > 1
	for _, f := range r.Findings {
		if !review.FirstOfCause(f) {
			continue // the row of its first cluster lists them all
		}
		switch f.Status {
		case rules.StatusExisting:
			if len(d.existingRows) < maxExisting { // Review sorts by severity
				d.existingRows = append(d.existingRows, findingRow(f, multi))
			}
			d.existing = append(d.existing, f)
			continue
		case rules.StatusResolved:
			d.resolvedRows = append(d.resolvedRows, findingRow(f, multi))
			d.resolved = append(d.resolved, f)
			continue
		}
		if f.Suggestion != "" {
			d.suggestions = append(d.suggestions, suggestion{row: len(d.newRows), text: suggestionText(f)})
		}
		d.newRows = append(d.newRows, findingRow(f, multi))
	}
	for _, g := range r.Graphs {
		d.graphs = append(d.graphs, graphBlock(r, g))
	}
	d.addLists(r)
	d.count()
	return d
}

func (d *doc) addLists(r *review.Report) {
	for _, m := range r.Moves {
		d.moves = append(d.moves, row(esc(m.Cluster), esc(m.Object.String()), esc(rules.Owner(m.From, m.FromHelmRelease)), esc(rules.Owner(m.To, m.ToHelmRelease))))
	}
	for _, c := range r.Added {
		d.added = append(d.added, "- "+changeSummary(c)+"\n")
	}
	for _, c := range r.Removed {
		d.removed = append(d.removed, "- "+changeSummary(c)+"\n")
	}
	for _, c := range r.Orphaned {
		d.orphaned = append(d.orphaned, "- "+changeSummary(c)+" · "+esc(c.Reason)+"\n")
	}
	for _, c := range r.KustomizationChanges {
		d.ksChanges = append(d.ksChanges, ksEntry(c))
	}
	d.changed = changedEntries(r)
}

func (d *doc) count() {
	d.full = keep{
		cutChangedDiffs: countDiffs(d.changed),
		cutKsDiffs:      countDiffs(d.ksChanges),
		cutLists:        len(d.moves) + len(d.added) + len(d.removed) + len(d.orphaned) + len(d.ksChanges) + len(d.changed),
		cutGraphs:       len(d.graphs),
		cutExistingRows: len(d.existingRows),
		cutResolvedRows: len(d.resolvedRows),
		cutSuggestions:  len(d.suggestions),
		cutNewRows:      len(d.newRows),
	}
}

func countDiffs(es []entry) int {
	n := 0
	for _, e := range es {
		if e.diff != "" {
			n++
		}
	}
	return n
}

func newEntry(summary, diff string) entry {
	return entry{
		diff:    diff,
		line:    "- " + summary + "\n",
		details: "<details><summary>" + summary + "</summary>\n\n" + fenced("diff", diff) + "\n</details>\n",
		cut:     "- " + summary + " — <i>diff cut to fit</i>\n",
	}
}

// ksEntry writes an added or removed Kustomization as a line, a changed one with its diff.
func ksEntry(c review.KustomizationChange) entry {
	s := esc(c.Cluster) + " · " + esc(c.Kustomization) + location(c.File, c.Line, " · ")
	if c.Change != review.Changed || c.Diff == "" {
		return entry{line: "- <b>" + esc(string(c.Change)) + "</b> · " + s + "\n"}
	}
	return newEntry(s, c.Diff)
}

func changeSummary(c review.ObjectChange) string {
	if c.HelmRelease != "" {
		return esc(c.Cluster) + " · " + esc(c.Object.String()) + " · " + esc(c.Template)
	}
	return esc(c.Cluster) + " · " + esc(c.Object.String()) + " · " + esc(c.Kustomization) + location(c.File, c.Line, " · ")
}

// changedEntries lists the changed objects of Kustomizations' own builds, then those of
// each HelmRelease under a line that names it and sums up its chart and values change.
func changedEntries(r *review.Report) []entry {
	var out []entry
	type group struct{ cluster, ks, hr string }
	var order []group
	byGroup := map[group][]review.ObjectChange{}
	for _, c := range r.Changed {
		if c.HelmRelease == "" {
			out = append(out, newEntry(changeSummary(c), c.Diff))
			continue
		}
		g := group{c.Cluster, c.Kustomization, c.HelmRelease}
		if _, ok := byGroup[g]; !ok {
			order = append(order, g)
		}
		byGroup[g] = append(byGroup[g], c)
	}
	for _, g := range order {
		head := esc(g.cluster) + " · **" + esc(rules.Owner(g.ks, g.hr)) + "**"
		for _, rc := range r.Releases {
			if rc.Cluster == g.cluster && rc.HelmRelease == g.hr {
				head += " · " + esc(releaseSummary(rc))
			}
		}
		out = append(out, newEntry(head, ""))
		for _, c := range byGroup[g] {
			out = append(out, newEntry(changeSummary(c), c.Diff))
		}
	}
	return out
}

// releaseSummary is "chart 5.0.1 → 5.1.0, values: 2 keys" (the parts that change).
func releaseSummary(rc review.ReleaseChange) string {
	var parts []string
	switch {
	case rc.FromChart != rc.ToChart:
		parts = append(parts, fmt.Sprintf("chart %s %s → %s %s", rc.FromChart, rc.FromVersion, rc.ToChart, rc.ToVersion))
	case rc.FromVersion != rc.ToVersion:
		parts = append(parts, fmt.Sprintf("chart %s → %s", rc.FromVersion, rc.ToVersion))
	}
	if rc.Values > 0 {
		parts = append(parts, "values: "+plural(rc.Values, "key", "keys"))
	}
	return strings.Join(parts, ", ")
}

func location(file string, line int, sep string) string {
	if file == "" {
		return ""
	}
	return sep + esc(fileLine(file, line))
}
