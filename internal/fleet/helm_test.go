package fleet_test

import (
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/fleet"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// TestHelmReleaseFleet checks what HelmReleases adds: a HelmRelease in each of the first
// H app tiers of every cluster, the in-repo chart, and a chart-bump head.
func TestHelmReleaseFleet(t *testing.T) {
	spec := small
	spec.HelmReleases = 3
	fr, g := write(t, spec)
	if _, ok := fr.Heads[fleet.ChartBump]; !ok || len(fr.Heads) != len(fleet.Shapes)+1 {
		t.Fatalf("heads %v: want every shape and chart-bump", fr.Heads)
	}
	gr := renderCommit(t, g, fr.Base)
	for _, c := range gr.Clusters {
		var releases []string
		for id, objs := range c.Owners {
			if id.Kind == "HelmRelease" {
				releases = append(releases, objs[0].Owner.Name+" "+id.Namespace+"/"+id.Name)
				hr := objs[0].Body.Object
				want := map[string]any{"image": map[string]any{"tag": imageOf(c, id.Name)}, "cluster": c.Name}
				if diff := cmp.Diff(want, hr["spec"].(map[string]any)["values"]); diff != "" {
					t.Errorf("%s %s values (-want +got):\n%s", c.Name, id.Name, diff)
				}
			}
		}
		sort.Strings(releases)
		want := []string{"app-0000 app-0000/app-0000", "app-0001 app-0001/app-0001", "app-0002 app-0002/app-0002"}
		if diff := cmp.Diff(want, releases); diff != "" {
			t.Errorf("%s HelmReleases (-want +got):\n%s", c.Name, diff)
		}
		// Each release renders the chart's eight templates in its namespace, with the
		// region its valuesFrom reads from the app's substituted ConfigMap.
		var objs []string
		for id, os := range c.Owners {
			if os[0].HelmRelease == "app-0001/app-0001" {
				objs = append(objs, id.String())
			}
		}
		sort.Strings(objs)
		wantObjs := []string{"ConfigMap/app-0001/app-0001-app", "Deployment.apps/app-0001/app-0001-app", "Ingress.networking.k8s.io/app-0001/app-0001-app",
			"PodDisruptionBudget.policy/app-0001/app-0001-app", "Role.rbac.authorization.k8s.io/app-0001/app-0001-app",
			"RoleBinding.rbac.authorization.k8s.io/app-0001/app-0001-app", "Service/app-0001/app-0001-app", "ServiceAccount/app-0001/app-0001-app"}
		if diff := cmp.Diff(wantObjs, objs); diff != "" {
			t.Errorf("%s objects of HelmRelease app-0001 (-want +got):\n%s", c.Name, diff)
		}
		dep := c.Owners[graph.ObjectID{Group: "apps", Kind: "Deployment", Namespace: "app-0001", Name: "app-0001-app"}][0]
		region, _, _ := unstructured.NestedString(dep.Body.Object, "metadata", "labels", "fleet.example/region")
		vars := c.Owners[graph.ObjectID{Kind: "ConfigMap", Namespace: "flux-system", Name: "cluster-vars"}][0]
		if want, _, _ := unstructured.NestedString(vars.Body.Object, "data", "region"); region != want || want == "" {
			t.Errorf("%s: Deployment region label %q, want the cluster's region %q", c.Name, region, want)
		}
	}
	for _, head := range []fleet.Shape{"", fleet.ChartBump} {
		commit := fr.Base
		if head != "" {
			commit = fr.Heads[head]
		}
		c := renderCommit(t, g, commit).Clusters[0]
		data, ok := c.ReadFile("charts/app/Chart.yaml")
		want := map[fleet.Shape]string{"": "apiVersion: v2\nname: app\nversion: 1.0.0\nappVersion: \"1.0\"\n",
			fleet.ChartBump: "apiVersion: v2\nname: app\nversion: 1.1.0\nappVersion: \"1.0\"\n"}[head]
		if !ok || string(data) != want {
			t.Errorf("%q: charts/app/Chart.yaml = %q, want %q", head, data, want)
		}
	}
}

// imageOf is the image tag of app's Deployment app-3 in c.
func imageOf(c *graph.Cluster, app string) string {
	for _, o := range c.Owners[graph.ObjectID{Group: "apps", Kind: "Deployment", Namespace: app, Name: app + "-3"}] {
		cs, _, _ := unstructured.NestedSlice(o.Body.Object, "spec", "template", "spec", "containers")
		if len(cs) > 0 {
			img := cs[0].(map[string]any)["image"].(string)
			return img[len("registry.example.invalid/"+app+":"):]
		}
	}
	return ""
}
