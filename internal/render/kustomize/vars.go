package kustomize

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/fluxcd/pkg/envsubst"
	"github.com/fluxcd/pkg/envsubst/parse"
	fluxkustomize "github.com/fluxcd/pkg/kustomize"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/kustomize/api/resource"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/index"
)

const substituteKey = "kustomize.toolkit.fluxcd.io/substitute"

// Store holds the ConfigMaps and Secrets a cluster's graph renders, the only place
// substituteFrom can read from (a cold cluster has nothing else). The objects keep their
// SecretFields, so a Secret value substitution wrote into a ConfigMap stays known as one
// (Store.Client implements graph.SecretKeys).
type Store map[graph.ObjectID]*graph.Object

// Add records o when it is a ConfigMap or a Secret not recorded yet.
func (s Store) Add(o *graph.Object) {
	if o.ID.Group == "" && (o.ID.Kind == "ConfigMap" || o.ID.Kind == "Secret") {
		if _, ok := s[o.ID]; !ok {
			s[o.ID] = o
		}
	}
}

// Update adds o as this round built it, replacing the version an earlier round left
// (seeded): a ConfigMap whose own variables a later round resolves must be read as it
// now is, or what substitutes from it stays stale and the fixpoint never sees the change.
// Within one round the first emitter still wins (a duplicate-owner object keeps one body).
func (s Store) Update(o *graph.Object, fresh map[graph.ObjectID]bool) {
	if o.ID.Group == "" && (o.ID.Kind == "ConfigMap" || o.ID.Kind == "Secret") && !fresh[o.ID] {
		fresh[o.ID] = true
		s[o.ID] = o
	}
}

// Clone returns a copy of s (the objects themselves shared: never modified).
func (s Store) Clone() Store {
	out := make(Store, len(s))
	for k, v := range s {
		out[k] = v
	}
	return out
}

// Client returns a controller-runtime fake client serving the stored objects; it is a
// graph.SecretKeys too.
func (s Store) Client() client.Client {
	var objs []client.Object
	for id, o := range s {
		u := o.Body
		meta := metav1.ObjectMeta{Name: id.Name, Namespace: id.Namespace}
		if id.Kind == "ConfigMap" {
			data, _, _ := unstructured.NestedStringMap(u.Object, "data")
			objs = append(objs, &corev1.ConfigMap{ObjectMeta: meta, Data: data})
			continue
		}
		sec := &corev1.Secret{ObjectMeta: meta, Data: map[string][]byte{}}
		data, _, _ := unstructured.NestedStringMap(u.Object, "data")
		for k, v := range data {
			b, err := base64.StdEncoding.DecodeString(v)
			if err != nil { // SOPS ciphertext or malformed: the key still exists
				b = []byte(v)
			}
			sec.Data[k] = b
		}
		str, _, _ := unstructured.NestedStringMap(u.Object, "stringData")
		for k, v := range str {
			sec.Data[k] = []byte(v)
		}
		objs = append(objs, sec)
	}
	// The deduced type converter: substitution only reads objects, so the field manager
	// never converts one, and the default (client-go's applyconfigurations) parses the
	// whole Kubernetes OpenAPI schema on first use, a tenth of a second per process.
	c := fake.NewClientBuilder().WithTypeConverters(managedfields.NewDeducedTypeConverter()).WithObjects(objs...).Build()
	return storeClient{Client: c, store: s, values: s.secretCopyValues()}
}

// secretCopyValues returns the values of the stored Secrets that a plain copy is known by
// (storeClient.IsSecretValue).
func (s Store) secretCopyValues() map[string]bool {
	var secrets []*graph.Object
	for id, o := range s {
		if isSecret(id) {
			secrets = append(secrets, o)
		}
	}
	out := map[string]bool{}
	for v := range buildSecretValues(secrets) {
		if len(v) >= minRedactBytes && !commonShape.MatchString(v) {
			out[v] = true
		}
	}
	return out
}

// storeClient is a Store's client, which also tells the Secret-derived keys of its
// ConfigMaps and the values of its Secrets.
type storeClient struct {
	client.Client
	store Store
	// values are the stored Secrets' values a copy is known by (secretCopyValues).
	values map[string]bool
}

// SecretKeys implements graph.SecretKeys: the keys substitution or a replacement wrote
// from a Secret (graph.SecretKeysOf), and the keys whose value is a plain copy of a
// Secret value of the cluster (IsSecretValue): Flux reads either as plain text
// (fluxcd/pkg kustomize LoadVariables for substituteFrom, helm-controller
// chartutil.ChartValuesFromReferences for valuesFrom), yet the value is the Secret's.
func (c storeClient) SecretKeys(namespace, name string) map[string]bool {
	o := c.store[graph.ObjectID{Kind: "ConfigMap", Namespace: namespace, Name: name}]
	if o == nil {
		return nil
	}
	out := graph.SecretKeysOf(o)
	data, _, _ := unstructured.NestedStringMap(o.Body.Object, "data")
	for k, v := range data {
		if c.IsSecretValue(v) {
			if out == nil {
				out = map[string]bool{}
			}
			out[k] = true
		}
	}
	return out
}

// IsSecretValue implements graph.SecretCopies.
func (c storeClient) IsSecretValue(s string) bool { return c.values[s] }

// Equal reports whether s and o hold the same objects with the same data and stringData.
func (s Store) Equal(o Store) bool {
	if len(s) != len(o) {
		return false
	}
	for k, v := range s {
		w, ok := o[k]
		if !ok || !equalData(v.Body, w.Body) || !maps.Equal(graph.SecretKeysOf(v), graph.SecretKeysOf(w)) {
			return false
		}
	}
	return true
}

func equalData(a, b *unstructured.Unstructured) bool {
	for _, f := range []string{"data", "stringData"} {
		x, _, _ := unstructured.NestedStringMap(a.Object, f)
		y, _, _ := unstructured.NestedStringMap(b.Object, f)
		if len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if y[k] != v {
				return false
			}
		}
	}
	return true
}

// Substitution is the postBuild of one Kustomization with its variables resolved.
type Substitution struct {
	client client.Client
	vars   map[string]string
	always bool
	// body is the Kustomization as substitution sees it (sources made optional when some
	// are missing); unknown is true when variables may come from a source not rendered.
	body    *unstructured.Unstructured
	unknown bool
	noop    bool
	checked bool // SubstituteVariables succeeded once
	// written is what substitution has produced so far, in bytes, bounded by maxBytes
	// (Limits.MaxBuildBytes): a variable referenced many times multiplies its size.
	written, maxBytes int64
	// secrets are the values of variables read from Secrets, longest first; secretNames
	// are those variables.
	secrets     []string
	secretNames map[string]bool
}

// NewSubstitution resolves ks's variables as kustomize-controller does (substituteFrom in
// order, then inline substitute). It returns nil when substitution does not run: no
// postBuild, or no variable resolved and substituteStrategy is not Always (KC v1.9.0).
func NewSubstitution(ctx context.Context, ix *index.Index, c client.Client, ks *graph.Kustomization, maxBytes int64) (*Substitution, *graph.BuildError) {
	if ks.Spec.PostBuild == nil {
		return nil, nil
	}
	body := ks.Body
	if missing := unresolved(ctx, c, ks); len(missing) > 0 {
		ks.Unresolved = missing
		body = withOptionalSources(ks.Body)
	}
	var fromSecrets map[string]string
	collect := fluxkustomize.ContextWithSecretVarsCollector(ctx, func(m map[string]string) { fromSecrets = m })
	vars, err := fluxkustomize.LoadVariables(collect, c, *body)
	if err != nil {
		return nil, SpecError(ks, ix, "substituteFrom", err.Error())
	}
	for k, v := range ks.Spec.PostBuild.Substitute {
		vars[k] = strings.ReplaceAll(v, "\n", "")
	}
	if be := invalidVar(ix, ks, vars); be != nil {
		return nil, be
	}
	tainted := relayedSecretVars(ctx, c, ks)
	maps.Copy(tainted, fromSecrets)
	var secrets []string
	secretNames := map[string]bool{}
	for k, v := range tainted {
		if v != "" && vars[k] == v {
			secrets = append(secrets, v)
			secretNames[k] = true
		}
	}
	secrets = sortLongestFirst(secrets)
	ks.Vars = map[string]bool{}
	for k := range vars {
		ks.Vars[k] = true
	}
	always := strings.EqualFold(ks.Spec.SubstituteStrategy, "Always")
	if len(vars) == 0 && !always {
		if len(ks.Unresolved) > 0 {
			return &Substitution{unknown: true, noop: true}, nil // values exist only at runtime
		}
		return nil, nil
	}
	return &Substitution{client: c, vars: vars, always: always, body: resolvedBody(vars), unknown: len(ks.Unresolved) > 0, maxBytes: maxBytes, secrets: secrets, secretNames: secretNames}, nil
}

// relayedSecretVars returns the variables of ks whose value postBuild substitution wrote
// from a Secret before it reached ks, by name, with their value: an inline
// spec.postBuild.substitute entry its parent substituted from a Secret (ks.SecretFields),
// and a key of a substituteFrom ConfigMap that a substitution wrote from one
// (graph.SecretKeys of c). Flux reads those as plain text (fluxcd/pkg kustomize
// LoadVariables), yet the value is the Secret's: taint follows the value, not the kind.
// A ConfigMap's value counts only when a later source does not override it (the caller
// compares it with the resolved variable, as for Secrets).
func relayedSecretVars(ctx context.Context, c client.Client, ks *graph.Kustomization) map[string]string {
	out := map[string]string{}
	if sk, ok := c.(graph.SecretKeys); ok {
		for _, src := range ks.Spec.PostBuild.SubstituteFrom {
			keys := sk.SecretKeys(ks.Ref.Namespace, src.Name)
			cm := &corev1.ConfigMap{}
			if src.Kind != "ConfigMap" || len(keys) == 0 || c.Get(ctx, client.ObjectKey{Namespace: ks.Ref.Namespace, Name: src.Name}, cm) != nil {
				continue
			}
			for k := range keys {
				if v, ok := cm.Data[k]; ok {
					out[k] = strings.ReplaceAll(v, "\n", "")
				}
			}
		}
	}
	for k, v := range ks.Spec.PostBuild.Substitute {
		if inlineSecret(ks, k) {
			out[k] = strings.ReplaceAll(v, "\n", "")
		}
	}
	return out
}

// inlineSecret reports whether ks's parent wrote the inline variable k, in part or whole,
// from a Secret.
func inlineSecret(ks *graph.Kustomization, k string) bool {
	for _, f := range ks.SecretFields {
		if !f.Key && f.HasSecret() && slices.Equal(f.Path, []string{"spec", "postBuild", "substitute", k}) {
			return true
		}
	}
	return false
}

// sortLongestFirst sorts values longest first (then by text) and drops repeats, the order
// redaction replaces them in: a value that contains another goes first.
func sortLongestFirst(values []string) []string {
	sort.Slice(values, func(i, j int) bool {
		if len(values[i]) != len(values[j]) {
			return len(values[i]) > len(values[j])
		}
		return values[i] < values[j]
	})
	return slices.Compact(values)
}

// resolvedBody is a Kustomization whose postBuild holds vars, already resolved, as inline
// substitute and no substituteFrom: SubstituteVariables then finds exactly vars (values
// have their newlines removed either way) without asking the client for every object.
func resolvedBody(vars map[string]string) *unstructured.Unstructured {
	sub := make(map[string]any, len(vars))
	for k, v := range vars {
		sub[k] = v
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"spec": map[string]any{"postBuild": map[string]any{"substitute": sub}},
	}}
}

// unresolved lists the substituteFrom sources the Store does not hold: the required ones,
// and optional Secrets, which live outside git (an ExternalSecret, SOPS, a bootstrap
// script) so that absent here does not mean absent in the cluster: the variables they may
// define are unknown, not empty. An optional ConfigMap absent from the repository is
// skipped, as LoadVariables skips it (fluxcd/pkg kustomize/kustomize_varsub.go).
func unresolved(ctx context.Context, c client.Client, ks *graph.Kustomization) []string {
	var out []string
	for _, s := range ks.Spec.PostBuild.SubstituteFrom {
		if s.Optional && s.Kind != "Secret" {
			continue
		}
		key := client.ObjectKey{Namespace: ks.Ref.Namespace, Name: s.Name}
		var obj client.Object = &corev1.ConfigMap{}
		if s.Kind == "Secret" {
			obj = &corev1.Secret{}
		}
		if err := c.Get(ctx, key, obj); err != nil {
			name := s.Kind + "/" + s.Name
			if s.Optional {
				name += " (optional)"
			}
			out = append(out, name)
		}
	}
	return out
}

// withOptionalSources returns a copy of ks whose substituteFrom entries are all optional,
// so that the sources the graph renders still resolve when others are missing.
func withOptionalSources(ks *unstructured.Unstructured) *unstructured.Unstructured {
	c := ks.DeepCopy()
	from, _, _ := unstructured.NestedSlice(c.Object, "spec", "postBuild", "substituteFrom")
	for _, f := range from {
		if m, ok := f.(map[string]any); ok {
			m["optional"] = true
		}
	}
	_ = unstructured.SetNestedSlice(c.Object, from, "spec", "postBuild", "substituteFrom")
	return c
}

func disabled(r *resource.Resource) bool {
	return r.GetLabels()[substituteKey] == "disabled" || r.GetAnnotations()[substituteKey] == "disabled"
}

// Written is what the substitution has written so far, in bytes.
func (s *Substitution) Written() int64 { return s.written }

// Key names everything about s that the objects it substitutes depend on: the resolved
// variables, the Secret values among them, the byte bound and the strategy.
func (s *Substitution) Key() string {
	vars, _ := json.Marshal([]any{s.vars, s.secrets, s.secretNames, s.maxBytes})
	return fmt.Sprintf("%s\x00%t%t%t", vars, s.always, s.unknown, s.noop)
}

// Apply substitutes r in place and records the variables it leaves undefined; data is r
// as JSON. It reports whether r may have changed.
func (s *Substitution) Apply(ctx context.Context, r *resource.Resource, obj *graph.Object, data []byte) (bool, *graph.BuildError) {
	if s.noop || disabled(r) {
		return false, nil
	}
	// envsubst leaves a text without '$' as it is; the first object substituted has
	// already proven the variables valid, the only other way substitution fails.
	if s.checked && !bytes.ContainsRune(data, '$') {
		return false, nil
	}
	y, err := sigsyaml.JSONToYAML(data) // r.AsYAML() without marshalling r again
	if err != nil {
		return false, &graph.BuildError{Message: err.Error(), File: obj.File, Line: obj.Line}
	}
	var derived []string
	var fields []graph.SecretField
	var exprs []exprField
	tree, err := parse.Parse(string(y))
	if err == nil {
		s.written += substitutedBytes(tree.Root, s.vars)
		if s.maxBytes > 0 && s.written > s.maxBytes {
			return false, &graph.BuildError{Message: fmt.Sprintf("postBuild substitution of %s would write more than tiergate's limit of %d bytes (--max-build-bytes); a long variable referenced many times multiplies its size", r.CurId(), s.maxBytes), File: obj.File, Line: obj.Line, Limit: true}
		}
		if !s.unknown {
			obj.Undefined = undefinedVars(tree.Root, s.vars)
		}
		derived = secretDerived(tree.Root, s.vars, s.secretNames)
		fields, exprs = (&evaluator{vars: s.vars, secret: s.secretNames}).fieldsOf(data)
	}
	if _, err := fluxkustomize.SubstituteVariables(ctx, s.client, *s.body, r,
		fluxkustomize.SubstituteWithStrict(false), fluxkustomize.SubstituteWithAlways(s.always)); err != nil {
		return false, &graph.BuildError{Message: s.maskedError("post build failed for '" + r.CurId().String() + "': " + err.Error()), File: obj.File, Line: obj.Line}
	}
	s.checked = true
	obj.SecretValues = s.secrets
	obj.SecretFields = fields
	obj.TypeChanges = substitutedTypes(r, exprs)
	if len(derived) > 0 {
		obj.SecretValues = sortLongestFirst(append(slices.Clone(s.secrets), derived...))
		obj.DerivedValues = operatorResults(derived, s.secrets)
	}
	return true, nil
}

// Meant is text, a field of r as written in its source, after the substitution s would
// apply to r (fluxcd/pkg/envsubst Eval with s's variables, non-strict as Apply runs it:
// an undefined variable is empty); ok is false when s does not substitute r (nil, no
// variable known, or r opts out with kustomize.toolkit.fluxcd.io/substitute: disabled) or
// the text does not evaluate.
func (s *Substitution) Meant(r *resource.Resource, text string) (string, bool) {
	if s == nil || s.noop || disabled(r) {
		return "", false
	}
	out, err := envsubst.Eval(text, func(name string) (string, bool) {
		v, ok := s.vars[name]
		return v, ok
	})
	return out, err == nil
}

// maskedError is msg, a substitution's error, with its Go-syntax dumps withheld and the
// Secret values masked when s read Secret variables: envsubst's YAMLToJSON error quotes
// the key a substituted value parsed into (graph.WithholdGoDumps), a piece of the value.
func (s *Substitution) maskedError(msg string) string {
	if len(s.secretNames) == 0 {
		return msg
	}
	return graph.MaskValues(graph.WithholdGoDumps(msg), s.secrets)
}

// operatorResults returns the texts of derived that are not a Secret variable's value
// (secrets), longest first, without repeats: what an operator made of one.
func operatorResults(derived, secrets []string) []string {
	var out []string
	for _, d := range derived {
		if !slices.Contains(secrets, d) && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return sortLongestFirst(out)
}

// undefinedVars lists the variables text reads without a default operator that vars does
// not define: exactly those on which Flux's strict substitution fails (pkg/envsubst
// evalFunc and isDefaultOp).
func undefinedVars(root parse.Node, vars map[string]string) []string {
	seen := map[string]bool{}
	var walk func(n parse.Node)
	walk = func(n parse.Node) {
		switch n := n.(type) {
		case *parse.ListNode:
			for _, c := range n.Nodes {
				walk(c)
			}
		case *parse.FuncNode:
			for _, a := range n.Args {
				walk(a)
			}
			if _, ok := vars[n.Param]; !ok && !isDefaultOp(n.Name) {
				seen[n.Param] = true
			}
		}
	}
	walk(root)
	return sortedKeys(seen)
}

// substitutedBytes bounds the size of what envsubst writes for n under vars (Flux's
// pkg/envsubst funcs.go): a variable counts its value, a replacement (${X//a/bc}) its value
// times the replacement, a default its value and the default's text, any other function
// (case, substring, trim, length) its value plus 20. The sum saturates at 1<<62.
func substitutedBytes(n parse.Node, vars map[string]string) int64 {
	const ceiling = 1 << 62
	add := func(a, b int64) int64 { return min(a+b, ceiling) }
	switch n := n.(type) {
	case *parse.TextNode:
		return int64(len(n.Value))
	case *parse.ListNode:
		var sum int64
		for _, c := range n.Nodes {
			sum = add(sum, substitutedBytes(c, vars))
		}
		return sum
	case *parse.FuncNode:
		value := int64(len(vars[n.Param]))
		var args []int64
		var sum int64
		for _, a := range n.Args {
			args = append(args, substitutedBytes(a, vars))
			sum = add(sum, args[len(args)-1])
		}
		switch {
		case strings.HasPrefix(n.Name, "/"):
			if len(args) < 2 || args[1] <= 1 {
				return value
			}
			if value > ceiling/args[1] {
				return ceiling
			}
			return value * args[1]
		case isDefaultOp(n.Name):
			return add(value, sum)
		}
		return add(value, 20)
	}
	return 0
}

func isDefaultOp(name string) bool {
	switch name {
	case "-", "+", "=", "?", ":-", ":+", ":=", ":?":
		return true
	}
	return false
}

var literalRE = regexp.MustCompile(`\$\$?\{[^}\s]*\}`)

// LiteralVars lists the ${...} expressions of r that ship verbatim because no substitution
// runs; escaped $${...} and objects with substitution disabled are left out. data is r as
// JSON: a string holds "${" in JSON exactly when it does in YAML.
func LiteralVars(r *resource.Resource, data []byte) []string {
	if disabled(r) || !bytes.Contains(data, []byte("${")) {
		return nil
	}
	y, err := sigsyaml.JSONToYAML(data) // r.AsYAML() without marshalling r again
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	for _, m := range literalRE.FindAllString(string(y), -1) {
		if !strings.HasPrefix(m, "$$") {
			seen[m] = true
		}
	}
	return sortedKeys(seen)
}

func sortedKeys(m map[string]bool) []string {
	if len(m) == 0 {
		return nil
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// varName is fluxcd/pkg/kustomize's varsubRegex: varSubstitution refuses any other name.
var varName = regexp.MustCompile(`^[_[:alpha:]][_[:alpha:][:digit:]]*$`)

// invalidVar is the error kustomize-controller's substitution fails with when a variable
// name is not valid (fluxcd/pkg/kustomize varSubstitution: "'a-b' var name is invalid"),
// at the line that defines it: the postBuild.substitute key, or the data key of the
// substituteFrom ConfigMap or Secret (the last one defining it wins, as LoadVariables reads
// them in order and substitute last); nil when every name is valid. Names are checked in
// sorted order, so the error is the same on every run.
func invalidVar(ix *index.Index, ks *graph.Kustomization, vars map[string]string) *graph.BuildError {
	var bad []string
	for k := range vars {
		if !varName.MatchString(k) {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	k := bad[0]
	be := SpecError(ks, ix, "postBuild", "")
	be.Message = fmt.Sprintf("postBuild variable %q is not a valid name (letters, digits and '_', not starting with a digit): Flux's substitution fails with \"'%s' var name is invalid, must match '%s'\"", k, k, varName)
	if _, inline := ks.Spec.PostBuild.Substitute[k]; inline {
		if l := ix.LineOf(ks.File, ks.Line, k+":"); l > 0 {
			be.Line = l
		}
		return be
	}
	from := ks.Spec.PostBuild.SubstituteFrom
	for i := len(from) - 1; i >= 0; i-- {
		if file, line := ix.DataKey(from[i].Kind, ks.Ref.Namespace, from[i].Name, k); file != "" {
			be.File, be.Line = file, line
			be.Message = fmt.Sprintf("key %q of substituteFrom %s/%s is not a valid postBuild variable name (letters, digits and '_', not starting with a digit): Flux's substitution fails with \"'%s' var name is invalid, must match '%s'\"", k, from[i].Kind, from[i].Name, k, varName)
			return be
		}
	}
	return be
}
