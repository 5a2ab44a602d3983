package render

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	fluxkustomize "github.com/fluxcd/pkg/kustomize"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/konfig"

	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
)

// generated is the output of fluxcd/pkg/kustomize's generator for one Kustomization in one
// folder, with kustomize's origin annotations asked for (withOrigins).
type generated struct {
	manifest []byte
	kfile    string // repo-relative
}

// generate runs the generator (GenerateManifest: the folder's kustomization file, or one
// listing every manifest below it, then the Kustomization's spec applied) for ks in dir,
// below the source root root. The generator reads the disk itself, so it runs in a scratch
// folder holding what generatorDeps lists (a superset of what it reads), laid out as in
// the artifact; and the shared cache keeps its output by the whole Kustomization object,
// the root and the folder, to reuse wherever those deps are unchanged.
func (r *renderer) generate(root, dir string, ks *graph.Kustomization) ([]byte, string, *graph.BuildError) {
	deps := r.generatorDeps(dir, ks)
	var key string
	if r.shared != nil {
		key = graph.Digest([]byte("generate\x00" + graph.RelPath(r.abs, root) + "\x00" + graph.RelPath(r.abs, dir) + "\x00" + string(ks.BodyJSON())))
		v, ok := r.shared.find(key, r.fps)
		if !ok {
			v, ok = r.shared.loadDisk("gen", key, r.fps)
		}
		if ok {
			return v.gen.manifest, filepath.Join(r.abs, filepath.FromSlash(v.gen.kfile)), nil
		}
	}
	manifest, kfile, err := r.runGenerator(root, dir, ks, deps)
	if err == nil {
		manifest, err = withOrigins(manifest)
	}
	if err != nil {
		// The generator parses every file of the folder: a malformed Secret's error quotes it.
		return nil, "", redactedBuildError(buildError(r.ix, dir, err), r.guards.snap, deps)
	}
	if r.shared != nil {
		r.shared.addGenerated(key, deps, r.fps, &generated{manifest: manifest, kfile: graph.RelPath(r.abs, kfile)})
	}
	return manifest, kfile, nil
}

// runGenerator writes deps to the render's scratch folder and runs fluxcd/pkg/kustomize's
// generator there; paths in its answer are given back at the artifact's root.
func (r *renderer) runGenerator(root, dir string, ks *graph.Kustomization, deps []fsys.Dep) ([]byte, string, error) {
	scratch, err := r.scratch.write(r.guards.snap, deps)
	if err != nil {
		return nil, "", err
	}
	sroot := filepath.Join(scratch, filepath.FromSlash(graph.RelPath(r.abs, root)))
	sdir := filepath.Join(scratch, filepath.FromSlash(graph.RelPath(r.abs, dir)))
	manifest, kfile, _, err := fluxkustomize.NewGenerator(sroot, *ks.Body).GenerateManifest(sdir)
	if err != nil {
		return nil, "", errors.New(strings.ReplaceAll(err.Error(), scratch, r.abs))
	}
	return manifest, filepath.Join(r.abs, filepath.FromSlash(graph.RelPath(scratch, kfile))), nil
}

// scratch is a folder on disk holding the parts of one render's artifact that generator
// runs needed, each written once. It only ever holds files as they are in the artifact,
// so a generator run finds there everything it reads (its deps) as in the artifact, and
// what it does not read does not matter.
type scratch struct {
	mu      sync.Mutex
	dir     string
	written map[string]bool
}

// write makes sure deps are on disk and returns the scratch folder, made on first use.
func (s *scratch) write(snap *graph.Snapshot, deps []fsys.Dep) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir == "" {
		d, err := os.MkdirTemp("", "tiergate-generate-")
		if err != nil {
			return "", err
		}
		s.dir, s.written = d, map[string]bool{}
	}
	var write func(rel string, tree bool) error
	write = func(rel string, tree bool) error {
		if !s.written[rel] {
			if err := materialize(snap, s.dir, rel); err != nil {
				return err
			}
			s.written[rel] = true
		}
		if tree {
			for _, n := range snap.Names[rel] {
				if err := write(path.Join(rel, n), true); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, d := range deps {
		if err := write(d.Path, d.Op == fsys.DepTree); err != nil {
			return "", err
		}
	}
	return s.dir, nil
}

// remove deletes the scratch folder.
func (s *scratch) remove() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir != "" {
		os.RemoveAll(s.dir)
		s.dir = ""
	}
}

// materialize writes the entry rel of snap below the folder to: a folder, or a file with
// its content (a refused file is written empty: only its name can matter to the
// generator, which refusedUnder already stopped for YAML); nothing for an absent path
// or a symlink, which artifacts do not hold.
func materialize(snap *graph.Snapshot, to, rel string) error {
	p := filepath.Join(to, filepath.FromSlash(rel))
	switch snap.State(rel) {
	case "dir":
		return os.MkdirAll(p, 0o755)
	case "file":
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		data, _ := snap.Read(rel)
		return os.WriteFile(p, data, 0o644)
	}
	return nil
}

// generatorDeps lists what the generator reads for ks in dir (kustomize_generator.go
// findOrGenerateKustomization, scanManifests, the components check): whether each
// recognized kustomization file name exists and is a file, in order, up to the first
// one, and its content; without one, every name and content below dir (scanManifests
// walks it); and whether each component path exists.
func (r *renderer) generatorDeps(dir string, ks *graph.Kustomization) []fsys.Dep {
	snap := r.guards.snap
	rel := snap.Rel(dir)
	var deps []fsys.Dep
	found := false
	for _, n := range konfig.RecognizedKustomizationFileNames() {
		p := path.Join(rel, n)
		deps = append(deps, fsys.Dep{Op: fsys.DepStat, Path: p})
		if snap.State(p) == "file" {
			deps = append(deps, fsys.Dep{Op: fsys.DepRead, Path: p})
			found = true
			break
		}
	}
	if !found {
		deps = append(deps, fsys.Dep{Op: fsys.DepTree, Path: rel})
	}
	components, _, _ := unstructured.NestedStringSlice(ks.Body.Object, "spec", "components")
	for _, c := range components {
		if p := path.Join(rel, c); snap.Knows(p) {
			deps = append(deps, fsys.Dep{Op: fsys.DepStat, Path: p})
		}
	}
	return deps
}
