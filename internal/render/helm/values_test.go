package helm

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

func TestValues(t *testing.T) {
	cm := func(name string, data map[string]string) client.Object {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "apps"}, Data: data}
	}
	objs := []client.Object{
		cm("defaults", map[string]string{"values.yaml": "top: from-cm\nreplicas: 2\na:\n  nested: from-cm\n  kept: cm\n"}),
		cm("flat", map[string]string{"value": "from-target", "csv": "a,b", "other.yaml": "other: yes\n"}),
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "creds", Namespace: "apps"},
			Data: map[string][]byte{"values.yaml": []byte("password: s3cret\n")}},
		cm("elsewhere", map[string]string{"values.yaml": "wrong: namespace\n"}),
	}
	objs[3].SetNamespace("flux-system")
	r := fake.NewClientBuilder().WithObjects(objs...).Build()
	const head = "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: web\n  namespace: apps\nspec:\n"
	for _, tc := range []struct {
		name, spec string
		want       map[string]any
		err        string
	}{
		{name: "no values", spec: "  chart: {}\n", want: map[string]any{}},
		{name: "valuesKey defaults to values.yaml; inline wins; Secret read",
			spec: "  valuesFrom:\n  - kind: ConfigMap\n    name: defaults\n  - kind: Secret\n    name: creds\n  values:\n    replicas: 3\n",
			want: map[string]any{"top": "from-cm", "replicas": float64(3), "password": "s3cret",
				"a": map[string]any{"nested": "from-cm", "kept": "cm"}}},
		{name: "valuesKey names another key",
			spec: "  valuesFrom:\n  - kind: ConfigMap\n    name: flat\n    valuesKey: other.yaml\n",
			want: map[string]any{"other": true}},
		// HELM.md §1: a top-level targetPath loses to the inline key of that name ...
		{name: "top-level targetPath loses to inline",
			spec: "  valuesFrom:\n  - kind: ConfigMap\n    name: flat\n    valuesKey: value\n    targetPath: top\n  values:\n    top: inline\n",
			want: map[string]any{"top": "inline"}},
		// ... but a nested one wins, because the inline map is aliased into the result.
		{name: "nested targetPath wins over inline",
			spec: "  valuesFrom:\n  - kind: ConfigMap\n    name: flat\n    valuesKey: value\n    targetPath: a.nested\n  values:\n    a:\n      nested: inline\n",
			want: map[string]any{"a": map[string]any{"nested": "from-target"}}},
		{name: "targetPath parses strvals: a comma makes a list",
			spec: "  valuesFrom:\n  - kind: ConfigMap\n    name: flat\n    valuesKey: csv\n    targetPath: list\n",
			err:  "HelmRelease apps/web values: could not resolve ConfigMap chart values reference 'apps/flat' with key 'csv': key \"b\" has no value"},
		{name: "literal targetPath keeps the value verbatim",
			spec: "  valuesFrom:\n  - kind: ConfigMap\n    name: flat\n    valuesKey: csv\n    targetPath: list\n    literal: true\n",
			want: map[string]any{"list": "a,b"}},
		{name: "optional hides a missing object",
			spec: "  valuesFrom:\n  - kind: ConfigMap\n    name: absent\n    optional: true\n",
			want: map[string]any{}},
		{name: "optional also hides a missing key",
			spec: "  valuesFrom:\n  - kind: ConfigMap\n    name: flat\n    valuesKey: absent\n    optional: true\n",
			want: map[string]any{}},
		{name: "missing object, not optional, in the HelmRelease's namespace only",
			spec: "  valuesFrom:\n  - kind: ConfigMap\n    name: elsewhere\n",
			err:  "HelmRelease apps/web values: could not resolve ConfigMap chart values reference 'apps/elsewhere' with key 'values.yaml': configmaps \"elsewhere\" not found"},
		{name: "missing key, not optional",
			spec: "  valuesFrom:\n  - kind: ConfigMap\n    name: flat\n    valuesKey: absent\n",
			err:  "HelmRelease apps/web values: could not resolve ConfigMap chart values reference 'apps/flat' with key 'absent': key not found"},
		{name: "misspelt valuesFrom field",
			spec: "  valuesFrom:\n  - kind: ConfigMap\n    name: flat\n    valueKey: value\n",
			err:  "HelmRelease apps/web spec.valuesFrom: error unmarshaling JSON: while decoding JSON: json: unknown field \"valueKey\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Values(context.Background(), hrFrom(t, head+tc.spec), r)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("Values error = %v, want %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Values: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Values (-want +got):\n%s", diff)
			}
		})
	}
}
