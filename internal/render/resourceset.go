package render

import (
	"encoding/json"
	"fmt"
	"hash/adler32"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	"github.com/tiergate/tiergate/internal/render/fluxschema"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/helmrelease"
	"github.com/tiergate/tiergate/internal/render/resourceset"
)

// flux-operator's API group and the names it reads (api/v1 common_types.go).
const (
	rsGroup             = "fluxcd.controlplane.io"
	rsKind              = "ResourceSet"
	rsipKind            = "ResourceSetInputProvider"
	rsReconcileDisabled = rsGroup + "/reconcile"
	// rsMaxPermutations is flux-operator's bound (internal/inputs/permuter.go maxPermutations).
	rsMaxPermutations = 10000
)

// rsSpec is the part of fluxcd.controlplane.io/v1 ResourceSetSpec that decides what the
// ResourceSet renders (api/v1/resourceset_types.go).
type rsSpec struct {
	CommonMetadata *struct {
		Labels      map[string]string `json:"labels,omitempty"`
		Annotations map[string]string `json:"annotations,omitempty"`
	} `json:"commonMetadata,omitempty"`
	InputStrategy *struct {
		Name                  string `json:"name,omitempty"`
		IncludeEmptyProviders bool   `json:"includeEmptyProviders,omitempty"`
	} `json:"inputStrategy,omitempty"`
	Inputs     []map[string]json.RawMessage `json:"inputs,omitempty"`
	InputsFrom []struct {
		APIVersion string                `json:"apiVersion,omitempty"`
		Kind       string                `json:"kind,omitempty"`
		Name       string                `json:"name,omitempty"`
		Selector   *metav1.LabelSelector `json:"selector,omitempty"`
	} `json:"inputsFrom,omitempty"`
	rsResources
	Steps []struct {
		Name string `json:"name"`
		rsResources
	} `json:"steps,omitempty"`
}

type rsResources struct {
	Resources         []json.RawMessage `json:"resources,omitempty"`
	ResourcesTemplate string            `json:"resourcesTemplate,omitempty"`
}

// rsProvider is one source of input sets: the ResourceSet itself or a provider.
type rsProvider struct {
	apiVersion, kind, namespace, name string
	inputs                            []map[string]any
}

func isResourceSet(u *unstructured.Unstructured) bool {
	gvk := u.GroupVersionKind()
	return gvk.Group == rsGroup && gvk.Kind == rsKind && fluxschema.Accepted(u.GetAPIVersion(), rsKind)
}

// expandResourceSets adds to ks.Objects what each ResourceSet among them renders, as
// flux-operator's ResourceSet controller would once ks applies it. The objects keep ks as
// owner and name their ResourceSet. A ResourceSet whose inputs need a live service is
// recorded in ks.ResourceSetSkipped; one that fails to render in ks.ResourceSetErrors.
func (r *renderer) expandResourceSets(ks *graph.Kustomization, c *graph.Cluster) {
	if ks.Err != nil {
		return
	}
	var gen []*graph.Object
	var providers []rsSeenProvider // listed at the first ResourceSet, for all
	listed := false
	// The templates see each Secret-derived field of a ResourceSet or provider (its
	// SecretFields: inputs or defaultValues substituted from a Secret) as a placeholder,
	// as a chart sees a HelmRelease's: upper, b64enc, sha256sum or trunc of it (in data,
	// a name or a label) is then made of the placeholder, never of the Secret value.
	mask := r.shared.placeholders()
	for _, o := range ks.Objects {
		if !isResourceSet(o.Body) {
			continue
		}
		if !listed {
			providers, listed = rsProviders(ks, c, mask), true
		}
		ref := graph.Ref{Namespace: o.Body.GetNamespace(), Name: o.Body.GetName()}
		seen, masked := mask.Object(o.Body, o.SecretFields)
		masked = masked || slices.ContainsFunc(providers, func(p rsSeenProvider) bool { return p.masked })
		objs, skipped, err := renderResourceSet(seen, rsBodies(providers), r.guards.limits.MaxBuildBytes)
		switch {
		case skipped != "":
			ks.ResourceSetSkipped = append(ks.ResourceSetSkipped, graph.ResourceSetSkip{ResourceSet: o.ID, Reason: fmt.Sprintf("ResourceSet %s (%s:%d) not reviewed: %s", ref, o.File, o.Line, skipped)})
			// Unknown, not gone: the base's objects stand in, so that their Kustomizations
			// are still built and nothing is reported pruned.
			gen = append(gen, r.priorResourceSetObjects(ks.Ref, c.Name, ref.String())...)
		case err != nil:
			line := o.Line
			if field := err.field; field != "" {
				line = r.ix.KeyLine(o.File, o.Line, field)
				line += r.templateLine(o.File, line, err)
			}
			ks.ResourceSetErrors = append(ks.ResourceSetErrors, graph.ResourceSetError{ResourceSet: o.ID, Err: graph.BuildError{Message: err.Error(), File: o.File, Line: line}})
			gen = append(gen, r.priorResourceSetObjects(ks.Ref, c.Name, ref.String())...)
		}
		for _, u := range objs {
			gen = append(gen, &graph.Object{ID: graph.IDOf(u), Owner: ks.Ref, File: o.File, Line: o.Line, Body: u, ResourceSet: ref.String(), Placeholders: masked})
		}
	}
	if len(gen) > 0 {
		ks.Objects = append(slices.Clip(ks.Objects), gen...)
	}
}

var templateLineRE = regexp.MustCompile(`template: resourceset:(\d+)`)

// templateLine is how many lines below the resourcesTemplate key, at line, the template
// error err points: the template's own line when it is a block scalar, else 0.
func (r *renderer) templateLine(file string, line int, err *rsError) int {
	if err.field != "resourcesTemplate" {
		return 0
	}
	m := templateLineRE.FindStringSubmatch(err.Error())
	if m == nil {
		return 0
	}
	data, rerr := r.ix.Read(file)
	if rerr != nil {
		return 0
	}
	lines := strings.Split(string(data), "\n")
	if line < 1 || line > len(lines) {
		return 0
	}
	key := strings.TrimRight(lines[line-1], " \r")
	if !strings.HasSuffix(key, "|") && !strings.HasSuffix(key, "|-") && !strings.HasSuffix(key, "|+") {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// priorResourceSetObjects returns what the ResourceSet rs, applied by owner, rendered at
// Options.Prior: a ResourceSet that fails to render applies nothing and deletes nothing
// (ResourceSetReconciler.reconcile returns before apply), so those objects stay.
func (r *renderer) priorResourceSetObjects(owner graph.Ref, cluster, rs string) []*graph.Object {
	if r.prior == nil {
		return nil
	}
	pc := r.prior.Cluster(cluster)
	if pc == nil || pc.Kustomizations[owner] == nil {
		return nil
	}
	var out []*graph.Object
	for _, o := range pc.Kustomizations[owner].Objects {
		if o.ResourceSet == rs {
			out = append(out, o)
		}
	}
	return out
}

// rsProviders lists the ResourceSetInputProviders the graph renders so far: those of ks
// and of the Kustomizations built before it, each with its Secret-derived fields
// (Object.SecretFields) replaced by mask's placeholders (Placeholders.Object).
func rsProviders(ks *graph.Kustomization, c *graph.Cluster, mask helmrelease.Placeholders) []rsSeenProvider {
	var out []rsSeenProvider
	seen := map[graph.ObjectID]bool{}
	add := func(o *graph.Object) {
		if o.ID.Group == rsGroup && o.ID.Kind == rsipKind && !seen[o.ID] {
			seen[o.ID] = true
			body, masked := mask.Object(o.Body, o.SecretFields)
			out = append(out, rsSeenProvider{body, masked})
		}
	}
	for _, o := range ks.Objects {
		add(o)
	}
	for _, ref := range c.Order {
		if other := c.Kustomizations[ref]; other != ks {
			for _, o := range other.Objects {
				add(o)
			}
		}
	}
	return out
}

// rsSeenProvider is a ResourceSetInputProvider as the templates see it, and whether a
// placeholder stands in it for a Secret-derived field.
type rsSeenProvider struct {
	body   *unstructured.Unstructured
	masked bool
}

func rsBodies(ps []rsSeenProvider) []*unstructured.Unstructured {
	out := make([]*unstructured.Unstructured, len(ps))
	for i, p := range ps {
		out[i] = p.body
	}
	return out
}

// rsError is a render failure and the spec field it comes from.
type rsError struct {
	field string
	err   error
}

func (e *rsError) Error() string { return e.err.Error() }

// renderResourceSet renders the objects of the ResourceSet u with the given providers in
// the graph, as flux-operator's reconciler does: inputs.Combine, then
// builder.BuildResourceSetFromSpec, then owner labels (ssa SetOwnerLabels) and
// commonMetadata (ResourceSetReconciler.apply). skipped says why it cannot be rendered
// without a live service. The fluxcd.controlplane.io/copyFrom annotation reads a live
// ConfigMap or Secret (ResourceSetReconciler.copyResources): such objects keep the data the
// template gives them.
func renderResourceSet(u *unstructured.Unstructured, providers []*unstructured.Unstructured, maxBytes int64) (objs []*unstructured.Unstructured, skipped string, rerr *rsError) {
	var spec rsSpec
	raw, _ := json.Marshal(u.Object["spec"])
	if err := json.Unmarshal(raw, &spec); err != nil {
		return nil, "", &rsError{"spec", fmt.Errorf("invalid spec: %w", err)}
	}
	list, skipped, rerr := rsInputProviders(u, &spec, providers)
	if skipped != "" || rerr != nil {
		return nil, skipped, rerr
	}
	combined, err := rsCombine(&spec, list)
	if err != nil {
		return nil, "", &rsError{"inputStrategy", err}
	}
	if len(spec.Steps) > 0 && (len(spec.Resources) > 0 || spec.ResourcesTemplate != "") {
		return nil, "", &rsError{"steps", fmt.Errorf("spec.steps is mutually exclusive with spec.resources and spec.resourcesTemplate")}
	}
	budget := maxBytes // all the ResourceSet's template executions together
	if len(spec.Steps) == 0 {
		objs, rerr = rsBuild(spec.rsResources, combined, &budget)
	}
	stepOf := map[string]string{}
	for _, st := range spec.Steps {
		so, e := rsBuild(st.rsResources, combined, &budget)
		if e != nil {
			return nil, "", &rsError{"steps", fmt.Errorf("step %q: %w", st.Name, e.err)}
		}
		for _, o := range so {
			k := graph.IDOf(o).String()
			if prev, ok := stepOf[k]; ok && prev != st.Name {
				return nil, "", &rsError{"steps", fmt.Errorf("duplicate resource %s in step %q, already defined in step %q", k, st.Name, prev)}
			}
			stepOf[k] = st.Name
		}
		objs = append(objs, so...)
	}
	if rerr != nil {
		return nil, "", rerr
	}
	for _, o := range objs {
		setCommonMetadata(o, map[string]string{"resourceset." + rsGroup + "/name": u.GetName(), "resourceset." + rsGroup + "/namespace": u.GetNamespace()}, nil)
		if cm := spec.CommonMetadata; cm != nil {
			setCommonMetadata(o, cm.Labels, cm.Annotations)
		}
	}
	return objs, "", nil
}

// setCommonMetadata overrides o's labels and annotations with those given, as
// fluxcd/pkg/ssa/utils SetCommonMetadata does.
func setCommonMetadata(o *unstructured.Unstructured, lbls, anns map[string]string) {
	if len(lbls) > 0 {
		o.SetLabels(overlay(o.GetLabels(), lbls))
	}
	if len(anns) > 0 {
		o.SetAnnotations(overlay(o.GetAnnotations(), anns))
	}
}

// overlay returns m, made when nil, with over's entries set.
func overlay(m, over map[string]string) map[string]string {
	if m == nil {
		m = make(map[string]string, len(over))
	}
	maps.Copy(m, over)
	return m
}

// rsInputProviders returns the ResourceSet's inline inputs, then the providers it names,
// sorted as inputs.Combine sorts them (GVK, namespace, name). Each input set gets the
// "provider" field inputs.getFromProvider adds. A Static provider exports its defaultValues
// with "id" = adler32 of its name, as `flux-operator build resourceset` does offline (the
// controller hashes the object's UID, which only the cluster knows).
func rsInputProviders(u *unstructured.Unstructured, spec *rsSpec, providers []*unstructured.Unstructured) ([]rsProvider, string, *rsError) {
	ns := u.GetNamespace()
	self := rsProvider{apiVersion: u.GetAPIVersion(), kind: rsKind, namespace: ns, name: u.GetName()}
	for i, in := range spec.Inputs {
		m, err := rsDecode(in)
		if err != nil {
			return nil, "", &rsError{"inputs", fmt.Errorf("failed to unmarshal inputs[%d]: %w", i, err)}
		}
		self.inputs = append(self.inputs, m)
	}
	picked := map[string]*unstructured.Unstructured{}
	for i, ref := range spec.InputsFrom {
		if ref.Kind != "" && ref.Kind != rsipKind {
			return nil, fmt.Sprintf("inputsFrom[%d] kind %s is not a ResourceSetInputProvider", i, ref.Kind), nil
		}
		switch {
		case ref.Name != "":
			p := rsFind(providers, ns, func(p *unstructured.Unstructured) bool { return p.GetName() == ref.Name })
			if len(p) == 0 {
				return nil, fmt.Sprintf("ResourceSetInputProvider %s/%s is not in the repository", ns, ref.Name), nil
			}
			picked[ref.Name] = p[0]
		case ref.Selector != nil:
			sel, err := metav1.LabelSelectorAsSelector(ref.Selector)
			if err != nil {
				return nil, "", &rsError{"inputsFrom", fmt.Errorf("failed to parse selector: %w", err)}
			}
			p := rsFind(providers, ns, func(p *unstructured.Unstructured) bool { return sel.Matches(labels.Set(p.GetLabels())) })
			if len(p) == 0 {
				return nil, fmt.Sprintf("inputsFrom[%d] selector %s matches no ResourceSetInputProvider in the repository", i, sel), nil
			}
			for _, x := range p {
				picked[x.GetName()] = x
			}
		}
	}
	out := []rsProvider{self}
	for _, name := range slices.Sorted(maps.Keys(picked)) {
		p := picked[name]
		typ, _, _ := unstructured.NestedString(p.Object, "spec", "type")
		if typ != "Static" {
			return nil, fmt.Sprintf("ResourceSetInputProvider %s/%s has type %s, whose inputs flux-operator reads from a live service", ns, name, typ), nil
		}
		vals, _, _ := unstructured.NestedMap(p.Object, "spec", "defaultValues")
		vals = runtimeCopy(vals)
		vals["id"] = rsID(name)
		out = append(out, rsProvider{apiVersion: p.GetAPIVersion(), kind: rsipKind, namespace: ns, name: name, inputs: []map[string]any{vals}})
	}
	for _, p := range out {
		for _, in := range p.inputs {
			in["provider"] = map[string]any{"apiVersion": p.apiVersion, "kind": p.kind, "name": p.name, "namespace": p.namespace}
		}
	}
	return out, "", nil
}

// rsFind returns the providers in namespace ns (an empty namespace is the ResourceSet's, as
// the CLI reads them) that match.
func rsFind(providers []*unstructured.Unstructured, ns string, match func(*unstructured.Unstructured) bool) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, p := range providers {
		if (p.GetNamespace() == ns || p.GetNamespace() == "") && match(p) {
			out = append(out, p)
		}
	}
	return out
}

func rsDecode(in map[string]json.RawMessage) (map[string]any, error) {
	m := make(map[string]any, len(in))
	for k, v := range in {
		var data any
		if err := utiljson.Unmarshal(v, &data); err != nil {
			return nil, err
		}
		m[k] = data
	}
	return m, nil
}

// runtimeCopy deep-copies m through JSON with Kubernetes number types.
func runtimeCopy(m map[string]any) map[string]any {
	out := map[string]any{}
	data, _ := json.Marshal(m)
	_ = utiljson.Unmarshal(data, &out)
	return out
}

// rsID is flux-operator's input set id (internal/inputs/id.go ID): adler32, in decimal.
func rsID(s string) string { return fmt.Sprint(adler32.Checksum([]byte(s))) }

// rsCombine combines the input sets of the providers by the ResourceSet's inputStrategy
// (internal/inputs/combine.go Combine): Flatten concatenates them; Permute takes their
// Cartesian product, each set scoped under its provider's normalized name, with an "id"
// of the choices (permuter.go collectPermutation).
func rsCombine(spec *rsSpec, providers []rsProvider) ([]map[string]any, error) {
	strategy, includeEmpty := "Flatten", false
	if s := spec.InputStrategy; s != nil && s.Name != "" {
		strategy, includeEmpty = s.Name, s.Name == "Permute" && s.IncludeEmptyProviders
	}
	switch strategy {
	case "Flatten":
		var out []map[string]any
		for _, p := range providers {
			out = append(out, p.inputs...)
		}
		return out, nil
	case "Permute":
	default:
		return nil, fmt.Errorf("unknown input strategy: '%s'", strategy)
	}
	type scoped struct {
		key  string
		sets []map[string]any
	}
	var ps []scoped
	total := 1
	for _, p := range providers {
		if !includeEmpty && len(p.inputs) == 0 {
			continue
		}
		total *= len(p.inputs)
		if total > rsMaxPermutations {
			return nil, fmt.Errorf("failed to get inputs from %s/%s: adding provider '%s' with %d inputs would exceed the maximum allowed permutations. max: %d, got: %d",
				p.kind, p.name, p.name, len(p.inputs), rsMaxPermutations, total)
		}
		key := normalizeKey(p.name)
		if key == "" {
			return nil, fmt.Errorf("failed to get inputs from %s/%s: normalized provider name is empty: '%s'", p.kind, p.name, p.name)
		}
		ps = append(ps, scoped{key, p.inputs})
	}
	if len(ps) == 0 || total == 0 {
		return nil, nil
	}
	var out []map[string]any
	idx := make([]int, len(ps))
	for {
		perm, ids := map[string]any{}, make([]string, len(ps))
		for i, p := range ps {
			perm[p.key] = p.sets[idx[i]]
			ids[i] = fmt.Sprintf("%s=%d", p.key, idx[i])
		}
		perm["id"] = rsID(strings.Join(ids, "/"))
		out = append(out, perm)
		i := len(ps) - 1
		for ; i >= 0; i-- {
			if idx[i]++; idx[i] < len(ps[i].sets) {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return out, nil
		}
	}
}

// normalizeKey is inputs.NormalizeKeyForTemplate: lower case, spaces and punctuation to
// '_', other characters outside [a-z0-9] dropped, empty words removed.
func normalizeKey(key string) string {
	key = strings.Map(func(r rune) rune {
		r = unicode.ToLower(r)
		if unicode.IsSpace(r) || unicode.IsPunct(r) {
			return '_'
		}
		if ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') {
			return r
		}
		return -1
	}, key)
	return strings.Join(strings.FieldsFunc(key, func(r rune) bool { return r == '_' }), "_")
}

// rsBuild renders resources and resourcesTemplate once per input set (once with no
// inputs when there are none), as builder.BuildResourceSet: objects marked
// fluxcd.controlplane.io/reconcile: disabled are left out, and an object already built is
// not added again (resources first, so theirs win).
func rsBuild(res rsResources, combined []map[string]any, budget *int64) ([]*unstructured.Unstructured, *rsError) {
	var out []*unstructured.Unstructured
	seen := map[string]bool{}
	add := func(o *unstructured.Unstructured, dedup bool) {
		k := graph.IDOf(o).String()
		if dedup && (seen[k] || o.GetAnnotations()[rsReconcileDisabled] == "disabled") {
			return
		}
		seen[k] = true
		out = append(out, o)
	}
	sets := combined
	if len(sets) == 0 {
		sets = []map[string]any{nil}
	}
	for i, tmpl := range res.Resources {
		text, err := yaml.JSONToYAML(tmpl)
		if err != nil {
			return nil, &rsError{"resources", fmt.Errorf("resources[%d]: failed to convert template to YAML: %w", i, err)}
		}
		tp, err := resourceset.ParseTemplate(string(text))
		if err != nil {
			return nil, &rsError{"resources", fmt.Errorf("failed to build resources[%d]: %w", i, err)}
		}
		for _, in := range sets {
			data, err := resourceset.ExecTemplate(tp, in, budget)
			if err != nil {
				return nil, &rsError{"resources", fmt.Errorf("failed to build resources[%d]: %w", i, err)}
			}
			objs, err := resourceset.ReadObjects(data)
			if err == nil && len(objs) != 1 {
				err = fmt.Errorf("failed to read object: resources[%d] renders %d objects, not one", i, len(objs))
			}
			if err != nil {
				return nil, &rsError{"resources", fmt.Errorf("failed to build resources[%d]: %w", i, err)}
			}
			add(objs[0], len(combined) > 0)
		}
	}
	if res.ResourcesTemplate == "" {
		return out, nil
	}
	tp, err := resourceset.ParseTemplate(res.ResourcesTemplate)
	if err != nil {
		return nil, &rsError{"resourcesTemplate", fmt.Errorf("failed to build resources: %w", err)}
	}
	for _, in := range sets {
		data, err := resourceset.ExecTemplate(tp, in, budget)
		var objs []*unstructured.Unstructured
		if err == nil {
			objs, err = resourceset.ReadObjects(data)
		}
		if err != nil {
			return nil, &rsError{"resourcesTemplate", fmt.Errorf("failed to build resources: %w", err)}
		}
		for _, o := range objs {
			add(o, true)
		}
	}
	return out, nil
}
