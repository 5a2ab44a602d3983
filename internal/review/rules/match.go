package rules

import (
	"regexp"
	"strings"
)

// lineMatcher is what lineAfter looks for in a line: a package-level *regexp.Regexp, or
// one of the matchers below, which find a finding's name (untrusted text) with fixed
// regexps and string comparison instead of compiling a regexp for each finding.
type lineMatcher interface{ MatchString(string) bool }

// matchFunc is a func as a lineMatcher.
type matchFunc func(string) bool

// MatchString reports whether f matches s.
func (f matchFunc) MatchString(s string) bool { return f(s) }

var (
	// What may follow a scalar: its closing quote, then the end of the line, a comment,
	// or the next entry of a flow mapping.
	endOrComment = regexp.MustCompile(`^["']?\s*(#.*)?$`)
	lineEnd      = regexp.MustCompile(`^["']?\s*$`)
	flowEnd      = regexp.MustCompile(`^["']?\s*($|[,}#])`)
	colonAfter   = regexp.MustCompile(`^\s*:`)
)

// nameEntry matches a list entry's or a key's `name: <name>` line (quoted or not, a
// comment after it).
func nameEntry(name string) lineMatcher { return scalarLine(nameKey, name, endOrComment) }

// A key prefix returns what follows the key a line opens with, false when it opens with
// none; where the key ends is fixed, as in the regexps they stand for.
type keyPrefix func(l string) (string, bool)

// nameKey is `^\s*(-\s*)?name:`.
func nameKey(l string) (string, bool) {
	l = trimSpace(l)
	if rest, ok := strings.CutPrefix(l, "-"); ok {
		l = trimSpace(rest)
	}
	return strings.CutPrefix(l, "name:")
}

// kindKeyTop is `^kind:`.
func kindKeyTop(l string) (string, bool) { return strings.CutPrefix(l, "kind:") }

// nameKeyInner is `^\s+name:`.
func nameKeyInner(l string) (string, bool) {
	t := trimSpace(l)
	if len(t) == len(l) {
		return "", false
	}
	return strings.CutPrefix(t, "name:")
}

// flowKey is `^[^\s{},:#]+:`.
func flowKey(l string) (string, bool) {
	i := strings.IndexFunc(l, func(r rune) bool { return r < 0x80 && (isSpace(byte(r)) || strings.ContainsRune("{},:#", r)) })
	if i <= 0 || l[i] != ':' {
		return "", false
	}
	return l[i+1:], true
}

// trimSpace cuts the regexp \s characters l opens with.
func trimSpace(l string) string {
	i := 0
	for i < len(l) && isSpace(l[i]) {
		i++
	}
	return l[i:]
}

// scalarLine matches a line that prefix opens, then spaces, an optional quote, lit and
// what suffix matches at once: the regexp prefix + `\s*["']?` + lit + suffix.
func scalarLine(prefix keyPrefix, lit string, suffix *regexp.Regexp) lineMatcher {
	return matchFunc(func(l string) bool {
		rest, ok := prefix(l)
		return ok && quotedAt(rest, lit, suffix)
	})
}

// setsValue matches a line that sets a key to the scalar value, in block (`ns: x`) or flow
// form (`{a: 1, ns: x}`): the regexp `(^|[\s{,])[^\s{},:#]+:\s*["']?` + value + flowEnd.
func setsValue(value string) lineMatcher {
	return matchFunc(func(l string) bool {
		for p := 0; p < len(l); p++ {
			if p > 0 && !isSpace(l[p-1]) && l[p-1] != '{' && l[p-1] != ',' {
				continue
			}
			if rest, ok := flowKey(l[p:]); ok && quotedAt(rest, value, flowEnd) {
				return true
			}
		}
		return false
	})
}

// quotedAt reports whether s is spaces, an optional quote, lit and then what suffix
// matches (anchored), trying every split of the spaces as the regexp `\s*["']?` would.
func quotedAt(s, lit string, suffix *regexp.Regexp) bool {
	for i := 0; ; i++ {
		t := s[i:]
		if litThen(t, lit, suffix) || t != "" && (t[0] == '"' || t[0] == '\'') && litThen(t[1:], lit, suffix) {
			return true
		}
		if i == len(s) || !isSpace(s[i]) {
			return false
		}
	}
}

// litThen reports whether s is lit followed by what suffix matches at once.
func litThen(s, lit string, suffix *regexp.Regexp) bool {
	rest, ok := strings.CutPrefix(s, lit)
	return ok && suffix.MatchString(rest)
}

// keyPrefixed matches a line whose key, after indentation and list dashes, is key: the
// regexp `^[\s-]*` + key + `\s*:`.
func keyPrefixed(key string) lineMatcher {
	return matchFunc(func(l string) bool {
		for i := 0; i <= len(l); i++ {
			if litThen(l[i:], key, colonAfter) {
				return true
			}
			if i == len(l) || !isSpace(l[i]) && l[i] != '-' {
				return false
			}
		}
		return false
	})
}

// usesVar matches a line that uses ${name}, with or without an operator: `${name` then
// no other variable-name character.
func usesVar(name string) lineMatcher {
	return wordAfter("${"+name, func(l string, i int) bool { return true })
}

// wordIn matches a line holding word with no word character (A-Z, a-z, 0-9, _) on
// either side.
func wordIn(word string) lineMatcher {
	return wordAfter(word, func(l string, i int) bool { return i == 0 || !isWordByte(l[i-1]) })
}

// wordAfter matches a line holding text, at an index before accepts, with no word
// character after it.
func wordAfter(text string, before func(l string, i int) bool) lineMatcher {
	return matchFunc(func(l string) bool {
		for off := 0; off <= len(l); {
			j := strings.Index(l[off:], text)
			if j < 0 {
				return false
			}
			i := off + j
			if end := i + len(text); before(l, i) && (end == len(l) || !isWordByte(l[end])) {
				return true
			}
			off = i + 1
		}
		return false
	})
}

// contains matches a line holding text.
func contains(text string) lineMatcher {
	return matchFunc(func(l string) bool { return strings.Contains(l, text) })
}

// isSpace reports whether b is one of regexp's \s: tab, newline, form feed, carriage
// return, space.
func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\f' || b == '\r'
}

// isWordByte reports whether b is an ASCII letter, digit or underscore (a byte of a
// multi-byte rune is none: the rune is no regexp [A-Za-z0-9_]).
func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}
