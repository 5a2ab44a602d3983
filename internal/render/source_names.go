package render

import "sort"

// RegularFiles lists the repo-relative paths of the regular files whose content the source
// holds, sorted; tree discovery outside the Flux graph (bootstrap helmfiles) walks them.
func (s *Source) RegularFiles() []string {
	out := make([]string, 0, len(s.snap.data))
	for rel := range s.snap.data {
		if s.snap.knows(rel) {
			out = append(out, rel)
		}
	}
	sort.Strings(out)
	return out
}
