package rules

import (
	"bytes"
	"fmt"
	"path"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/provider"
	"sigs.k8s.io/kustomize/api/resmap"
	kustypes "sigs.k8s.io/kustomize/api/types"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// patchTargetLost reports a kustomize `patches` entry with a target selector, in a
// kustomization.yaml a Kustomization's build reads or in a Flux Kustomization's
// spec.patches, that selected at least one object at base and selects none at head.
// kustomize applies such a patch to what ResMap.Select returns and to nothing else, without
// an error (sigs.k8s.io/kustomize/api/internal/builtins/PatchTransformer.go
// transformStrategicMerge and transformJson6902: Select, then the patch on each selected
// resource), so the object that was patched (a renamed Deployment) silently ships with its
// base values. One finding per entry, on its `target:` line, naming what it used to select.
func patchTargetLost(base, head *graph.Cluster, _ *Env) []Finding {
	if base == nil || head == nil {
		return nil
	}
	before := map[string][]*graph.Object{}
	for _, ref := range base.Order {
		for _, p := range patchTargets(base, base.Kustomizations[ref]) {
			before[ref.String()+"\x00"+p.key()] = p.Selected
		}
	}
	var out []Finding
	for _, ref := range head.Order {
		ks := head.Kustomizations[ref]
		for _, p := range patchTargets(head, ks) {
			was := before[ref.String()+"\x00"+p.key()]
			if len(p.Selected) > 0 || len(was) == 0 {
				continue
			}
			var names, now []string
			for _, o := range was {
				names = append(names, o.ID.String())
				if n := atSource(ks, o); n != nil {
					now = append(now, fmt.Sprintf("%s (%s:%d)", n.ID, n.File, n.Line))
				}
			}
			effect := "the patch no longer changes anything"
			if len(now) > 0 {
				effect = fmt.Sprintf("%s, built from the same manifest, ships without it", joinAnd(capList(now, 5)))
			}
			out = append(out, Finding{
				Rule: "patch-target-lost", Severity: Warning, Cluster: head.Name, Kustomization: ref.String(),
				Message: fmt.Sprintf("The patch in %s with target %s selected %s at the base commit and selects nothing at head: kustomize applies a patch whose target selects nothing to nothing, without an error, so %s.",
					p.Where, p.Text, joinAnd(capList(names, 5)), effect),
				Suggestion: fmt.Sprintf("Point the target at %s:%d to the object's new name or kind, or remove the patch if it is no longer meant to apply.", p.File, p.Line),
				File:       p.File, Line: p.Line, refs: []graph.Ref{ref}, key: p.key(),
			})
		}
	}
	return out
}

// atSource is the object of ks of o's kind built from the manifest o (of the other commit)
// was built from, when it has another name or namespace now; nil otherwise.
func atSource(ks *graph.Kustomization, o *graph.Object) *graph.Object {
	for _, n := range ks.Objects {
		if n.File == o.File && n.Line == o.Line && n.HelmRelease == "" && n.ResourceSet == "" && n.ID != o.ID &&
			n.ID.Group == o.ID.Group && n.ID.Kind == o.ID.Kind {
			return n
		}
	}
	return nil
}

// patchTarget is one kustomize patches entry with a target, and what it selects.
type patchTarget struct {
	File, Where string // the file holding it; where it is said: the file, or "spec.patches of Kustomization flux-system/apps"
	Line        int    // its target: line
	Text        string // the target's set fields, "kind=Deployment,name=podinfo"
	Selected    []*graph.Object
}

func (p patchTarget) key() string { return p.File + "\x00" + p.Text }

// patchTargets lists the target patches of ks's build with what each selects of the
// objects in its scope: for spec.patches, every object of the build; for a
// kustomization.yaml, the objects of the files its resources, components and bases reach.
// The selection is kustomize's own (ResMap.Select), over the built objects as Flux applies
// them and, since Select also tries a resource's original name and namespace, over the
// same objects named as in their source manifests.
func patchTargets(c *graph.Cluster, ks *graph.Kustomization) []patchTarget {
	if ks == nil || ks.Err != nil || ks.NotReviewed() != "" {
		return nil
	}
	var own []*graph.Object
	for _, o := range ks.Objects {
		if o.HelmRelease == "" && o.ResourceSet == "" && o.Body != nil {
			own = append(own, o)
		}
	}
	var out []patchTarget
	if doc := manifestDoc(c, ks.File, ks.Line); doc != nil {
		for _, e := range patchEntries(mapValue(doc, "spec")) {
			out = append(out, selectTarget(c, e, ks.File, "spec.patches of Kustomization "+ks.Ref.String(), own))
		}
	}
	for rel := range ks.Reads {
		if !isKustomizationFile(rel) {
			continue
		}
		data, ok := c.ReadFile(rel)
		if !ok {
			continue
		}
		var doc yaml.Node
		if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
			continue
		}
		entries := patchEntries(doc.Content[0])
		if len(entries) == 0 {
			continue
		}
		files := map[string]bool{}
		kustomizeScope(c, path.Dir(rel), files, map[string]bool{})
		var scope []*graph.Object
		for _, o := range own {
			if files[o.File] {
				scope = append(scope, o)
			}
		}
		for _, e := range entries {
			out = append(out, selectTarget(c, e, rel, rel, scope))
		}
	}
	return out
}

// patchEntry is a patches item's target node and the line of its `target:` key.
type patchEntry struct {
	target *yaml.Node
	line   int
}

// patchEntries lists the targets of the `patches` items of a kustomization node.
func patchEntries(k *yaml.Node) []patchEntry {
	var out []patchEntry
	if list := mapValue(k, "patches"); list != nil && list.Kind == yaml.SequenceNode {
		for _, item := range list.Content {
			if t := mapValue(item, "target"); t != nil && t.Kind == yaml.MappingNode {
				out = append(out, patchEntry{t, keyNode(item, "target").Line})
			}
		}
	}
	return out
}

// selectTarget selects e's target among scope as kustomize does.
func selectTarget(c *graph.Cluster, e patchEntry, file, where string, scope []*graph.Object) patchTarget {
	var sel kustypes.Selector
	_ = e.target.Decode(&sel)
	p := patchTarget{File: file, Where: where, Line: e.line, Text: selectorText(sel)}
	var docs bytes.Buffer
	for _, o := range scope {
		for _, body := range []*unstructured.Unstructured{o.Body, sourceNamed(c, o)} {
			if body == nil {
				continue
			}
			y, err := sigsyaml.Marshal(body.Object)
			if err == nil {
				docs.WriteString("---\n")
				docs.Write(y)
			}
		}
	}
	m, err := resmapFactory().NewResMapFromBytes(docs.Bytes())
	if err != nil {
		return p
	}
	found, err := m.Select(sel)
	if err != nil {
		return p
	}
	seen := map[*graph.Object]bool{}
	for _, r := range found {
		if o := objectOf(c, scope, r.GetGvk().Group, r.GetKind(), r.GetNamespace(), r.GetName()); o != nil && !seen[o] {
			seen[o] = true
			p.Selected = append(p.Selected, o)
		}
	}
	return p
}

// resmapFactory is kustomize's default ResMap factory, made once: it only parses.
var resmapFactory = sync.OnceValue(func() *resmap.Factory {
	return resmap.NewFactory(provider.NewDefaultDepProvider().GetResourceFactory())
})

// sourceNamed is o's body with the name and namespace of its source manifest, when they
// differ (a prefix, a suffix or a namespace a kustomization set); nil otherwise.
func sourceNamed(c *graph.Cluster, o *graph.Object) *unstructured.Unstructured {
	doc := manifestDoc(c, o.File, o.Line)
	meta := mapValue(doc, "metadata")
	if meta == nil {
		return nil
	}
	name, ns := scalar(mapValue(meta, "name")), scalar(mapValue(meta, "namespace"))
	if name == "" || (name == o.ID.Name && ns == o.ID.Namespace) {
		return nil
	}
	cp := o.Body.DeepCopy()
	cp.SetName(name)
	cp.SetNamespace(ns)
	return cp
}

// objectOf is the object of scope a selected resource stands for: the object of that
// identity, else the one whose source manifest names it so (sourceNamed).
func objectOf(c *graph.Cluster, scope []*graph.Object, group, kind, ns, name string) *graph.Object {
	id := graph.ObjectID{Group: group, Kind: kind, Namespace: ns, Name: name}
	for _, o := range scope {
		if o.ID == id {
			return o
		}
	}
	for _, o := range scope {
		if o.ID.Group == group && o.ID.Kind == kind {
			if s := sourceNamed(c, o); s != nil && s.GetName() == name && s.GetNamespace() == ns {
				return o
			}
		}
	}
	return nil
}

// kustomizeScope adds to files the paths of the manifests a kustomization in dir reaches
// through resources, components and bases, and the kustomization file itself (the file of
// the objects its generators make); remote entries are left out.
func kustomizeScope(c *graph.Cluster, dir string, files, seen map[string]bool) {
	if seen[dir] {
		return
	}
	seen[dir] = true
	kfile, node := kustomizationIn(c, dir)
	if node == nil {
		return
	}
	files[kfile] = true
	for _, field := range []string{"resources", "components", "bases"} {
		list := mapValue(node, field)
		if list == nil || list.Kind != yaml.SequenceNode {
			continue
		}
		for _, item := range list.Content {
			e := scalar(item)
			if e == "" || strings.Contains(e, "://") || strings.HasPrefix(e, "github.com/") {
				continue
			}
			p := path.Clean(path.Join(dir, e))
			if _, n := kustomizationIn(c, p); n != nil {
				kustomizeScope(c, p, files, seen)
				continue
			}
			files[p] = true
		}
	}
}

// kustomizationIn is the kustomization file of dir and its root node, or nil.
func kustomizationIn(c *graph.Cluster, dir string) (string, *yaml.Node) {
	for _, name := range []string{"kustomization.yaml", "kustomization.yml", "Kustomization"} {
		rel := path.Join(dir, name)
		if data, ok := c.ReadFile(rel); ok {
			var doc yaml.Node
			if yaml.Unmarshal(data, &doc) == nil && len(doc.Content) > 0 {
				return rel, doc.Content[0]
			}
		}
	}
	return "", nil
}

func isKustomizationFile(rel string) bool {
	switch path.Base(rel) {
	case "kustomization.yaml", "kustomization.yml", "Kustomization":
		return true
	}
	return false
}

// manifestDoc is the document of file whose `kind:` is on line (docsOf), or nil.
func manifestDoc(c *graph.Cluster, file string, line int) *yaml.Node {
	if c.Source == nil || file == "" {
		return nil
	}
	return docsOf(c, file).byAnyKind[line]
}

// mapValue is the value of key in mapping n, or nil.
func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// keyNode is the key node of key in mapping n, or nil.
func keyNode(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i]
		}
	}
	return nil
}

func scalar(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

// selectorText prints the set fields of a target: "kind=Deployment,name=podinfo".
func selectorText(s kustypes.Selector) string {
	var parts []string
	for _, f := range [][2]string{{"group", s.Group}, {"version", s.Version}, {"kind", s.Kind}, {"namespace", s.Namespace}, {"name", s.Name},
		{"labelSelector", s.LabelSelector}, {"annotationSelector", s.AnnotationSelector}} {
		if f[1] != "" {
			parts = append(parts, f[0]+"="+f[1])
		}
	}
	return strings.Join(parts, ",")
}
