package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tiergate/tiergate/internal/forge/forgetest"
	"github.com/tiergate/tiergate/internal/gittest"
)

// demoScenario is the small fixture of the many-PR tests: one cluster, a review in a fraction
// of a second.
var demoScenario = filepath.Join("..", "..", "testdata", "scenarios", "demo")

// demoDescription is the final status of a review of the demo scenario.
const demoDescription = "2 new errors, 1 new notice · 1 cluster"

// newManyPREnv is an env whose repository has PRs 1..prs, each pushed pushes times: PR n's
// heads are a chain of commits on main, each with the demo head's tree, and
// refs/pull/n/head names the last (so a fetch of any head finds it). heads[n] lists them,
// oldest first.
func newManyPREnv(t *testing.T, fl flavour, prs, pushes int) (e *env, heads map[int][]string) {
	t.Helper()
	fixtures := forgetest.FixturesDir(t)
	e = &env{t: t, fl: fl, fixtures: fixtures, dataDir: t.TempDir(), log: &syncBuffer{}}
	e.git = newGitServer(t, fl.cloneUser, fl.clonePassword)
	e.fake = fl.newFake(t)
	r := &prRepo{work: t.TempDir(), bare: filepath.Join(e.git.root, owner, repoName+".git")}
	r.cloneURL = e.git.url + "/" + owner + "/" + repoName + ".git"
	runGit(t, r.work, "init", "--quiet", "--initial-branch=main")
	commit := func(msg string) string {
		runGit(t, r.work, "add", "--all")
		runGit(t, r.work, "commit", "--quiet", "--no-gpg-sign", "-m", msg)
		return strings.TrimSpace(runGit(t, r.work, "rev-parse", "HEAD"))
	}
	replaceTree(t, r.work, filepath.Join(demoScenario, "base"))
	r.base = commit("base")
	replaceTree(t, r.work, filepath.Join(demoScenario, "head"))
	r.head = commit("head")
	files := changedFiles(t, r.work, r.base, r.head)
	tree := strings.TrimSpace(runGit(t, r.work, "rev-parse", r.head+"^{tree}"))

	// One fast-import stream makes every PR's chain of commits.
	var stream strings.Builder
	mark := 0
	for n := 1; n <= prs; n++ {
		for k := 1; k <= pushes; k++ {
			mark++
			msg := fmt.Sprintf("PR %d push %d\n", n, k)
			fmt.Fprintf(&stream, "commit refs/pull/%d/head\nmark :%d\ncommitter test <test@example.invalid> %d +0000\ndata %d\n%s",
				n, mark, 1700000000+mark, len(msg), msg)
			if k == 1 {
				fmt.Fprintf(&stream, "from %s\n", r.base)
			}
			fmt.Fprintf(&stream, "M 040000 %s \"\"\n\n", tree)
		}
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = r.work
	cmd.Env = append(os.Environ(), gittest.Env(t.TempDir())...)
	cmd.Stdin = strings.NewReader(stream.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git fast-import: %v\n%s", err, out)
	}
	heads = map[int][]string{}
	for n := 1; n <= prs; n++ {
		log := runGit(t, r.work, "rev-list", "--reverse", fmt.Sprintf("refs/pull/%d/head", n), "^"+r.base)
		heads[n] = strings.Fields(log)
		if len(heads[n]) != pushes {
			t.Fatalf("PR %d has %d commits, want %d", n, len(heads[n]), pushes)
		}
		e.fake.SetPR(n, heads[n][pushes-1], r.base, false)
		e.fake.SetFiles(n, files...)
	}
	runGit(t, "", "init", "--quiet", "--bare", "--initial-branch=main", r.bare)
	runGit(t, r.work, "push", "--quiet", r.bare, r.base+":refs/heads/main", "refs/pull/*:refs/pull/*")
	e.repo = r
	e.fake.SetPermission(writer, "write")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server log (last 20000 bytes):\n%s", tail(e.log.String(), 20000000))
		}
	})
	return e, heads
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
