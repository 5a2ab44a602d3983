package review

import (
	"github.com/bmatcuk/doublestar/v4"

	"github.com/tiergate/tiergate/internal/config"
	"github.com/tiergate/tiergate/internal/review/rules"
)

// IgnoredFinding is a finding that an ignore entry of .tiergate.yaml took out of the
// verdict. In JSON it is the finding's own fields plus ignoredBy and reason.
type IgnoredFinding struct {
	rules.Finding
	// IgnoredBy is where the matching entry is written, "file:line" (the first that matches).
	IgnoredBy string `json:"ignoredBy"`
	// Reason is the entry's reason, if it gives one.
	Reason string `json:"reason,omitempty"`
}

// applyConfig applies the rule severities and the ignore list of cfg to r.Findings before
// anything counts them: a rule set to off loses its findings, another override replaces
// the severity, and findings an ignore entry matches move to r.Ignored.
func applyConfig(r *Report, cfg *config.Config) {
	if cfg == nil {
		return
	}
	kept := r.Findings[:0]
	for _, f := range r.Findings {
		if rc, ok := cfg.Rules[f.Rule]; ok {
			if rc.Severity == config.SeverityOff {
				continue
			}
			f.Severity, _ = rules.ParseSeverity(rc.Severity) // validated by config.Parse
		}
		if ig := firstMatch(cfg.Ignore, f); ig != nil {
			r.Ignored = append(r.Ignored, IgnoredFinding{Finding: f, IgnoredBy: ig.At, Reason: ig.Reason})
			continue
		}
		kept = append(kept, f)
	}
	r.Findings = kept
}

func firstMatch(igs []config.Ignore, f rules.Finding) *config.Ignore {
	for i := range igs {
		if matches(&igs[i], f) {
			return &igs[i]
		}
	}
	return nil
}

// matches reports whether every matcher that ig gives matches f.
func matches(ig *config.Ignore, f rules.Finding) bool {
	if ig.Rule != "" && ig.Rule != f.Rule {
		return false
	}
	if !glob(ig.Cluster, f.Cluster) || !glob(ig.Kustomization, f.Kustomization) {
		return false
	}
	if ig.Path != "" && (f.File == "" || !glob(ig.Path, f.File)) {
		return false
	}
	if o := ig.Object; o != nil {
		if f.Object == nil {
			return false
		}
		for _, p := range []struct {
			pattern *string
			value   string
		}{{o.Group, f.Object.Group}, {o.Kind, f.Object.Kind}, {o.Namespace, f.Object.Namespace}, {o.Name, f.Object.Name}} {
			if p.pattern != nil && !doublestar.MatchUnvalidated(*p.pattern, p.value) {
				return false
			}
		}
	}
	return true
}

// glob matches value against a doublestar pattern; an empty pattern matches anything.
func glob(pattern, value string) bool {
	return pattern == "" || doublestar.MatchUnvalidated(pattern, value)
}
