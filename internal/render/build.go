package render

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	securejoin "github.com/cyphar/filepath-securejoin"
	"gopkg.in/yaml.v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/resource"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/resid"

	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/index"
	"github.com/tiergate/tiergate/internal/render/kustomize"
	"github.com/tiergate/tiergate/internal/yamlerr"
)

const originAnnotation = "config.kubernetes.io/origin"

// builtResult is the kustomize output of one (source root, path, spec) before substitution.
type builtResult struct {
	res    resmap.ResMap
	remote []string
	copies map[string]string // in-memory copy of a fetched remote file → its URL
	err    *graph.BuildError
	// variant is the shared cache's copy of this build, which keeps its objects across
	// renders; nil when the build is not shared.
	variant *cacheVariant
	// rebuild, for a build read from the Store without its resources, runs it again.
	rebuild func() resmap.ResMap
	// reads is what the build looked at (graph.Kustomization.Reads).
	reads map[string]bool
}

// readsOf is the set of paths deps look at (graph.Kustomization.Reads): a file read or
// checked, a folder walked (with a trailing "/"). A listing or a glob reads names only:
// what the build then reads of them is a dep of its own.
func readsOf(deps []fsys.Dep) map[string]bool {
	out := make(map[string]bool, len(deps))
	for _, d := range deps {
		switch d.Op {
		case fsys.DepRead, fsys.DepStat:
			out[d.Path] = true
		case fsys.DepTree:
			out[strings.TrimSuffix(d.Path, "/")+"/"] = true
		}
	}
	return out
}

// resources returns the build's kustomize resources, running a build read from the
// Store again on first need (its inputs are unchanged, so it gives the same); nil when
// it has none (an error, or a file it loads is remote).
func (b *builtResult) resources() resmap.ResMap {
	if b.rebuild == nil {
		return b.res
	}
	v := b.variant
	v.lres.once.Do(func() { v.lres.res = b.rebuild() })
	return v.lres.res
}

// hasResources reports whether the build gave resources (made or yet to be made again).
func (b *builtResult) hasResources() bool { return b.res != nil || b.rebuild != nil }

// buildCache keeps kustomize outputs so that a Kustomization is built once per inputs,
// however many substitution rounds the fixpoint needs.
type buildCache struct {
	mu sync.Mutex
	m  map[string]*builtResult
}

// kustomize returns the build of ks in srcRoot, running build only the first time the
// (source root, spec) pair is seen in this render. The result is shared: callers deep-copy it.
func (c *buildCache) kustomize(srcRoot string, ks *graph.Kustomization, build func() *builtResult) *builtResult {
	spec, _ := json.Marshal(specForBuild(ks.Body))
	key := srcRoot + "\x00" + string(spec)
	c.mu.Lock()
	if r, ok := c.m[key]; ok {
		c.mu.Unlock()
		return r
	}
	c.mu.Unlock()
	r := build()
	c.mu.Lock()
	c.m[key] = r
	c.mu.Unlock()
	return r
}

// specForBuild is the part of a Kustomization that the generator and build read.
func specForBuild(ks *unstructured.Unstructured) map[string]any {
	spec, _, _ := unstructured.NestedMap(ks.Object, "spec")
	out := map[string]any{}
	for _, f := range []string{"path", "targetNamespace", "namePrefix", "nameSuffix", "patches",
		"patchesStrategicMerge", "patchesJson6902", "images", "components", "ignoreMissingComponents",
		"buildMetadata", "commonMetadata"} {
		if v, ok := spec[f]; ok {
			out[f] = v
		}
	}
	return out
}

// runKustomize runs the generator and the build for ks exactly as kustomize-controller
// does (KC build(): generate, then build with builtin plugins only and no load
// restrictions) inside srcRoot. A build whose inputs a shared Cache holds unchanged is
// taken from it instead.
func (r *renderer) runKustomize(srcRoot string, ks *graph.Kustomization) *builtResult {
	out := r.kustomizeBuild(srcRoot, ks)
	if out.err != nil && (out.err.File == "" || out.err.File == "." || r.guards.snap.State(out.err.File) == "dir") {
		// An error in a folder without kustomization.yaml may name no file: the
		// Kustomization's path is the place to fix (a SARIF location must be a file).
		loc := kustomize.SpecError(ks, r.ix, "path", "")
		e := *out.err
		e.File, e.Line = loc.File, loc.Line
		out.err = &e
	}
	return out
}

// kustomizeBuild is runKustomize before its error is placed in a file.
func (r *renderer) kustomizeBuild(srcRoot string, ks *graph.Kustomization) *builtResult {
	ix, abs, snap := r.ix, r.abs, r.guards.snap
	root := filepath.Join(abs, filepath.FromSlash(srcRoot))
	// securejoin.SecureJoin without a disk: the artifact has no symlinks to resolve.
	dir := filepath.Join(root, filepath.FromSlash(path.Clean("/"+ks.Spec.Path)))
	if snap.State(snap.Rel(dir)) != "dir" {
		msg := "kustomization path not found: " + ks.Spec.Path
		if why := leftOutWhy(snap, snap.Rel(dir)); why != "" {
			msg += ": " + why
		}
		return &builtResult{err: kustomize.SpecError(ks, ix, "path", msg)}
	}
	if rf := fsys.RefusedUnder(snap, dir); rf != nil {
		return &builtResult{err: fsys.RefusalBuildError(snap, dir, rf, nil)}
	}
	manifest, kfile, be := r.generate(root, dir, ks)
	if be != nil {
		return &builtResult{err: be}
	}
	key := graph.Digest([]byte(r.policy + "\x00" + graph.RelPath(abs, root) + "\x00" + graph.RelPath(abs, kfile) + "\x00" + string(manifest)))
	if r.shared != nil {
		if v, ok := r.shared.lookup(key, r.fps); ok {
			out := &builtResult{res: v.res, remote: v.remote, err: v.err, variant: v, reads: readsOf(v.deps)}
			if v.lazy {
				out.rebuild = func() resmap.ResMap { return r.kustomizeFile(root, dir, kfile, manifest).out.res }
			}
			return out
		}
	}
	b := r.kustomizeFile(root, dir, kfile, manifest)
	b.out.reads = readsOf(b.deps)
	// Only builds that are a function of their recorded inputs and the key are kept: not
	// one a guard refused (limits are not part of the key) nor one holding fetched remote
	// content (which may change at its URL).
	if r.shared != nil && b.inside && !b.refused && len(b.out.copies) == 0 {
		b.out.variant = r.shared.add(key, b.deps, r.fps, b.out.res, b.out.remote, b.out.err)
	}
	return b.out
}

// freshBuild is a kustomize build just run, with what it read.
type freshBuild struct {
	out     *builtResult
	deps    []fsys.Dep
	inside  bool // every dep is inside the tree
	refused bool // a guard refused a path
}

// kustomizeFile runs kustomize in dir with manifest as its generated kustomization file
// kfile, recording what it reads.
func (r *renderer) kustomizeFile(root, dir, kfile string, manifest []byte) freshBuild {
	ix, abs, snap := r.ix, r.abs, r.guards.snap
	// The generated kustomization file goes where kustomize-controller writes it: into the
	// folder (fluxcd/pkg/kustomize's in-memory layer refuses folder names that git, Flux and
	// the disk accept, such as "a,b" or "a b").
	mem := fsys.SrcFS{Snap: snap, Written: &fsys.Written{}}
	if err := mem.WriteFile(kfile, manifest); err != nil {
		return freshBuild{out: &builtResult{err: buildError(ix, dir, err)}}
	}
	rec := fsys.NewRecordFS(mem, abs)
	res, gfs, rfs, err := r.kustomizeDir(func() (*fsys.GuardFS, *fsys.RemoteFS) { return r.guards.filesystems(abs, root, rec) }, dir)
	out := r.guards.result(ix, dir, gfs, rfs, res, err)
	deps, inside := rec.Recorded()
	out.err = redactedBuildError(out.err, snap, deps)
	return freshBuild{out: out, deps: deps, inside: inside, refused: gfs.RefusalError(dir) != nil}
}

// secretNodeError is msg, an error converting one object of kind to JSON, with its
// Go-syntax dumps withheld when the object is a Secret: sigs.k8s.io/yaml's YAMLToJSON
// fails on a key that is a list or map (yaml.v2 (*decoder).mapping, "invalid map key:
// %#v"), quoting the strings of a malformed Secret's stringData or data.
func secretNodeError(kind, msg string) string {
	if kind == "Secret" {
		return graph.WithholdGoDumps(msg)
	}
	return msg
}

// withOrigins asks kustomize to annotate every object with the file it came from.
func withOrigins(manifest []byte) ([]byte, error) {
	var kus kustypes.Kustomization
	if err := yaml.Unmarshal(manifest, &kus); err != nil {
		return nil, err
	}
	for _, m := range kus.BuildMetadata {
		if m == kustypes.OriginAnnotations {
			return manifest, nil
		}
	}
	kus.BuildMetadata = append(kus.BuildMetadata, kustypes.OriginAnnotations)
	return yaml.Marshal(&kus)
}

// keepsOrigins reports whether the user asked for origin annotations in the output.
func keepsOrigins(ks *unstructured.Unstructured) bool {
	md, _, _ := unstructured.NestedStringSlice(ks.Object, "spec", "buildMetadata")
	for _, m := range md {
		if m == kustypes.OriginAnnotations {
			return true
		}
	}
	return false
}

var (
	absPathRE = regexp.MustCompile(`(/[^\s'":\]]+)`)
	quotedRE  = regexp.MustCompile(`'([^'\s]+)'`)
	fileRE    = regexp.MustCompile(`[\w.\-/]+\.[A-Za-z]\w*`)
	yamlLine  = regexp.MustCompile(`line (\d+)`)
)

// mentions lists the names an error message points at, most specific first: quoted
// entries, then file names and their base names.
func mentions(msg string) []string {
	var out []string
	for _, q := range quotedRE.FindAllStringSubmatch(msg, -1) {
		out = append(out, q[1])
	}
	for _, f := range fileRE.FindAllString(msg, -1) {
		out = append(out, f, filepath.Base(f))
	}
	return out
}

// buildError turns a kustomize error into data: the message without temporary paths, and
// the most specific place it names: the kustomization file that lists a missing entry (at
// that entry's line), a manifest that fails to parse, else the build's kustomization file.
func buildError(ix *index.Index, dir string, err error) *graph.BuildError {
	return leftOut(summarize(malformedManifest(ix, locateError(ix, dir, err))), ix.Snapshot())
}

// locateError is buildError before summarize: the whole message, at its place.
func locateError(ix *index.Index, dir string, err error) *graph.BuildError {
	snap := ix.Snapshot()
	abs := snap.Root
	msg := strings.ReplaceAll(err.Error(), abs+string(filepath.Separator), "")
	relDir, _ := filepath.Rel(abs, dir)
	be := &graph.BuildError{Message: msg, File: filepath.ToSlash(relDir), Line: 1}
	if k := kustomizationFile(snap, dir); k != "" {
		be.File = graph.RelPath(abs, k)
	}
	paths := absPathRE.FindAllString(err.Error(), -1)
	for i := len(paths) - 1; i >= 0; i-- {
		p := filepath.Clean(paths[i])
		if rel, e := filepath.Rel(abs, p); e != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		if rel := snap.Rel(p); snap.State(rel) == "file" && ix.Readable(rel) {
			be.File, be.Line = rel, yamlErrorLine(snap, rel)
			if be.Line == 0 {
				be.Line = namelessLine(ix, rel, msg)
			}
			if l := yamlLine.FindStringSubmatch(msg); l != nil && be.Line == 0 {
				fmt.Sscanf(l[1], "%d", &be.Line)
			}
			be.Line = max(be.Line, 1)
			return be
		}
		// A missing entry or a directory: the nearest kustomization file lists it.
		for d := p; strings.HasPrefix(d, abs) && d != abs; d = filepath.Dir(d) {
			if k := kustomizationFile(snap, d); k != "" {
				be.File, be.Line = graph.RelPath(abs, k), 1
				if rel, e := filepath.Rel(d, p); e == nil {
					if l := ix.LineOf(be.File, 1, filepath.ToSlash(rel)); l > 0 {
						be.Line = l
					} else if l := ix.LineOf(be.File, 1, filepath.Base(p)); l > 0 {
						be.Line = l
					}
				}
				return be
			}
		}
	}
	for _, m := range mentions(msg) {
		if l := ix.LineOf(be.File, 1, m); l > 0 && !strings.HasSuffix(m, "kustomization.yaml") {
			be.Line = l
			break
		}
	}
	return be
}

// yamlErrorLine parses the file as a YAML stream and returns the line of its first error,
// counted from the start of the file (kustomize counts from the start of the document); 0
// when it parses. A document that parses is also decoded, which finds what only decoding
// does (a mapping key defined twice), at the line of the second key.
func yamlErrorLine(snap *graph.Snapshot, rel string) int {
	data, ok := snap.Read(rel)
	if !ok {
		return 0
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if err == nil {
			var v any
			if err = n.Decode(&v); err == nil {
				continue
			}
		}
		// A decode error ("line N: key ... already defined") is 1-based; a syntax error's
		// line is yamlerr's.
		if line, _, ok := yamlerr.Line(strings.TrimPrefix(err.Error(), "yaml: ")); ok {
			return min(line, yamlerr.LastLine(data))
		}
		if l := yamlLine.FindStringSubmatch(err.Error()); l != nil {
			line, _ := strconv.Atoi(l[1])
			return line
		}
		return 0
	}
}

// missingName is kustomize's error for an object without metadata.name; it prints the
// object's apiVersion and kind ("missing metadata.name in object {{v1 ConfigMap} …").
var missingName = regexp.MustCompile(`missing metadata\.name in object \{\{\S* (\w+)\}`)

// namelessLine returns, for kustomize's "missing metadata.name" error, the first line of
// the first document of rel of that kind without a name; 0 for another error.
func namelessLine(ix *index.Index, rel, msg string) int {
	m := missingName.FindStringSubmatch(msg)
	if m == nil {
		return 0
	}
	for _, d := range ix.Docs(rel) {
		if d.Name == "" && d.Kind == m[1] {
			return d.Start
		}
	}
	return 0
}

// earlierIDs gives the ids a built resource of res may have had when the build's
// replacements selected it, before one renamed it: its source document's (the origin
// annotation's file, the document of its kind whose name, bare or with the name prefix
// and suffix of the build's kustomization file and of the Kustomization's spec, which
// kustomize-controller writes into that file, is the resource's name), or, when no
// document is named so, each document of its kind in the file that no other resource is
// named from; in its own namespace and in the document's.
func earlierIDs(ix *index.Index, dir, relDir string, ks *graph.Kustomization, res resmap.ResMap) func(*resource.Resource) []resid.ResId {
	var prefixes, suffixes = []string{""}, []string{""}
	if data, ok := ix.Snapshot().ReadAbs(kustomizationFile(ix.Snapshot(), dir)); ok {
		var k kustypes.Kustomization
		if yaml.Unmarshal(data, &k) == nil {
			prefixes, suffixes = append(prefixes, k.NamePrefix), append(suffixes, k.NameSuffix)
		}
	}
	p, _, _ := unstructured.NestedString(ks.Body.Object, "spec", "namePrefix")
	x, _, _ := unstructured.NestedString(ks.Body.Object, "spec", "nameSuffix")
	prefixes, suffixes = append(prefixes, p), append(suffixes, x)
	namedAs := func(d index.Doc, name string) bool {
		for i := range prefixes {
			if prefixes[i]+d.Name+suffixes[i] == name {
				return true
			}
		}
		return false
	}
	docsOf := func(r *resource.Resource) (string, []index.Doc) {
		o, err := r.GetOrigin()
		if err != nil || o == nil || o.Path == "" || o.Repo != "" {
			return "", nil
		}
		file := filepath.ToSlash(filepath.Clean(filepath.Join(relDir, o.Path)))
		var out []index.Doc
		for _, d := range ix.Docs(file) {
			if d.Kind == r.GetKind() && d.Name != "" {
				out = append(out, d)
			}
		}
		return file, out
	}
	// claimed holds, per file and kind, the documents a resource is named from.
	claimed := map[string]bool{}
	for _, r := range res.Resources() {
		file, docs := docsOf(r)
		for _, d := range docs {
			if namedAs(d, r.GetName()) {
				claimed[file+"\x00"+d.Kind+"\x00"+d.Name] = true
			}
		}
	}
	return func(r *resource.Resource) []resid.ResId {
		if id, ok := generatedID(r, prefixes, suffixes); ok {
			return []resid.ResId{id}
		}
		file, docs := docsOf(r)
		var own, free []index.Doc
		for _, d := range docs {
			switch {
			case namedAs(d, r.GetName()):
				own = append(own, d)
			case !claimed[file+"\x00"+d.Kind+"\x00"+d.Name]:
				free = append(free, d)
			}
		}
		if len(own) == 0 {
			own = free
		}
		cur := r.CurId()
		var out []resid.ResId
		for _, d := range own {
			for _, ns := range []string{cur.Namespace, d.Namespace} {
				for i := range prefixes {
					out = append(out, resid.NewResIdWithNamespace(cur.Gvk, prefixes[i]+d.Name+suffixes[i], ns))
				}
			}
		}
		return out
	}
}

// generatedID is the id a generated resource (a secretGenerator or configMapGenerator
// entry: its origin names the kustomization it is configured in) had when the build's
// replacements ran: its name without the content hash suffix kustomize appends last
// ("-" and 10 characters), and without the build's name prefix and suffix.
func generatedID(r *resource.Resource, prefixes, suffixes []string) (resid.ResId, bool) {
	o, err := r.GetOrigin()
	if err != nil || o == nil || o.ConfiguredIn == "" {
		return resid.ResId{}, false
	}
	name := r.GetName()
	i := strings.LastIndex(name, "-")
	if i <= 0 || len(name)-i-1 != 10 {
		return resid.ResId{}, false
	}
	name = name[:i]
	for j := range prefixes {
		if p, x := prefixes[j], suffixes[j]; p+x != "" && strings.HasPrefix(name, p) && strings.HasSuffix(name[len(p):], x) {
			name = strings.TrimSuffix(name[len(p):], x)
			break
		}
	}
	return resid.NewResIdWithNamespace(r.CurId().Gvk, name, r.GetNamespace()), true
}

func kustomizationFile(snap *graph.Snapshot, dir string) string {
	for _, n := range konfig.RecognizedKustomizationFileNames() {
		if snap.State(snap.Rel(filepath.Join(dir, n))) == "file" {
			return filepath.Join(dir, n)
		}
	}
	return ""
}

// objectsFrom converts a build output into Objects, locating each in its source file.
func objectsFrom(ctx context.Context, ix *index.Index, abs, srcRoot string, ks *graph.Kustomization, res resmap.ResMap, sub *kustomize.Substitution) ([]*graph.Object, *graph.BuildError) {
	root := filepath.Join(abs, filepath.FromSlash(srcRoot))
	dir, _ := securejoin.SecureJoin(root, ks.Spec.Path)
	relDir, _ := filepath.Rel(abs, dir)
	keep := keepsOrigins(ks.Body)
	specSecrets := kustomize.SpecSecrets(ks)
	components, _, _ := unstructured.NestedStringSlice(ks.Body.Object, "spec", "components")
	copies := kustomize.ReplacementCopies(ix.Snapshot(), filepath.ToSlash(relDir), components, res, earlierIDs(ix, dir, relDir, ks, res))
	var out []*graph.Object
	for _, r := range res.Resources() {
		file, generated := relDir, false
		if o, err := r.GetOrigin(); err == nil && o != nil {
			switch {
			case o.Path != "" && o.Repo == "":
				file = filepath.Join(relDir, o.Path)
			case o.ConfiguredIn != "":
				file, generated = filepath.Join(relDir, o.ConfiguredIn), true
			}
		}
		file = filepath.ToSlash(filepath.Clean(file))
		if !keep {
			ann := r.GetAnnotations()
			delete(ann, originAnnotation)
			if err := r.SetAnnotations(ann); err != nil {
				return nil, &graph.BuildError{Message: err.Error(), File: file, Line: 1}
			}
		}
		origKind, origName := r.GetKind(), r.GetName()
		if r.GetApiVersion() == "" || origKind == "" || origName == "" {
			return nil, &graph.BuildError{Message: "failed to decode Kubernetes apiVersion, kind and name", File: file, Line: ix.Locate(file, origKind, origName)}
		}
		obj := &graph.Object{Owner: ks.Ref, File: file, Line: ix.Locate(file, origKind, origName)}
		if l := ix.GeneratorLine(file, origKind, origName); generated && l > 0 {
			obj.Line = l // the generator entry, not line 1 of the kustomization file
		}
		// Through JSON, so numbers are int64/float64 as in every Kubernetes object (kyaml's
		// Map gives Go ints, which unstructured cannot copy).
		data, err := kustomize.NodeJSON(&r.RNode)
		if err != nil {
			// kyaml decodes the object alone, so its "line N" counts from the document: the
			// file's own parse gives the line in the file (a mapping key defined twice).
			line := obj.Line
			if l := yamlErrorLine(ix.Snapshot(), file); l > 0 {
				line = l
			}
			return nil, summarize(&graph.BuildError{Message: secretNodeError(origKind, err.Error()), File: file, Line: line})
		}
		if sub != nil {
			changed, be := sub.Apply(ctx, r, obj, data)
			if be != nil {
				return nil, be
			}
			if changed {
				data, err = kustomize.NodeJSON(&r.RNode)
			}
		} else {
			obj.Literal = kustomize.LiteralVars(r, data)
		}
		if err == nil {
			obj.Body = &unstructured.Unstructured{}
			err = obj.Body.UnmarshalJSON(data)
		}
		if err != nil {
			return nil, &graph.BuildError{Message: err.Error(), File: file, Line: obj.Line}
		}
		obj.ID = graph.IDOf(obj.Body)
		obj.NamedAsTarget = namedAsTarget(ix, ks, obj, r, sub)
		kustomize.MarkSpecSecrets(obj, specSecrets)
		copies.Mark(obj, r)
		out = append(out, obj)
	}
	if !copies.Complete {
		kustomize.MarkBuildSecrets(out) // the equality heuristic, where the copies are not known
	}
	return out, nil
}
