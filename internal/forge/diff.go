package forge

import (
	"fmt"
	"strconv"
	"strings"
)

// hunkLines adds to lines the head-side line numbers of the added and context lines of a
// unified patch (the hunks of one file, as GitHub's files API returns them).
func hunkLines(patch string, lines map[int]bool) error {
	var h hunk
	for _, l := range strings.Split(patch, "\n") {
		if _, err := h.line(l, lines); err != nil {
			return err
		}
	}
	return nil
}

// diffLines parses a whole `git diff` (several files) into head-side line numbers per
// head path. Deleted files have no head lines and are left out.
func diffLines(diff string) (map[string]map[int]bool, error) {
	out := map[string]map[int]bool{}
	var h hunk
	path := ""
	for _, l := range strings.Split(diff, "\n") {
		inHunk, err := h.line(l, out[path])
		if err != nil {
			return nil, fmt.Errorf("file %q: %w", path, err)
		}
		if inHunk {
			continue
		}
		if name, ok := strings.CutPrefix(l, "+++ "); ok {
			path = headPath(name)
			if path != "" && out[path] == nil {
				out[path] = map[int]bool{}
			}
		} else if strings.HasPrefix(l, "diff --git ") {
			path = ""
		}
	}
	for p, ls := range out {
		if len(ls) == 0 {
			delete(out, p)
		}
	}
	return out, nil
}

// headPath turns the name on a "+++ " line into a repository path ("" for /dev/null).
func headPath(name string) string {
	name = strings.TrimRight(name, "\r")
	if strings.HasPrefix(name, `"`) {
		if u, err := strconv.Unquote(name); err == nil {
			name = u
		}
	} else if i := strings.IndexByte(name, '\t'); i >= 0 {
		name = name[:i]
	}
	if name == "/dev/null" {
		return ""
	}
	return strings.TrimPrefix(name, "b/")
}

// hunk follows one hunk: how many old and new lines are still to come, and the next
// head line number.
type hunk struct {
	oldLeft, newLeft, next int
}

// line consumes one line of a patch. It reports whether the line belonged to a hunk
// (header or body); lines outside hunks are left to the caller.
func (h *hunk) line(l string, lines map[int]bool) (bool, error) {
	if h.oldLeft > 0 || h.newLeft > 0 {
		switch {
		case strings.HasPrefix(l, "+"):
			h.add(lines)
			h.newLeft--
		case strings.HasPrefix(l, "-"):
			h.oldLeft--
		case strings.HasPrefix(l, `\`):
		default: // a context line; some tools strip the trailing space of empty ones
			h.add(lines)
			h.oldLeft--
			h.newLeft--
		}
		return true, nil
	}
	if strings.HasPrefix(l, `\`) {
		return true, nil // "\ No newline at end of file" after the last line of a hunk
	}
	if !strings.HasPrefix(l, "@@ ") {
		return false, nil
	}
	var err error
	h.oldLeft, h.newLeft, h.next, err = parseHunkHeader(l)
	return true, err
}

func (h *hunk) add(lines map[int]bool) {
	if lines != nil {
		lines[h.next] = true
	}
	h.next++
}

// parseHunkHeader reads "@@ -a,b +c,d @@ …"; an omitted count is 1.
func parseHunkHeader(l string) (oldCount, newCount, newStart int, err error) {
	f := strings.Fields(l)
	if len(f) < 4 || !strings.HasPrefix(f[3], "@@") {
		return 0, 0, 0, fmt.Errorf("bad hunk header %q", l)
	}
	_, oldCount, err1 := parseRange(f[1], "-")
	newStart, newCount, err2 := parseRange(f[2], "+")
	if err1 != nil || err2 != nil {
		return 0, 0, 0, fmt.Errorf("bad hunk header %q", l)
	}
	return oldCount, newCount, newStart, nil
}

func parseRange(s, sign string) (start, count int, err error) {
	s, ok := strings.CutPrefix(s, sign)
	if !ok {
		return 0, 0, fmt.Errorf("range %q lacks %q", s, sign)
	}
	a, b, found := strings.Cut(s, ",")
	if start, err = strconv.Atoi(a); err != nil {
		return 0, 0, err
	}
	count = 1
	if found {
		count, err = strconv.Atoi(b)
	}
	return start, count, err
}
