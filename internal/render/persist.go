package render

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/kustomize/api/resmap"

	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/helm"
	"github.com/tiergate/tiergate/internal/render/helmrelease"
)

// Store is the persistent layer under a Cache: bytes by key, shared by processes
// (cachestore.Store on disk). Get's false is a miss, also for an entry that does not check
// out; Put may drop what it cannot write.
type Store interface {
	Get(key string) ([]byte, bool)
	Put(key string, data []byte)
}

// Persist makes c read from s what it does not hold in memory, and write to s what it
// builds: the generator's outputs and the Kustomization builds (their recorded inputs'
// fingerprints, errors and remote entries) by the same content-addressed keys as in
// memory, and each build's objects after substitution by the build and the substitution
// key, every successful chart render by renderChart's key, and whole graphs by
// RenderSource's key (the tree id and the options; persist_graph.go says which graphs). A build's kustomize
// resources are not stored: a build found on disk is run again only when objects of a
// substitution not on disk are asked of it. An entry that does not decode is a miss. Call
// it before c is used.
//
// The key of the Secret placeholders charts see is kept in s too (placeholderKeyOnDisk),
// so that a graph read back from s and one rendered now show an unchanged Secret value
// alike; the graphs' keys name it (graphKey), so a graph made with a key s lost is a miss.
func (c *Cache) Persist(s Store) {
	c.disk = s
	c.mask = helmrelease.NewPlaceholders(placeholderKey(s))
}

// placeholderKeyOnDisk is the store key of the Secret placeholders' key.
const placeholderKeyOnDisk = "placeholder-key\x00v1"

// placeholderKey returns the placeholders' key kept in s, made and stored when s has none
// (or one of another length) as the process's key; the key helmrelease.UseKey fixed, when
// it did.
func placeholderKey(s Store) []byte {
	k, fixed := helmrelease.FixedKey()
	if fixed {
		return k // the operator's (TIERGATE_PLACEHOLDER_KEY): the same in every cache folder
	}
	if stored, ok := s.Get(placeholderKeyOnDisk); ok && len(stored) == 32 {
		return stored
	}
	// A new folder takes the process's key: what this process renders without the cache
	// and through it then agree, and later processes read the key back.
	s.Put(placeholderKeyOnDisk, k)
	return k
}

// placeholders is what makes the Secret placeholders of charts rendered through c: the
// process's for a nil c.
func (c *Cache) placeholders() helmrelease.Placeholders {
	if c == nil {
		return helmrelease.Placeholders{}
	}
	return c.mask
}

// diskBuilds is the stored form of a key's builds, newest first (at most maxVariants).
type diskBuilds struct {
	Variants []diskBuild
}

// diskBuild is one build of a key: valid where Deps have the fingerprints FPs.
type diskBuild struct {
	Deps   []fsys.Dep
	FPs    []string
	Remote []string          `json:",omitempty"`
	Err    *graph.BuildError `json:",omitempty"`
	// NoRes says the build gave no resources and no error: a file it loads is remote.
	NoRes bool `json:",omitempty"`
	// Gen and KFile, instead of the fields above, are a generator output.
	Gen   []byte `json:",omitempty"`
	KFile string `json:",omitempty"`
}

// diskObjects is the stored form of builtObjects.
type diskObjects struct {
	Objects     []*graph.Object
	Err         *graph.BuildError `json:",omitempty"`
	Substituted int64             `json:",omitempty"`
}

// variantID names a variant of key on disk: the key and its inputs' fingerprints.
func variantID(key string, deps []fsys.Dep, fps []string) string {
	var b strings.Builder
	b.WriteString(key)
	for i, d := range deps {
		b.WriteString("\x00" + string(d.Op) + d.Path + "\x00" + fps[i])
	}
	return graph.Digest([]byte(b.String()))
}

// loadDisk returns the stored build (or generator output) of key that matches fps, made
// into a variant kept in memory too; false when the store has none.
func (c *Cache) loadDisk(kind, key string, fps *fsys.Fingerprints) (*cacheVariant, bool) {
	if c == nil || c.disk == nil {
		return nil, false
	}
	data, ok := c.disk.Get(kind + "\x00" + key)
	if !ok {
		return nil, false
	}
	var rec diskBuilds
	if json.Unmarshal(data, &rec) != nil {
		return nil, false
	}
	for _, d := range rec.Variants {
		if len(d.Deps) != len(d.FPs) {
			return nil, false
		}
		v := &cacheVariant{deps: d.Deps, fps: d.FPs, remote: d.Remote, err: d.Err, stored: true}
		if !v.matches(fps) {
			continue
		}
		v.id = variantID(key, d.Deps, d.FPs)
		if kind == "gen" {
			v.gen = &generated{manifest: d.Gen, kfile: d.KFile}
			v.bytes = int64(len(d.Gen))
		} else {
			v.lazy = d.Err == nil && !d.NoRes
			for _, dp := range d.Deps {
				v.bytes += int64(len(dp.Path)) + 64
			}
		}
		c.store(key, v)
		return v, true
	}
	return nil, false
}

// saveDisk adds v, a new build (or generator output) of key, to the stored ones.
func (c *Cache) saveDisk(kind, key string, v *cacheVariant) {
	if c == nil || c.disk == nil {
		return
	}
	v.id = variantID(key, v.deps, v.fps)
	d := diskBuild{Deps: v.deps, FPs: v.fps, Remote: v.remote, Err: v.err, NoRes: v.res == nil && v.err == nil}
	if v.gen != nil {
		d = diskBuild{Deps: v.deps, FPs: v.fps, Gen: v.gen.manifest, KFile: v.gen.kfile}
	}
	var rec diskBuilds
	if data, ok := c.disk.Get(kind + "\x00" + key); ok && json.Unmarshal(data, &rec) == nil {
		// Another process may have stored the same variant meanwhile.
		kept := rec.Variants[:0]
		for _, o := range rec.Variants {
			if len(o.Deps) == len(o.FPs) && variantID(key, o.Deps, o.FPs) != v.id {
				kept = append(kept, o)
			}
		}
		rec.Variants = kept
	}
	rec.Variants = append([]diskBuild{d}, rec.Variants...)
	if len(rec.Variants) > maxVariants {
		rec.Variants = rec.Variants[:maxVariants]
	}
	if data, err := json.Marshal(rec); err == nil {
		c.disk.Put(kind+"\x00"+key, data)
	}
}

// objectsKeyOnDisk is the store key of the objects of variant v after the substitution sub.
func objectsKeyOnDisk(v *cacheVariant, sub string) string {
	return "objects\x00" + v.id + "\x00" + graph.Digest([]byte(sub))
}

// loadObjects returns the stored objects of v after the substitution sub.
func (c *Cache) loadObjects(v *cacheVariant, sub string) (builtObjects, bool) {
	if c == nil || c.disk == nil || v.id == "" {
		return builtObjects{}, false
	}
	data, ok := c.disk.Get(objectsKeyOnDisk(v, sub))
	if !ok {
		return builtObjects{}, false
	}
	var rec diskObjects
	if json.Unmarshal(data, &rec) != nil {
		return builtObjects{}, false
	}
	for _, o := range rec.Objects {
		if o == nil || o.Body == nil {
			return builtObjects{}, false
		}
	}
	return builtObjects{objs: rec.Objects, err: rec.Err, substituted: rec.Substituted}, true
}

// saveObjects stores the objects of v after the substitution sub.
func (c *Cache) saveObjects(v *cacheVariant, sub string, out builtObjects) {
	if c == nil || c.disk == nil || v.id == "" {
		return
	}
	data, err := json.Marshal(diskObjects{Objects: out.objs, Err: out.err, Substituted: out.substituted})
	if err == nil {
		c.disk.Put(objectsKeyOnDisk(v, sub), data)
	}
}

// diskRelease is the stored form of a chart's render (helm.Result), or of the chart's own
// failure (Err: Helm's message; tiergate's refusals are never stored).
type diskRelease struct {
	Err  string `json:",omitempty"`
	Docs []struct {
		Object   json.RawMessage
		Template string `json:",omitempty"`
		Hook     string `json:",omitempty"`
		CRD      bool   `json:",omitempty"`
	}
	Approximate      []string              `json:",omitempty"`
	UnmatchedPatches []helm.UnmatchedPatch `json:",omitempty"`
	SkippedCRDs      []string              `json:",omitempty"`
}

// loadRelease returns the stored render kept under key (renderChart's key: the chart's
// digest, the values, the HelmRelease and the cluster's versions). Objects decode as
// Kubernetes objects do (whole numbers int64, others float64). size is releaseBytes's
// estimate of the memory the render holds, from the stored text.
func (c *Cache) loadRelease(key string) (*helm.Result, error, int64, bool) {
	if c == nil || c.disk == nil {
		return nil, nil, 0, false
	}
	data, ok := c.disk.Get(key)
	if !ok {
		return nil, nil, 0, false
	}
	var rec diskRelease
	if json.Unmarshal(data, &rec) != nil {
		return nil, nil, 0, false
	}
	if rec.Err != "" {
		return nil, errors.New(rec.Err), releaseBytes(key, nil), true
	}
	res := &helm.Result{Approximate: rec.Approximate, UnmatchedPatches: rec.UnmatchedPatches, SkippedCRDs: rec.SkippedCRDs, Docs: make([]helm.Doc, len(rec.Docs))}
	size := releaseBytes(key, nil)
	for i, d := range rec.Docs {
		var obj map[string]any
		if utiljson.Unmarshal(d.Object, &obj) != nil || obj == nil {
			return nil, nil, 0, false
		}
		res.Docs[i] = helm.Doc{Object: obj, Template: d.Template, Hook: d.Hook, CRD: d.CRD}
		// The stored object is json.Marshal's text of it (saveRelease): releaseBytes's
		// measure, without marshalling it again.
		size += int64(len(d.Object)) * memPerInputByte
	}
	return res, nil, size, true
}

// saveRelease stores a chart's render under key, or its failure chartErr (Helm's own: a
// `required`, a kubeVersion; the caller never passes tiergate's refusals, since a sandbox's
// time or memory bound may end a render that another run finishes).
func (c *Cache) saveRelease(key string, res *helm.Result, chartErr error) {
	if c == nil || c.disk == nil || (res == nil && chartErr == nil) {
		return
	}
	var rec diskRelease
	if chartErr != nil {
		if data, err := json.Marshal(diskRelease{Err: chartErr.Error()}); err == nil {
			c.disk.Put(key, data)
		}
		return
	}
	rec.Approximate, rec.UnmatchedPatches, rec.SkippedCRDs = res.Approximate, res.UnmatchedPatches, res.SkippedCRDs
	for _, d := range res.Docs {
		obj, err := json.Marshal(d.Object)
		if err != nil {
			return
		}
		rec.Docs = append(rec.Docs, struct {
			Object   json.RawMessage
			Template string `json:",omitempty"`
			Hook     string `json:",omitempty"`
			CRD      bool   `json:",omitempty"`
		}{obj, d.Template, d.Hook, d.CRD})
	}
	if data, err := json.Marshal(rec); err == nil {
		c.disk.Put(key, data)
	}
}

// lazyRes holds the kustomize resources of a build found in the store, made again on
// first need.
type lazyRes struct {
	once sync.Once
	res  resmap.ResMap
}
