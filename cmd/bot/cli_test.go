package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/gittest"
)

// run executes the CLI with args and returns stdout and the exit status.
func run(t *testing.T, args ...string) (string, int, error) {
	t.Helper()
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&bytes.Buffer{})
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), exitCode(err), err
}

const demo = "../../testdata/scenarios/demo/"

func TestExitStatus(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		code    int
		errText string
	}{
		{"new errors fail by default", []string{"review", "--base-dir", demo + "base", "--head-dir", demo + "head", "--format", "json"}, 1, "new findings at or above --fail-on"},
		{"fail-on never", []string{"review", "--base-dir", demo + "base", "--head-dir", demo + "head", "--fail-on", "never"}, 0, ""},
		{"no change passes at notice", []string{"review", "--base-dir", demo + "head", "--head-dir", demo + "head", "--fail-on", "notice"}, 0, ""},
		{"bad format", []string{"review", "--base-dir", demo + "base", "--head-dir", demo + "head", "--format", "yaml"}, 2, `--format: want markdown, json or sarif, got "yaml"`},
		{"bad fail-on", []string{"review", "--base-dir", demo + "base", "--head-dir", demo + "head", "--fail-on", "sometimes"}, 2, `--fail-on: unknown severity "sometimes" (want error, warning, notice or never)`},
		{"half of a dir pair", []string{"review", "--base-dir", demo + "base"}, 2, "--base-dir and --head-dir go together"},
		{"no base", []string{"review", "--repo", "."}, 2, "--base is required (or --base-dir and --head-dir)"},
		{"not a directory", []string{"review", "--base-dir", demo + "nope", "--head-dir", demo + "head"}, 2, demo + "nope is not a directory"},
		{"missing config", []string{"review", "--base-dir", demo + "base", "--head-dir", demo + "head", "--config", "/nonexistent/x.yaml"}, 2, "read config: open /nonexistent/x.yaml: no such file or directory"},
		{"allow-remote with a scheme", []string{"review", "--base-dir", demo + "base", "--head-dir", demo + "head", "--allow-remote", "github.com,https://raw.githubusercontent.com"}, 2,
			`--allow-remote: want a lower-case host name such as github.com or *.example.com (fetched over https only), got "https://raw.githubusercontent.com"`},
		{"allow-remote any host", []string{"review", "--base-dir", demo + "base", "--head-dir", demo + "head", "--allow-remote", "*"}, 2,
			`--allow-remote: want a lower-case host name such as github.com or *.example.com (fetched over https only), got "*"`},
		{"unknown flag", []string{"review", "--bogus"}, 2, "unknown flag: --bogus"},
		{"revisions with dirs", []string{"review", "--base-dir", demo + "base", "--head-dir", demo + "head", "--base", "main"}, 2, "--base does not apply to --base-dir/--head-dir"},
		{"graph rev with dir", []string{"graph", "--dir", demo + "head", "--rev", "HEAD~1"}, 2, "--rev and --repo do not apply to --dir"},
		{"allow-remote with a scheme", []string{"review", "--base-dir", demo + "base", "--head-dir", demo + "head", "--allow-remote", "github.com,https://example.com"}, 2, `--allow-remote: want a lower-case host name such as github.com or *.example.com (fetched over https only), got "https://example.com"`},
		{"allow-remote on a TLD", []string{"review", "--base-dir", demo + "base", "--head-dir", demo + "head", "--allow-remote", "*.com"}, 2, `--allow-remote: want a lower-case host name such as github.com or *.example.com (fetched over https only), got "*.com"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, code, err := run(t, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d (%v)", code, tc.code, err)
			}
			if tc.errText != "" && (err == nil || err.Error() != tc.errText) {
				t.Fatalf("error %q, want %q", err, tc.errText)
			}
		})
	}
}

func TestUnknownRevision(t *testing.T) {
	repo := commitScenario(t, demo)
	_, code, err := run(t, "review", "--repo", repo, "--base", "nope", "--head", "HEAD")
	if code != 2 || err == nil || !strings.HasPrefix(err.Error(), `unknown revision "nope"`) {
		t.Fatalf("exit %d, error %v", code, err)
	}
	// --no-merge-base compares the named base itself; with HEAD~1 both agree here.
	out, code, _ := run(t, "review", "--repo", repo, "--base", "HEAD~1", "--head", "HEAD", "--no-merge-base", "--format", "json")
	var rep struct{ Moves []any }
	if code != 1 || json.Unmarshal([]byte(out), &rep) != nil || len(rep.Moves) != 1 {
		t.Fatalf("exit %d, %d moves", code, len(rep.Moves))
	}
}

// TestShallowCloneHintOnce: in a shallow clone, HEAD~1 is outside the fetched history; the
// error says so once (gitrepo knows the clone is shallow, so the CLI's guess is not added).
// In the full clone, HEAD~5 is past the root commit: no shallow-clone hint.
func TestShallowCloneHintOnce(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is needed to make a shallow clone")
	}
	full := commitScenario(t, demo)
	shallow := filepath.Join(t.TempDir(), "shallow")
	gittest.Run(t, full, "clone", "-q", "--depth", "1", "file://"+full, shallow)
	_, code, err := run(t, "review", "--repo", shallow, "--base", "HEAD~1")
	want := `unknown revision "HEAD~1": object not found (the repository is a shallow clone: fetch the full history, e.g. git fetch --unshallow, or actions/checkout with fetch-depth: 0)`
	if code != 2 || err == nil || err.Error() != want {
		t.Fatalf("exit %d, error %v\nwant 2, %s", code, err, want)
	}
	_, code, err = run(t, "review", "--repo", full, "--base", "HEAD~5")
	want = `unknown revision "HEAD~5": no such ancestor`
	if code != 2 || err == nil || err.Error() != want {
		t.Fatalf("exit %d, error %v\nwant 2, %s", code, err, want)
	}
}

func TestSARIFOutput(t *testing.T) {
	out, _, _ := run(t, "review", "--base-dir", demo+"base", "--head-dir", demo+"head", "--format", "sarif")
	var s struct {
		Version string
		Runs    []struct {
			Results []struct {
				RuleID        string `json:"ruleId"`
				Level         string
				BaselineState string `json:"baselineState"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range s.Runs[0].Results {
		got = append(got, r.RuleID+" "+r.Level+" "+r.BaselineState)
	}
	want := []string{"missing-depends-on error new", "prune-transient error new", "tier-move note new"}
	if s.Version != "2.1.0" || !cmp.Equal(want, got) {
		t.Fatalf("version %s, results %v", s.Version, got)
	}
}

func TestGraphText(t *testing.T) {
	out, code, err := run(t, "graph", "--dir", demo+"head")
	if code != 0 {
		t.Fatal(err)
	}
	want := `cluster demo (root clusters/demo, 4 Kustomizations, 9 objects)
  flux-system/flux-system  path=./clusters/demo prune=true dependsOn=[]  5 objects
  flux-system/apps  path=./apps prune=true dependsOn=[flux-system/infra]  1 object
  flux-system/databases  path=./databases prune=true dependsOn=[]  1 object
  flux-system/infra  path=./infra prune=true dependsOn=[]  2 objects
`
	if d := cmp.Diff(want, out); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
	// A root at the repository's own root prints as ".", as the JSON report writes it.
	out, _, _ = run(t, "graph", "--dir", "../../testdata/scenarios/bootstrap-root-path/head")
	if first, _, _ := strings.Cut(out, "\n"); first != "cluster home (root ., 2 Kustomizations, 4 objects)" {
		t.Fatalf("repository-root cluster: %q", first)
	}
	out, _, _ = run(t, "graph", "--dir", demo+"head", "--format", "mermaid")
	if !strings.Contains(out, "flowchart LR\n") || !strings.Contains(out, "  k_flux_system_apps --> k_flux_system_infra\n") {
		t.Fatalf("mermaid:\n%s", out)
	}
}

func TestReviewRefusesToCheckNothing(t *testing.T) {
	empty := t.TempDir()
	cases := []struct {
		name, errText string
		args          []string
	}{
		{"unknown cluster", `cluster "nosuch" not found (clusters: demo)`, []string{"review", "--base-dir", demo + "base", "--head-dir", demo + "head", "--cluster", "nosuch"}},
		{"no Flux content", "no Flux cluster found: no bootstrap root, FluxInstance or Flux Kustomization; list clusters in .tiergate.yaml", []string{"review", "--base-dir", empty, "--head-dir", empty}},
		{"graph of an unknown cluster", `cluster "nosuch" not found (clusters: demo)`, []string{"graph", "--dir", demo + "head", "--cluster", "nosuch"}},
		{"graph of no Flux content", "no Flux cluster found: no bootstrap root, FluxInstance or Flux Kustomization; list clusters in .tiergate.yaml", []string{"graph", "--dir", empty}},
		{"configured path missing", `testdata/bad-cluster-path.tiergate.yaml:3: clusters[0].path: "clusters/nonexistent" is not a folder of the head tree`, []string{"review", "--base-dir", demo + "base", "--head-dir", demo + "head", "--config", "testdata/bad-cluster-path.tiergate.yaml"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, code, err := run(t, tc.args...)
			if code != 2 || err == nil || err.Error() != tc.errText {
				t.Fatalf("exit %d, error %v; want 2, %s", code, err, tc.errText)
			}
		})
	}
}

// TestLimitFlags: a limit set on the command line reaches the render, and hitting it leaves
// the Kustomization that crossed it not reviewed, naming the flag: no render-error (Flux
// would build it), exit status 0.
func TestLimitFlags(t *testing.T) {
	const stopped = "flux-system/flux-system clusters/demo/flux-system/gotk-sync.yaml: stopped by tiergate's own limit, not by Flux (raise the flag it names to review this Kustomization): "
	t.Run("max-objects", func(t *testing.T) {
		checkLimitFlag(t, []string{"--max-objects", "3"}, stopped+"not rendered: the cluster renders more than tiergate's limit of 3 objects (--max-objects)")
	})
	t.Run("max-build-documents", func(t *testing.T) {
		checkLimitFlag(t, []string{"--max-build-documents", "2"}, stopped+"refused clusters/demo/Kustomization: the build has read more than tiergate's limit of 2 YAML documents (--max-build-documents); kustomize's time grows with their square")
	})
}

// checkLimitFlag reviews the demo with flags and wants no render-error and exactly one
// Kustomization not reviewed, msg.
func checkLimitFlag(t *testing.T, flags []string, msg string) {
	t.Helper()
	args := append([]string{"review", "--base-dir", demo + "base", "--head-dir", demo + "head", "--format", "json"}, flags...)
	out, code, _ := run(t, args...)
	var rep struct {
		Findings   []struct{ Rule, Status, Kustomization, Message, File string }
		Unreviewed []struct{ Kind, Name, Reason, File string }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("exit %d: %v", code, err)
	}
	var errs []string
	for _, f := range rep.Findings {
		if f.Rule == "render-error" {
			errs = append(errs, f.Status+" "+f.Kustomization+" "+f.File+": "+f.Message)
		}
	}
	var got []string
	for _, u := range rep.Unreviewed {
		if u.Kind == "Kustomization" {
			got = append(got, u.Name+" "+u.File+": "+u.Reason)
		}
	}
	if d := cmp.Diff([]string{msg}, got); d != "" || code != 0 || len(errs) > 0 {
		t.Errorf("exit %d, render errors %q, not reviewed (-want +got):\n%s", code, errs, d)
	}
}
