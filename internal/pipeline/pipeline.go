// Package pipeline runs one review end to end: both sides written to scratch directories
// (source-ignore rules applied), both Flux graphs rendered, the change reviewed. The CLI and
// the server call it; it holds no state between reviews.
package pipeline

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/tiergate/tiergate/internal/config"
	"github.com/tiergate/tiergate/internal/gitrepo"
	"github.com/tiergate/tiergate/internal/render"
	"github.com/tiergate/tiergate/internal/review"
	"github.com/tiergate/tiergate/internal/review/rules"
)

// Options tunes one review.
type Options struct {
	// ConfigPath is a .tiergate.yaml to use; empty: the head tree's, when present.
	ConfigPath string
	// Clusters limits the review to these cluster names.
	Clusters []string
	// FailOn overrides the configuration's failOn ("error" when both are empty).
	FailOn string
	// Cache keeps builds across reviews (the server's); nil: one cache for this review,
	// so that the head reuses the base's unchanged builds.
	Cache *render.Cache
	// AllowRemote lists the hosts (as in .tiergate.yaml remote.allow) the operator lets
	// reviews fetch remote resources from; the repository's remote.allow may narrow it.
	// Empty: nothing is fetched.
	AllowRemote []string
	// Fork says the head comes from a fork: nothing remote is fetched.
	Fork bool
	// Limits bounds what each render reads and builds (zero fields: render.DefaultLimits).
	Limits render.Limits
	// NoReuse builds every Kustomization of both sides with fluxcd/pkg/kustomize.Build and
	// no cache: the full rebuild that reuse is tested against.
	NoReuse bool
}

// Result is a finished review and the threshold its exit status is judged against.
type Result struct {
	Report    *review.Report
	Threshold rules.Severity
}

// Failed reports whether a new finding is at or above the threshold.
func (r *Result) Failed() bool { return r.Report.Fails(r.Threshold) }

// Tree is one side of a review in a scratch directory.
type Tree struct {
	Dir string
	Rev string
	// Close removes the scratch directory.
	Close func()
}

// Checkout writes commit h of repo to a scratch directory with source-ignore rules applied.
func Checkout(repo *gitrepo.Repo, h plumbing.Hash) (*Tree, error) {
	t, err := repo.Checkout(h, "")
	if err != nil {
		return nil, err
	}
	if err := render.ApplySourceIgnore(t.Dir, ""); err != nil {
		t.Close()
		return nil, fmt.Errorf("apply .sourceignore at %s: %w", h, err)
	}
	return &Tree{Dir: t.Dir, Rev: h.String(), Close: func() { t.Close() }}, nil
}

// CopyDir copies a plain directory tree to scratch space, without following symlinks and
// skipping .git, and applies source-ignore rules there; src itself is never changed.
func CopyDir(src string) (*Tree, error) {
	st, err := os.Stat(src)
	if err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", src)
	}
	dst, err := os.MkdirTemp("", "tiergate-dir-")
	if err != nil {
		return nil, err
	}
	clean := func() { os.RemoveAll(dst) }
	err = filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return os.MkdirAll(target, 0o755)
		case d.Type().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(target, data, 0o644)
		}
		return nil // symlinks and devices are not part of the artifact
	})
	if err == nil {
		err = render.ApplySourceIgnore(dst, "")
	}
	if err != nil {
		clean()
		return nil, fmt.Errorf("copy %s: %w", src, err)
	}
	abs, _ := filepath.Abs(src)
	return &Tree{Dir: dst, Rev: abs, Close: clean}, nil
}

// Commits reviews head against base of repo (the caller chooses base: a merge-base for a PR).
func Commits(ctx context.Context, repo *gitrepo.Repo, base, head plumbing.Hash, opts Options) (*Result, error) {
	start := time.Now()
	b, err := Checkout(repo, base)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	h, err := Checkout(repo, head)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	checkout := time.Since(start)
	res, err := Trees(ctx, b, h, opts)
	if err == nil {
		res.Report.Timings["checkout"] = checkout.Seconds()
	}
	return res, err
}

// Trees reviews two prepared trees.
func Trees(ctx context.Context, base, head *Tree, opts Options) (*Result, error) {
	cfg, err := loadConfig(opts.ConfigPath, head.Dir)
	if err != nil {
		return nil, err
	}
	failOn := opts.FailOn
	if failOn == "" {
		failOn = cfg.FailOn
	}
	if failOn == "" {
		failOn = "error"
	}
	threshold, err := rules.ParseSeverity(failOn)
	if err != nil {
		return nil, fmt.Errorf("fail-on: %w", err)
	}
	ro := render.Options{Config: cfg, ApplySpecIgnore: true, Clusters: opts.Clusters, Cache: opts.Cache, ExactBuild: opts.NoReuse,
		Remote: remotePolicy(opts.AllowRemote, cfg, opts.Fork), Limits: opts.Limits}
	if opts.NoReuse {
		ro.Cache = nil
	} else if ro.Cache == nil {
		ro.Cache = render.NewCache(0)
	}
	clock := time.Now()
	lap := func() float64 {
		d := time.Since(clock)
		clock = time.Now()
		return d.Seconds()
	}
	bg, err := render.Render(ctx, base.Dir, ro)
	if err != nil {
		return nil, err
	}
	renderBase := lap()
	hg, err := render.Render(ctx, head.Dir, ro)
	if err != nil {
		return nil, err
	}
	renderHead := lap()
	if err := checkClusters(bg, hg, opts.Clusters); err != nil {
		return nil, err
	}
	rep := review.Review(bg, hg, review.Options{
		BaseRev: base.Rev, HeadRev: head.Rev, Config: cfg,
		Env: rules.Env{Catalog: rules.NewCatalog(cfg.RuntimeCRDs, cfg.PreinstalledCRDs), Strict: cfg.Strict()},
	})
	rep.Timings["render_base"], rep.Timings["render_head"] = renderBase, renderHead
	return &Result{Report: rep, Threshold: threshold}, nil
}

// checkClusters refuses a review that would silently check nothing: no cluster found, or
// a --cluster name that neither side has.
func checkClusters(base, head *render.Graph, names []string) error {
	for _, n := range names {
		if base.Cluster(n) == nil && head.Cluster(n) == nil {
			return fmt.Errorf("cluster %q not found (clusters: %s)", n, clusterList(base, head))
		}
	}
	if len(base.Clusters) == 0 && len(head.Clusters) == 0 {
		return fmt.Errorf("no Flux cluster found: no bootstrap root, FluxInstance or Flux Kustomization; list clusters in %s", config.FileName)
	}
	return nil
}

func clusterList(gs ...*render.Graph) string {
	seen := map[string]bool{}
	var out []string
	for _, g := range gs {
		names := g.Unselected
		for _, c := range g.Clusters {
			names = append(names, c.Name)
		}
		for _, n := range names {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

// LoadConfig reads path, else dir's .tiergate.yaml when present: the PR may change the
// configuration it is reviewed with, as it changes the manifests.
func LoadConfig(path, dir string) (*config.Config, error) { return loadConfig(path, dir) }

func loadConfig(path, dir string) (*config.Config, error) {
	var cfg *config.Config
	var err error
	if path != "" {
		cfg, err = config.Load(path, false)
	} else {
		// Parse under the repository name, not the scratch path, so errors make sense.
		data, rerr := os.ReadFile(filepath.Join(dir, config.FileName))
		switch {
		case os.IsNotExist(rerr):
			return &config.Config{}, nil
		case rerr != nil:
			return nil, rerr
		}
		cfg, err = config.Parse(config.FileName, data)
	}
	if err != nil {
		return nil, err
	}
	if err := cfg.CheckRules(rules.IDs()); err != nil {
		return nil, err
	}
	return cfg, checkClusterPaths(cfg, dir)
}

// checkClusterPaths verifies that each configured cluster's path exists in the tree.
func checkClusterPaths(cfg *config.Config, dir string) error {
	for i, c := range cfg.Clusters {
		src := ""
		ref := c.SourceRef
		if ref == "" {
			ref = "GitRepository/flux-system/flux-system"
		}
		if d, ok := cfg.SourceDir(ref); ok {
			src = d
		}
		if st, err := os.Stat(filepath.Join(dir, src, filepath.FromSlash(c.Path))); err != nil || !st.IsDir() {
			return cfg.Errorf(fmt.Sprintf("clusters[%d].path", i), "%q is not a folder of the head tree", path.Join(src, c.Path))
		}
	}
	return nil
}
