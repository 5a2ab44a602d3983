package discover

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/konfig"

	"github.com/tiergate/tiergate/internal/config"
	"github.com/tiergate/tiergate/internal/render/fluxinstance"
	"github.com/tiergate/tiergate/internal/render/fluxschema"
	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/index"
	"github.com/tiergate/tiergate/internal/render/kustomize"
	"github.com/tiergate/tiergate/internal/render/values"
)

// Root is a discovered cluster root before rendering.
type Root struct {
	// Name is the cluster's name (Cluster.Name).
	Name string
	// KS is the root Kustomization.
	KS *graph.Kustomization
	// Synthetic roots are made from a FluxInstance, a flux-instance HelmRelease or
	// .tiergate.yaml rather than read from a Kustomization manifest.
	Synthetic bool
	// By says how the root was found.
	By graph.Discovery
	// Orig is the root's Ref before Rekeyed moved it aside; zero when it was not.
	Orig graph.Ref
	// Unresolved says why a flux-instance HelmRelease's sync is unknown (its valuesFrom
	// is not in the repository); the root is then found but not reviewed.
	Unresolved string
}

// Rekeyed is r with its Kustomization under another Ref, so that the real Kustomization
// of its Ref, which a build emits, is built and reviewed in its own right
// (Kustomizations are keyed by Ref). The cluster's identity keeps the original Ref.
func (r Root) Rekeyed() Root {
	ks := *r.KS
	r.Orig = ks.Ref
	origin := "FluxInstance"
	switch {
	case r.By == graph.DiscoveryConfig:
		origin = config.FileName
	case r.By == graph.DiscoveryFolders:
		origin = "folder stand-in"
	}
	ks.Ref.Name += " (" + origin + ")"
	r.KS = &ks
	return r
}

// Ref is the root's Ref as Flux knows it.
func (r Root) Ref() graph.Ref {
	if r.Orig != (graph.Ref{}) {
		return r.Orig
	}
	return r.KS.Ref
}

// ID is the cluster's identity across commits (Cluster.ID): what Flux itself knows the
// root by, its Kustomization and source, never its folder. Configured clusters are their
// configured name; uncovered folders (no Flux object roots them) are their folder.
func (r Root) ID() string {
	switch r.By {
	case graph.DiscoveryConfig:
		return "config:" + r.Name
	case graph.DiscoveryFolders:
		return "folder:" + fsys.CleanPath(r.KS.Spec.Path)
	}
	return r.Ref().String() + "@" + r.KS.Spec.SourceRef.String()
}

// sourceFolders maps each GitRepository, OCIRepository and Bucket of the tree to the
// folders of its manifests.
func sourceFolders(ix *index.Index, files []string) map[graph.SourceRef]map[string]bool {
	out := map[graph.SourceRef]map[string]bool{}
	for _, rel := range files {
		// Such a document spells its kind and its API group (Index.Mentions); a HelmRelease
		// naming its chart's OCIRepository spells only the kind, and is not parsed here.
		if !ix.Mentions(rel, bootstrapSources...) || !ix.Mentions(rel, sourceGroup) {
			continue
		}
		for _, d := range ix.Docs(rel) {
			if !slices.Contains(bootstrapSources, d.Kind) || !strings.HasPrefix(d.APIVersion, sourceGroup+"/") {
				continue
			}
			ref := graph.SourceRef{Kind: d.Kind, Namespace: cmp.Or(d.Namespace, "flux-system"), Name: d.Name}
			if out[ref] == nil {
				out[ref] = map[string]bool{}
			}
			out[ref][path.Dir(rel)] = true
		}
	}
	return out
}

// bootstrapSources are the kinds a root's own source may have: flux bootstrap writes a
// GitRepository; a root exported from `flux create source oci|bucket flux-system` and
// `flux create kustomization flux-system --source=OCIRepository/flux-system` (fluxcd.io
// flux_create_source_oci, flux_create_kustomization) has an OCIRepository or Bucket. Such a
// root is found, and not reviewed until `sources:` maps its artifact to a folder.
var bootstrapSources = []string{"GitRepository", "OCIRepository", "Bucket"}

// sourceGroup is the API group of source-controller's kinds.
const sourceGroup = "source.toolkit.fluxcd.io"

// FolderBuild returns the objects a Kustomization whose path is the repo-relative dir
// would build (generator, kustomize, no substitution); nil when the build fails.
type FolderBuild func(dir string) []*graph.Object

// Discover finds the cluster roots of the tree at abs (DESIGN.md "Rendering" 1): the
// configured clusters, else the bootstrap pattern (a Kustomization whose path holds its own
// file) and flux-operator FluxInstances (or flux-instance HelmReleases), read from the
// build of their folder; only when none exists, the folders holding Kustomizations that no
// other Kustomization's path covers, each applied by a root as flux-operator's sync.path
// would be.
func Discover(ix *index.Index, cfg *config.Config, build FolderBuild) ([]Root, graph.Discovery) {
	if cfg != nil && len(cfg.Clusters) > 0 {
		var out []Root
		for _, c := range cfg.Clusters {
			src := graph.SourceRef{Kind: "GitRepository", Namespace: "flux-system", Name: "flux-system"}
			if c.SourceRef != "" {
				p := strings.SplitN(c.SourceRef, "/", 3)
				src = graph.SourceRef{Kind: p[0], Namespace: p[1], Name: p[2]}
			}
			// The configuration is the head's: a cluster it adds has no folder at the base yet.
			dir, _ := cfg.SourceDir(src.String())
			if p := fsys.CleanPath(path.Join(dir, c.Path)); ix.Snapshot().State(cmp.Or(p, ".")) != "dir" {
				continue
			}
			out = append(out, Root{Name: c.Name, KS: SyntheticRoot("flux-system", "flux-system", c.Path, src, config.FileName, 1), Synthetic: true, By: graph.DiscoveryConfig})
		}
		return out, graph.DiscoveryConfig
	}
	var boot []Root
	var all candidates
	files := ix.YAMLFiles()
	sources := sourceFolders(ix, files)
	for _, rel := range files {
		if !ix.Mentions(rel, "Kustomization") {
			continue
		}
		for _, d := range ix.Docs(rel) {
			if path.Base(rel) != "gotk-sync.yaml" && notBoot(d, rel) {
				all = append(all, candidate{doc: d, file: rel}) // converted only if needed
				continue
			}
			r, isBoot, ok := rootOf(d, rel)
			if !ok {
				continue
			}
			all = append(all, candidate{root: &r})
			// flux bootstrap writes the root's source next to it (gotk-sync.yaml). A
			// bootstrap root whose path no longer covers its own folder is still the root of
			// its cluster (the object lives in the cluster), now applying another folder.
			if (isBoot || bootstrapFile(r, rel)) && sources[r.KS.Spec.SourceRef][path.Dir(rel)] {
				boot = append(boot, r)
			}
		}
	}
	var unresolved []Root
	for _, r := range operatorRoots(ix, files, build) {
		if r.Unresolved != "" {
			unresolved = append(unresolved, r)
		} else {
			boot = append(boot, r)
		}
	}
	// A flux-instance root whose sync is unknown is still a root: what it reconciles is not
	// reviewed, rather than every uncovered folder (an .archive/) reviewed in its place.
	if len(boot) == 0 && len(unresolved) > 0 {
		return dedupe(unresolved), graph.DiscoveryRoots
	}
	if len(boot) == 0 {
		return uncovered(all.roots()), graph.DiscoveryFolders
	}
	return dedupe(boot), graph.DiscoveryRoots
}

// candidate is a Flux Kustomization document that may be a root: read (root), or, when
// notBoot found it no bootstrap root, its document, read by rootOf only if the folders are
// discovered (most Kustomizations of a tree are not roots, and converting a document to an
// object is most of reading it).
type candidate struct {
	root *Root
	doc  index.Doc
	file string
}

// candidates are the candidates in the order of the files and documents.
type candidates []candidate

// roots returns what rootOf gives each candidate, in order, leaving out what it refuses.
func (cs candidates) roots() []Root {
	var out []Root
	for _, c := range cs {
		if c.root != nil {
			out = append(out, *c.root)
		} else if r, _, ok := rootOf(c.doc, c.file); ok {
			out = append(out, r)
		}
	}
	return out
}

// notBoot reports whether rootOf surely finds d (in file) no bootstrap root, from its node:
// its one spec.path is a string whose clean form is neither "" nor file's folder nor a
// parent of it. False when unsure: no node, a merge key, an alias, a repeated key, or a plain
// scalar that YAML 1.1 (sigs.k8s.io/yaml's YAMLToJSON, which rootOf's conversion runs) might
// read as another type; a plain scalar holding "/" is a string in YAML 1.1 and 1.2 alike
// (no null, bool, number or timestamp has one).
func notBoot(d index.Doc, file string) bool {
	p := onlyValue(onlyValue(d.Node, "spec"), "path")
	if p == nil || p.Kind != yaml.ScalarNode || p.Tag != "!!str" || p.Style == 0 && !strings.Contains(p.Value, "/") {
		return false
	}
	cp, dir := fsys.CleanPath(p.Value), path.Dir(file)
	return cp != "" && dir != cp && !strings.HasPrefix(dir, cp+"/")
}

// onlyValue is the value of key k of mapping m when m has it once, as a plain node (no
// alias); nil when m is not a mapping, lacks k, has it more than once, or has a merge key
// or a key that is not a scalar.
func onlyValue(m *yaml.Node, k string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	var v *yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		key := m.Content[i]
		switch {
		case key.Kind != yaml.ScalarNode || key.Value == "<<" || key.Tag == "!!merge":
			return nil
		case key.Value == k && v != nil:
			return nil
		case key.Value == k:
			v = m.Content[i+1]
		}
	}
	if v != nil && v.Kind == yaml.AliasNode {
		return nil
	}
	return v
}

// bootstrapFile reports whether r is the root flux bootstrap writes: Kustomization
// flux-system/flux-system in a gotk-sync.yaml (flux CLI pkg/manifestgen/sync), whatever
// its path.
func bootstrapFile(r Root, rel string) bool {
	return path.Base(rel) == "gotk-sync.yaml" && r.KS.Ref == graph.Ref{Namespace: "flux-system", Name: "flux-system"}
}

// uncovered returns one synthetic root per folder holding Kustomizations whose file lies
// under no other Kustomization's path (nothing else can emit them).
func uncovered(all []Root) []Root {
	var out []Root
	seen := map[string]bool{}
	for _, r := range all {
		covered := false
		for _, o := range all {
			p := fsys.CleanPath(o.KS.Spec.Path)
			if o.KS != r.KS && p != "" && strings.HasPrefix(r.KS.File, p+"/") {
				covered = true
				break
			}
		}
		dir := path.Dir(r.KS.File)
		if covered || seen[dir] {
			continue
		}
		seen[dir] = true
		src := graph.SourceRef{Kind: "GitRepository", Namespace: "flux-system", Name: "flux-system"}
		out = append(out, Root{Name: lastElem(fsys.CleanPath(dir), "default"), KS: SyntheticRoot("flux-system", "flux-system", dir, src, r.KS.File, 1), Synthetic: true, By: graph.DiscoveryFolders})
	}
	return dedupe(out)
}

// rootOf reads a Flux Kustomization document as a possible root: a bootstrap root when its
// path is its own folder or a parent of it.
func rootOf(d index.Doc, file string) (Root, bool, bool) {
	group := strings.SplitN(d.APIVersion, "/", 2)[0]
	if group != kustomize.FluxGroup || d.Kind != "Kustomization" || !fluxschema.Accepted(d.APIVersion, d.Kind) {
		return Root{}, false, false // an unserved version is no Kustomization (missing-crd reports it)
	}
	u, err := d.Object()
	if err != nil || u.GetName() == "" {
		return Root{}, false, false
	}
	if u.GetNamespace() == "" {
		u.SetNamespace("flux-system")
	}
	ks, err := kustomize.NewKustomization(u, file, d.Line, nil)
	if err != nil {
		return Root{}, false, false
	}
	p := fsys.CleanPath(ks.Spec.Path)
	dir := path.Dir(file)
	// An empty path ("", ".", "./") is the source's root, a parent of every folder.
	boot := p == "" || dir == p || strings.HasPrefix(dir, p+"/")
	name := lastElem(p, "")
	if name == "" { // the repository root: name it after the cluster folder of the bootstrap file
		name = clusterFolder(file, ks.Ref.Name)
	}
	return Root{Name: name, KS: ks, By: graph.DiscoveryRoots}, boot, true
}

// operatorRoots finds the roots flux-operator creates: FluxInstances and flux-instance
// HelmReleases (also among a ResourceSet's resources), read from the build of the folder
// holding them, as the Kustomization applying that folder renders them (patches applied,
// generated ConfigMaps named). A folder that does not build is read file by file.
func operatorRoots(ix *index.Index, files []string, build FolderBuild) []Root {
	var dirs []string
	byDir := map[string][]string{}
	for _, rel := range files {
		if !operatorCandidate(ix, rel) {
			continue
		}
		dir := path.Dir(rel)
		if byDir[dir] == nil {
			dirs = append(dirs, dir)
		}
		byDir[dir] = append(byDir[dir], rel)
	}
	var out []Root
	for _, dir := range dirs {
		var objs []*graph.Object
		if build != nil {
			objs = build(dir)
		}
		if objs == nil {
			objs = rawObjects(ix, byDir[dir])
		}
		for _, o := range objs {
			out = append(out, operatorRootsOf(o.Body, o.File, o.Line, objs)...)
		}
	}
	return out
}

// operatorCandidate reports whether the build of rel's folder may give operatorRootsOf a
// root, decided from text so that only such folders are built (a build is the cost of
// discovery): a fluxcd.controlplane.io document (FluxInstance, ResourceSet) in a file that
// spells FluxInstance or flux-instance, or a HelmRelease that operatorRootsOf may take for
// the flux-instance chart's, which needs "flux-instance" in its file's path, its file's text
// (name, chart, chartRef) or its folder's kustomization file (a patch or namePrefix there).
func operatorCandidate(ix *index.Index, rel string) bool {
	spelled := ix.Spells(rel, "flux-instance")
	instance := spelled || ix.Spells(rel, "FluxInstance")
	if !instance && !ix.Spells(rel, "HelmRelease") {
		return false
	}
	named := spelled || strings.Contains(rel, "flux-instance")
	for _, n := range konfig.RecognizedKustomizationFileNames() {
		named = named || ix.Spells(path.Join(path.Dir(rel), n), "flux-instance")
	}
	if !instance && !named {
		return false // neither case below can hold: the file need not be parsed
	}
	for _, d := range ix.Docs(rel) {
		switch strings.SplitN(d.APIVersion, "/", 2)[0] {
		case "fluxcd.controlplane.io":
			if instance {
				return true
			}
		case "helm.toolkit.fluxcd.io":
			if d.Kind == "HelmRelease" && named {
				return true
			}
		}
	}
	return false
}

// rawObjects reads the documents of files as objects, unbuilt.
func rawObjects(ix *index.Index, files []string) []*graph.Object {
	var out []*graph.Object
	for _, rel := range files {
		for _, d := range ix.Docs(rel) {
			if u, err := d.Object(); err == nil {
				out = append(out, &graph.Object{ID: graph.IDOf(u), File: rel, Line: d.Line, Body: u})
			}
		}
	}
	return out
}

// operatorRootsOf reads u as a FluxInstance, a flux-instance HelmRelease, or a ResourceSet
// whose untemplated resources are those; objs resolve a HelmRelease's valuesFrom.
func operatorRootsOf(u *unstructured.Unstructured, file string, line int, objs []*graph.Object) []Root {
	group := strings.SplitN(u.GetAPIVersion(), "/", 2)[0]
	if !fluxschema.Accepted(u.GetAPIVersion(), u.GetKind()) {
		return nil // an unserved version is not the kind it names (missing-crd reports it)
	}
	switch {
	case group == "fluxcd.controlplane.io" && u.GetKind() == "FluxInstance":
		sync, _, _ := unstructured.NestedMap(u.Object, "spec", "sync")
		if r, ok := operatorRoot(u.GetNamespace(), sync, u.GetName(), file, line); ok {
			return []Root{r}
		}
	case group == "helm.toolkit.fluxcd.io" && u.GetKind() == "HelmRelease":
		if !fluxinstance.IsChartRelease(u, file) {
			return nil
		}
		// The chart's FluxInstance, as its template renders it from the resolved values:
		// no sync unless instance.sync.url is set.
		fi := fluxinstance.FromHelmRelease(u, objs)
		ns := fi.GetNamespace()
		sync, _, _ := unstructured.NestedMap(fi.Object, "spec", "sync")
		if r, ok := operatorRoot(ns, sync, "", file, line); ok {
			return []Root{r}
		}
		if missing := fluxinstance.MissingValues(u, objs); len(missing) > 0 {
			src := graph.SourceRef{Kind: "GitRepository", Namespace: cmp.Or(ns, "flux-system"), Name: cmp.Or(ns, "flux-system")}
			return []Root{{Name: src.Name, KS: SyntheticRoot(src.Namespace, src.Name, "", src, file, line), Synthetic: true, By: graph.DiscoveryRoots,
				Unresolved: fmt.Sprintf("HelmRelease %s/%s (%s:%d) takes its instance.sync from %s, which the repository does not hold: "+
					"its root path is unknown; name the cluster in %s clusters to review it", cmp.Or(u.GetNamespace(), "flux-system"), u.GetName(), file, line,
					strings.Join(missing, ", "), config.FileName)}}
		}
	case group == "fluxcd.controlplane.io" && u.GetKind() == "ResourceSet":
		// A templated resource (<< inputs.x >>) is the ResourceSet renderer's to expand.
		res, _, _ := unstructured.NestedSlice(u.Object, "spec", "resources")
		var out []Root
		for _, r := range res {
			m, ok := r.(map[string]any)
			if !ok {
				continue
			}
			inner := &unstructured.Unstructured{Object: m}
			if data, _ := inner.MarshalJSON(); strings.Contains(string(data), "<<") {
				continue
			}
			if inner.GetNamespace() == "" {
				inner.SetNamespace(u.GetNamespace())
			}
			out = append(out, operatorRootsOf(inner, file, line, objs)...)
		}
		return out
	}
	return nil
}

// operatorRoot is the root that flux-operator creates from a FluxInstance's spec.sync: the
// source and Kustomization are named after the namespace (fluxoperator.dev "Flux Cluster
// Sync Configuration") unless sync.name says otherwise. The cluster is named after the
// sync path's last element, else instance.
func operatorRoot(ns string, sync map[string]any, instance, file string, line int) (Root, bool) {
	p := values.String(sync, "path")
	if p == "" {
		return Root{}, false
	}
	if ns == "" {
		ns = "flux-system"
	}
	kind, name := values.String(sync, "kind"), values.String(sync, "name")
	if kind == "" {
		kind = "GitRepository"
	}
	if name == "" {
		name = ns
	}
	if instance == "" {
		instance = name
	}
	src := graph.SourceRef{Kind: kind, Namespace: ns, Name: name}
	return Root{Name: lastElem(fsys.CleanPath(p), instance), KS: SyntheticRoot(ns, name, p, src, file, line), Synthetic: true, By: graph.DiscoveryRoots}, true
}

// SyntheticRoot is the root Kustomization that flux bootstrap or flux-operator creates.
func SyntheticRoot(ns, name, p string, src graph.SourceRef, file string, line int) *graph.Kustomization {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": kustomize.FluxGroup + "/v1",
		"kind":       "Kustomization",
		"metadata":   map[string]any{"name": name, "namespace": ns},
		"spec": map[string]any{
			"path":      p,
			"interval":  "10m",
			"prune":     true,
			"sourceRef": map[string]any{"kind": src.Kind, "name": src.Name, "namespace": src.Namespace},
		},
	}}
	ks, err := kustomize.NewKustomization(u, file, line, nil)
	if err != nil {
		panic(err) // every field is set above
	}
	return ks
}

func lastElem(p, fallback string) string {
	if p == "" {
		return fallback
	}
	return path.Base(p)
}

// dedupe keeps one root per path for the roots defined inside that path (a bootstrap
// gotk-sync.yaml and a FluxInstance in the folder they sync are one cluster managing
// itself), and every root defined outside it as a cluster of its own, named after the
// folder of its file when it shares the path: two Flux installations that apply one folder
// are two clusters (a FluxInstance in clusters/production whose sync.path is
// clusters/staging makes production apply staging's root, and is production still).
// Names that still collide get the full path. Roots come sorted by name.
func dedupe(rs []Root) []Root {
	inside := map[string]bool{}
	files := map[string]bool{}
	count := map[string]int{}
	var out []Root
	for _, r := range rs {
		p := fsys.CleanPath(r.KS.Spec.Path)
		in := definedIn(r, p)
		if (in && inside[p]) || files[p+"\x00"+r.KS.File] {
			continue
		}
		inside[p] = inside[p] || in
		files[p+"\x00"+r.KS.File] = true
		count[p]++
		out = append(out, r)
	}
	names := map[string]int{}
	for i, r := range out {
		if p := fsys.CleanPath(r.KS.Spec.Path); count[p] > 1 && !definedIn(r, p) {
			out[i].Name = clusterFolder(r.KS.File, r.Name)
		}
		names[out[i].Name]++
	}
	for i := range out {
		if names[out[i].Name] > 1 {
			out[i].Name = strings.ReplaceAll(fsys.CleanPath(out[i].KS.Spec.Path), "/", "-")
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// definedIn reports whether r's own manifest lies in the folder p its root applies (the
// repository root holds every file).
func definedIn(r Root, p string) bool {
	return p == "" || strings.HasPrefix(r.KS.File, p+"/")
}

// clusterFolder names a cluster after the folder of the file defining its root, a
// trailing flux-system left out (clusters/production/flux-system/flux-instance.yaml:
// production); fallback for a file at the top.
func clusterFolder(file, fallback string) string {
	d := path.Dir(file)
	if path.Base(d) == "flux-system" {
		d = path.Dir(d)
	}
	return lastElem(fsys.CleanPath(d), fallback)
}

// OperatorRootsIn returns the roots flux-operator would create from objs, the output of
// one build (FluxInstances, flux-instance HelmReleases, ResourceSets holding them), as
// operatorRoots reads a folder's build.
func OperatorRootsIn(objs []*graph.Object) []Root {
	var out []Root
	for _, o := range objs {
		if o.Body != nil {
			out = append(out, operatorRootsOf(o.Body, o.File, o.Line, objs)...)
		}
	}
	return out
}
