package rules

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestHelmRenderErrorCause: a render error points at the HelmRelease line that causes it
// and says what to change: the values key a `required`, a nil pointer or a schema
// violation names (the deepest of its keys that is set, else `values:`, else the
// HelmRelease), spec.postRenderers for a patch that does not apply, spec.chart for a
// missing library chart, a kubeVersion or an API version the cluster does not serve.
func TestHelmRenderErrorCause(t *testing.T) {
	chart := func(templates map[string]string, extra ...string) map[string]string {
		files := map[string]string{
			"charts/app/Chart.yaml": "apiVersion: v2\nname: app\nversion: 0.1.0\n",
			tierFile("apps"):        tier("apps", "./apps", true),
			"apps/ns.yaml":          namespaceObj("widgets"),
		}
		for name, body := range templates {
			files["charts/app/"+name] = body
		}
		for i := 0; i+1 < len(extra); i += 2 {
			files["charts/app/"+extra[i]] = extra[i+1]
		}
		return files
	}
	required := map[string]string{"values.yaml": "image: {}\n", "templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  tag: {{ required \"image.tag is required\" .Values.image.tag | quote }}\n"}
	const hrErr = "render HelmRelease widgets/app (chart app 0.1.0): "
	// widgetHR's spec lines start on line 6; its extra lines on line 11.
	cases := []struct {
		name       string
		files      map[string]string
		hr         []string
		line       int
		err        string // Helm's error, after hrErr
		suggestion string
	}{
		{"required names a key, its parent is set", chart(required), []string{"values:", "  replicas: 2", "  image:", "    repository: nginx"}, 13,
			"execution error at (app/templates/cm.yaml:6:10): image.tag is required",
			"Set `image.tag` in the values of HelmRelease widgets/app (spec.values, apps/hr.yaml:13, or the valuesFrom source that holds it): template app/templates/cm.yaml:6:10 stops with \"image.tag is required\" without it."},
		{"required names a key, no values", chart(required), nil, 2,
			"execution error at (app/templates/cm.yaml:6:10): image.tag is required",
			"Set `image.tag` in the values of HelmRelease widgets/app (spec.values, apps/hr.yaml:2, or the valuesFrom source that holds it): template app/templates/cm.yaml:6:10 stops with \"image.tag is required\" without it."},
		{"required, values from a ConfigMap", merge(chart(required), map[string]string{"apps/cm.yaml": configMap("widgets", "app-values", "data:", "  values.yaml: 'replicas: 1'")}), []string{"valuesFrom:", "  - {kind: ConfigMap, name: app-values}"}, 11,
			"execution error at (app/templates/cm.yaml:6:10): image.tag is required",
			"Set `image.tag` in the values of HelmRelease widgets/app (spec.values, apps/hr.yaml:11, or the valuesFrom source that holds it): template app/templates/cm.yaml:6:10 stops with \"image.tag is required\" without it."},
		{"fail names no key", chart(map[string]string{"templates/fail.yaml": `{{ fail "pick a storage backend" }}`}), []string{"values:", "  replicas: 2"}, 11,
			"execution error at (app/templates/fail.yaml:1:3): pick a storage backend",
			"Give HelmRelease widgets/app the values its chart asks for (`required`/`fail` in template app/templates/fail.yaml:1:3: \"pick a storage backend\"), in spec.values (apps/hr.yaml:11) or the valuesFrom source that holds them."},
		// The key a `fail` names nowhere in its text is the one its guard reads: the last
		// .Values reference before the failing action, on its line or the lines above.
		{"fail guarded by a value on its line", chart(map[string]string{"values.yaml": "strict: false\n",
			"templates/deploy.yaml": "{{- if .Values.strict }}{{ fail \"strict mode is not supported by this chart\" }}{{ end }}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n"}),
			[]string{"values:", "  replicas: 2", "  strict: true"}, 13,
			"execution error at (app/templates/deploy.yaml:1:27): strict mode is not supported by this chart",
			"Change `strict` in the values of HelmRelease widgets/app (spec.values, apps/hr.yaml:13, or the valuesFrom source that holds it): template app/templates/deploy.yaml:1:27 reads it where it stops with \"strict mode is not supported by this chart\"."},
		{"fail guarded on the line above", chart(map[string]string{
			"templates/db.yaml": "{{- if and .Values.db.enabled (not .Values.db.host) }}\n{{- fail \"a database needs a host\" }}\n{{- end }}\n"}),
			[]string{"values:", "  db:", "    enabled: true"}, 12,
			"execution error at (app/templates/db.yaml:2:4): a database needs a host",
			"Change `db.host` in the values of HelmRelease widgets/app (spec.values, apps/hr.yaml:12, or the valuesFrom source that holds it): template app/templates/db.yaml:2:4 reads it where it stops with \"a database needs a host\"."},
		{"nil pointer", chart(map[string]string{"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  host: {{ .Values.ingress.tls.host }}\n"}),
			[]string{"values:", "  ingress:", "    enabled: true"}, 12,
			"app/templates/cm.yaml:6:18\n  executing \"app/templates/cm.yaml\" at <.Values.ingress.tls.host>:\n    nil pointer evaluating interface {}.host",
			"Set `ingress.tls.host` in the values of HelmRelease widgets/app (spec.values, apps/hr.yaml:12) to what the chart expects there: a template reads .Values.ingress.tls.host and fails (nil pointer evaluating interface {}.host)."},
		{"schema violation", chart(map[string]string{"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n"},
			"values.schema.json", `{"type": "object", "properties": {"replicas": {"type": "integer", "minimum": 1}}}`),
			[]string{"values:", "  image: nginx", "  replicas: 0"}, 13,
			"values don't meet the specifications of the schema(s) in the following chart(s):\napp:\n- at '/replicas': minimum: got 0, want 1\n",
			"Make the values of HelmRelease widgets/app (apps/hr.yaml:13) meet the chart's values.schema.json: `replicas`: minimum: got 0, want 1."},
		{"subchart schema violation", merge(chart(map[string]string{"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n"}),
			map[string]string{"charts/app/Chart.yaml": "apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n  - {name: sub, version: 0.1.0}\n",
				"charts/app/charts/sub/Chart.yaml":         "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
				"charts/app/charts/sub/values.schema.json": `{"type": "object", "required": ["port"]}`}),
			[]string{"values:", "  sub:", "    host: db"}, 12,
			"values don't meet the specifications of the schema(s) in the following chart(s):\nsub:\n- at '': missing property 'port'\n",
			"Make the values of HelmRelease widgets/app (apps/hr.yaml:12) meet the chart's values.schema.json: `sub.port`: missing property 'port'."},
		{"object rendered twice", chart(map[string]string{"templates/a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n",
			"templates/b.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n"}),
			[]string{"values:", "  replicas: 1"}, 11,
			"error while running post render on files: may not add resource with an already registered id: ConfigMap.v1.[noGrp]/app.[noNs]",
			"The chart of HelmRelease widgets/app renders ConfigMap.v1.[noGrp]/app.[noNs] twice (a template and a hook, or two templates), which helm-controller's post-render rejects: set its values (apps/hr.yaml:11) so that only one of them renders."},
		{"API version not served", chart(map[string]string{"templates/sm.yaml": `{{ if not (.Capabilities.APIVersions.Has "monitoring.coreos.com/v1/ServiceMonitor") }}{{ fail "monitoring.coreos.com/v1/ServiceMonitor is not available: install the Prometheus Operator CRDs" }}{{ end }}`}),
			nil, 7,
			"execution error at (app/templates/sm.yaml:1:89): monitoring.coreos.com/v1/ServiceMonitor is not available: install the Prometheus Operator CRDs",
			"The chart stops because the cluster does not serve monitoring.coreos.com/v1/ServiceMonitor (\"monitoring.coreos.com/v1/ServiceMonitor is not available: install the Prometheus Operator CRDs\", template app/templates/sm.yaml:1:89): if the cluster serves it (a CRD installed out of band), add `- monitoring.coreos.com/v1/ServiceMonitor` to `apiVersions:` in .tiergate.yaml; otherwise install its CRD first (a Kustomization or HelmRelease that HelmRelease widgets/app depends on)."},
		{"kubeVersion", map[string]string{"charts/app/Chart.yaml": "apiVersion: v2\nname: app\nversion: 0.1.0\nkubeVersion: '>=1.40.0-0'\n",
			"charts/app/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n", tierFile("apps"): tier("apps", "./apps", true), "apps/ns.yaml": namespaceObj("widgets")},
			nil, 7,
			"chart requires kubeVersion: >=1.40.0-0 which is incompatible with Kubernetes v1.33.0",
			"The chart requires Kubernetes >=1.40.0-0 and tiergate renders for v1.33.0: if the cluster runs a version the chart accepts, set `kubeVersion:` in .tiergate.yaml to it; otherwise pin a chart version of HelmRelease widgets/app that supports the cluster's."},
		{"library chart missing", chart(map[string]string{"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ include \"common.names.fullname\" . }}\n"}),
			nil, 7,
			"app/templates/cm.yaml:4:11\n  executing \"app/templates/cm.yaml\" at <include \"common.names.fullname\" .>:\n    error calling include:\ntemplate: no template \"common.names.fullname\" associated with template \"gotpl\"",
			"Of HelmRelease widgets/app's chart, the chart includes the template \"common.names.fullname\", which none of its files defines: the library chart that defines it is missing. List the dependency in Chart.yaml `dependencies:` and run `helm dependency build` in the chart's folder, then commit its charts/ (source-controller packages a Git chart's charts/ as the tree holds them); for a chart from a repository, use a version that packages it."},
		{"postRenderers patch on a missing path", chart(map[string]string{"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n"}),
			[]string{"postRenderers:", "  - kustomize:", "      patches:", "        - target: {kind: ConfigMap}", `          patch: '[{"op": "replace", "path": "/data/missing", "value": "x"}]'`}, 11,
			"error while running post render on files: replace operation does not apply: doc is missing path: /data/missing: missing value",
			"Fix spec.postRenderers of HelmRelease widgets/app (apps/hr.yaml:11) so that it applies to what the chart renders: replace operation does not apply: doc is missing path: /data/missing: missing value."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := renderTree(t, merge(tc.files, map[string]string{"apps/hr.yaml": widgetHR("app", "app", tc.hr...)}))
			checkBuilt(t, c)
			got := helmRenderError(c, nil, testEnv())
			type row struct {
				Rule                string
				Severity            Severity
				File                string
				Line                int
				Message, Suggestion string
			}
			var rows []row
			for _, f := range got {
				rows = append(rows, row{f.Rule, f.Severity, f.File, f.Line, f.Message, f.Suggestion})
			}
			want := []row{{"helm-render-error", Error, "apps/hr.yaml", tc.line,
				"HelmRelease widgets/app's chart fails to render as helm-controller renders it, so its install or upgrade fails and the release keeps what it has: " + hrErr + tc.err,
				tc.suggestion}}
			if d := cmp.Diff(want, rows); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestFirstKey: the values key a `required`/`fail` message names, or none.
func TestFirstKey(t *testing.T) {
	for msg, want := range map[string]string{
		"image.tag is required":                   "image.tag",
		"A valid .Values.db.host entry required!": "db.host",
		"password is required":                    "password",
		"`auth.password` must be set":             "auth.password",
		"set ingress.host to the public name":     "ingress.host",
		"please set `token`":                      "token",
		"set a password":                          "",
		"This is required":                        "",
		"pick a storage backend":                  "",
	} {
		if got := firstKey(msg); got != want {
			t.Errorf("firstKey(%q) = %q, want %q", msg, got, want)
		}
	}
}
