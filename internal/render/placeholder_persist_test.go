package render

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/cachestore"
	"github.com/tiergate/tiergate/internal/config"
	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
)

// placeholderFiles is a tree whose HelmRelease reads two values from a valuesFrom Secret
// (token, pass) and sets replicas inline.
func placeholderFiles(replicas, token string) map[string]string {
	chart := webChart()
	chart["charts/web/templates/cm.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lic\n  annotations:\n    checksum/token: {{ .Values.token | sha256sum }}\n" +
		"data:\n  upper: {{ .Values.token | upper | quote }}\n  pass: {{ .Values.pass | b64enc | quote }}\n"
	return merge(bootstrap("dev"), chart, map[string]string{
		"clusters/dev/apps.yaml": ks("apps", "./apps"),
		"apps/web.yaml":          hr("web", gitChart, "values: {replicas: "+replicas+"}", "valuesFrom:\n    - {kind: Secret, name: web-values}"),
		"apps/secret.yaml":       "apiVersion: v1\nkind: Secret\nmetadata:\n  name: web-values\n  namespace: apps\nstringData:\n  values.yaml: |\n    token: " + token + "\n    pass: Pw7Hh2Kk9\n",
	})
}

// renderPersisted renders files as the tree id with a Cache persisted in dir, as a run of
// `bot review` does, and returns the chart's ConfigMap data and annotations.
func renderPersisted(t *testing.T, dir, id string, files map[string]string) map[string]string {
	t.Helper()
	st, err := cachestore.Open(dir, "test", 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c := NewCache(0)
	c.Persist(st)
	src, err := fsys.ReadSource(tree(t, files), graph.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	src.ID = id
	g, err := RenderSource(context.Background(), src, Options{Config: &config.Config{}, Cache: c})
	if err != nil {
		t.Fatal(err)
	}
	owners := g.Clusters[0].Owners[graph.ObjectID{Kind: "ConfigMap", Namespace: "apps", Name: "lic"}]
	if len(owners) != 1 {
		t.Fatalf("ConfigMap lic not rendered in %s", id)
	}
	out, _, _ := unstructured.NestedStringMap(owners[0].Body.Object, "data")
	out["checksum"] = owners[0].Body.GetAnnotations()["checksum/token"]
	return out
}

// TestPlaceholdersStableAcrossProcesses: the base is rendered by one process and kept in
// the persistent cache, the head by another that reads the base back. A Secret value that
// did not change keeps its placeholder (pass, and nothing at all when only the inline
// replicas changed); the one that changed gets a new one (token and its checksum); no
// placeholder holds the value.
func TestPlaceholdersStableAcrossProcesses(t *testing.T) {
	if dir := os.Getenv("TIERGATE_PLACEHOLDER_CHILD"); dir != "" {
		renderPersisted(t, dir, "base", placeholderFiles("1", "Tk4Qq8Zz1"))
		return
	}
	dir := t.TempDir()
	child := exec.Command(os.Args[0], "-test.run=^TestPlaceholdersStableAcrossProcesses$")
	child.Env = append(os.Environ(), "TIERGATE_PLACEHOLDER_CHILD="+dir)
	if out, err := child.CombinedOutput(); err != nil {
		t.Fatalf("first process: %v\n%s", err, out)
	}
	base := renderPersisted(t, dir, "base", placeholderFiles("1", "Tk4Qq8Zz1"))
	for _, tc := range []struct {
		name, id, replicas, token string
		changed                   []string
	}{
		{"inline value only", "head-replicas", "2", "Tk4Qq8Zz1", nil},
		{"one Secret value rotated", "head-rotate", "1", "Tk9NEWvv5", []string{"checksum", "upper"}},
	} {
		head := renderPersisted(t, dir, tc.id, placeholderFiles(tc.replicas, tc.token))
		var changed []string
		for k, v := range base {
			if head[k] != v {
				changed = append(changed, k)
			}
			for _, secret := range []string{"Tk4Qq8Zz1", "TK4QQ8ZZ1", "Tk9NEWvv5", "TK9NEWVV5", "Pw7Hh2Kk9"} {
				if strings.Contains(head[k], secret) || strings.Contains(v, secret) {
					t.Errorf("%s: %s holds a Secret value", tc.name, k)
				}
			}
		}
		slices.Sort(changed)
		if d := cmp.Diff(tc.changed, changed); d != "" {
			t.Errorf("%s: changed fields (-want +got):\n%s", tc.name, d)
		}
	}
}
