package fleet

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fluxcd/pkg/envsubst"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/sourcegraph/conc/iter"
	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/krusty"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/tiergate/tiergate/internal/gitrepo"
)

// NaiveObject is one object the naive baseline rendered: its Flux inventory identity
// ("group/Kind/namespace/name") and its YAML after simple substitution.
type NaiveObject struct {
	ID   string
	YAML []byte
}

// NaiveCluster is one cluster rendered by the naive baseline: every Kustomization
// ("namespace/name") reached from the root, with its objects or its build error.
type NaiveCluster struct {
	Objects map[string][]NaiveObject
	Errors  map[string]string
}

// NaiveResult is the naive baseline's review of base → head: both sides rendered, and the
// objects whose owner changed (Moves) or whose YAML changed (Changed), over all clusters.
type NaiveResult struct {
	Base, Head map[string]*NaiveCluster // by cluster name
	Moves      int
	Changed    int
}

// Naive is the baseline that issue 4's benchmarks compare tiergate with: it checks out
// both commits and builds every Flux Kustomization of every cluster at both with plain
// kustomize (krusty over the checkout on disk), no reuse between commits or
// Kustomizations, builds of one wave in parallel (GOMAXPROCS, as tiergate). It walks the
// Flux graph only to find what to build: the roots are the bootstrap gotk-sync.yaml files
// (a Flux Kustomization in <cluster>/flux-system/gotk-sync.yaml), each Flux Kustomization
// in a build output is built in turn from its spec.path. A directory without
// kustomization.yaml gets one listing its manifests as Flux's generator does (subfolders
// holding a kustomization.yaml as resources, else every .yaml/.yml file, recursively).
//
// It omits, on purpose: substituteFrom (only spec.postBuild.substitute is applied, an
// undefined variable becomes empty), the Kustomization's own targetNamespace, patches,
// images, components, namePrefix/nameSuffix and commonMetadata, .sourceignore and
// spec.ignore, sources other than the root's, source locations, and every rule. The
// generated kustomization.yaml files are written into the scratch checkout. Errors are the
// checkout's; a failed build is kept in NaiveCluster.Errors.
func Naive(ctx context.Context, repo *gitrepo.Repo, base, head plumbing.Hash) (*NaiveResult, error) {
	return NaiveAt(ctx, repo, base, head, nil)
}

// NaiveAt is Naive with the clusters' root paths given (cluster name → repository folder,
// as flux-operator's sync.path), for repositories not laid out by flux bootstrap; nil
// finds gotk-sync.yaml roots as Naive does.
func NaiveAt(ctx context.Context, repo *gitrepo.Repo, base, head plumbing.Hash, roots map[string]string) (*NaiveResult, error) {
	res := &NaiveResult{}
	for i, h := range []plumbing.Hash{base, head} {
		t, err := repo.Checkout(h, "")
		if err != nil {
			return nil, err
		}
		clusters, err := naiveRender(ctx, t.Dir, roots)
		t.Close()
		if err != nil {
			return nil, fmt.Errorf("naive render of %s: %w", h, err)
		}
		if i == 0 {
			res.Base = clusters
		} else {
			res.Head = clusters
		}
	}
	for name, b := range res.Base {
		if h := res.Head[name]; h != nil {
			moves, changed := naiveDiff(b, h)
			res.Moves += moves
			res.Changed += changed
		}
	}
	return res, nil
}

// naiveDiff counts the objects of a cluster whose owner or YAML differs from base to head.
func naiveDiff(base, head *NaiveCluster) (moves, changed int) {
	type owned struct {
		owner string
		yaml  []byte
	}
	index := func(c *NaiveCluster) map[string]owned {
		out := map[string]owned{}
		for ks, objs := range c.Objects {
			for _, o := range objs {
				out[o.ID] = owned{ks, o.YAML}
			}
		}
		return out
	}
	ho := index(head)
	for id, was := range index(base) {
		is, ok := ho[id]
		switch {
		case !ok:
		case was.owner != is.owner:
			moves++
		case string(was.yaml) != string(is.yaml):
			changed++
		}
	}
	return moves, changed
}

// naiveKS is a Flux Kustomization to build.
type naiveKS struct {
	ref, path  string
	substitute map[string]string
	objects    []NaiveObject
	children   []*naiveKS
	err        error
}

func naiveRender(ctx context.Context, dir string, paths map[string]string) (map[string]*NaiveCluster, error) {
	roots, err := naiveRoots(dir)
	if err != nil {
		return nil, err
	}
	if paths != nil {
		roots = map[string]*naiveKS{}
		for name, p := range paths {
			roots[name] = &naiveKS{ref: "flux-system/" + name, path: p}
		}
	}
	out := map[string]*NaiveCluster{}
	for name, root := range roots {
		c := &NaiveCluster{Objects: map[string][]NaiveObject{}, Errors: map[string]string{}}
		seen := map[string]bool{root.ref: true}
		wave := []*naiveKS{root}
		for len(wave) > 0 && ctx.Err() == nil {
			iter.ForEach(wave, func(ks **naiveKS) { naiveBuild(dir, *ks) }) // GOMAXPROCS at once
			var next []*naiveKS
			for _, ks := range wave {
				c.Objects[ks.ref] = ks.objects
				if ks.err != nil {
					c.Errors[ks.ref] = ks.err.Error()
				}
				for _, ch := range ks.children {
					if !seen[ch.ref] {
						seen[ch.ref] = true
						next = append(next, ch)
					}
				}
			}
			wave = next
		}
		out[name] = c
	}
	return out, ctx.Err()
}

// naiveRoots finds the Flux Kustomizations of every */flux-system/gotk-sync.yaml, by
// cluster name (the last element of the root's path).
func naiveRoots(dir string) (map[string]*naiveKS, error) {
	out := map[string]*naiveKS{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "gotk-sync.yaml" || filepath.Base(filepath.Dir(p)) != "flux-system" {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, doc := range strings.Split(string(data), "\n---") {
			if ks := fluxKustomization([]byte(doc)); ks != nil {
				out[filepath.Base(filepath.Clean(ks.path))] = ks
			}
		}
		return nil
	})
	return out, err
}

// fluxKustomization reads a Flux Kustomization object, or returns nil for anything else.
func fluxKustomization(doc []byte) *naiveKS {
	var u struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
		Spec struct {
			Path      string `json:"path"`
			PostBuild struct {
				Substitute map[string]string `json:"substitute"`
			} `json:"postBuild"`
		} `json:"spec"`
	}
	if yaml.Unmarshal(doc, &u) != nil || u.Kind != "Kustomization" || !strings.HasPrefix(u.APIVersion, "kustomize.toolkit.fluxcd.io/") {
		return nil
	}
	return &naiveKS{ref: u.Metadata.Namespace + "/" + u.Metadata.Name, path: u.Spec.Path, substitute: u.Spec.PostBuild.Substitute}
}

// naiveBuild builds ks from the checkout at dir into ks.objects and ks.children.
func naiveBuild(dir string, ks *naiveKS) {
	kdir := filepath.Join(dir, filepath.FromSlash(filepath.Clean("/"+ks.path)))
	if err := naiveGenerate(kdir); err != nil {
		ks.err = err
		return
	}
	opts := krusty.MakeDefaultOptions()
	opts.LoadRestrictions = kustypes.LoadRestrictionsNone // as kustomize-controller builds
	rm, err := krusty.MakeKustomizer(opts).Run(filesys.MakeFsOnDisk(), kdir)
	if err != nil {
		ks.err = err
		return
	}
	for _, r := range rm.Resources() {
		data, err := r.AsYAML()
		if err != nil {
			ks.err = err
			return
		}
		if len(ks.substitute) > 0 {
			s, err := envsubst.Eval(string(data), func(k string) (string, bool) { return ks.substitute[k], true }) // undefined: empty
			if err != nil {
				ks.err = err
				return
			}
			data = []byte(s)
		}
		gvk := r.GetGvk()
		ks.objects = append(ks.objects, NaiveObject{ID: gvk.Group + "/" + gvk.Kind + "/" + r.GetNamespace() + "/" + r.GetName(), YAML: data})
		if child := fluxKustomization(data); child != nil {
			if strings.HasPrefix(child.ref, "/") {
				child.ref = "flux-system" + child.ref
			}
			ks.children = append(ks.children, child)
		}
	}
}

// naiveGenerate writes a kustomization.yaml into dir when it has none, listing what Flux's
// generator lists (fluxcd/pkg/kustomize scanManifests): subfolders that hold a
// kustomization file, else every .yaml/.yml file, recursively, in walk order.
func naiveGenerate(dir string) error {
	if hasKustomization(dir) {
		return nil
	}
	var resources []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			if hasKustomization(p) {
				resources = append(resources, filepath.ToSlash(rel))
				return filepath.SkipDir
			}
			return nil
		}
		if ext := filepath.Ext(p); ext == ".yaml" || ext == ".yml" {
			resources = append(resources, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(resources)
	k := kustypes.Kustomization{Resources: resources}
	k.FixKustomization()
	data, err := yaml.Marshal(k)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, konfig.DefaultKustomizationFileName()), data, 0o644)
}

func hasKustomization(dir string) bool {
	for _, n := range konfig.RecognizedKustomizationFileNames() {
		if st, err := os.Stat(filepath.Join(dir, n)); err == nil && !st.IsDir() {
			return true
		}
	}
	return false
}
