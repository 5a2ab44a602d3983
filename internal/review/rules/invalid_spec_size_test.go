package rules

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// TestInvalidSpecSize: objects over the API's size limits are invalid-spec errors at the
// field or object at fault, with the size and the limit and never a value: a ConfigMap's
// data over 1 MiB (ValidateConfigMap), a Secret's stringData over 1 MiB (ValidateSecret),
// an object over etcd's default request limit, one over the API server's request body
// limit. Exactly 1 MiB, and binaryData whose base64 text is over 1 MiB but whose bytes are
// not, are accepted.
func TestInvalidSpecSize(t *testing.T) {
	tiers := map[string]string{tierFile("apps"): tier("apps", "./apps", true), "apps/crd.yaml": crd("example.com", "Widget", "widgets", "Namespaced")}
	blob := func(n int) string { return strings.Repeat("x", n) }
	widget := func(n int) string {
		return obj("example.com/v1", "Widget", "default", "w", "spec:", "  blob: "+blob(n))
	}
	one := func(kind, id, name, file string, line int, msg, sugg string) []Finding {
		return []Finding{{Rule: "invalid-spec", Severity: Error, Cluster: "dev", Kustomization: "flux-system/apps",
			Object:     &graph.ObjectID{Group: map[string]string{"Widget": "example.com"}[kind], Kind: kind, Namespace: "default", Name: name},
			Message:    id + " is rejected by the API server " + msg + "; kustomize-controller's dry-run of flux-system/apps fails and applies nothing on every reconcile.",
			Suggestion: sugg, File: file, Line: line}}
	}
	cases := []struct {
		name  string
		files map[string]string
		want  []Finding
	}{
		{name: "ConfigMap data of 1.2 MB", files: map[string]string{"apps/cm.yaml": configMap("default", "big", "data:", "  blob: "+blob(1_200_000))},
			want: one("ConfigMap", "ConfigMap/default/big", "big", "apps/cm.yaml", 6,
				"(k8s pkg/apis/core/validation ValidateConfigMap, MaxSecretSize): its data and binaryData hold 1200000 bytes, over the 1048576 a ConfigMap may hold ('Too long: may not be more than 1048576 bytes')",
				"Make data at apps/cm.yaml:6 smaller than the limit: split it into several objects, or ship the content another way (an image, a volume).")},
		{name: "Secret stringData of 1.1 MiB", files: map[string]string{"apps/s.yaml": obj("v1", "Secret", "default", "big", "stringData:", "  key: "+blob(1_153_434))},
			want: one("Secret", "Secret/default/big", "big", "apps/s.yaml", 2,
				"(k8s pkg/apis/core/validation ValidateSecret, MaxSecretSize): its data and stringData hold 1153434 bytes, over the 1048576 a Secret may hold ('Too long: may not be more than 1048576 bytes')",
				"Make data at apps/s.yaml:2 smaller than the limit: split it into several objects, or ship the content another way (an image, a volume).")},
		{name: "custom resource of 2 MB", files: map[string]string{"apps/w.yaml": widget(2_000_000)},
			want: one("Widget", "Widget.example.com/default/w", "w", "apps/w.yaml", 2,
				"(etcd --max-request-bytes): the object is 2000112 bytes of JSON, over etcd's default limit of 1572864 bytes for one request (etcdserver: request is too large), unless the cluster's etcd runs with a larger --max-request-bytes",
				"Make the object at apps/w.yaml:2 smaller than the limit: split it into several objects, or ship the content another way (an image, a volume).")},
		{name: "custom resource of 4 MB", files: map[string]string{"apps/w.yaml": widget(4_000_000)},
			want: one("Widget", "Widget.example.com/default/w", "w", "apps/w.yaml", 2,
				"(k8s.io/apiserver MaxRequestBodyBytes): the object is 4000112 bytes of JSON, over the 3145728 bytes the API server accepts in one write request (413 Request entity too large)",
				"Make the object at apps/w.yaml:2 smaller than the limit: split it into several objects, or ship the content another way (an image, a volume).")},
		{name: "ConfigMap data of exactly 1 MiB", files: map[string]string{"apps/cm.yaml": configMap("default", "edge", "data:", "  blob: "+blob(1<<20))}},
		{name: "binaryData of 900 KiB, 1.2 MB as base64", files: map[string]string{
			"apps/cm.yaml": configMap("default", "bin", "binaryData:", "  blob: "+base64.StdEncoding.EncodeToString([]byte(blob(900<<10))))}},
		{name: "custom resource of 1.5 MB", files: map[string]string{"apps/w.yaml": widget(1_500_000)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := renderTree(t, merge(tiers, tc.files))
			got := invalidSpec(c, nil, testEnv())
			if d := cmp.Diff(tc.want, got, cmp.AllowUnexported(Finding{}), cmpopts.IgnoreFields(Finding{}, "resolvedAdvice", "refs", "key")); d != "" {
				t.Errorf("findings (-want +got):\n%s", d)
			}
		})
	}
}
