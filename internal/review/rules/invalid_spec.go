package rules

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/tiergate/tiergate/internal/render/fluxinstance"
	"github.com/tiergate/tiergate/internal/render/fluxschema"
	"github.com/tiergate/tiergate/internal/render/graph"
)

// invalidSpec reports an object the API server rejects for its schema: a HelmRelease that
// breaks its CRD's OpenAPI constraints (fluxschema: the kubebuilder:validation markers of
// helm-controller api/v2/helmrelease_types.go — releaseName at most 53 characters, an
// interval that is a duration, values an object, …), or a built-in kind whose fields have
// the wrong type (`replicas: "three"`), found by decoding it into its k8s.io/api type as
// the API server's deserializer does (client-go kubernetes/scheme Codecs). kustomize-controller
// dry-runs every object of a stage before it applies any (fluxcd/pkg ssa
// ResourceManager.ApplyAllStaged), so one rejected object fails the whole Kustomization on
// every reconcile; a chart's object fails its HelmRelease's install or upgrade. A
// Kustomization or HelmRelease object of a build that the schema rejects is render-error's
// (the build's Kustomization fails to apply: one cause, one finding);
// custom resources of other kinds have no schema here. A field postBuild substitution made a
// number is substitution-type-change's. Unknown fields are not judged: the
// API server only warns of them by default (fieldValidation=Warn). Objects of any kind over
// the API's size limits are rejected too (tooLarge): a ConfigMap's or Secret's data over
// 1 MiB, an object over etcd's or the API server's request limit.
func invalidSpec(c, _ *graph.Cluster, _ *Env) []Finding {
	var out []Finding
	each(c, func(ks *graph.Kustomization, o *graph.Object) {
		if o.Body == nil {
			return
		}
		field, msg, schema := tooLarge(o)
		size := msg != ""
		if !size {
			if isHelmRelease(o) && ks.Err != nil && ks.Err.Rejected > 0 {
				return // its rejection fails ks's apply: render-error names it (render rejectedHelmRelease)
			}
			field, msg, schema = rejected(o)
		}
		if msg == "" || substitutedType(o, field) {
			return
		}
		f := objectFinding("invalid-spec", Error, c.Name, o, ks.Ref)
		if o.HelmRelease == "" && field != "" {
			f.Line = fieldLine(c, o, field)
			if keys := strings.Split(listIndex.ReplaceAllString(field, ""), "."); f.Line == o.Line {
				if file, line, ok := patchedField(c, o, keys[len(keys)-1]); ok {
					f.File, f.Line = file, line // set by a patch: fixed there
				}
			}
		}
		f.Message = fmt.Sprintf("%s is rejected by the API server (%s): %s; %s on every reconcile.", o.ID, schema, msg, applierFails(ks, o))
		switch {
		case size && o.HelmRelease != "":
			f.Suggestion = fmt.Sprintf("Make what the chart template %s renders (its values in HelmRelease %s) smaller than the limit: split it into several objects, or ship the content another way (an image, a volume).", o.Template, o.HelmRelease)
		case size:
			f.Suggestion = fmt.Sprintf("Make %s at %s:%d smaller than the limit: split it into several objects, or ship the content another way (an image, a volume).", orWhole(field), o.File, f.Line)
		case o.HelmRelease != "":
			f.Suggestion = fmt.Sprintf("Fix what the chart template %s renders (its values in HelmRelease %s) so that %s is valid.", o.Template, o.HelmRelease, orWhole(field))
		default:
			f.Suggestion = fmt.Sprintf("Fix %s at %s:%d so that the API server accepts the %s.", orWhole(field), f.File, f.Line, o.ID.Kind)
		}
		out = append(out, f)
	})
	return out
}

// rejected returns the field at fault (a dotted path, "" when the error names none), what
// is wrong, and the schema that says so; msg is "" for an object the API server accepts.
func rejected(o *graph.Object) (field, msg, schema string) {
	if !fluxschema.Accepted(o.Body.GetAPIVersion(), o.ID.Kind) {
		return "", "", "" // a version the CRD does not serve: missing-crd's (unservedFluxVersions)
	}
	if o.ID.Group == "helm.toolkit.fluxcd.io" && o.ID.Kind == "HelmRelease" {
		vs := fluxschema.Check(o.ID.Group, o.ID.Kind, o.Body.Object)
		if len(vs) == 0 {
			return "", "", ""
		}
		msgs := make([]string, len(vs))
		for i, v := range vs {
			msgs[i] = v.Msg
		}
		return vs[0].Field, strings.Join(msgs, "; "), "the " + o.Body.GetAPIVersion() + " HelmRelease schema"
	}
	if o.ID.Group == "fluxcd.controlplane.io" && o.ID.Kind == "FluxInstance" && o.ID.Name != fluxinstance.Name {
		// flux-operator's CRD validation (api/v1/fluxinstance_types.go XValidation
		// self.metadata.name == 'flux'), which the API server evaluates on every write.
		return "metadata.name", fmt.Sprintf("the only accepted name for a FluxInstance is 'flux', not %q", o.ID.Name), "the FluxInstance CRD's validation rule self.metadata.name == 'flux'"
	}
	if o.ID.Group == "kustomize.toolkit.fluxcd.io" || strings.HasSuffix(o.ID.Group, ".fluxcd.io") {
		return "", "", ""
	}
	return builtinRejected(o)
}

// builtinRejected decodes o into its k8s.io/api type; a kind the scheme does not know (a
// custom resource) is accepted here. The unstructured converter answers first, without a
// JSON round trip, for the common case of an object that decodes; only one it refuses is
// decoded again as the API server's deserializer does, whose error names the field.
func builtinRejected(o *graph.Object) (field, msg, schema string) {
	typed, err := scheme.Scheme.New(k8sschema.FromAPIVersionAndKind(o.Body.GetAPIVersion(), o.Body.GetKind()))
	if err != nil || runtime.DefaultUnstructuredConverter.FromUnstructured(o.Body.Object, typed) == nil {
		return "", "", ""
	}
	data, err := json.Marshal(o.Body.Object)
	if err != nil {
		return "", "", ""
	}
	_, _, err = scheme.Codecs.UniversalDeserializer().Decode(data, nil, nil)
	if err == nil || runtime.IsNotRegisteredError(err) || runtime.IsMissingKind(err) || runtime.IsMissingVersion(err) {
		return "", "", ""
	}
	schema = "the " + o.Body.GetAPIVersion() + " " + o.ID.Kind + " type"
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return te.Field, fmt.Sprintf("%s must be %s, got %s", te.Field, fluxschema.JSONKind(te.Type), fluxschema.Article(te.Value)), schema
	}
	return "", err.Error(), schema
}

// substitutedType reports whether the rejected field (a dotted path, list positions
// optional) is, or holds, a field that postBuild substitution turned into another type:
// substitution-type-change reports that one at the field's line, with its cause and fix.
func substitutedType(o *graph.Object, field string) bool {
	if field == "" {
		return false
	}
	want := listIndex.ReplaceAllString(field, "")
	for _, tc := range o.TypeChanges {
		got := listIndex.ReplaceAllString(fieldName(tc.Path), "")
		if got == want || strings.HasPrefix(got, want+".") {
			return true
		}
	}
	return false
}

// applierFails says what fails when the API server rejects o, as invalid-name says it.
func applierFails(ks *graph.Kustomization, o *graph.Object) string {
	switch {
	case o.HelmRelease != "":
		return fmt.Sprintf("helm-controller's install or upgrade of HelmRelease %s fails (chart template %s)", o.HelmRelease, o.Template)
	case o.ResourceSet != "":
		return fmt.Sprintf("flux-operator's apply of ResourceSet %s fails", o.ResourceSet)
	}
	return fmt.Sprintf("kustomize-controller's dry-run of %s fails and applies nothing", ks.Ref)
}

func orWhole(field string) string {
	if field == "" {
		return "the object"
	}
	return field
}

// listIndex is a list position in a field path ("valuesFrom[1]").
var listIndex = regexp.MustCompile(`\[\d+\]`)

// fieldLine is the line of field ("spec.install.crds") in o's manifest: each key searched
// after the previous one, list positions skipped; o's line when a key is not found.
func fieldLine(c *graph.Cluster, o *graph.Object, field string) int {
	keys := strings.Split(listIndex.ReplaceAllString(field, ""), ".")
	patterns := make([]lineMatcher, len(keys))
	for i, k := range keys {
		patterns[i] = keyPrefixed(k)
	}
	return lineAfter(c, o.File, o.Line, patterns...)
}
