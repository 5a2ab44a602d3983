package render

import (
	"container/list"
	"encoding/json"
	"sync"

	chart "helm.sh/helm/v4/pkg/chart/v2"
	"sigs.k8s.io/kustomize/api/resmap"

	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/helmrelease"
	"github.com/tiergate/tiergate/internal/render/index"
)

// Cache keeps kustomize build results across renders (the base and head of one review,
// and successive reviews in the server), so that a Kustomization whose build inputs are
// unchanged is not built again. It is content-addressed: an entry is found by the
// generated kustomization (which holds the Kustomization's spec) and is reused only when
// every file, folder and glob the build read has the same content in the tree being
// rendered. Substitution always runs again: its variables come from the graph.
//
// The cache is bounded by an estimate of its memory in bytes and evicts the least
// recently used entry first. It is safe for concurrent use.
type Cache struct {
	maxBytes int64

	mu      sync.Mutex
	byKey   map[string]*list.Element // generation key → *cacheEntry, most recent in lru front
	lru     *list.List
	bytes   int64
	hits    int64
	misses  int64
	evicted int64
	// disk is the persistent layer (Persist); nil: memory only.
	disk Store
	// mask makes the Secret placeholders of the charts rendered through c: the
	// process's key, or the one kept in disk (Persist).
	mask helmrelease.Placeholders
}

// CacheStats counts a Cache's lookups since it was made.
type CacheStats struct {
	Hits, Misses, Evictions int64
	Entries                 int
	// Bytes is the estimated memory held by the entries.
	Bytes int64
}

type cacheEntry struct {
	key     string
	variant []*cacheVariant
	bytes   int64
}

// cacheVariant is one build of a key, valid in any tree where deps have these fingerprints.
type cacheVariant struct {
	deps   []fsys.Dep
	fps    []string
	res    resmap.ResMap
	remote []string // remote entries left out
	// err is the build's error, nil when res is set: its message and place are repo-relative
	// and read from the recorded inputs, so they hold in any tree where those are equal.
	err *graph.BuildError
	// gen, instead of the fields above, is a generator output.
	gen *generated
	// docs, instead of the fields above, are the parsed documents of a file content.
	docs []index.Doc
	// ignore, instead of the fields above, are source-ignore verdicts.
	ignore *fsys.Verdicts
	// release, instead of the fields above, is a chart's render (renderChart).
	release *releaseOut
	// graph, instead of the fields above, is the graph of a source.
	graph *graph.Graph
	// chart, instead of the fields above, is an in-repo chart as loaded (KeepChart).
	chart *chart.Chart
	bytes int64
	// id names the variant in the Store (variantID); "" when it is not persisted.
	id string
	// stored says the variant was read from the Store; lazy that its build has
	// resources, not read from it: res is then made again on first need (resources).
	stored, lazy bool
	lres         lazyRes
	// objects holds the build's objects after substitution, by substitutionKey: they are
	// a function of the build, the Kustomization and its variables, and of the files the
	// build read (source lines), so they hold wherever the variant does. Never modified.
	objects sync.Map
}

// maxVariants bounds the builds kept per key: the base and head of a PR, and a few more.
const maxVariants = 4

// memPerInputByte estimates the memory a build result and its objects hold per byte of
// input the build read (kyaml nodes, origin annotations, unstructured objects): 6 to 21
// measured on the corpus repositories (docs/performance.md); the bound keeps the cache
// within its budget.
const memPerInputByte = 32

// NewCache returns a Cache holding at most about maxBytes of build results; maxBytes <= 0
// means 256 MiB.
func NewCache(maxBytes int64) *Cache {
	if maxBytes <= 0 {
		maxBytes = 256 << 20
	}
	return &Cache{maxBytes: maxBytes, byKey: map[string]*list.Element{}, lru: list.New()}
}

// Stats returns the counters and size of the cache.
func (c *Cache) Stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return CacheStats{Hits: c.hits, Misses: c.misses, Evictions: c.evicted, Entries: c.lru.Len(), Bytes: c.bytes}
}

// lookup returns a build of key whose deps are unchanged in the tree fps describes,
// counted as a hit or a miss.
func (c *Cache) lookup(key string, fps *fsys.Fingerprints) (*cacheVariant, bool) {
	v, ok := c.find(key, fps)
	if !ok {
		v, ok = c.loadDisk("build", key, fps)
	}
	if ok {
		c.count(&c.hits)
	} else {
		c.count(&c.misses)
	}
	return v, ok
}

// find is lookup without counting: the generator's outputs are not builds.
func (c *Cache) find(key string, fps *fsys.Fingerprints) (*cacheVariant, bool) {
	c.mu.Lock()
	el, ok := c.byKey[key]
	var variants []*cacheVariant
	if ok {
		c.lru.MoveToFront(el)
		variants = append(variants, el.Value.(*cacheEntry).variant...)
	}
	c.mu.Unlock()
	for _, v := range variants {
		if v.matches(fps) {
			return v, true
		}
	}
	return nil, false
}

func (c *Cache) count(n *int64) {
	c.mu.Lock()
	*n++
	c.mu.Unlock()
}

func (v *cacheVariant) matches(fps *fsys.Fingerprints) bool {
	for i, d := range v.deps {
		if fps.Of(d).Digest != v.fps[i] {
			return false
		}
	}
	return true
}

// add stores a build of key made from deps as they are in the tree fps describes.
func (c *Cache) add(key string, deps []fsys.Dep, fps *fsys.Fingerprints, res resmap.ResMap, remote []string, err *graph.BuildError) *cacheVariant {
	v := &cacheVariant{deps: deps, fps: make([]string, len(deps)), res: res, remote: remote, err: err}
	for i, d := range deps {
		fp := fps.Of(d)
		v.fps[i] = fp.Digest
		v.bytes += fp.Size
	}
	v.bytes = v.bytes*memPerInputByte + int64(len(key))
	c.saveDisk("build", key, v)
	return c.store(key, v)
}

// addGenerated stores the generator's output for key, made from deps as they are in the
// tree fps describes; it holds about its manifest and dep paths in memory.
func (c *Cache) addGenerated(key string, deps []fsys.Dep, fps *fsys.Fingerprints, g *generated) {
	v := &cacheVariant{deps: deps, fps: make([]string, len(deps)), gen: g}
	v.bytes = int64(len(key) + len(g.manifest) + len(g.kfile))
	for i, d := range deps {
		v.fps[i] = fps.Of(d).Digest
		v.bytes += int64(len(d.Path) + len(v.fps[i]))
	}
	c.saveDisk("gen", key, v)
	c.store(key, v)
}

// store adds v as the newest variant of key and evicts what the budget no longer holds.
func (c *Cache) store(key string, v *cacheVariant) *cacheVariant {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok {
		el = c.lru.PushFront(&cacheEntry{key: key})
		c.byKey[key] = el
	}
	c.lru.MoveToFront(el)
	e := el.Value.(*cacheEntry)
	e.variant = append([]*cacheVariant{v}, e.variant...)
	e.bytes += v.bytes
	c.bytes += v.bytes
	if len(e.variant) > maxVariants {
		old := e.variant[maxVariants]
		e.variant = e.variant[:maxVariants]
		e.bytes -= old.bytes
		c.bytes -= old.bytes
		c.evicted++
	}
	for c.bytes > c.maxBytes && c.lru.Len() > 0 {
		last := c.lru.Back()
		le := last.Value.(*cacheEntry)
		c.lru.Remove(last)
		delete(c.byKey, le.key)
		c.bytes -= le.bytes
		c.evicted += int64(len(le.variant))
	}
	return v
}

// docsPerByte estimates the memory of parsed YAML (yaml.v3 nodes) per byte of text; a
// file whose documents keep no node (parseDocs) holds about 128 bytes per document.
const docsPerByte = 16

// parsed returns the documents of a file whose content has digest sum, parsing data only
// when c (which may be nil) does not hold them: parseDocs is a function of the content,
// and its documents are never modified.
func (c *Cache) parsed(sum string, data []byte) []index.Doc {
	if c == nil {
		return index.Parse(data)
	}
	key := "docs\x00" + sum
	if v, ok := c.find(key, nil); ok {
		return v.docs
	}
	d := index.Parse(data)
	size := int64(len(key) + 128*len(d))
	for _, x := range d {
		if x.Node != nil {
			size += int64(len(data)) * docsPerByte
			break
		}
	}
	c.store(key, &cacheVariant{docs: d, bytes: size})
	return d
}

// ignoreVerdicts returns the verdicts kept for the ignore patterns whose digest is sum,
// making room for about paths of them; nil when c is nil.
func (c *Cache) ignoreVerdicts(sum string, paths int) *fsys.Verdicts {
	if c == nil {
		return nil
	}
	key := "ignore\x00" + sum
	if v, ok := c.find(key, nil); ok {
		return v.ignore
	}
	vs := fsys.NewVerdicts(paths)
	if c.disk != nil {
		vs = fsys.NewStoredVerdicts(c.storedVerdicts(key), paths, func(all map[string]bool) {
			if data, err := json.Marshal(all); err == nil {
				c.disk.Put(key, data)
			}
		})
	}
	c.store(key, &cacheVariant{ignore: vs, bytes: int64(paths) * 96})
	return vs
}

// storedVerdicts returns the ignore verdicts c's store holds under key; nil when it holds
// none or an entry that does not decode (a miss).
func (c *Cache) storedVerdicts(key string) map[string]bool {
	data, ok := c.disk.Get(key)
	if !ok {
		return nil
	}
	var m map[string]bool
	if json.Unmarshal(data, &m) != nil {
		return nil
	}
	return m
}

// keepGraph stores g, the graph of a source, under key. Its objects are mostly the
// builds' (kept already); what it adds is estimated per object and per Kustomization.
func (c *Cache) keepGraph(key string, g *graph.Graph) {
	var n int64
	for _, cl := range g.Clusters {
		for _, ks := range cl.Kustomizations {
			n += 4<<10 + int64(len(ks.Objects))<<10
		}
	}
	c.store(key, &cacheVariant{graph: g, bytes: n + int64(len(key))})
}

// Chart returns the in-repo chart kept under key (helmrelease.ChartMemo); false when c is
// nil or has none.
func (c *Cache) Chart(key string) (*chart.Chart, bool) {
	if c == nil {
		return nil, false
	}
	if v, ok := c.find(key, nil); ok && v.chart != nil {
		return v.chart, true
	}
	return nil, false
}

// KeepChart keeps ch, an in-repo chart loaded from size bytes of files, under key
// (helmrelease.ChartMemo). A loaded chart holds its files' bytes about twice (Raw, Files
// and Templates), counted four times for the parsed values and metadata.
func (c *Cache) KeepChart(key string, ch *chart.Chart, size int64) {
	if c == nil {
		return
	}
	c.store(key, &cacheVariant{chart: ch, bytes: int64(len(key)) + 4*size})
}
