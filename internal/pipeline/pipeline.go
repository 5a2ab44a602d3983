// Package pipeline runs one review end to end: both sides read from git into memory, both
// Flux graphs rendered (source-ignore rules applied), the change reviewed. The CLI and the
// server call it; its only state between reviews is the render.Cache the caller passes.
package pipeline

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/tiergate/tiergate/internal/config"
	"github.com/tiergate/tiergate/internal/gitrepo"
	"github.com/tiergate/tiergate/internal/render"
	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
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
	// FailOnUnreviewed fails the review when a head Kustomization was not built in full;
	// false leaves it to the configuration's failOnUnreviewed.
	FailOnUnreviewed bool
	// Cache keeps builds across reviews (the server's); nil: one cache for this review,
	// so that the head reuses the base's unchanged builds.
	Cache *render.Cache
	// AllowRemote lists the hosts (as in .tiergate.yaml remote.allow) the operator lets
	// reviews fetch remote resources from; the repository's remote.allow may narrow it.
	// Empty: nothing is fetched.
	AllowRemote []string
	// Fork says the head comes from a fork: nothing remote is fetched.
	Fork bool
	// Limits bounds what each render reads and builds (zero fields: graph.DefaultLimits).
	Limits graph.Limits
	// Helm renders HelmRelease charts (a sandbox Pool the caller owns); nil: in process.
	Helm render.HelmRenderer
	// ChartCacheDir keeps pulled charts by digest across reviews; "": in memory only.
	ChartCacheDir string
	// NoReuse builds every Kustomization of both sides with fluxcd/pkg/kustomize.Build and
	// no cache: the full rebuild that reuse is tested against.
	NoReuse bool
}

// Result is a finished review and the threshold its exit status is judged against.
type Result struct {
	Report    *review.Report
	Threshold rules.Severity
	// FailOnUnreviewed makes anything not reviewed fail the review.
	FailOnUnreviewed bool
}

// Failed reports whether a new finding is at or above the threshold, or, with
// FailOnUnreviewed, whether something was not reviewed.
func (r *Result) Failed() bool {
	return r.Report.Fails(r.Threshold) || r.FailOnUnreviewed && len(r.Report.Unreviewed) > 0
}

// Tree is one side of a review: the source artifact, in memory, and its revision.
type Tree struct {
	Source *fsys.Source
	Rev    string
	// For a commit read on first need (Commits' base): its Source id, and how to read it.
	id   string
	read func() (*Tree, error)
	took time.Duration // reading the tree
}

// source returns t's Source, reading it first if need be.
func (t *Tree) source() (*fsys.Source, error) {
	if t.Source == nil && t.read != nil {
		start := time.Now()
		r, err := t.read()
		if err != nil {
			return nil, err
		}
		t.Source, t.took = r.Source, time.Since(start)
	}
	return t.Source, nil
}

// graph renders t with ro, or takes its graph from ro.Cache without reading the tree.
func (t *Tree) graph(ctx context.Context, ro render.Options) (*graph.Graph, error) {
	if t.Source == nil && ro.Cache != nil {
		if g, ok := ro.Cache.Graph(t.id, ro); ok {
			return g, nil
		}
	}
	src, err := t.source()
	if err != nil {
		return nil, err
	}
	return render.RenderSource(ctx, src, ro)
}

// Load reads the tree of commit h of repo into memory, within the tree limits of l
// (graph.Limits: files, depth, bytes). Nothing is written to disk.
func Load(repo *gitrepo.Repo, h plumbing.Hash, l graph.Limits) (*Tree, error) {
	return LoadShared(repo, h, l, nil)
}

// Blobs holds the content of the blobs read, and their AliasBomb verdicts, for the Loads
// of one review: a file base and head share is inflated and checked once, and both trees
// hold the same bytes (a Source is never modified). Its zero value is ready; safe for
// concurrent use. It holds what it read until dropped.
type Blobs struct {
	mu     sync.Mutex
	data   map[plumbing.Hash][]byte
	checks fsys.Checks
}

// get returns the content of blob h if b (which may be nil) holds it.
func (b *Blobs) get(h plumbing.Hash) ([]byte, bool) {
	if b == nil {
		return nil, false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	d, ok := b.data[h]
	return d, ok
}

// reader returns read, keeping what it returns in b (which may be nil) under h.
func (b *Blobs) reader(h plumbing.Hash, read func() ([]byte, error)) func() ([]byte, error) {
	if b == nil {
		return read
	}
	return func() ([]byte, error) {
		d, err := read()
		if err == nil {
			b.mu.Lock()
			if b.data == nil {
				b.data = map[plumbing.Hash][]byte{}
			}
			b.data[h] = d
			b.mu.Unlock()
		}
		return d, err
	}
}

// LoadShared is Load taking the blobs already read from shared (nil: none) and keeping
// those it reads there.
func LoadShared(repo *gitrepo.Repo, h plumbing.Hash, l graph.Limits, shared *Blobs) (*Tree, error) {
	tree, err := repo.TreeHash(h)
	if err != nil {
		return nil, err
	}
	b := fsys.NewSourceBuilder(l)
	if shared != nil {
		b.ShareChecks(&shared.checks)
	}
	err = repo.Files(h, func(f gitrepo.File) error {
		if data, ok := shared.get(f.Hash); ok && !f.Symlink {
			return b.AddFile(f.Path, int64(len(data)), f.Hash.String(), func() ([]byte, error) { return data, nil })
		}
		blob, err := f.Open() // once: its size for the limits, its content if not refused
		if err != nil {
			return err
		}
		if f.Symlink {
			target := ""
			if blob.Size <= fsys.MaxSymlinkTarget {
				data, err := blob.Read()
				if err != nil {
					return err
				}
				target = string(data)
			}
			return b.AddSymlink(f.Path, target)
		}
		return b.AddFile(f.Path, blob.Size, f.Hash.String(), shared.reader(f.Hash, blob.Read))
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", h, err)
	}
	return &Tree{Source: b.Source(fsys.GitTreeID(tree.String())), Rev: h.String()}, nil
}

// ReadDir reads a plain folder into memory, without following symlinks and skipping .git,
// within the tree limits of l; dir is never changed.
func ReadDir(dir string, l graph.Limits) (*Tree, error) {
	src, err := fsys.ReadSource(dir, l)
	if err != nil {
		return nil, err
	}
	return &Tree{Source: src, Rev: src.Root()}, nil
}

// Commits reviews head against base of repo (the caller chooses base: a merge-base for a PR).
// The base is read only when opts.Cache does not hold its graph already.
func Commits(ctx context.Context, repo *gitrepo.Repo, base, head plumbing.Hash, opts Options) (*Result, error) {
	start := time.Now()
	shared := &Blobs{}
	h, err := LoadShared(repo, head, opts.Limits, shared)
	if err != nil {
		return nil, err
	}
	h.took = time.Since(start)
	tree, err := repo.TreeHash(base)
	if err != nil {
		return nil, err
	}
	b := &Tree{Rev: base.String(), id: fsys.GitTreeID(tree.String()),
		read: func() (*Tree, error) { return LoadShared(repo, base, opts.Limits, shared) }}
	return Trees(ctx, b, h, opts)
}

// Trees reviews two prepared trees.
func Trees(ctx context.Context, base, head *Tree, opts Options) (*Result, error) {
	hs, err := head.source()
	if err != nil {
		return nil, err
	}
	cfg, cfgErr, err := reviewConfig(opts.ConfigPath, head, base)
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
	if len(cfgErr) > 0 && opts.FailOn == "" && threshold == rules.None {
		// The base's failOn: never must not hide that the head's configuration is broken;
		// only the operator's --fail-on never does.
		threshold = rules.Error
	}
	ro := render.Options{Config: cfg, SourceIgnore: true, Clusters: opts.Clusters, Cache: opts.Cache, ExactBuild: opts.NoReuse,
		Remote: remotePolicy(opts.AllowRemote, cfg, opts.Fork), Limits: opts.Limits, Helm: opts.Helm}
	ro.Charts = ChartFetcher(ro.Remote, opts.ChartCacheDir)
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
	// The base renders every cluster: a cluster selected by its head name may have another
	// name at base (renamed), and graph.Selected keeps its match.
	bo := ro
	bo.Clusters = nil
	bg, err := base.graph(ctx, bo)
	if err != nil {
		return nil, err
	}
	renderBase := lap() - base.took.Seconds()
	ro.Prior = bg // what a failing Kustomization leaves in the cluster
	hg, err := head.graph(ctx, ro)
	if err != nil {
		return nil, err
	}
	renderHead := lap()
	if len(opts.Clusters) > 0 {
		bg = graph.Selected(bg, hg, opts.Clusters)
	}
	if err := CheckClusters(bg, hg, opts.Clusters); err != nil {
		return nil, err
	}
	pre, notes := Preinstalled(cfg, opts.ConfigPath, hs, hg) // the head's bootstrap, as its configuration
	rep := review.Review(bg, hg, review.Options{
		BaseRev: base.Rev, HeadRev: head.Rev, Config: cfg, ConfigErrors: cfgErr,
		Env: rules.Env{Catalog: rules.NewCatalog(cfg.RuntimeCRDs, preinstalledConfig(pre)), Strict: cfg.Strict(), StrictConfigured: cfg != nil && cfg.StrictSubstitution != nil, UnknownCRDs: unknownCRDs(notes),
			BootstrapNamespaces: BootstrapNamespaces(hs, hg)},
	})
	rep.Timings["render_base"], rep.Timings["render_head"] = renderBase, renderHead
	if base.took+head.took > 0 { // read here (Commits), not by the caller
		rep.Timings["checkout"] = (base.took + head.took).Seconds()
	}
	return &Result{Report: rep, Threshold: threshold, FailOnUnreviewed: opts.FailOnUnreviewed || cfg.FailOnUnreviewed}, nil
}

// CheckClusters refuses a review or graph that would silently check nothing: no cluster
// found on either side, or a --cluster name that neither side has. Pass the same graph twice
// for one commit.
func CheckClusters(base, head *graph.Graph, names []string) error {
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

func clusterList(gs ...*graph.Graph) string {
	seen := map[string]bool{}
	var out []string
	for _, g := range gs {
		names := g.UnselectedNames()
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

// LoadConfig reads path, else the source's .tiergate.yaml when present: the PR may change
// the configuration it is reviewed with, as it changes the manifests.
func LoadConfig(path string, src *fsys.Source) (*config.Config, error) {
	return loadConfig(path, src)
}

func loadConfig(path string, src *fsys.Source) (*config.Config, error) {
	var cfg *config.Config
	var err error
	if path != "" {
		cfg, err = config.Load(path, false)
	} else {
		data, ok, rerr := readHeadConfig(src)
		if rerr != nil {
			return nil, rerr
		}
		if !ok {
			return &config.Config{}, nil
		}
		cfg, err = config.ParseKnown(config.FileName, data, rules.IDs())
	}
	if err != nil {
		return nil, err
	}
	if path != "" {
		if err := cfg.CheckRules(rules.IDs()); err != nil {
			return nil, err
		}
	}
	return cfg, checkClusterPaths(cfg, src)
}

// checkClusterPaths verifies that each configured cluster's path is a folder of the tree.
func checkClusterPaths(cfg *config.Config, src *fsys.Source) error {
	for i, c := range cfg.Clusters {
		dir := ""
		ref := c.SourceRef
		if ref == "" {
			ref = "GitRepository/flux-system/flux-system"
		}
		if d, ok := cfg.SourceDir(ref); ok {
			dir = d
		}
		if !src.IsDir(path.Join(dir, c.Path)) {
			return cfg.Errorf(fmt.Sprintf("clusters[%d].path", i), "%q is not a folder of the head tree", path.Join(dir, c.Path))
		}
	}
	return nil
}
