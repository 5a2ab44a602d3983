package helmfile

import (
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type mapFiles map[string]string

func (m mapFiles) RegularFiles() []string {
	var out []string
	for f := range m {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

func (m mapFiles) ReadFile(rel string) ([]byte, bool) {
	s, ok := m[rel]
	return []byte(s), ok
}

func TestRead(t *testing.T) {
	for _, tc := range []struct {
		name     string
		files    mapFiles
		releases []Release
		notes    []Note
	}{
		{
			name: "helmfile.d apps and crds-only releases",
			files: mapFiles{
				"bootstrap/helmfile.d/00-crds.yaml": `---
helmDefaults:
  args: [--include-crds, --no-hooks]
releases:
  - name: kube-prometheus-stack
    namespace: observability
    chart: oci://ghcr.io/prometheus-community/charts/kube-prometheus-stack:72.0.0
  - name: gateway
    namespace: network
    chart: oci://mirror.gcr.io/envoyproxy/gateway-helm@sha256:abc
`,
				"bootstrap/helmfile.d/01-apps.yaml.gotmpl": `---
repositories:
  - name: jetstack
    url: https://charts.jetstack.io
---
releases:
  - name: cilium
    namespace: kube-system
    chart: cilium/cilium
    version: {{ .Values.cilium }}
    values: ['{{ requiredEnv "PWD" }}/values.yaml']
  - name: cert-manager
    namespace: cert-manager
    chart: jetstack/cert-manager
    needs: [kube-system/cilium]
  {{- if .Values.volsync }}
  - name: volsync
    chart: backube/volsync
    installed: false
  {{- end }}
  - name: spegel
    chart: '{{ .Values.registry }}/spegel'
`,
			},
			releases: []Release{
				{File: "bootstrap/helmfile.d/00-crds.yaml", Line: 5, Name: "kube-prometheus-stack", Namespace: "observability", Chart: "kube-prometheus-stack", NamespaceNotCreated: true},
				{File: "bootstrap/helmfile.d/00-crds.yaml", Line: 8, Name: "gateway", Namespace: "network", Chart: "gateway-helm", NamespaceNotCreated: true},
				{File: "bootstrap/helmfile.d/01-apps.yaml.gotmpl", Line: 7, Name: "cilium", Namespace: "kube-system", Chart: "cilium"},
				{File: "bootstrap/helmfile.d/01-apps.yaml.gotmpl", Line: 12, Name: "cert-manager", Namespace: "cert-manager", Chart: "cert-manager"},
			},
			notes: []Note{{File: "bootstrap/helmfile.d/01-apps.yaml.gotmpl", Line: 21, Text: "release spegel: chart is templated: not read", TemplatedRelease: "spegel"}},
		},
		{
			name: "schema-marked files, bases, templates and a local chart",
			files: mapFiles{
				"bootstrap/helmfile/apps.yaml": `---
# yaml-language-server: $schema=https://json.schemastore.org/helmfile
bases:
  - defaults.yaml
defaultInherit: oci
releases:
  - name: external-secrets
    namespace: external-secrets
  - name: flux-operator
    chart: '{{ .Values.operator }}'
  - name: mine
    inherit:
      - template: local
`,
				"bootstrap/helmfile/defaults.yaml": `---
# yaml-language-server: $schema=https://json.schemastore.org/helmfile
templates:
  oci:
    chart: oci://ghcr.io/{{ .Release.Name }}/charts/{{ .Release.Name }}
  local:
    chart: ../charts/crds
`,
				"bootstrap/charts/crds/Chart.yaml": "apiVersion: v2\nname: cluster-crds\nversion: 1.0.0\n",
				".archive/helmfile.yaml":           "releases:\n  - name: old\n    chart: jetstack/cert-manager\n",
				"kubernetes/apps/ks.yaml":          "apiVersion: v1\nkind: ConfigMap\n",
			},
			releases: []Release{
				{File: "bootstrap/helmfile/apps.yaml", Line: 11, Name: "mine", Chart: "cluster-crds"},
			},
			notes: []Note{
				{File: "bootstrap/helmfile/apps.yaml", Line: 7, Text: "release external-secrets: chart is templated: not read", TemplatedRelease: "external-secrets", TemplatedNamespace: "external-secrets"},
				{File: "bootstrap/helmfile/apps.yaml", Line: 9, Text: "release flux-operator: chart is templated: not read", TemplatedRelease: "flux-operator"},
			},
		},
		{
			name: "nested helmfiles, a glob, a missing base and a parse error",
			files: mapFiles{
				"helmfile.yaml": `helmfiles:
  - path: infra/*/helmfile.yaml
  - apps.yaml
bases: [missing.yaml]
`,
				"infra/a/helmfile.yaml": "releases:\n  - name: longhorn\n    chart: longhorn/longhorn\n    condition: longhorn.enabled\n",
				"infra/b/helmfile.yaml": "releases:\n  - name: velero\n    chart: vmware-tanzu/velero\n",
				"apps.yaml":             "releases:\n  - name: x\n    chart: [\n",
			},
			releases: []Release{{File: "infra/b/helmfile.yaml", Line: 2, Name: "velero", Chart: "velero"}},
			notes: []Note{
				{File: "apps.yaml", Line: 3, Text: "not read: yaml: line 3: did not find expected node content"},
				{File: "helmfile.yaml", Line: 4, Text: "bases entry missing.yaml: no such file in the repository"},
				{File: "infra/a/helmfile.yaml", Line: 2, Text: "release longhorn is installed only when longhorn.enabled is true: not read"},
			},
		},
		{
			name: "release templates merged with YAML anchors",
			files: mapFiles{
				"helmfile.yaml": `templates:
  crds: &crds
    chart: oci://ghcr.io/home-operations/charts-mirror/external-dns
    namespace: network
releases:
  - name: external-dns
    <<: *crds
`,
			},
			releases: []Release{{File: "helmfile.yaml", Line: 6, Name: "external-dns", Namespace: "network", Chart: "external-dns"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rels, notes := Read(tc.files)
			if d := cmp.Diff(tc.releases, rels); d != "" {
				t.Errorf("releases (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.notes, notes); d != "" {
				t.Errorf("notes (-want +got):\n%s", d)
			}
		})
	}
}

// TestReadHostile: bases that include themselves or fan out end with notes, not a hang.
func TestReadHostile(t *testing.T) {
	files := mapFiles{
		"helmfile.yaml": "bases: [helmfile.yaml, b/*.yaml]\nreleases:\n  - name: cm\n    chart: jetstack/cert-manager\n",
	}
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		files["b/"+n+".yaml"] = "bases: ['*.yaml']\n"
	}
	rels, notes := Read(files)
	if d := cmp.Diff([]Release{{File: "helmfile.yaml", Line: 3, Name: "cm", Chart: "cert-manager"}}, rels); d != "" {
		t.Errorf("releases (-want +got):\n%s", d)
	}
	want := Note{File: "helmfile.yaml", Line: 1, Text: "bases entry helmfile.yaml includes itself: not read again"}
	if len(notes) == 0 || notes[len(notes)-1] != want {
		t.Errorf("last note %v, want %v (%d notes)", notes[len(notes)-1:], want, len(notes))
	}
	limit := 0
	for _, n := range notes {
		if n.Text == "more than 2000 helmfile loads (bases, helmfiles): the rest is not read" {
			limit++
		}
	}
	if limit != 1 || len(notes) != 10 {
		t.Errorf("%d load-limit notes, want 1; %d notes, want 10 (one per file and cause): %v", limit, len(notes), notes)
	}
}
