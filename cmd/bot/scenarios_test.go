package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/google/go-cmp/cmp"
)

// expectation is a scenario's expect.json (the shared/scenarios contract): every entry of
// head_findings and moves must match some reported item (field subset), no finding may
// match an entry of absent, and the exit status must equal exit. findings_exact, used by
// the project's own scenarios, lists every finding in report order; unreviewed is the
// report's unreviewed list exactly, headline the Markdown verdict line, and
// fail_on_unreviewed passes --fail-on-unreviewed.
type expectation struct {
	Exit          *int             `json:"exit"`
	HeadFindings  []map[string]any `json:"head_findings"`
	Absent        []map[string]any `json:"absent"`
	Moves         []map[string]any `json:"moves"`
	FindingsExact []map[string]any `json:"findings_exact"`
	Clusters      []map[string]any `json:"clusters"`
	// Discovery, when set, is the report's discovery field.
	Discovery  *string          `json:"discovery"`
	Unreviewed []map[string]any `json:"unreviewed"`
	Headline   string           `json:"headline"`
	FailUnrev  bool             `json:"fail_on_unreviewed"`
	// Added, Changed, Removed, Orphaned and Releases, when set, are the report's lists exactly.
	Added    []map[string]any `json:"added"`
	Changed  []map[string]any `json:"changed"`
	Removed  []map[string]any `json:"removed"`
	Orphaned []map[string]any `json:"orphaned"`
	Releases []map[string]any `json:"releases"`
}

func TestScenarios(t *testing.T) {
	dirs, _ := filepath.Glob("../../testdata/scenarios/*")
	shared, _ := filepath.Glob("../../../shared/scenarios/*")
	if len(shared) == 0 {
		t.Log("../shared/scenarios not present: running the project's own scenarios only")
	}
	for _, dir := range append(dirs, shared...) {
		if _, err := os.Stat(filepath.Join(dir, "expect.json")); err != nil {
			continue
		}
		t.Run(filepath.Base(filepath.Dir(filepath.Dir(dir)))+"/"+filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			runScenario(t, dir)
		})
	}
}

func runScenario(t *testing.T, dir string) {
	var exp expectation
	data, err := os.ReadFile(filepath.Join(dir, "expect.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &exp); err != nil {
		t.Fatalf("expect.json: %v", err)
	}
	repo := commitScenario(t, dir)
	var out bytes.Buffer
	flags := reviewFlags{repo: repo, base: "HEAD~1", head: "HEAD", format: "json", failOnUnreviewed: exp.FailUnrev}
	err = runReview(context.Background(), &out, flags)
	code := 0
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	} else if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Findings   []map[string]any `json:"findings"`
		Moves      []map[string]any `json:"moves"`
		Clusters   []map[string]any `json:"clusters"`
		Unreviewed []map[string]any `json:"unreviewed"`
		Discovery  string           `json:"discovery"`
		Added      []map[string]any `json:"added"`
		Changed    []map[string]any `json:"changed"`
		Removed    []map[string]any `json:"removed"`
		Orphaned   []map[string]any `json:"orphaned"`
		Releases   []map[string]any `json:"releases"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("report is not JSON (exit %d, %v): %s", code, err, out.String())
	}
	if exp.Exit != nil && code != *exp.Exit {
		t.Errorf("exit %d, want %d", code, *exp.Exit)
	}
	for _, m := range exp.HeadFindings {
		if !anyMatch(rep.Findings, m) {
			t.Errorf("missing finding %v", m)
		}
	}
	for _, m := range exp.Absent {
		for _, f := range rep.Findings {
			if subset(f, m) {
				t.Errorf("unexpected finding %v: %v", m, f["message"])
			}
		}
	}
	for _, m := range exp.Moves {
		if !anyMatch(rep.Moves, m) {
			t.Errorf("missing move %v", m)
		}
	}
	if exp.Discovery != nil && rep.Discovery != *exp.Discovery {
		t.Errorf("discovery %q, want %q", rep.Discovery, *exp.Discovery)
	}
	if exp.Clusters != nil {
		if diff := cmp.Diff(exp.Clusters, rep.Clusters); diff != "" {
			t.Errorf("clusters (-want +got):\n%s", diff)
		}
	}
	if exp.Unreviewed != nil {
		if diff := cmp.Diff(exp.Unreviewed, rep.Unreviewed); diff != "" {
			t.Errorf("unreviewed (-want +got):\n%s", diff)
		}
	}
	for _, l := range []struct {
		name      string
		want, got []map[string]any
	}{{"added", exp.Added, rep.Added}, {"changed", exp.Changed, rep.Changed}, {"removed", exp.Removed, rep.Removed}, {"orphaned", exp.Orphaned, rep.Orphaned}, {"releases", exp.Releases, rep.Releases}} {
		if l.want == nil {
			continue
		}
		if l.got == nil {
			l.got = []map[string]any{}
		}
		if diff := cmp.Diff(l.want, l.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", l.name, diff)
		}
	}
	// comment.md, when present, is the whole Markdown comment.
	if want, err := os.ReadFile(filepath.Join(dir, "comment.md")); err == nil {
		var md bytes.Buffer
		f := flags
		f.format = "markdown"
		if err := runReview(context.Background(), &md, f); err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), md.String()); diff != "" {
			t.Errorf("comment.md (-want +got):\n%s", diff)
		}
	}
	if exp.Headline != "" {
		var md bytes.Buffer
		flags.format = "markdown"
		if err := runReview(context.Background(), &md, flags); err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		if lines := strings.SplitN(md.String(), "\n", 3); len(lines) < 2 || lines[1] != exp.Headline {
			t.Errorf("headline %q, want %q", lines[min(1, len(lines)-1)], exp.Headline)
		}
	}
	if exp.FindingsExact != nil {
		got := []map[string]any{}
		for i, f := range rep.Findings {
			p := map[string]any{}
			// Compared on the keys expected; with none expected, on rule and message.
			keys := map[string]any{"rule": nil, "message": nil}
			if len(exp.FindingsExact) > 0 {
				keys = exp.FindingsExact[min(i, len(exp.FindingsExact)-1)]
			}
			for k := range keys {
				p[k] = f[k]
			}
			got = append(got, p)
		}
		if diff := cmp.Diff(exp.FindingsExact, got); diff != "" {
			t.Errorf("findings (-want +got):\n%s", diff)
		}
	}
}

func anyMatch(items []map[string]any, m map[string]any) bool {
	for _, it := range items {
		if subset(it, m) {
			return true
		}
	}
	return false
}

// subset reports whether every field of want equals the same field of got (recursively
// for objects), as shared/tools/check_scenarios.py matches.
func subset(got, want map[string]any) bool {
	for k, v := range want {
		if sub, ok := v.(map[string]any); ok {
			g, ok := got[k].(map[string]any)
			if !ok || !subset(g, sub) {
				return false
			}
			continue
		}
		if !reflect.DeepEqual(got[k], v) {
			return false
		}
	}
	return true
}

// commitScenario makes a git repository whose two commits hold dir/base and dir/head.
func commitScenario(t *testing.T, dir string) string {
	t.Helper()
	repoDir := t.TempDir()
	r, err := git.PlainInit(repoDir, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := r.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	for i, side := range []string{"base", "head"} {
		entries, _ := os.ReadDir(repoDir)
		for _, e := range entries {
			if e.Name() != ".git" {
				os.RemoveAll(filepath.Join(repoDir, e.Name()))
			}
		}
		if err := os.CopyFS(repoDir, os.DirFS(filepath.Join(dir, side))); err != nil {
			t.Fatal(err)
		}
		if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
			t.Fatal(err)
		}
		sig := &object.Signature{Name: "t", Email: "t@example.invalid", When: time.Unix(int64(1700000000+i), 0)}
		if _, err := wt.Commit(side, &git.CommitOptions{Author: sig, AllowEmptyCommits: true}); err != nil {
			t.Fatal(err)
		}
	}
	return repoDir
}
