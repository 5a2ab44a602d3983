package helm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"strings"
	"sync"

	"github.com/fluxcd/pkg/apis/kustomize"
	"helm.sh/helm/v4/pkg/postrenderer"

	"sigs.k8s.io/kustomize/api/builtins"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/provider"
	"sigs.k8s.io/kustomize/api/resmap"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/kio"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/tiergate/tiergate/internal/render/schemalock"
)

// Origin labels helm-controller puts on every object of a release, CRDs included
// (internal/postrender/common_renderer.go originLabels, internal/action/crds.go
// setOriginVisitor).
const (
	labelName      = "helm.toolkit.fluxcd.io/name"
	labelNamespace = "helm.toolkit.fluxcd.io/namespace"
)

// postRenderers is internal/postrender/build.go BuildPostRenderers: one kustomize pass per
// spec.postRenderers entry, then commonMetadata, then the origin labels, so that an origin
// label wins over a common label of the same key. It is never empty, and every pass is a
// kustomize ResMap round trip, which rejects duplicate object ids as the controller does.
// Targeted patches that select nothing are recorded in rec.
func postRenderers(s hrSpec, namespace, name string, rec *patchMatches) postrenderer.PostRenderer {
	var chain chained
	for i, r := range s.PostRenderers {
		if r.Kustomize != nil {
			chain = append(chain, kustomizePass{patches: r.Kustomize.Patches, images: r.Kustomize.Images, renderer: i, rec: rec}.run)
		}
	}
	if cm := s.CommonMetadata; cm != nil && (cm.Labels != nil || cm.Annotations != nil) {
		var ts []resmap.Transformer
		if cm.Labels != nil {
			ts = append(ts, labelTransformer(cm.Labels))
		}
		if cm.Annotations != nil {
			ts = append(ts, &builtins.AnnotationsTransformerPlugin{Annotations: cm.Annotations,
				FieldSpecs: []kustypes.FieldSpec{{Path: "metadata/annotations", CreateIfNotPresent: true}}})
		}
		chain = append(chain, func(b *bytes.Buffer) (*bytes.Buffer, error) { return transform(b, ts...) })
	}
	origin := labelTransformer(map[string]string{labelName: name, labelNamespace: namespace})
	chain = append(chain, func(b *bytes.Buffer) (*bytes.Buffer, error) { return transform(b, origin) })
	return chain
}

// chained runs its passes in order (internal/postrender/combined.go Combined).
type chained []func(*bytes.Buffer) (*bytes.Buffer, error)

func (c chained) Run(in *bytes.Buffer) (*bytes.Buffer, error) {
	files, err := templateFiles(in.Bytes())
	if err != nil {
		return nil, err
	}
	for _, pass := range c {
		if in, err = pass(in); err != nil {
			return nil, err
		}
	}
	return keepTemplateFiles(in, files)
}

// filenameAnnotation is the annotation Helm's annotateAndMerge puts on each object of the
// stream it post-renders so that splitAndDeannotate can give it back its template file
// (helm.sh/helm/v4 pkg/action/action.go); Helm removes it afterwards.
const filenameAnnotation = "postrenderer.helm.sh/postrender-filename"

// templateFiles maps each object of the stream (kind/namespace/name) to its template file,
// as annotateAndMerge annotated it.
func templateFiles(stream []byte) (map[string]string, error) {
	nodes, err := kio.FromBytes(stream)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, n := range nodes {
		if f := n.GetAnnotations()[filenameAnnotation]; f != "" {
			out[objectKey(n)] = f
		}
	}
	return out, nil
}

// keepTemplateFiles puts the filename annotation back on the objects a patch stripped it
// from (a patch replacing metadata.annotations), so that they keep their template path
// instead of Helm's "generated-by-postrender-N.yaml". Only the annotation Helm removes
// afterwards changes: the objects the cluster gets are the same.
func keepTemplateFiles(out *bytes.Buffer, files map[string]string) (*bytes.Buffer, error) {
	nodes, err := kio.FromBytes(out.Bytes())
	if err != nil {
		return nil, err
	}
	changed := false
	for _, n := range nodes {
		f, ok := files[objectKey(n)]
		if !ok || n.GetAnnotations()[filenameAnnotation] != "" {
			continue
		}
		if err := n.PipeE(kyaml.SetAnnotation(filenameAnnotation, f)); err != nil {
			return nil, err
		}
		changed = true
	}
	if !changed {
		return out, nil
	}
	s, err := kio.StringAll(nodes)
	if err != nil {
		return nil, err
	}
	return bytes.NewBufferString(s), nil
}

// objectKey is an object's kind, namespace and name: what a patch leaves alone.
func objectKey(n *kyaml.RNode) string {
	return n.GetKind() + "/" + n.GetNamespace() + "/" + n.GetName()
}

// transform is internal/postrender/transformer.go transform: the stream through a ResMap.
func transform(in *bytes.Buffer, ts ...resmap.Transformer) (*bytes.Buffer, error) {
	f := resmap.NewFactory(provider.NewDefaultDepProvider().GetResourceFactory())
	m, err := f.NewResMapFromBytes(in.Bytes())
	if err != nil {
		return nil, err
	}
	for _, t := range ts {
		if err := t.Transform(m); err != nil {
			return nil, err
		}
	}
	out, err := m.AsYaml()
	if err != nil {
		return nil, err
	}
	return bytes.NewBuffer(out), nil
}

func labelTransformer(labels map[string]string) resmap.Transformer {
	return &builtins.LabelTransformerPlugin{Labels: maps.Clone(labels),
		FieldSpecs: []kustypes.FieldSpec{{Path: "metadata/labels", CreateIfNotPresent: true}}}
}

// kustomizePass is internal/postrender/kustomize.go Kustomize: the stream as the one
// resource of an in-memory kustomization with the entry's patches and images.
type kustomizePass struct {
	patches  []kustomize.Patch
	images   []kustomize.Image
	renderer int           // index in spec.postRenderers
	rec      *patchMatches // nil: not recorded
}

// kustomizeMu serialises krusty runs, as the controller does (kustomizeRenderMutex; a
// concurrent map access in kustomize, kubernetes-sigs/kustomize#3659).
var kustomizeMu sync.Mutex

func (k kustomizePass) run(in *bytes.Buffer) (*bytes.Buffer, error) {
	fs := filesys.MakeFsInMemory()
	cfg := kustypes.Kustomization{TypeMeta: kustypes.TypeMeta{APIVersion: kustypes.KustomizationVersion, Kind: kustypes.KustomizationKind}}
	const input = "helm-output.yaml"
	cfg.Resources = []string{input}
	for _, im := range k.images {
		cfg.Images = append(cfg.Images, kustypes.Image{Name: im.Name, NewName: im.NewName, NewTag: im.NewTag, Digest: im.Digest})
	}
	for j, p := range k.patches {
		kp := kustypes.Patch{Patch: p.Patch}
		if t := p.Target; t != nil {
			kp.Target = &kustypes.Selector{LabelSelector: t.LabelSelector, AnnotationSelector: t.AnnotationSelector}
			kp.Target.Group, kp.Target.Version, kp.Target.Kind = t.Group, t.Version, t.Kind
			kp.Target.Name, kp.Target.Namespace = t.Name, t.Namespace
			if err := k.rec.match(in.Bytes(), k.renderer, j, *kp.Target); err != nil {
				return nil, err
			}
		}
		cfg.Patches = append(cfg.Patches, kp)
	}
	kfile, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	if err := fs.WriteFile(input, in.Bytes()); err != nil {
		return nil, err
	}
	if err := fs.WriteFile("kustomization.yaml", kfile); err != nil {
		return nil, err
	}
	kustomizeMu.Lock()
	defer kustomizeMu.Unlock()
	var m resmap.ResMap
	// The builtin schema, held shared: the Kustomization builds running beside this one
	// may not change or parse it meanwhile (package schemalock).
	schemalock.Builtin(func() {
		m, err = krusty.MakeKustomizer(&krusty.Options{LoadRestrictions: kustypes.LoadRestrictionsNone,
			PluginConfig: kustypes.DisabledPluginConfig()}).Run(fs, ".")
	})
	if err != nil {
		return nil, err
	}
	out, err := m.AsYaml()
	if err != nil {
		return nil, err
	}
	return bytes.NewBuffer(out), nil
}

// patchMatches records, across the post-renderer runs of one render (one, or two under
// postRenderStrategy separate), which targeted patches selected an object.
type patchMatches struct {
	mu      sync.Mutex
	seen    map[[2]int]string // target text
	matched map[[2]int]bool
}

// match selects target from the stream in, as kustomize's PatchTransformer does
// (ResMap.Select), and records whether it selects anything.
func (r *patchMatches) match(in []byte, renderer, patch int, target kustypes.Selector) error {
	if r == nil {
		return nil
	}
	f := resmap.NewFactory(provider.NewDefaultDepProvider().GetResourceFactory())
	m, err := f.NewResMapFromBytes(in)
	if err != nil {
		return err
	}
	sel, err := m.Select(target)
	if err != nil {
		return fmt.Errorf("postRenderers[%d].kustomize.patches[%d].target: %w", renderer, patch, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen == nil {
		r.seen, r.matched = map[[2]int]string{}, map[[2]int]bool{}
	}
	key := [2]int{renderer, patch}
	r.seen[key] = selectorText(target)
	if len(sel) > 0 {
		r.matched[key] = true
	}
	return nil
}

// unmatched lists the recorded patches that selected nothing in any run, in spec order.
func (r *patchMatches) unmatched() []UnmatchedPatch {
	var out []UnmatchedPatch
	for key, text := range r.seen {
		if !r.matched[key] {
			out = append(out, UnmatchedPatch{Renderer: key[0], Patch: key[1], Target: text})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Renderer != out[j].Renderer {
			return out[i].Renderer < out[j].Renderer
		}
		return out[i].Patch < out[j].Patch
	})
	return out
}

// selectorText prints the set fields of a patch target: "kind=Deployment,name=web".
func selectorText(t kustypes.Selector) string {
	var parts []string
	for _, f := range [][2]string{{"group", t.Group}, {"version", t.Version}, {"kind", t.Kind}, {"namespace", t.Namespace},
		{"name", t.Name}, {"labelSelector", t.LabelSelector}, {"annotationSelector", t.AnnotationSelector}} {
		if f[1] != "" {
			parts = append(parts, f[0]+"="+f[1])
		}
	}
	return strings.Join(parts, ",")
}
