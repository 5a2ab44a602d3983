package helmrelease

import (
	"bytes"
	"encoding/base64"
	"maps"
	"slices"
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// fileMask replaces Secret values wherever they stand in a chart file (ChartFiles: "by
// value").
type fileMask struct {
	// r replaces each form of each value by the same form of its placeholder; nil when
	// there is nothing to replace.
	r *strings.Replacer
	// unsafe are the values too short or word-shaped to replace wherever they stand.
	unsafe []string
	// heads holds the first graph.MinValueBytes bytes of every text r replaces (no text is
	// shorter): a file holding none of them is not given to r, whose trie walk costs
	// several times a scan of the file (BenchmarkChartFilesRead).
	heads *headSet
}

// newFileMask returns the mask of values (Secret values, in any order, repeats and
// empty ones allowed). A value of graph.MinValueBytes or more that is not word-shaped is
// replaced as written, trimmed of blanks, and each key line of a multi-line one
// (graph.KeyLines, by its own placeholder), in every graph.AllForms form (base64 of the
// value by base64 of the placeholder, upper case by upper case, ...); a data value as
// written that is the base64 of another such value is that value's base64 form. Where two
// values share a text, the plain form wins, then the order of AllForms. Placeholders stand
// for themselves, so that a value inside one is not replaced there.
func (p Placeholders) newFileMask(values []string) *fileMask {
	set := map[string]bool{}
	for _, v := range values {
		if v != "" {
			set[v] = true
		}
	}
	for v := range set {
		if d, err := base64.StdEncoding.DecodeString(v); err == nil && set[string(d)] && safeValue(string(d)) &&
			base64.StdEncoding.EncodeToString(d) == v {
			delete(set, v)
		}
	}
	m := &fileMask{}
	type target struct{ text, placeholder string }
	var targets []target
	sorted := slices.Sorted(maps.Keys(set))
	for _, v := range sorted {
		if !safeValue(v) {
			m.unsafe = append(m.unsafe, v)
			continue
		}
		ph := p.Text(v)
		targets = append(targets, target{v, ph})
		if t := strings.TrimSpace(v); t != v && safeValue(t) {
			targets = append(targets, target{t, ph})
		}
		for _, l := range graph.KeyLines(v) {
			if safeValue(l) {
				targets = append(targets, target{l, p.Text(l)})
			}
		}
	}
	if len(targets) == 0 {
		return m
	}
	news := map[string]string{}
	for _, f := range graph.AllForms {
		for _, t := range targets {
			if old := f.Of(t.text); len(old) >= graph.MinValueBytes && news[old] == "" {
				news[old] = f.Of(t.placeholder)
			}
		}
	}
	for _, t := range targets {
		for _, f := range []graph.Form{graph.Plain, graph.Upper, graph.Base64} {
			if ph := f.Of(t.placeholder); news[ph] == "" {
				news[ph] = ph
			}
		}
	}
	olds := slices.Collect(maps.Keys(news))
	slices.SortFunc(olds, func(a, b string) int { // longest first: strings.Replacer tries pairs in order
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	pairs := make([]string, 0, 2*len(olds))
	for _, o := range olds {
		pairs = append(pairs, o, news[o])
	}
	m.r = strings.NewReplacer(pairs...)
	m.heads = newHeadSet(olds)
	return m
}

// safeValue reports whether v may be replaced wherever it stands: graph.MinValueBytes or
// more, and not word-shaped (graph.WordShaped), as the review redacts by value
// (review.Common).
func safeValue(v string) bool {
	return len(v) >= graph.MinValueBytes && !graph.WordShaped(v)
}

// replace returns data with m's values replaced (data itself when none stands in it).
func (m *fileMask) replace(data []byte) []byte {
	if m.r == nil {
		return data
	}
	if !m.heads.anyIn(data) {
		return data
	}
	s := string(data)
	if out := m.r.Replace(s); out != s {
		return []byte(out)
	}
	return data
}

// unmasked reports whether one of m's unsafe values stands in data as a token: no letter
// or digit just before or after it.
func (m *fileMask) unmasked(data []byte) bool {
	if len(m.unsafe) == 0 {
		return false
	}
	for _, u := range m.unsafe {
		if standsAsToken(data, u) {
			return true
		}
	}
	return false
}

// standsAsToken reports whether t occurs in s with no letter or digit on either side.
func standsAsToken(s []byte, t string) bool {
	for i := 0; ; {
		j := bytes.Index(s[i:], []byte(t))
		if j < 0 {
			return false
		}
		at := i + j
		if !(at > 0 && alnum(s[at-1])) && !(at+len(t) < len(s) && alnum(s[at+len(t)])) {
			return true
		}
		i = at + 1
	}
}

func alnum(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}
