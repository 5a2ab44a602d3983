package helm

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/chartutil"
	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// Values are the values helm-controller passes to the chart of hr: spec.valuesFrom read
// through r in hr's namespace, in list order, then spec.values, merged by
// fluxcd/pkg/chartutil ChartValuesFromReferences, called as
// internal/controller/helmrelease_controller.go reconcileRelease calls it. The chart's own
// defaults are merged later by Helm. r must serve objects as the API server stores them: a
// Secret's stringData merged into data. An error (a missing non-optional ConfigMap or
// Secret, a missing key, a bad targetPath, unreadable YAML) is chartutil's
// ErrValuesReference, wrapped with hr's name.
func Values(ctx context.Context, hr *unstructured.Unstructured, r client.Reader) (vals map[string]any, err error) {
	ref := hr.GetNamespace() + "/" + hr.GetName()
	defer func() {
		if p := recover(); p != nil {
			vals, err = nil, fmt.Errorf("HelmRelease %s values: %v", ref, p)
		}
	}()
	inline, err := inlineValues(hr)
	if err != nil {
		return nil, fmt.Errorf("HelmRelease %s spec.values: %w", ref, err)
	}
	var refs []meta.ValuesReference
	if err := specField(hr, "valuesFrom", &refs); err != nil {
		return nil, fmt.Errorf("HelmRelease %s spec.valuesFrom: %w", ref, err)
	}
	merged, err := chartutil.ChartValuesFromReferences(ctx, logr.Discard(), readerClient{Reader: r},
		hr.GetNamespace(), inline, refs...)
	if err != nil {
		return nil, fmt.Errorf("HelmRelease %s values: %w", ref, err)
	}
	return merged.AsMap(), nil
}

// inlineValues decodes spec.values as api/v2 GetValues does (YAML of the raw JSON), so
// numbers are float64 as in the controller, and the map is fresh: chartutil mutates it.
func inlineValues(hr *unstructured.Unstructured) (map[string]any, error) {
	raw, ok, err := unstructured.NestedFieldNoCopy(hr.Object, "spec", "values")
	if err != nil || !ok || raw == nil {
		return nil, err
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	var values map[string]any
	if err := yaml.Unmarshal(b, &values); err != nil {
		return nil, err
	}
	return values, nil
}

// specField decodes spec.<name> of hr into out (absent = unchanged), rejecting unknown
// fields so a misspelt key is an error and not a silently ignored setting.
func specField(hr *unstructured.Unstructured, name string, out any) error {
	raw, ok, err := unstructured.NestedFieldNoCopy(hr.Object, "spec", name)
	if err != nil || !ok || raw == nil {
		return err
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return err
	}
	return yaml.UnmarshalStrict(b, out)
}

// readerClient is the client.Client chartutil asks for; it only ever calls Get, so the
// other methods stay unimplemented (a nil embedded Client) and must not be reached.
type readerClient struct {
	client.Client
	client.Reader
}

func (c readerClient) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	return c.Reader.Get(ctx, key, obj, opts...)
}

func (c readerClient) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	return c.Reader.List(ctx, list, opts...)
}
