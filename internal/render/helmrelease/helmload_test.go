package helmrelease

import (
	"testing"

	chart "helm.sh/helm/v4/pkg/chart/v2"

	"github.com/tiergate/tiergate/internal/render/rendertest"
)

// countingMemo is a ChartMemo that counts what it is asked and given.
type countingMemo struct {
	kept          map[string]*chart.Chart
	asked, keeps  int
	lastKeptBytes int64
}

func (m *countingMemo) Chart(key string) (*chart.Chart, bool) {
	m.asked++
	ch, ok := m.kept[key]
	return ch, ok
}

func (m *countingMemo) KeepChart(key string, ch *chart.Chart, size int64) {
	m.keeps++
	m.lastKeptBytes = size
	m.kept[key] = ch
}

// TestLoadRepoChartMemo: a chart loaded again from the same files comes from the memo (the
// same chart, the same digest as a load without memo); a changed file, another folder or
// valuesFiles load it again.
func TestLoadRepoChartMemo(t *testing.T) {
	const chartYAML = "apiVersion: v2\nname: app\nversion: 1.0.0\n"
	const tmpl = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"
	files := map[string]string{
		"charts/app/Chart.yaml": chartYAML, "charts/app/templates/cm.yaml": tmpl, "charts/app/values.yaml": "a: 1\n",
		"charts/copy/Chart.yaml": chartYAML, "charts/copy/templates/cm.yaml": tmpl, "charts/copy/values.yaml": "a: 1\n",
		"values/extra.yaml": "a: 2\n",
	}
	snap := rendertest.Snapshot(files)
	memo := &countingMemo{kept: map[string]*chart.Chart{}}
	app := ChartSource{InRepo: true, Dir: "charts/app"}
	plain, err := LoadRepoChart(snap, app, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	first, err := LoadRepoChartMemo(snap, app, 1<<20, memo)
	if err != nil {
		t.Fatal(err)
	}
	second, err := LoadRepoChartMemo(snap, app, 1<<20, memo)
	if err != nil {
		t.Fatal(err)
	}
	if second.Chart != first.Chart || second.Digest != plain.Digest || first.Digest != plain.Digest {
		t.Fatalf("second load: chart shared %v, digests %s %s, want %s", second.Chart == first.Chart, first.Digest, second.Digest, plain.Digest)
	}
	wantBytes := int64(len(chartYAML) + len(tmpl) + len("a: 1\n"))
	if memo.asked != 2 || memo.keeps != 1 || memo.lastKeptBytes != wantBytes {
		t.Fatalf("memo asked %d, kept %d (%d bytes), want 2, 1 (%d bytes)", memo.asked, memo.keeps, memo.lastKeptBytes, wantBytes)
	}

	// Same files in another folder: another key.
	if cp, err := LoadRepoChartMemo(snap, ChartSource{InRepo: true, Dir: "charts/copy"}, 1<<20, memo); err != nil || cp.Chart == first.Chart {
		t.Fatalf("charts/copy: err %v, shared with charts/app %v", err, cp != nil && cp.Chart == first.Chart)
	}
	// A changed template: loaded again, with another digest.
	files["charts/app/templates/cm.yaml"] = tmpl + "data: {}\n"
	changed, err := LoadRepoChartMemo(rendertest.Snapshot(files), app, 1<<20, memo)
	if err != nil {
		t.Fatal(err)
	}
	if changed.Chart == first.Chart || changed.Digest == first.Digest || memo.keeps != 3 {
		t.Fatalf("changed template: shared %v, digest %s (was %s), keeps %d, want a new load", changed.Chart == first.Chart, changed.Digest, first.Digest, memo.keeps)
	}
	// valuesFiles: never from the memo, never kept.
	asked, keeps := memo.asked, memo.keeps
	vf := app
	vf.ValuesFiles = []string{"values/extra.yaml"}
	withValues, err := LoadRepoChartMemo(snap, vf, 1<<20, memo)
	if err != nil {
		t.Fatal(err)
	}
	if memo.asked != asked || memo.keeps != keeps || withValues.Chart.Values["a"] != float64(2) {
		t.Fatalf("valuesFiles: memo asked %d→%d, kept %d→%d, a = %v; want untouched memo and a = 2", asked, memo.asked, keeps, memo.keeps, withValues.Chart.Values["a"])
	}
}
