package helm

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	commonutil "helm.sh/helm/v4/pkg/chart/common/util"
)

func schemaChart(schema string, extra map[string]string) map[string]string {
	files := map[string]string{
		"Chart.yaml":         "apiVersion: v2\nname: schema\nversion: 0.1.0\n",
		"values.yaml":        "replicas: 1\nimage: nginx\n",
		"values.schema.json": schema,
		"templates/cm.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  replicas: {{ .Values.replicas | quote }}\n",
	}
	for k, v := range extra {
		files[k] = v
	}
	return files
}

// TestRenderSchemaLocalRefs: $refs into the schema itself and to files of the chart work.
func TestRenderSchemaLocalRefs(t *testing.T) {
	const schema = `{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
  "properties": {"replicas": {"$ref": "#/$defs/count"}, "image": {"$ref": "defs/image.json"}},
  "$defs": {"count": {"type": "integer", "minimum": 1}}}`
	files := schemaChart(schema, map[string]string{"defs/image.json": `{"type": "string", "pattern": "^[a-z]+$"}`})
	for _, tc := range []struct {
		name   string
		values map[string]any
		err    string
	}{
		{"valid", map[string]any{"replicas": 3}, ""},
		{"invalid in the schema and in the referenced file", map[string]any{"replicas": 0, "image": "Nginx:1"},
			"render HelmRelease flux-system/web (chart schema 0.1.0): values don't meet the specifications of the schema(s) in the following chart(s):\nschema:\n" +
				"- at '/image': 'Nginx:1' does not match pattern '^[a-z]+$'\n- at '/replicas': minimum: got 0, want 1\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Render(context.Background(), Request{Chart: loadChart(t, files), HelmRelease: hrObj(t, "  chart: {}\n"), Values: tc.values})
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("Render error:\n got %v\nwant %s", err, tc.err)
				}
				return
			}
			if err != nil || len(res.Docs) != 1 || res.Approximate != nil {
				t.Fatalf("Render: %v, %+v", err, res)
			}
		})
	}
	// The schema is checked before the templates run, as in Helm.
	broken := schemaChart(schema, map[string]string{"defs/image.json": `{"type": "string"}`, "templates/fail.yaml": `{{ fail "templates ran" }}`})
	if _, err := Render(context.Background(), Request{Chart: loadChart(t, broken), HelmRelease: hrObj(t, "  chart: {}\n"), Values: map[string]any{"replicas": 0}}); err == nil ||
		!strings.HasSuffix(err.Error(), "schema:\n- at '/replicas': minimum: got 0, want 1\n") {
		t.Errorf("schema before templates: %v", err)
	}
	// disableSchemaValidation turns the check off, as in the controller.
	if _, err := Render(context.Background(), Request{Chart: loadChart(t, files), HelmRelease: hrObj(t, "  install:\n    disableSchemaValidation: true\n"),
		Values: map[string]any{"replicas": 0}}); err != nil {
		t.Errorf("disableSchemaValidation: %v", err)
	}
}

// TestRenderSchemaRefsNotRead: an http $ref is not fetched and a file:// $ref to a host file
// is not read; both would reject every value (and name a marker) if they were. Helm's own
// validator, given the same schema, does both: the fixture is live.
func TestRenderSchemaRefsNotRead(t *testing.T) {
	const reject = `{"not": {}, "description": "MARKER-FROM-OUTSIDE"}`
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.Write([]byte(reject))
	}))
	defer srv.Close()
	host := filepath.Join(t.TempDir(), "host.json")
	if err := os.WriteFile(host, []byte(reject), 0o600); err != nil {
		t.Fatal(err)
	}
	schema := `{"type": "object", "properties": {"replicas": {"$ref": "` + srv.URL + `/remote.json"}, "image": {"$ref": "file://` + host + `"}}}`
	files := schemaChart(schema, nil)

	res, err := Render(context.Background(), Request{Chart: loadChart(t, files), HelmRelease: hrObj(t, "  chart: {}\n")})
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	if diff := cmp.Diff([]string{"schema $ref file://" + host, "schema $ref " + srv.URL + "/remote.json"}, res.Approximate); diff != "" {
		t.Errorf("Approximate (-want +got):\n%s", diff)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the http $ref was fetched %d times", n)
	}

	err = commonutil.ValidateAgainstSingleSchema(map[string]any{"replicas": 1, "image": "nginx"}, []byte(schema))
	if err == nil || hits.Load() != 1 {
		t.Fatalf("control: Helm's validator returned %v after %d fetches; the fixture does not exercise the loaders", err, hits.Load())
	}
	if !strings.Contains(err.Error(), "/image") || !strings.Contains(err.Error(), "/replicas") {
		t.Errorf("control: Helm's validator did not apply both outside schemas: %v", err)
	}
}

// TestRenderSchemaSubchart: an enabled subchart's schema checks its section of the values.
func TestRenderSchemaSubchart(t *testing.T) {
	files := schemaChart(`{"type": "object"}`, map[string]string{
		"Chart.yaml":                     "apiVersion: v2\nname: schema\nversion: 0.1.0\ndependencies:\n- name: sub\n  version: 0.1.0\n",
		"charts/sub/Chart.yaml":          "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
		"charts/sub/values.schema.json":  `{"type": "object", "required": ["port"]}`,
		"charts/sub/templates/none.yaml": "",
	})
	_, err := Render(context.Background(), Request{Chart: loadChart(t, files), HelmRelease: hrObj(t, "  chart: {}\n"), Values: map[string]any{"sub": map[string]any{"name": "x"}}})
	want := "render HelmRelease flux-system/web (chart schema 0.1.0): values don't meet the specifications of the schema(s) in the following chart(s):\nsub:\n- at '': missing property 'port'\n"
	if err == nil || err.Error() != want {
		t.Fatalf("Render error:\n got %v\nwant %s", err, want)
	}
}
