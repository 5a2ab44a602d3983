// Package artifact reproduces Flux 2.7's ArtifactGenerator (fluxcd/source-watcher): it
// copies files of Flux sources into ExternalArtifacts, which Kustomizations use as their
// sourceRef. tiergate stages such an artifact from the generator as the cluster's graph
// holds it, over the sources it names, as a snapshot of its own (Staged), and maps what a
// build there reports back to the repository files (View). render builds in it.
package artifact

import (
	"encoding/json"
	"maps"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/tiergate/tiergate/internal/render/fluxschema"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/index"
)

// The ArtifactGenerator's API group and kind, and the kind of the artifacts it makes.
const (
	Group        = "source.extensions.fluxcd.io"
	Kind         = "ArtifactGenerator"
	ExternalKind = "ExternalArtifact"
)

// Spec is the part of ArtifactGeneratorSpec the build reads (source-watcher
// api/v1beta1/artifactgenerator_types.go).
type Spec struct {
	Sources []struct {
		Alias     string `json:"alias"`
		Kind      string `json:"kind"`
		Name      string `json:"name"`
		Namespace string `json:"namespace,omitempty"`
	} `json:"sources"`
	PathPattern string `json:"pathPattern,omitempty"`
	Artifacts   []struct {
		Name string   `json:"name"`
		Copy []CopyOp `json:"copy"`
	} `json:"artifacts"`
}

// Generator is an ArtifactGenerator of the cluster's graph and one artifact it produces.
type Generator struct {
	Obj      *graph.Object
	Spec     Spec
	Artifact int    // index in Spec.Artifacts
	Key      string // the generator as applied and the artifact: equal keys build equally
}

// Generators maps each ExternalArtifact (kind/namespace/name) to the generator producing
// it; the first one applied wins.
type Generators map[graph.SourceRef]*Generator

// Add records o when it is an ArtifactGenerator. Its ExternalArtifacts are named after its
// artifacts, in its namespace (source-watcher reconcileExternalArtifact).
func (g Generators) Add(o *graph.Object) {
	if o.ID.Group != Group || o.ID.Kind != Kind || o.Body == nil || !fluxschema.Accepted(o.Body.GetAPIVersion(), Kind) {
		return // an unserved version generates nothing (missing-crd reports it)
	}
	raw, _ := json.Marshal(o.Body.Object["spec"])
	var spec Spec
	if json.Unmarshal(raw, &spec) != nil {
		return // the API server rejects it: no artifact
	}
	for i, a := range spec.Artifacts {
		ref := graph.SourceRef{Kind: ExternalKind, Namespace: o.ID.Namespace, Name: a.Name}
		if _, ok := g[ref]; !ok {
			g[ref] = &Generator{Obj: o, Spec: spec, Artifact: i, Key: ref.String() + "\x00" + o.Owner.String() + "\x00" + string(raw)}
		}
	}
}

// Patterned returns the first generator in ns, by name, whose artifacts a pathPattern
// names (their names hold placeholders): it may make any artifact of ns.
func (g Generators) Patterned(ns string) *Generator {
	var out *Generator
	for ref, v := range g {
		if ref.Namespace == ns && v.Spec.PathPattern != "" && (out == nil || v.Obj.ID.Name < out.Obj.ID.Name) {
			out = v
		}
	}
	return out
}

// Clone returns a copy of g (the generators themselves shared: never modified).
func (g Generators) Clone() Generators { return maps.Clone(g) }

// Signature names the generators and their specs, to tell whether a round found others.
func (g Generators) Signature() string {
	keys := make([]string, 0, len(g))
	for _, v := range g {
		keys = append(keys, v.Key)
	}
	sort.Strings(keys)
	return strings.Join(keys, "\x00\x00")
}

// View maps the files of one generated artifact back to the repository files they were
// copied from.
type View struct {
	Snap   *graph.Snapshot   // the artifact, rendered at Snap.Root
	Origin map[string]string // artifact file → the repository file it was copied from
	// Merged are the artifact files a Merge wrote (their lines are no file's), each with
	// the repository files merged into its Origin, in order.
	Merged map[string][]string
}

// Reads maps reads, the artifact paths a build read (graph.Kustomization.Reads), to the
// repository files the artifact's files among them were copied or merged from: a file
// read, or every file below a folder read whole. Nil for nil. An artifact path no file
// holds is left out, as a folder is: a file the change adds there is in the other
// commit's artifact, and read through it.
func (v *View) Reads(reads map[string]bool) map[string]bool {
	if reads == nil {
		return nil
	}
	out := map[string]bool{}
	add := func(f string) {
		if o, ok := v.Origin[f]; ok {
			out[o] = true
			for _, m := range v.Merged[f] {
				out[m] = true
			}
		}
	}
	for p := range reads {
		dir, whole := strings.CutSuffix(p, "/")
		if !whole {
			add(p)
			continue
		}
		for f := range v.Origin {
			if dir == "." || strings.HasPrefix(f, dir+"/") {
				add(f)
			}
		}
	}
	return out
}

// Remap points the objects, the error and the reads of ks, built in the artifact, at the
// repository files they were copied from. An object of a merged file is placed in the file copied
// first (ix is the repository's index), where its kind and name are.
func (v *View) Remap(ks *graph.Kustomization, gen *Generator, ix *index.Index) {
	objs := make([]*graph.Object, len(ks.Objects))
	for i, o := range ks.Objects {
		c := *o
		c.File = v.real(o.File, gen)
		if _, merged := v.Merged[o.File]; merged {
			c.Line = max(ix.Locate(c.File, o.ID.Kind, o.ID.Name), 1)
		}
		objs[i] = &c
	}
	if ks.Objects != nil {
		ks.Objects = objs
	}
	ks.Reads = v.Reads(ks.Reads)
	if ks.Err != nil && ks.Err.File != ks.File {
		e := *ks.Err
		e.File = v.real(e.File, gen)
		e.Message = v.realPaths(strings.ReplaceAll(e.Message, v.Snap.Root+"/", ""), gen)
		if e.Details != "" {
			e.Details = v.realPaths(strings.ReplaceAll(e.Details, v.Snap.Root+"/", ""), gen)
		}
		ks.Err = &e
	}
}

// pathToken is a slash-separated relative path as kustomize's messages name one.
var pathToken = regexp.MustCompile(`[\w.\-]+(/[\w.\-]+)+`)

// realPaths rewrites the artifact paths msg names (those in the artifact) to repository ones.
func (v *View) realPaths(msg string, gen *Generator) string {
	return pathToken.ReplaceAllStringFunc(msg, func(p string) string {
		// An absent path (a missing file) is named through its nearest folder.
		for d, rest := p, ""; d != "."; d, rest = path.Dir(d), path.Join(path.Base(d), rest) {
			if st := v.Snap.State(d); st == "file" || st == "dir" {
				return path.Join(v.real(d, gen), rest)
			}
		}
		return p
	})
}

// real is the repository path of the artifact path p: the file it was copied from, or for
// a folder the repository folder its files came from; the generator's file otherwise.
func (v *View) real(p string, gen *Generator) string {
	if o, ok := v.Origin[p]; ok {
		return o
	}
	for _, f := range slices.Sorted(maps.Keys(v.Origin)) {
		o := v.Origin[f]
		if rest, ok := strings.CutPrefix(f, p+"/"); ok && strings.HasSuffix(o, "/"+rest) {
			return strings.TrimSuffix(o, "/"+rest)
		}
		if p == "" || p == "." {
			if strings.HasSuffix(o, "/"+f) {
				return strings.TrimSuffix(o, "/"+f)
			}
		}
	}
	return gen.Obj.File
}

// Generates reports whether an ArtifactGenerator of c produces the ExternalArtifact s.
func Generates(c *graph.Cluster, s graph.SourceRef) bool { return len(Owners(c, s)) > 0 }

// Owners returns the Kustomizations of c that apply an ArtifactGenerator producing
// the ExternalArtifact s (kind, namespace, name), or may (a pathPattern), sorted: the artifact exists only once one
// of them has applied it (source-watcher reconcileExternalArtifact creates it).
func Owners(c *graph.Cluster, s graph.SourceRef) []graph.Ref {
	var out []graph.Ref
	for id, objs := range c.Owners {
		if id.Group != Group || id.Kind != Kind || id.Namespace != s.Namespace {
			continue
		}
		for _, o := range objs {
			g := Generators{}
			g.Add(o)
			if g[s] != nil || g.Patterned(s.Namespace) != nil {
				out = append(out, o.Owner)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}
