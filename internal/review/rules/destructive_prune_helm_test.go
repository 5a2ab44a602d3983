package rules

import "testing"

// TestDestructivePruneHelmAndData: a chart's upgrade deletes what left it; database custom
// resources are data; a volume whose reclaim policy is Retain keeps its data (a notice).
func TestDestructivePruneHelmAndData(t *testing.T) {
	tiers := map[string]string{tierFile("a"): tier("a", "./a", true), "a/keep.yaml": configMap("default", "keep-a")}
	hr := map[string]string{"a/hr.yaml": helmRelease("default", "app", "app")}
	cm := map[string]string{"templates/cm.yaml": configMap("", "cm")}
	pgCluster := obj("postgresql.cnpg.io/v1", "Cluster", "default", "db", "spec:", "  instances: 1")
	pv := func(policy string) string {
		return obj("v1", "PersistentVolume", "", "vol", "spec:", "  capacity: {storage: 1Gi}", "  accessModes: [ReadWriteOnce]",
			"  persistentVolumeReclaimPolicy: "+policy, "  hostPath: {path: /data}")
	}
	retainClass := obj("storage.k8s.io/v1", "StorageClass", "", "keep", "provisioner: example.com/disk", "reclaimPolicy: Retain")
	cases := []struct {
		name       string
		base, head map[string]string
		want       []want
	}{
		{
			name: "a PersistentVolumeClaim leaves the chart",
			base: merge(tiers, hr, chart("app", merge(cm, map[string]string{"templates/pvc.yaml": pvc("", "data", "")}))),
			head: merge(tiers, hr, chart("app", cm)),
			want: []want{{Rule: "destructive-prune", Severity: Error, Kustomization: "flux-system/a", Object: "PersistentVolumeClaim/default/data", File: "a/hr.yaml", Line: 2,
				Msg:  []string{"is no longer rendered by the chart of HelmRelease default/app (applied by flux-system/a): the release's upgrade deletes it; under the usual Delete reclaim policy"},
				Sugg: []string{"`helm.sh/resource-policy: keep`", "template app/templates/pvc.yaml"}}},
		},
		{
			name: "negative: a kept PersistentVolumeClaim leaves the chart",
			base: merge(tiers, hr, chart("app", merge(cm, map[string]string{"templates/pvc.yaml": withAnnotation(pvc("", "data", ""), "helm.sh/resource-policy", "keep")}))),
			head: merge(tiers, hr, chart("app", cm)),
		},
		{
			name: "a CloudNativePG Cluster removed",
			base: merge(tiers, map[string]string{"a/db.yaml": pgCluster}), head: tiers,
			want: []want{{Rule: "destructive-prune", Severity: Error, Kustomization: "flux-system/a", Object: "Cluster.postgresql.cnpg.io/default/db", File: "a/db.yaml", Line: 2,
				Msg: []string{"its operator tears down the database or storage cluster it runs"}}},
		},
		{
			name: "a Retain PersistentVolume removed: a notice",
			base: merge(tiers, map[string]string{"a/pv.yaml": pv("Retain")}), head: tiers,
			want: []want{{Rule: "destructive-prune", Severity: Notice, Kustomization: "flux-system/a", Object: "PersistentVolume/vol", File: "a/pv.yaml", Line: 2,
				Msg: []string{"its reclaim policy is Retain, so the data stays on the backing volume"}, Sugg: []string{"No data is lost"}}},
		},
		{
			name: "negative: a Delete PersistentVolume removed is an error",
			base: merge(tiers, map[string]string{"a/pv.yaml": pv("Delete")}), head: tiers,
			want: []want{{Rule: "destructive-prune", Severity: Error, Kustomization: "flux-system/a", Object: "PersistentVolume/vol", File: "a/pv.yaml", Line: 2}},
		},
		{
			name: "a PersistentVolumeClaim of a Retain StorageClass removed: a notice",
			base: merge(tiers, map[string]string{"a/sc.yaml": retainClass, "a/pvc.yaml": pvc("default", "data", "keep")}),
			head: merge(tiers, map[string]string{"a/sc.yaml": retainClass}),
			want: []want{{Rule: "destructive-prune", Severity: Notice, Kustomization: "flux-system/a", Object: "PersistentVolumeClaim/default/data", File: "a/pvc.yaml", Line: 2,
				Msg: []string{"its StorageClass keep has reclaimPolicy Retain"}}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base, head := renderBuilt(t, tc.base, tc.head)
			checkFindings(t, changeRule(t, "destructive-prune")(base, head, testEnv()), tc.want)
		})
	}
}
