package render

import (
	"encoding/json"
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"

	fluxkustomize "github.com/fluxcd/pkg/kustomize"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/konfig"
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
func (r *renderer) generate(root, dir string, ks *Kustomization) ([]byte, string, *BuildError) {
	deps := r.generatorDeps(dir, ks)
	var key string
	if r.shared != nil {
		body, _ := json.Marshal(ks.Body.Object)
		key = digest([]byte("generate\x00" + relPath(r.abs, root) + "\x00" + relPath(r.abs, dir) + "\x00" + string(body)))
		if v, ok := r.shared.find(key, r.fps); ok {
			return v.gen.manifest, filepath.Join(r.abs, filepath.FromSlash(v.gen.kfile)), nil
		}
	}
	manifest, kfile, err := r.runGenerator(root, dir, ks, deps)
	if err == nil {
		manifest, err = withOrigins(manifest)
	}
	if err != nil {
		return nil, "", buildError(r.ix, dir, err)
	}
	if r.shared != nil {
		r.shared.addGenerated(key, deps, r.fps, &generated{manifest: manifest, kfile: relPath(r.abs, kfile)})
	}
	return manifest, kfile, nil
}

// runGenerator writes deps to a scratch folder and runs fluxcd/pkg/kustomize's generator
// there; paths in its answer are given back at the artifact's root.
func (r *renderer) runGenerator(root, dir string, ks *Kustomization, deps []dep) ([]byte, string, error) {
	scratch, err := os.MkdirTemp("", "tiergate-generate-")
	if err != nil {
		return nil, "", err
	}
	defer os.RemoveAll(scratch)
	if err := materialize(r.guards.snap, scratch, deps); err != nil {
		return nil, "", err
	}
	sroot := filepath.Join(scratch, filepath.FromSlash(relPath(r.abs, root)))
	sdir := filepath.Join(scratch, filepath.FromSlash(relPath(r.abs, dir)))
	manifest, kfile, _, err := fluxkustomize.NewGenerator(sroot, *ks.Body).GenerateManifest(sdir)
	if err != nil {
		return nil, "", errors.New(strings.ReplaceAll(err.Error(), scratch, r.abs))
	}
	return manifest, filepath.Join(r.abs, filepath.FromSlash(relPath(scratch, kfile))), nil
}

// materialize writes what deps name of snap below the folder to: folders, and files with
// their content (a refused file is written empty: only its name can matter to the
// generator, which refusedUnder already stopped for YAML).
func materialize(snap *snapshot, to string, deps []dep) error {
	var write func(rel string) error
	write = func(rel string) error {
		p := filepath.Join(to, filepath.FromSlash(rel))
		switch snap.state(rel) {
		case "dir":
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case "file":
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			data, _ := snap.read(rel)
			if err := os.WriteFile(p, data, 0o644); err != nil {
				return err
			}
		}
		return nil
	}
	for _, d := range deps {
		if d.Op != depTree {
			if err := write(d.Path); err != nil {
				return err
			}
			continue
		}
		var walk func(rel string) error
		walk = func(rel string) error {
			if err := write(rel); err != nil {
				return err
			}
			for _, n := range snap.names[rel] {
				if err := walk(path.Join(rel, n)); err != nil {
					return err
				}
			}
			return nil
		}
		if err := walk(d.Path); err != nil {
			return err
		}
	}
	return nil
}

// generatorDeps lists what the generator reads for ks in dir (kustomize_generator.go
// findOrGenerateKustomization, scanManifests, the components check): whether each
// recognized kustomization file name exists and is a file, in order, up to the first
// one, and its content; without one, every name and content below dir (scanManifests
// walks it); and whether each component path exists.
func (r *renderer) generatorDeps(dir string, ks *Kustomization) []dep {
	snap := r.guards.snap
	rel := snap.rel(dir)
	var deps []dep
	found := false
	for _, n := range konfig.RecognizedKustomizationFileNames() {
		p := path.Join(rel, n)
		deps = append(deps, dep{depStat, p})
		if snap.state(p) == "file" {
			deps = append(deps, dep{depRead, p})
			found = true
			break
		}
	}
	if !found {
		deps = append(deps, dep{depTree, rel})
	}
	components, _, _ := unstructured.NestedStringSlice(ks.Body.Object, "spec", "components")
	for _, c := range components {
		if p := path.Join(rel, c); snap.knows(p) {
			deps = append(deps, dep{depStat, p})
		}
	}
	return deps
}
