package kustomize

import (
	"fmt"
	"path"
	"strings"

	"gopkg.in/yaml.v3"
	"sigs.k8s.io/kustomize/api/filters/refvar"
	"sigs.k8s.io/kustomize/api/resource"
	kustypes "sigs.k8s.io/kustomize/api/types"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// Markers around a Secret var's value in a trial expansion (varCopies): bytes no YAML
// scalar of a manifest holds.
const (
	varOpen  = "\x00tiergate-var\x01"
	varClose = "\x00tiergate-end\x01"
)

// varValues resolves the legacy vars of a build against rs: each var's value as
// kustomize's ResAccumulator.findVarValueFromResources takes it (the field fieldref names,
// metadata.name by default, of the one resource objref names), and which of them come from
// a Secret's data or stringData or from a field a Secret replacement wrote. False when one
// cannot be resolved.
func (c *Copies) varValues(rs []*resource.Resource, vars []kustypes.Var, tainted map[*resource.Resource]map[string]bool) (map[string]any, map[string]bool, bool) {
	values, secret := map[string]any{}, map[string]bool{}
	for _, v := range vars {
		v.Defaulting()
		gvk := v.ObjRef.GVK()
		var match *resource.Resource
		for _, r := range rs {
			for _, id := range c.resIDs(r) {
				if id.Gvk.IsSelected(&gvk) && id.Name == v.ObjRef.Name && (v.ObjRef.Namespace == "" || id.Namespace == v.ObjRef.Namespace) {
					match = r
					break
				}
			}
			if match != nil {
				break
			}
		}
		if match == nil {
			return nil, nil, false
		}
		val, err := match.GetFieldValue(v.FieldRef.FieldPath)
		if err != nil {
			return nil, nil, false
		}
		values[v.Name] = val
		fields := strings.Split(v.FieldRef.FieldPath, ".")
		secret[v.Name] = secretSource(match, fields, tainted)
	}
	return values, secret, true
}

// varCopies records, for every string of every resource whose source document (its
// origin file, read from snap under dir) holds $(NAME) of a Secret var at the same path,
// the bytes kustomize's expansion (refvar.DoReplacements) wrote from the Secret: when
// expanding the source's text with the vars gives the field's text, exactly those; when
// a later transformer changed the field, every occurrence of the value in it.
func (c *Copies) varCopies(snap *graph.Snapshot, dir string, rs []*resource.Resource, values map[string]any, secret map[string]bool) {
	for _, r := range rs {
		src := c.sourceDoc(snap, dir, r)
		if src == nil {
			continue
		}
		for n, p := range nodePaths(r.YNode()) {
			if n.Kind != kyaml.ScalarNode || len(p) == 0 {
				continue
			}
			s, ok := valueAtNode(src, p)
			if !ok || !strings.Contains(s, "$(") {
				continue
			}
			c.byRes[r] = append(c.byRes[r], expansionCopies(p, s, n.Value, values, secret)...)
		}
	}
}

// expansionCopies compares the expansion of src with the field's text got: the Secret
// vars' values where the expansion put them, or, if got differs, each Secret value found in
// got.
func expansionCopies(p []string, src, got string, values map[string]any, secret map[string]bool) []secretCopy {
	marked := fmt.Sprint(refvar.DoReplacements(src, func(name string) any {
		v, ok := values[name]
		if !ok {
			return "$(" + name + ")"
		}
		if secret[name] {
			return varOpen + fmt.Sprint(v) + varClose
		}
		return v
	}))
	var out []secretCopy
	var plain strings.Builder
	for rest := marked; ; {
		i := strings.Index(rest, varOpen)
		if i < 0 {
			plain.WriteString(rest)
			break
		}
		plain.WriteString(rest[:i])
		rest = rest[i+len(varOpen):]
		j := strings.Index(rest, varClose)
		if j < 0 {
			return nil
		}
		start := plain.Len()
		plain.WriteString(rest[:j])
		out = append(out, secretCopy{path: p, start: start, end: plain.Len(), value: rest[:j]})
		rest = rest[j+len(varClose):]
	}
	for i := range out {
		out[i].text = got
		if plain.String() != got {
			out[i].anywhere = true
		}
	}
	return out
}

// sourceDoc returns the document r was read from (its origin annotation's file, the
// first document of its kind named as one of its ids), nil when not known.
func (c *Copies) sourceDoc(snap *graph.Snapshot, dir string, r *resource.Resource) map[string]any {
	o, err := r.GetOrigin()
	if err != nil || o == nil || o.Path == "" || o.Repo != "" {
		return nil
	}
	data, ok := snap.Read(path.Join(dir, o.Path))
	if !ok {
		return nil
	}
	names := map[string]bool{}
	for _, id := range c.resIDs(r) {
		names[id.Name] = true
	}
	kind := r.GetKind()
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	for {
		var doc map[string]any
		if dec.Decode(&doc) != nil {
			return nil
		}
		meta, _ := doc["metadata"].(map[string]any)
		if name, _ := meta["name"].(string); doc["kind"] == kind && names[name] {
			return doc
		}
	}
}

// valueAtNode is the string at p in doc, a decoded YAML document.
func valueAtNode(doc map[string]any, p []string) (string, bool) {
	v, ok := graph.ValueAt(doc, p)
	s, isString := v.(string)
	return s, ok && isString
}
