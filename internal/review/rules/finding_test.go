package rules

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRegistry pins the rule ids of DESIGN.md's table and their report order.
func TestRegistry(t *testing.T) {
	var state, change []string
	for _, r := range State {
		state = append(state, r.ID)
	}
	for _, r := range Change {
		change = append(change, r.ID)
	}
	wantState := []string{"render-error", "helm-render-error", "depends-on-not-found", "health-check-not-found", "source-not-found", "depends-on-cycle", "release-collision", "duplicate-owner",
		"runtime-crd-same-pass", "runtime-namespace-same-pass", "namespace-for-release", "missing-namespace", "postrender-patch-unmatched", "missing-depends-on", "missing-wait", "missing-crd", "namespace-not-set",
		"target-namespace-renames-namespace", "invalid-name", "invalid-spec", "undefined-variable", "substitution-type-change", "unsubstituted-variable", "chart-version-unchanged", "helm-render-approximate"}
	wantChange := []string{"tier-move", "prune-transient", "destructive-prune", "helm-uninstall", "values-from-not-found", "substitute-from-not-found", "crd-not-upgraded", "root-path-changed", "flux-component-removed", "patch-target-lost"}
	if diff := cmp.Diff(wantState, state); diff != "" {
		t.Errorf("State (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantChange, change); diff != "" {
		t.Errorf("Change (-want +got):\n%s", diff)
	}
}

func TestSeverityJSON(t *testing.T) {
	cases := []struct {
		text string
		want Severity
	}{
		{"never", None}, {"none", None}, {"notice", Notice}, {"warning", Warning}, {"error", Error},
	}
	for _, tc := range cases {
		t.Run(tc.text, func(t *testing.T) {
			var got Severity
			if err := json.Unmarshal([]byte(`"`+tc.text+`"`), &got); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("unmarshal %q = %v, want %v", tc.text, got, tc.want)
			}
		})
	}
	if _, err := ParseSeverity("fatal"); err == nil {
		t.Error(`ParseSeverity("fatal") succeeded, want an error`)
	}
	b, err := json.Marshal(Finding{Rule: "r", Severity: Warning})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"rule":"r","severity":"warning","status":"","cluster":"","message":"","suggestion":""}`; string(b) != want {
		t.Errorf("marshal = %s, want %s", b, want)
	}
}
