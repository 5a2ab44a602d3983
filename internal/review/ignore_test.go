package review

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/config"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/review/rules"
)

// configFindings are one finding of each shape an ignore entry must tell apart.
func configFindings() []rules.Finding {
	return []rules.Finding{
		{Rule: "prune-transient", Severity: rules.Warning, Status: rules.StatusNew, Cluster: "prod", Kustomization: "flux-system/apps",
			Object: &graph.ObjectID{Group: "apps", Kind: "Deployment", Namespace: "web", Name: "api"}, File: "apps/web/deploy.yaml", Line: 3},
		{Rule: "tier-move", Severity: rules.Notice, Status: rules.StatusNew, Cluster: "dev", Kustomization: "flux-system/infra",
			Object: &graph.ObjectID{Kind: "ConfigMap", Namespace: "web", Name: "legacy-cfg"}, File: "infra/legacy/cm.yaml", Line: 1},
		{Rule: "depends-on-cycle", Severity: rules.Error, Status: rules.StatusExisting, Cluster: "prod", Kustomization: "flux-system/a",
			File: "clusters/prod/a.yaml", Line: 7},
		{Rule: "namespace-not-set", Severity: rules.Error, Status: rules.StatusResolved, Cluster: "dev", Kustomization: "apps/team",
			Object: &graph.ObjectID{Kind: "Namespace", Name: "legacy"}},
	}
}

func TestApplyConfig(t *testing.T) {
	all := []string{"prune-transient warning prod", "tier-move notice dev", "depends-on-cycle error prod", "namespace-not-set error dev"}
	cases := []struct {
		name, config  string
		kept, ignored []string
	}{
		{"no config", "", all, nil},
		{"severity override", "rules:\n  prune-transient: {severity: error}\n  depends-on-cycle: {severity: notice}\n",
			[]string{"prune-transient error prod", "tier-move notice dev", "depends-on-cycle notice prod", "namespace-not-set error dev"}, nil},
		{"rule off", "rules:\n  tier-move: {severity: off}\n",
			[]string{"prune-transient warning prod", "depends-on-cycle error prod", "namespace-not-set error dev"}, nil},
		{"by rule", "ignore:\n  - rule: tier-move\n    reason: moves are reviewed by hand\n",
			[]string{"prune-transient warning prod", "depends-on-cycle error prod", "namespace-not-set error dev"},
			[]string{"tier-move notice dev by c.yaml:2 (moves are reviewed by hand)"}},
		{"by path glob", "ignore:\n  - path: infra/**\n",
			[]string{"prune-transient warning prod", "depends-on-cycle error prod", "namespace-not-set error dev"},
			[]string{"tier-move notice dev by c.yaml:2"}},
		{"path glob star stays in one folder", "ignore:\n  - path: apps/*.yaml\n", all, nil},
		{"path never matches a finding without file", "ignore:\n  - path: '**'\n",
			[]string{"namespace-not-set error dev"},
			[]string{"prune-transient warning prod by c.yaml:2", "tier-move notice dev by c.yaml:2", "depends-on-cycle error prod by c.yaml:2"}},
		{"by object kind and name glob", "ignore:\n  - object: {kind: ConfigMap, name: legacy-*}\n",
			[]string{"prune-transient warning prod", "depends-on-cycle error prod", "namespace-not-set error dev"},
			[]string{"tier-move notice dev by c.yaml:2"}},
		{"object core group", "ignore:\n  - object: {group: \"\"}\n",
			[]string{"prune-transient warning prod", "depends-on-cycle error prod"},
			[]string{"tier-move notice dev by c.yaml:2", "namespace-not-set error dev by c.yaml:2"}},
		{"object cluster-scoped", "ignore:\n  - object: {namespace: \"\"}\n",
			[]string{"prune-transient warning prod", "tier-move notice dev", "depends-on-cycle error prod"},
			[]string{"namespace-not-set error dev by c.yaml:2"}},
		{"object not matching", "ignore:\n  - object: {group: apps, kind: StatefulSet}\n", all, nil},
		{"by Kustomization", "ignore:\n  - kustomization: flux-system/*\n",
			[]string{"namespace-not-set error dev"},
			[]string{"prune-transient warning prod by c.yaml:2", "tier-move notice dev by c.yaml:2", "depends-on-cycle error prod by c.yaml:2"}},
		{"Kustomization namespace glob", "ignore:\n  - kustomization: '*/team'\n",
			[]string{"prune-transient warning prod", "tier-move notice dev", "depends-on-cycle error prod"},
			[]string{"namespace-not-set error dev by c.yaml:2"}},
		{"by cluster", "ignore:\n  - cluster: prod\n",
			[]string{"tier-move notice dev", "namespace-not-set error dev"},
			[]string{"prune-transient warning prod by c.yaml:2", "depends-on-cycle error prod by c.yaml:2"}},
		{"every matcher must match", "ignore:\n  - rule: prune-transient\n    cluster: dev\n", all, nil},
		{"first matching entry is named", "ignore:\n  - rule: tier-move\n    reason: first\n  - cluster: dev\n    reason: second\n",
			[]string{"prune-transient warning prod", "depends-on-cycle error prod"},
			[]string{"tier-move notice dev by c.yaml:2 (first)", "namespace-not-set error dev by c.yaml:4 (second)"}},
		{"override applies before ignore", "rules:\n  tier-move: {severity: warning}\nignore:\n  - rule: tier-move\n",
			[]string{"prune-transient warning prod", "depends-on-cycle error prod", "namespace-not-set error dev"},
			[]string{"tier-move warning dev by c.yaml:4"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := config.Parse("c.yaml", []byte(tc.config))
			if err != nil {
				t.Fatal(err)
			}
			r := &Report{Findings: configFindings()}
			applyConfig(r, cfg)
			var kept, ignored []string
			for _, f := range r.Findings {
				kept = append(kept, fmt.Sprintf("%s %s %s", f.Rule, f.Severity, f.Cluster))
			}
			for _, ig := range r.Ignored {
				s := fmt.Sprintf("%s %s %s by %s", ig.Rule, ig.Severity, ig.Cluster, ig.IgnoredBy)
				if ig.Reason != "" {
					s += " (" + ig.Reason + ")"
				}
				ignored = append(ignored, s)
			}
			if d := cmp.Diff(tc.kept, kept); d != "" {
				t.Errorf("kept (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.ignored, ignored); d != "" {
				t.Errorf("ignored (-want +got):\n%s", d)
			}
		})
	}
}

// TestConfigDecidesTheVerdict checks that Review applies the configuration before the
// verdict: an overridden or ignored finding no longer fails the review.
func TestConfigDecidesTheVerdict(t *testing.T) {
	web := obj("Namespace", "", "web", nil)
	base := cluster(web, obj("ConfigMap", "web", "kept", nil))
	head := cluster(web, obj("ConfigMap", "web", "kept", nil), obj("ConfigMap", "", "fresh", nil))
	review := func(yaml string) *Report {
		cfg, err := config.Parse(config.FileName, []byte(yaml))
		if err != nil {
			t.Fatal(err)
		}
		return Review(&graph.Graph{Clusters: []*graph.Cluster{base}}, &graph.Graph{Clusters: []*graph.Cluster{head}},
			Options{Env: rules.Env{Catalog: rules.NewCatalog(nil), Strict: true}, Config: cfg})
	}
	type verdict struct {
		Findings, Ignored []string
		FailsOnError      bool
		FailsOnWarning    bool
	}
	summary := func(r *Report) verdict {
		v := verdict{FailsOnError: r.Fails(rules.Error), FailsOnWarning: r.Fails(rules.Warning)}
		for _, f := range r.Findings {
			v.Findings = append(v.Findings, fmt.Sprintf("%s %s %s %s", f.Status, f.Severity, f.Rule, f.Object.Name))
		}
		for _, f := range r.Ignored {
			v.Ignored = append(v.Ignored, fmt.Sprintf("%s %s %s %s by %s", f.Status, f.Severity, f.Rule, f.Object.Name, f.IgnoredBy))
		}
		return v
	}
	cases := []struct {
		name, config string
		want         verdict
	}{
		{"default", "", verdict{Findings: []string{"new error namespace-not-set fresh"}, FailsOnError: true, FailsOnWarning: true}},
		{"downgraded", "rules:\n  namespace-not-set: {severity: warning}\n",
			verdict{Findings: []string{"new warning namespace-not-set fresh"}, FailsOnWarning: true}},
		{"ignored", "ignore:\n  - object: {kind: ConfigMap, name: fresh}\n    reason: applied by hand\n",
			verdict{Ignored: []string{"new error namespace-not-set fresh by .tiergate.yaml:2"}}},
		{"ignore not matching", "ignore:\n  - object: {kind: Secret, name: fresh}\n",
			verdict{Findings: []string{"new error namespace-not-set fresh"}, FailsOnError: true, FailsOnWarning: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, summary(review(tc.config))); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
