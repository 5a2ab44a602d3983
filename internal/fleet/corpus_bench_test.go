package fleet_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/tiergate/tiergate/internal/fleet"
	"github.com/tiergate/tiergate/internal/gitrepo"
	"github.com/tiergate/tiergate/internal/pipeline"
	"github.com/tiergate/tiergate/internal/render"
)

// corpusRepos are the real repositories of ../shared/corpus benchmarked on their newest
// commit (a typical Renovate bump: one file) against its parent. Only onedr0p-home-ops
// has a naive figure: xunholy-k8s-gitops's paths are relative to an OCIRepository folder,
// which the naive baseline does not map.
var corpusRepos = []struct {
	name   string
	roots  map[string]string // for the naive baseline; nil: none
	config string            // docs/corpus/<name>.tiergate.yaml
}{
	{"onedr0p-home-ops", map[string]string{"flux-system": "kubernetes/flux/cluster"}, "../../docs/corpus/onedr0p-home-ops.tiergate.yaml"},
	{"xunholy-k8s-gitops", nil, "../../docs/corpus/xunholy-k8s-gitops.tiergate.yaml"},
}

var corpusClones sync.Map // name → *gitrepo.Repo

func corpusRepo(b *testing.B, name string) *gitrepo.Repo {
	if r, ok := corpusClones.Load(name); ok {
		return r.(*gitrepo.Repo)
	}
	bundle := filepath.Join("..", "..", "..", "shared", "corpus", name+".bundle")
	if _, err := os.Stat(bundle); err != nil {
		b.Skip("no shared corpus")
	}
	dir, err := os.MkdirTemp("", "tiergate-corpus-")
	if err != nil {
		b.Fatal(err)
	}
	scratchDirs.Store(dir, true) // removed by TestMain
	if out, err := exec.Command("git", "clone", "-q", "-b", "main", bundle, dir).CombinedOutput(); err != nil {
		b.Skipf("git clone %s: %v: %s", name, err, out)
	}
	r, err := gitrepo.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	corpusClones.Store(name, r)
	return r
}

// BenchmarkCorpus reviews HEAD~1..HEAD of each corpus repository: naive (where it can),
// tiergate as the CLI runs it, with --no-reuse, and warm (the server's cache holding the
// base).
func BenchmarkCorpus(b *testing.B) {
	for _, c := range corpusRepos {
		b.Run(c.name, func(b *testing.B) {
			run := func(b *testing.B, review func(r *gitrepo.Repo, base, head plumbing.Hash) error) {
				r := corpusRepo(b, c.name)
				head, err := r.Resolve("HEAD")
				if err != nil {
					b.Fatal(err)
				}
				base, err := r.Resolve("HEAD~1")
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := review(r, base, head); err != nil {
						b.Fatal(err)
					}
				}
			}
			opts := pipeline.Options{ConfigPath: c.config}
			if c.roots != nil {
				b.Run("Naive", func(b *testing.B) {
					run(b, func(r *gitrepo.Repo, base, head plumbing.Hash) error {
						_, err := fleet.NaiveAt(context.Background(), r, base, head, c.roots)
						return err
					})
				})
			}
			b.Run("Tiergate", func(b *testing.B) {
				run(b, func(r *gitrepo.Repo, base, head plumbing.Hash) error {
					_, err := pipeline.Commits(context.Background(), r, base, head, opts)
					return err
				})
			})
			b.Run("NoReuse", func(b *testing.B) {
				run(b, func(r *gitrepo.Repo, base, head plumbing.Hash) error {
					o := opts
					o.NoReuse = true
					_, err := pipeline.Commits(context.Background(), r, base, head, o)
					return err
				})
			})
			b.Run("TiergateWarm", func(b *testing.B) {
				run(b, func(r *gitrepo.Repo, base, head plumbing.Hash) error {
					b.StopTimer()
					o := opts
					o.Cache = render.NewCache(0)
					if _, err := pipeline.Commits(context.Background(), r, base, base, o); err != nil {
						return err
					}
					b.StartTimer()
					_, err := pipeline.Commits(context.Background(), r, base, head, o)
					return err
				})
			})
		})
	}
}
