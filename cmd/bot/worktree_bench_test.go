package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/tiergate/tiergate/internal/gitrepo"
)

// BenchmarkWarnUncommitted is the check `bot review` makes when the head is the commit
// checked out: the xunholy corpus clone (../shared/corpus), clean, compared with HEAD.
func BenchmarkWarnUncommitted(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is needed to clone the corpus bundle")
	}
	dir := filepath.Join(b.TempDir(), "xunholy")
	bundle := filepath.Join("../../../shared/corpus", "xunholy-k8s-gitops.bundle")
	if out, err := exec.Command("git", "clone", "-q", "-b", "main", bundle, dir).CombinedOutput(); err != nil {
		b.Skipf("clone %s: %v: %s", bundle, err, out)
	}
	repo, err := gitrepo.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer repo.Close()
	head, err := repo.Resolve("HEAD")
	if err != nil {
		b.Fatal(err)
	}
	var stderr bytes.Buffer
	f := reviewFlags{repo: dir, stderr: &stderr}
	b.ReportAllocs()
	for b.Loop() {
		warnUncommitted(f, repo, head)
	}
	if stderr.Len() != 0 {
		b.Fatalf("clean clone warned: %s", stderr.String())
	}
}
