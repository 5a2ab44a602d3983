package format

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sarifLog is the part of SARIF 2.1.0 the test reads back.
type sarifLog struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name           string `json:"name"`
				Version        string `json:"version"`
				InformationURI string `json:"informationUri"`
				Rules          []struct {
					ID               string                `json:"id"`
					Name             string                `json:"name"`
					ShortDescription struct{ Text string } `json:"shortDescription"`
					FullDescription  struct{ Text string } `json:"fullDescription"`
					HelpURI          string                `json:"helpUri"`
					Default          struct {
						Level string `json:"level"`
					} `json:"defaultConfiguration"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Results []struct {
			RuleID    string `json:"ruleId"`
			RuleIndex *int   `json:"ruleIndex"`
			Level     string `json:"level"`
			Message   struct {
				Text string `json:"text"`
			} `json:"message"`
			Locations []struct {
				Physical struct {
					Artifact struct {
						URI       string `json:"uri"`
						URIBaseID string `json:"uriBaseId"`
					} `json:"artifactLocation"`
					Region struct {
						StartLine int `json:"startLine"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
			Fingerprints map[string]string `json:"partialFingerprints"`
			Properties   map[string]string `json:"properties"`
		} `json:"results"`
	} `json:"runs"`
}

// sarifResult is a result flattened for comparison.
type sarifResult struct {
	Rule, Level, URI, Base string
	Index, Line            int
	Props                  map[string]string
}

func TestSARIF(t *testing.T) {
	var buf bytes.Buffer
	if err := SARIF(&buf, fixture(), "v1.2.3"); err != nil {
		t.Fatal(err)
	}
	var log sarifLog
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, buf.String())
	}
	if log.Schema != "https://json.schemastore.org/sarif-2.1.0.json" || log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("schema %q, version %q, %d runs; want sarif-2.1.0.json, 2.1.0, 1 run", log.Schema, log.Version, len(log.Runs))
	}
	d := log.Runs[0].Tool.Driver
	if d.Name != "tiergate" || d.Version != "v1.2.3" || d.InformationURI != "https://github.com/tiergate/tiergate" {
		t.Errorf("driver = %q %q %q", d.Name, d.Version, d.InformationURI)
	}

	wantLevels := map[string]string{
		"render-error": "error", "depends-on-not-found": "error", "depends-on-cycle": "error", "duplicate-owner": "error",
		"runtime-crd-same-pass": "error", "missing-depends-on": "error", "missing-wait": "warning", "namespace-not-set": "error",
		"undefined-variable": "error", "unsubstituted-variable": "warning", "tier-move": "note", "prune-transient": "warning",
		"destructive-prune": "error", "helm-uninstall": "warning", "values-from-not-found": "error", "substitute-from-not-found": "error", "crd-not-upgraded": "warning", "root-path-changed": "error", "flux-component-removed": "error",
		"helm-render-error": "error", "release-collision": "error", "runtime-namespace-same-pass": "error",
		"namespace-for-release": "error", "missing-namespace": "error", "postrender-patch-unmatched": "warning",
		"chart-version-unchanged": "warning", "helm-render-approximate": "note",
		"health-check-not-found": "error", "source-not-found": "error", "missing-crd": "error", "target-namespace-renames-namespace": "error", "invalid-name": "error",
		"invalid-spec": "error", "substitution-type-change": "error", "patch-target-lost": "warning",
	}
	wantIDs := []string{
		"render-error", "helm-render-error", "depends-on-not-found", "health-check-not-found", "source-not-found", "depends-on-cycle", "release-collision", "duplicate-owner",
		"runtime-crd-same-pass", "runtime-namespace-same-pass", "namespace-for-release", "missing-namespace", "postrender-patch-unmatched", "missing-depends-on", "missing-wait", "missing-crd", "namespace-not-set",
		"target-namespace-renames-namespace", "invalid-name", "invalid-spec", "undefined-variable", "substitution-type-change", "unsubstituted-variable", "chart-version-unchanged", "helm-render-approximate",
		"tier-move", "prune-transient", "destructive-prune", "helm-uninstall", "values-from-not-found", "substitute-from-not-found", "crd-not-upgraded", "root-path-changed", "flux-component-removed", "patch-target-lost",
	}
	var ids []string
	index := map[string]int{}
	for i, r := range d.Rules {
		ids = append(ids, r.ID)
		index[r.ID] = i
		if r.Name == "" || r.ShortDescription.Text == "" || r.FullDescription.Text == "" || r.Name == r.ID {
			t.Errorf("rule %s lacks a name or description: %+v", r.ID, r)
		}
		if want := "https://github.com/tiergate/tiergate/blob/main/docs/rules.md#" + r.ID; r.HelpURI != want {
			t.Errorf("rule %s helpUri = %q, want %q", r.ID, r.HelpURI, want)
		}
		if r.Default.Level != wantLevels[r.ID] {
			t.Errorf("rule %s level = %q, want %q", r.ID, r.Default.Level, wantLevels[r.ID])
		}
	}
	if diff := cmp.Diff(wantIDs, ids); diff != "" {
		t.Errorf("rule ids (-want +got):\n%s", diff)
	}

	hex := regexp.MustCompile(`^[0-9a-f]{64}$`)
	var got []sarifResult
	for _, r := range log.Runs[0].Results {
		if r.RuleIndex == nil || len(r.Locations) != 1 || !hex.MatchString(r.Fingerprints["tiergate/v1"]) {
			t.Fatalf("result %s: ruleIndex %v, %d locations, fingerprint %q", r.RuleID, r.RuleIndex, len(r.Locations), r.Fingerprints["tiergate/v1"])
		}
		if *r.RuleIndex != index[r.RuleID] {
			t.Errorf("result %s: ruleIndex %d, want %d", r.RuleID, *r.RuleIndex, index[r.RuleID])
		}
		loc := r.Locations[0].Physical
		got = append(got, sarifResult{Rule: r.RuleID, Level: r.Level, URI: loc.Artifact.URI, Base: loc.Artifact.URIBaseID,
			Index: *r.RuleIndex, Line: loc.Region.StartLine, Props: r.Properties})
	}
	props := func(status, cluster, ks, object string) map[string]string {
		return map[string]string{"status": status, "cluster": cluster, "kustomization": ks, "object": object}
	}
	// at is a rule's index in the run's rules, as wantIDs orders them.
	at := func(id string) int { return slices.Index(wantIDs, id) }
	want := []sarifResult{
		{"missing-depends-on", "error", "apps/web/certificate.yaml", "%SRCROOT%", at("missing-depends-on"), 2, props("new", "dev", "flux-system/apps", "Certificate.cert-manager.io/apps/web")},
		{"missing-depends-on", "error", "web/settings.yaml", "%SRCROOT%", at("missing-depends-on"), 4, props("new", "prod", "apps/web", "ConfigMap/web/settings")},
		{"prune-transient", "warning", "platform-config-cdi/cdi-storageprofiles.yaml", "%SRCROOT%", at("prune-transient"), 2, props("new", "dev", "flux-system/platform-config", "StorageProfile.cdi.kubevirt.io/longhorn-vm")},
		{"tier-move", "note", "platform-config-cdi/cdi-storageprofiles.yaml", "%SRCROOT%", at("tier-move"), 2, props("new", "dev", "flux-system/platform-config-cdi", "StorageProfile.cdi.kubevirt.io/longhorn-vm")},
		{"destructive-prune", "none", "apps/weird.yaml", "%SRCROOT%", at("destructive-prune"), 1, props("new", "dev", "flux-system/apps", "ConfigMap/apps/"+hostile)},
		{"depends-on-not-found", "error", "clusters/prod/db.yaml", "%SRCROOT%", at("depends-on-not-found"), 1, props("existing", "prod", "flux-system/db", "")},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got); the resolved render-error must be absent:\n%s", diff)
	}
	first := log.Runs[0].Results[0]
	if wantText := fixture().Findings[0].Message + "\n" + fixture().Findings[0].Suggestion; first.Message.Text != wantText {
		t.Errorf("message = %q, want %q", first.Message.Text, wantText)
	}
}

func TestSARIFFingerprintStable(t *testing.T) {
	f := fixture().Findings[0]
	a := fingerprint(f)
	f.Message, f.Line = "reworded", 99
	if b := fingerprint(f); a != b {
		t.Errorf("fingerprint changes with message and line: %s != %s", a, b)
	}
	f.Cluster = "other"
	if c := fingerprint(f); c == a {
		t.Errorf("fingerprint ignores the cluster")
	}
}
