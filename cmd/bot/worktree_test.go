package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// runErr executes the CLI with args and returns stdout, stderr and the exit status.
func runErr(t *testing.T, args ...string) (string, string, int, error) {
	t.Helper()
	root := newRoot()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), errOut.String(), exitCode(err), err
}

// dirtyDemo commits the demo scenario (HEAD is its head) and edits the work tree: a tracked
// file changed, an untracked file added, an ignored file added, and a tracked file that
// .gitignore matches (git keeps it: it is tracked).
func dirtyDemo(t *testing.T) string {
	t.Helper()
	repo := commitScenario(t, demo)
	write := func(rel, content string) {
		if err := os.WriteFile(filepath.Join(repo, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dep, err := os.ReadFile(filepath.Join(repo, "apps/web/deployment.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	write("apps/web/deployment.yaml", strings.Replace(string(dep), "web:1.5.0", "web:1.6.0", 1))
	write("apps/web/config.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-config\n  namespace: web\ndata:\n  a: b\n")
	write(".gitignore", "*.local.yaml\ninfra/namespaces.yaml\n")
	write("apps/web/secret.local.yaml", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: local\n  namespace: web\n")
	return repo
}

// changes is the added, removed and changed objects of a JSON report, one line each.
func changes(t *testing.T, out string) []string {
	t.Helper()
	var rep struct {
		Head                    string
		Added, Removed, Changed []struct {
			Object struct{ Kind, Namespace, Name string }
			File   string
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	lines := []string{"head " + rep.Head}
	for _, s := range []struct {
		what string
		objs []struct {
			Object struct{ Kind, Namespace, Name string }
			File   string
		}
	}{{"added", rep.Added}, {"removed", rep.Removed}, {"changed", rep.Changed}} {
		for _, o := range s.objs {
			lines = append(lines, s.what+" "+o.Object.Kind+"/"+o.Object.Namespace+"/"+o.Object.Name+" "+o.File)
		}
	}
	return lines
}

// TestReviewWorkTree reviews the work tree against HEAD with --worktree and with
// --head-dir: the tracked change and the untracked file are reviewed, the ignored file is
// not, and the tracked file that .gitignore matches stays.
func TestReviewWorkTree(t *testing.T) {
	repo := dirtyDemo(t)
	want := []string{
		"head work tree " + repo,
		"added ConfigMap/web/web-config apps/web/config.yaml",
		"changed Deployment/web/web apps/web/deployment.yaml",
	}
	for _, args := range [][]string{
		{"review", "--repo", repo, "--base", "HEAD", "--worktree", "--format", "json"},
		{"review", "--head-dir", repo, "--base", "HEAD", "--format", "json"},
		{"review", "--repo", repo, "--head-dir", repo, "--base", "HEAD", "--no-merge-base", "--format", "json"},
	} {
		out, errOut, code, err := runErr(t, args...)
		if code != 0 || errOut != "" {
			t.Fatalf("%q: exit %d, %v, stderr %q", args, code, err, errOut)
		}
		if diff := cmp.Diff(want, changes(t, out)); diff != "" {
			t.Errorf("%q (-want +got):\n%s", args, diff)
		}
	}
}

// TestReviewHeadWarnsUncommitted reviews HEAD with a dirty work tree: the review is of the
// commit, and stderr names the Flux files it leaves out (not .gitignore, not the ignored file).
func TestReviewHeadWarnsUncommitted(t *testing.T) {
	repo := dirtyDemo(t)
	out, errOut, code, err := runErr(t, "review", "--repo", repo, "--base", "HEAD", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %v", code, err)
	}
	const warning = "warning: not reviewed: 2 Flux file(s) differ from HEAD in the work tree " +
		"(apps/web/config.yaml, apps/web/deployment.yaml); commit them, or review the work tree with --worktree\n"
	if errOut != warning {
		t.Errorf("stderr %q, want %q", errOut, warning)
	}
	var rep struct{ Head string }
	if json.Unmarshal([]byte(out), &rep) != nil || len(rep.Head) != 40 {
		t.Errorf("head %q, want the commit", rep.Head)
	}
	if diff := cmp.Diff([]string{"head " + rep.Head}, changes(t, out)); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	// A clean work tree, or a head other than the checked-out commit: no warning.
	clean := commitScenario(t, demo)
	for _, args := range [][]string{
		{"review", "--repo", clean, "--base", "HEAD", "--format", "json"},
		{"review", "--repo", repo, "--base", "HEAD~1", "--head", "HEAD~1", "--format", "json"},
	} {
		if _, errOut, _, _ := runErr(t, args...); errOut != "" {
			t.Errorf("%q: stderr %q, want none", args, errOut)
		}
	}
}

func TestWorkTreeFlags(t *testing.T) {
	repo, notRepo := commitScenario(t, demo), t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"review", "--repo", repo, "--worktree", "--base", "HEAD", "--head", "HEAD~1"}, "--head does not apply to --worktree"},
		{[]string{"review", "--worktree", "--base-dir", demo + "base", "--head-dir", demo + "head"}, "--head-dir does not apply to --worktree"},
		{[]string{"review", "--repo", repo, "--worktree"}, "--base is required with --worktree"},
		{[]string{"review", "--head-dir", repo, "--base", "HEAD", "--head", "HEAD~1"}, "--head does not apply to --head-dir"},
		{[]string{"review", "--worktree", "--repo", notRepo, "--base", "main"}, "open git repository " + notRepo + ": repository does not exist"},
		{[]string{"review", "--worktree", "--repo", repo, "--base", "HEAD", "--max-files", "3"}, "read work tree " + repo + ": more than 3 files and folders (--max-files)"},
	} {
		_, _, code, err := runErr(t, tc.args...)
		if code != 2 || err == nil || err.Error() != tc.want {
			t.Errorf("%q: exit %d, error %v; want exit 2, %q", tc.args, code, err, tc.want)
		}
	}
}

// TestWarnsSameSizeChange: a Flux file edited to the same size within the clone's second,
// the case a stat check could miss, is still warned of; the unchanged files are not.
func TestWarnsSameSizeChange(t *testing.T) {
	repo := commitScenario(t, demo)
	p := filepath.Join(repo, "apps/web/deployment.yaml")
	dep, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(dep), "web:1.5.0", "web:1.6.0", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	// The old modification time back: only the index's own time (racy) or the content tells.
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	_, errOut, code, err := runErr(t, "review", "--repo", repo, "--base", "HEAD", "--format", "json")
	const warning = "warning: not reviewed: 1 Flux file(s) differ from HEAD in the work tree " +
		"(apps/web/deployment.yaml); commit them, or review the work tree with --worktree\n"
	if code != 0 || errOut != warning {
		t.Errorf("exit %d (%v), stderr %q; want 0, %q", code, err, errOut, warning)
	}
}
