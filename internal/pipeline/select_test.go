package pipeline

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestClusterSelectedByHeadName: --cluster names a cluster as the head shows it; a cluster
// renamed by the change is matched at base by its root, so its old findings stay existing
// (and its renamed folder, the old one gone, is root-path-changed).
func TestClusterSelectedByHeadName(t *testing.T) {
	dir := "../../testdata/scenarios/cluster-folder-rename"
	base := &Tree{Source: sourceWithID(t, filepath.Join(dir, "base"), ""), Rev: "base"}
	head := &Tree{Source: sourceWithID(t, filepath.Join(dir, "head"), ""), Rev: "head"}
	for _, name := range []string{"production", "staging"} {
		res, err := Trees(context.Background(), base, head, Options{Clusters: []string{name}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range res.Report.Findings {
			got = append(got, string(f.Status)+" "+f.Rule+" "+f.Cluster)
		}
		want := []string{"existing depends-on-not-found " + name}
		if name == "production" { // its folder is renamed and the old one gone: root-path-changed
			want = append([]string{"new root-path-changed production"}, want...)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("--cluster %s: findings (-want +got):\n%s", name, d)
		}
		if len(res.Report.Clusters) != 1 || res.Report.Clusters[0].Name != name {
			t.Errorf("--cluster %s: clusters %+v", name, res.Report.Clusters)
		}
	}
}
