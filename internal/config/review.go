package config

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
)

// Rule overrides the defaults of one rule; Config.Rules keys it by rule id (docs/rules.md).
type Rule struct {
	// Severity replaces the severity of every finding of the rule: "error", "warning" or
	// "notice"; "off" drops the rule's findings altogether (they are not counted as ignored).
	Severity string `json:"severity" yaml:"severity"`
}

// SeverityOff is the Rule.Severity that disables a rule.
const SeverityOff = "off"

// Ignore takes the findings it matches out of the verdict: they no longer count for
// --fail-on, the status or the comment's verdict, and are listed apart as ignored. Every
// matcher given must match; at least one is required. Globs are doublestar globs
// (github.com/bmatcuk/doublestar/v4): `*` stays within one path element, `**` crosses them.
type Ignore struct {
	// Rule is a rule id, matched exactly.
	Rule string `json:"rule,omitempty" yaml:"rule,omitempty"`
	// Cluster is a glob on the cluster name.
	Cluster string `json:"cluster,omitempty" yaml:"cluster,omitempty"`
	// Path is a glob on the finding's file, relative to the repository root ("apps/legacy/**").
	// A finding without a file never matches it.
	Path string `json:"path,omitempty" yaml:"path,omitempty"`
	// Kustomization is "namespace/name" of the Flux Kustomization, each part a glob
	// ("flux-system/*").
	Kustomization string `json:"kustomization,omitempty" yaml:"kustomization,omitempty"`
	// Object matches the finding's object; a finding about a Kustomization only (no object)
	// never matches it.
	Object *ObjectPattern `json:"object,omitempty" yaml:"object,omitempty"`
	// Reason says why; the report shows it next to each ignored finding.
	Reason string `json:"reason,omitempty" yaml:"reason,omitempty"`
	// At is where the entry is written, "file:line"; set by Parse.
	At string `json:"-" yaml:"-"`
}

// ObjectPattern matches a Flux inventory identity field by field, each a glob. A field
// left out matches any value; "" matches only the empty value (the core group, a
// cluster-scoped object's namespace).
type ObjectPattern struct {
	Group     *string `json:"group,omitempty" yaml:"group,omitempty"`
	Kind      *string `json:"kind,omitempty" yaml:"kind,omitempty"`
	Namespace *string `json:"namespace,omitempty" yaml:"namespace,omitempty"`
	Name      *string `json:"name,omitempty" yaml:"name,omitempty"`
}

// Remote is the allow list for remote kustomize resources (DESIGN.md "Rendering" 5). A
// remote resource whose host it does not allow is not fetched and its Kustomization is
// partial; without the key nothing is fetched.
type Remote struct {
	// Allow lists the hosts whose resources may be fetched, over https only: "github.com"
	// is that host exactly, "*.example.com" every subdomain of example.com (not
	// example.com itself). Lower-case host names, without scheme, port or path.
	Allow []string `json:"allow,omitempty" yaml:"allow,omitempty"`
	// Timeout bounds one fetch, a Go duration such as "30s" (at most MaxRemoteTimeout);
	// zero means DefaultRemoteTimeout.
	Timeout time.Duration `json:"timeout,omitempty" yaml:"timeout,omitempty"`
	// MaxBytes caps the size of one fetched resource in bytes (at most MaxRemoteBytes);
	// zero means DefaultRemoteMaxBytes.
	MaxBytes int64 `json:"maxBytes,omitempty" yaml:"maxBytes,omitempty"`
}

// Defaults and caps of Remote. The configuration comes from the pull request under review,
// so the caps bound what a PR can make a review spend.
const (
	DefaultRemoteTimeout  = 30 * time.Second
	MaxRemoteTimeout      = 2 * time.Minute
	DefaultRemoteMaxBytes = 10 << 20
	MaxRemoteBytes        = 64 << 20
)

// Allows reports whether resources of host (a URL's Hostname(), any case) may be fetched.
func (r *Remote) Allows(host string) bool {
	if r == nil {
		return false
	}
	host = strings.ToLower(host)
	for _, a := range r.Allow {
		a = strings.ToLower(a) // entries are validated lower-case; API callers may not be
		if suffix, ok := strings.CutPrefix(a, "*."); ok {
			if strings.HasSuffix(host, "."+suffix) {
				return true
			}
		} else if host == a {
			return true
		}
	}
	return false
}

// hostPattern is a lower-case DNS name, or "*." and a name of two labels or more. The JSON
// Schema (docs/tiergate.schema.json) holds the same expression.
var hostPattern = regexp.MustCompile(`^([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*|\*\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)+)$`)

var severities = []string{"error", "warning", "notice", SeverityOff}

// CheckRules rejects rule ids that known does not hold, under rules and in ignore entries,
// every one of them in line order (an *Error with More). The rule ids live in
// internal/review/rules, which imports this package, so the caller passes them.
func (c *Config) CheckRules(known []string) error {
	return joinErrors(c.checkRules(known))
}

// checkRules is CheckRules's list of errors.
func (c *Config) checkRules(known []string) []*Error {
	msg := func(id string) string {
		return fmt.Sprintf("unknown rule %q (rules: %s)", id, strings.Join(known, ", "))
	}
	var errs []*Error
	for _, id := range sortedKeys(c.Rules) {
		if !slices.Contains(known, id) {
			errs = append(errs, c.errorf("rules."+id, "%s", msg(id)).(*Error))
		}
	}
	for i, ig := range c.Ignore {
		if ig.Rule != "" && !slices.Contains(known, ig.Rule) {
			errs = append(errs, c.errorf(fmt.Sprintf("ignore[%d].rule", i), "%s", msg(ig.Rule)).(*Error))
		}
	}
	return errs
}

// checkReview validates rules, ignore and remote, one error per bad key.
func (c *Config) checkReview() []*Error {
	var errs []*Error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err.(*Error))
		}
	}
	for _, id := range sortedKeys(c.Rules) {
		if s := c.Rules[id].Severity; !slices.Contains(severities, s) {
			add(c.errorf("rules."+id+".severity", "want error, warning, notice or off, got %q", s))
		}
	}
	for i := range c.Ignore {
		key := fmt.Sprintf("ignore[%d]", i)
		add(c.checkIgnore(key, &c.Ignore[i]))
		c.Ignore[i].At = c.where(key)
	}
	if r := c.Remote; r != nil {
		for i, h := range r.Allow {
			if err := CheckHost(h); err != nil {
				add(c.errorf(fmt.Sprintf("remote.allow[%d]", i), "%v", err))
			}
		}
		if r.Timeout < 0 || r.Timeout > MaxRemoteTimeout {
			add(c.errorf("remote.timeout", "want a duration above 0s and at most %s, got %s", MaxRemoteTimeout, r.Timeout))
		}
		if r.MaxBytes < 0 || r.MaxBytes > MaxRemoteBytes {
			add(c.errorf("remote.maxBytes", "want 1 to %d bytes, got %d", MaxRemoteBytes, r.MaxBytes))
		}
	}
	return errs
}

// checkIgnore validates one ignore entry; its first error only, as the later checks
// assume the earlier ones passed.
func (c *Config) checkIgnore(key string, ig *Ignore) error {
	if ig.Rule == "" && ig.Cluster == "" && ig.Path == "" && ig.Kustomization == "" && ig.Object == nil {
		return c.errorf(key, "give at least one of rule, cluster, path, kustomization, object")
	}
	globs := []struct{ field, value string }{{"cluster", ig.Cluster}, {"path", ig.Path}, {"kustomization", ig.Kustomization}}
	if o := ig.Object; o != nil {
		if o.Group == nil && o.Kind == nil && o.Namespace == nil && o.Name == nil {
			return c.errorf(key+".object", "give at least one of group, kind, namespace, name")
		}
		for _, f := range []struct {
			field string
			value *string
		}{{"group", o.Group}, {"kind", o.Kind}, {"namespace", o.Namespace}, {"name", o.Name}} {
			if f.value != nil {
				globs = append(globs, struct{ field, value string }{"object." + f.field, *f.value})
			}
		}
	}
	for _, g := range globs {
		if !doublestar.ValidatePattern(g.value) {
			return c.errorf(key+"."+g.field, "bad glob %q", g.value)
		}
	}
	if ig.Kustomization != "" && strings.Count(ig.Kustomization, "/") != 1 {
		return c.errorf(key+".kustomization", "want namespace/name (globs allowed), got %q", ig.Kustomization)
	}
	if strings.HasPrefix(ig.Path, "/") || strings.HasPrefix(ig.Path, "./") {
		return c.errorf(key+".path", "want a path relative to the repository root, without a leading / or ./, got %q", ig.Path)
	}
	return nil
}

// CheckHost validates one entry of a remote allow list (remote.allow, or the operator's
// --allow-remote): a lower-case host name such as github.com, or *. and a name of two labels
// or more; no scheme, port or path. The error says what is wanted and quotes h.
func CheckHost(h string) error {
	if !hostPattern.MatchString(h) || len(h) > 253 {
		return fmt.Errorf("want a lower-case host name such as github.com or *.example.com (fetched over https only), got %q", h)
	}
	return nil
}
