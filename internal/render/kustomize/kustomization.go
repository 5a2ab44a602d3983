package kustomize

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/tiergate/tiergate/internal/render/fluxschema"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/index"
)

// FluxGroup is the API group of Flux Kustomizations (v1 and v1beta2 are accepted).
const FluxGroup = "kustomize.toolkit.fluxcd.io"

// IsFluxKustomization reports whether u is a Flux Kustomization (not a kustomization.yaml)
// of a version Flux serves (fluxschema.Accepted: v1, or the deprecated v1beta2 of Flux
// 2.7). Another version is no Kustomization to kustomize-controller: its apply fails with
// 'no matches for kind' (missing-crd reports it), so it is never built.
func IsFluxKustomization(u *unstructured.Unstructured) bool {
	gvk := u.GroupVersionKind()
	return gvk.Group == FluxGroup && gvk.Kind == "Kustomization" && fluxschema.Accepted(u.GetAPIVersion(), gvk.Kind)
}

type rawSpec struct {
	Path      string `json:"path"`
	Prune     bool   `json:"prune"`
	Wait      bool   `json:"wait"`
	Suspend   bool   `json:"suspend"`
	Force     bool   `json:"force"`
	DependsOn []struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"dependsOn"`
	HealthChecks []graph.HealthCheck `json:"healthChecks"`
	SourceRef    struct {
		Kind      string `json:"kind"`
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"sourceRef"`
	TargetNamespace    string           `json:"targetNamespace"`
	PostBuild          *graph.PostBuild `json:"postBuild"`
	SubstituteStrategy string           `json:"substituteStrategy"`
	DeletionPolicy     string           `json:"deletionPolicy"`
}

// InvalidSpec is a Kustomization object that the kustomize.toolkit.fluxcd.io/v1 schema
// rejects: the API server refuses it, so the apply of whatever emits it fails.
type InvalidSpec struct {
	ref   graph.Ref
	Field string // the top-level spec field at fault ("prune"); "" for spec itself
	msg   string // what is wrong, e.g. "spec.prune: expected a boolean, got a string"
	Meta  bool   // the fault is in metadata: reported at the object's first line
}

func (e *InvalidSpec) Error() string { return fmt.Sprintf("Kustomization %s: %s", e.ref, e.msg) }

// ErrNoSpec is a Kustomization object without spec. The kustomize.toolkit.fluxcd.io/v1
// schema does not require spec (`json:"spec,omitempty"`), so the API server accepts it;
// kustomize-controller then fails it: it names no source to build from.
var ErrNoSpec = errors.New("the object has no spec, so kustomize-controller cannot reconcile it: it names no source to build from")

// jsonValueKind names the JSON kind of a decoded value, as json.UnmarshalTypeError does.
func jsonValueKind(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "bool"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "number"
}

// NewKustomization reads a Flux Kustomization object. Namespaces of dependsOn and
// sourceRef default to the Kustomization's own, as kustomize-controller defaults them.
// An object the schema rejects is an *InvalidSpec; one without spec is ErrNoSpec.
func NewKustomization(u *unstructured.Unstructured, file string, line int, parent *graph.Ref) (*graph.Kustomization, error) {
	ref := graph.Ref{Namespace: u.GetNamespace(), Name: u.GetName()}
	// A custom resource's name is a DNS subdomain (apiextensions-apiserver
	// registry/customresource/validator.go validateObjectMetaDeclaratively: NameIsDNSSubdomain).
	if errs := validation.IsDNS1123Subdomain(ref.Name); len(errs) > 0 {
		return nil, &InvalidSpec{ref: ref, Meta: true, msg: fmt.Sprintf("metadata.name %q: %s", ref.Name, errs[0])}
	}
	raw := u.Object["spec"]
	if raw == nil {
		return nil, ErrNoSpec
	}
	spec, ok := raw.(map[string]any)
	if !ok {
		return nil, &InvalidSpec{ref: ref, msg: fmt.Sprintf("spec: expected an object, got %s", fluxschema.Article(jsonValueKind(raw)))}
	}
	data, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	var rs rawSpec
	if err := json.Unmarshal(data, &rs); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			field, _, _ := strings.Cut(te.Field, ".")
			return nil, &InvalidSpec{ref: ref, Field: field, msg: fmt.Sprintf("spec.%s: expected %s, got %s", te.Field, fluxschema.JSONKind(te.Type), fluxschema.Article(te.Value))}
		}
		return nil, &InvalidSpec{ref: ref, msg: "spec: " + err.Error()}
	}
	// Required by the kustomize.toolkit.fluxcd.io/v1 schema: the API server rejects the
	// object without them.
	for _, f := range []string{"interval", "prune", "sourceRef"} {
		if _, ok := spec[f]; !ok {
			return nil, &InvalidSpec{ref: ref, msg: fmt.Sprintf("spec.%s is required", f)}
		}
	}
	if rs.SourceRef.Kind == "" || rs.SourceRef.Name == "" {
		return nil, &InvalidSpec{ref: ref, Field: "sourceRef", msg: "spec.sourceRef needs kind and name"}
	}
	if v := fluxschema.Check("kustomize.toolkit.fluxcd.io", "Kustomization", u.Object); len(v) > 0 {
		return nil, &InvalidSpec{ref: ref, Field: v[0].Top, msg: v[0].Msg}
	}
	ks := &graph.Kustomization{Ref: ref, Parent: parent, File: file, Line: line, Body: u, JSON: &graph.BodyJSON{}}
	s := &ks.Spec
	s.Path, s.Prune, s.Wait, s.Suspend, s.Force = rs.Path, rs.Prune, rs.Wait, rs.Suspend, rs.Force
	s.HealthChecks, s.TargetNamespace, s.PostBuild = rs.HealthChecks, rs.TargetNamespace, rs.PostBuild
	s.SubstituteStrategy, s.DeletionPolicy = rs.SubstituteStrategy, rs.DeletionPolicy
	if rs.PostBuild != nil && s.SubstituteStrategy == "" {
		strategy, _, _ := unstructured.NestedString(u.Object, "spec", "postBuild", "substituteStrategy")
		s.SubstituteStrategy = strategy
	}
	for _, d := range rs.DependsOn {
		ns := d.Namespace
		if ns == "" {
			ns = ref.Namespace
		}
		s.DependsOn = append(s.DependsOn, graph.Ref{Namespace: ns, Name: d.Name})
	}
	s.SourceRef = graph.SourceRef{Kind: rs.SourceRef.Kind, Name: rs.SourceRef.Name, Namespace: rs.SourceRef.Namespace}
	if s.SourceRef.Namespace == "" {
		s.SourceRef.Namespace = ref.Namespace
	}
	return ks, nil
}

// SpecError is a failure caused by the Kustomization's own spec, located at that field
// (the first line at or after the Kustomization's naming field+":"), else at the
// Kustomization.
func SpecError(ks *graph.Kustomization, ix *index.Index, field, msg string) *graph.BuildError {
	line := ks.Line
	if l := ix.LineOf(ks.File, ks.Line, field+":"); l > 0 {
		line = l
	}
	return &graph.BuildError{Message: msg, File: ks.File, Line: line}
}
