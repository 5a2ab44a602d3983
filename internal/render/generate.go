package render

import (
	"encoding/json"
	"path"
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
// below the source root root. The generator reads the disk itself, so the shared cache
// keys its output by the whole Kustomization object, the root and the folder, and reuses
// it where generatorDeps (a superset of what it reads) are unchanged.
func (r *renderer) generate(root, dir string, ks *Kustomization) ([]byte, string, *BuildError) {
	var key string
	var deps []dep
	if r.shared != nil {
		deps = r.generatorDeps(dir, ks)
	}
	if deps != nil {
		body, _ := json.Marshal(ks.Body.Object)
		key = digest([]byte("generate\x00" + relPath(r.abs, root) + "\x00" + relPath(r.abs, dir) + "\x00" + string(body)))
		if v, ok := r.shared.find(key, r.fps); ok {
			return v.gen.manifest, r.absPath(v.gen.kfile), nil
		}
	}
	manifest, kfile, _, err := fluxkustomize.NewGenerator(root, *ks.Body).GenerateManifest(dir)
	if err == nil {
		manifest, err = withOrigins(manifest)
	}
	if err != nil {
		return nil, "", buildError(r.ix, r.abs, dir, err)
	}
	if deps != nil {
		r.shared.addGenerated(key, deps, r.fps, &generated{manifest: manifest, kfile: relPath(r.abs, kfile)})
	}
	return manifest, kfile, nil
}

func (r *renderer) absPath(rel string) string {
	return path.Join(r.abs, rel)
}

// generatorDeps lists what the generator reads for ks in dir (kustomize_generator.go
// findOrGenerateKustomization, scanManifests, the components check): whether each
// recognized kustomization file name exists and is a file, in order, up to the first
// one, and its content; without one, every name and content below dir (scanManifests
// walks it); and whether each component path exists. nil when the snapshot cannot say
// (a symlink, which the generator would follow, or a folder scan did not enter).
func (r *renderer) generatorDeps(dir string, ks *Kustomization) []dep {
	snap := r.guards.snap
	rel := relPath(r.abs, dir)
	if !snap.knows(rel) || snap.state(rel) != "dir" {
		return nil
	}
	var deps []dep
	found := false
	for _, n := range konfig.RecognizedKustomizationFileNames() {
		p := path.Join(rel, n)
		st := snap.state(p)
		deps = append(deps, dep{depStat, p})
		if st == "symlink" || st == "other" {
			return nil
		}
		if st == "file" {
			deps = append(deps, dep{depRead, p})
			found = true
			break
		}
	}
	if !found {
		for p := range snap.refused {
			if rel == "." || strings.HasPrefix(p, rel+"/") {
				return nil // a symlink or refused file below: the generator reads it its own way
			}
		}
		for u := range snap.unwalked {
			if rel == "." || strings.HasPrefix(u, rel+"/") {
				return nil
			}
		}
		deps = append(deps, dep{depTree, rel})
	}
	components, _, _ := unstructured.NestedStringSlice(ks.Body.Object, "spec", "components")
	for _, c := range components {
		deps = append(deps, dep{depStat, path.Join(rel, c)})
	}
	return deps
}
