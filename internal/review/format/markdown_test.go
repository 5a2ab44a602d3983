package format

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/review"
	"github.com/tiergate/tiergate/internal/review/rules"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// hostile is an object name that tries to break the table, the HTML and the marker.
const hostile = "a|b<!-- tiergate --><script>alert(1)</script>"

func obj(group, kind, ns, name string) *graph.ObjectID {
	return &graph.ObjectID{Group: group, Kind: kind, Namespace: ns, Name: name}
}

// fixture is a two-cluster report with every section filled, in the order Review sorts.
func fixture() *review.Report {
	vm, ssd := obj("cdi.kubevirt.io", "StorageProfile", "", "longhorn-vm"), obj("cdi.kubevirt.io", "StorageProfile", "", "longhorn-ssd")
	return &review.Report{
		Base: "1111111", Head: "2222222",
		Clusters: []review.ClusterSummary{
			{Name: "dev", Root: "clusters/dev", Kustomizations: 5, Objects: 42, Partial: []graph.Partial{
				{Kustomization: "flux-system/monitoring", Reason: "remote resources not fetched", URLs: []string{"https://example.com/a.yaml", "https://example.com/b|c.yaml"}},
			}},
			{Name: "prod", Root: "clusters/prod", Kustomizations: 3, Objects: 20, Partial: []graph.Partial{}},
		},
		Moves: []rules.Move{
			{Cluster: "dev", Object: *vm, From: "flux-system/platform-config", To: "flux-system/platform-config-cdi"},
			{Cluster: "dev", Object: *ssd, From: "flux-system/platform-config", To: "flux-system/platform-config-cdi"},
		},
		Findings: []rules.Finding{
			{Rule: "missing-depends-on", Severity: rules.Error, Status: rules.StatusNew, Cluster: "dev",
				Object: obj("cert-manager.io", "Certificate", "apps", "web"), Kustomization: "flux-system/apps",
				Message:    "Certificate.cert-manager.io/apps/web in flux-system/apps needs the CRD of cert-manager.io/Certificate from flux-system/infra, but flux-system/apps has no dependsOn path to flux-system/infra: on a cold cluster its apply fails until they exist.",
				Suggestion: "Set in Kustomization flux-system/apps (clusters/dev/apps.yaml:3):\n  dependsOn:\n    - name: infra",
				DependsOn:  "flux-system/infra",
				File:       "apps/web/certificate.yaml", Line: 2},
			{Rule: "missing-depends-on", Severity: rules.Error, Status: rules.StatusNew, Cluster: "prod",
				Object: obj("", "ConfigMap", "web", "settings"), Kustomization: "apps/web",
				Message:    "ConfigMap/web/settings in apps/web needs Namespace web from flux-system/db, but apps/web has no dependsOn path to flux-system/db: on a cold cluster its apply fails until they exist.",
				Suggestion: "Set in Kustomization apps/web (clusters/prod/web.yaml:7):\n  dependsOn:\n    - name: db\n      namespace: flux-system",
				DependsOn:  "flux-system/db",
				File:       "web/settings.yaml", Line: 4},
			{Rule: "prune-transient", Severity: rules.Warning, Status: rules.StatusNew, Cluster: "dev", Object: vm, Kustomization: "flux-system/platform-config",
				Message:    "StorageProfile.cdi.kubevirt.io/longhorn-vm leaves flux-system/platform-config (prune: true) for flux-system/platform-config-cdi, and neither reaches the other: it may be deleted and re-created.",
				Suggestion: "First annotate it `kustomize.toolkit.fluxcd.io/prune: disabled` in flux-system/platform-config and merge; then move it.",
				File:       "platform-config-cdi/cdi-storageprofiles.yaml", Line: 2},
			{Rule: "tier-move", Severity: rules.Notice, Status: rules.StatusNew, Cluster: "dev", Object: vm, Kustomization: "flux-system/platform-config-cdi",
				Message:    "StorageProfile.cdi.kubevirt.io/longhorn-vm moves from flux-system/platform-config to flux-system/platform-config-cdi.",
				Suggestion: "No action needed if the move is intended: a move that deletes the object on the way is reported as prune-transient, or helm-uninstall for a chart.",
				File:       "platform-config-cdi/cdi-storageprofiles.yaml", Line: 2},
			{Rule: "destructive-prune", Severity: rules.None, Status: rules.StatusNew, Cluster: "dev", Object: obj("", "ConfigMap", "apps", hostile), Kustomization: "flux-system/apps",
				Message:    "ConfigMap/apps/" + hostile + " is removed from git;\nFlux deletes it | `prune: true`.",
				Suggestion: "```\n" + Marker + "\n```",
				File:       "apps/weird.yaml", Line: 1},
			{Rule: "depends-on-not-found", Severity: rules.Error, Status: rules.StatusExisting, Cluster: "prod", Kustomization: "flux-system/db",
				Message:    "flux-system/db depends on flux-system/gone, which is not in the cluster.",
				Suggestion: "Remove `- name: gone` from spec.dependsOn of flux-system/db, or point it at an existing Kustomization.",
				File:       "clusters/prod/db.yaml"},
			{Rule: "render-error", Severity: rules.Error, Status: rules.StatusResolved, Cluster: "dev", Kustomization: "flux-system/platform-config-cdi",
				Message: "kustomize build failed: missing file cdi.yaml", Suggestion: "Fix platform-config-cdi/kustomization.yaml:4."},
		},
		Added: []review.ObjectChange{
			{Cluster: "dev", Object: *obj("", "ConfigMap", "apps", hostile), Kustomization: "flux-system/apps", File: "apps/weird.yaml", Line: 1},
		},
		Removed: []review.ObjectChange{
			{Cluster: "prod", Object: *obj("", "Secret", "db", "old-creds"), Kustomization: "flux-system/db", File: "db/old.yaml", Line: 3},
		},
		KustomizationChanges: []review.KustomizationChange{
			{Cluster: "dev", Kustomization: "flux-system/platform-config-cdi", Change: review.Added, File: "clusters/dev/platform-config-cdi.yaml", Line: 2},
			{Cluster: "dev", Kustomization: "flux-system/apps", Change: review.Changed, File: "clusters/dev/apps.yaml", Line: 3,
				Diff: "--- base\n+++ head\n@@ -5,3 +5,4 @@\n   prune: true\n+  dependsOn:\n+  - name: platform-config\n   path: ./apps\n"},
		},
		Changed: []review.ObjectChange{
			{Cluster: "dev", Object: *obj("", "Secret", "apps", "web-creds"), Kustomization: "flux-system/apps", File: "apps/web/secret.yaml", Line: 2,
				Diff: "--- base\n+++ head\n@@ -1,4 +1,5 @@\n data:\n   password: <redacted, changed>\n+  token: <redacted>\n kind: Secret\n"},
			{Cluster: "dev", Object: *obj("", "ConfigMap", "apps", "readme"), Kustomization: "flux-system/apps", File: "apps/readme.yaml", Line: 1,
				Diff: "--- base\n+++ head\n@@ -1,3 +1,6 @@\n data:\n   README.md: |\n+    ```\n+    " + Marker + " </details> <script>\n+    ````\n"},
		},
		Graphs: []review.ClusterGraph{
			{Cluster: "dev", Nodes: []review.GraphNode{
				{Kustomization: "flux-system/flux-system"},
				{Kustomization: "flux-system/infra", Parent: "flux-system/flux-system"},
				{Kustomization: "flux-system/apps", Parent: "flux-system/flux-system", DependsOn: []string{"flux-system/platform-config"}},
				{Kustomization: "flux-system/platform-config", Parent: "flux-system/flux-system", DependsOn: []string{"flux-system/infra"}},
				{Kustomization: "flux-system/platform-config-cdi", Parent: "flux-system/flux-system", Failed: true},
			}},
			{Cluster: "prod", Nodes: []review.GraphNode{
				{Kustomization: "flux-system/flux-system"},
				{Kustomization: "flux-system/db", Parent: "flux-system/flux-system", DependsOn: []string{"flux-system/gone"}},
				{Kustomization: "apps/web", Parent: "flux-system/flux-system"},
			}},
		},
	}
}

func TestMarkdownGolden(t *testing.T) {
	r := fixture()
	got := Markdown(r, MarkdownOptions{})
	checkStructure(t, got)
	checkFindingRows(t, got, r)
	if strings.Contains(got, "✂️") {
		t.Errorf("a report within the limit is cut")
	}
	for _, bad := range []string{"<script>", "a|b"} {
		if strings.Contains(got, bad) && !insideFences(got, bad) {
			t.Errorf("%q appears unescaped outside code blocks", bad)
		}
	}
	golden := filepath.Join("testdata", "markdown.golden.md")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("Markdown mismatch (-want +got), rerun with -update after review:\n%s", diff)
	}
}

// TestMarkdownFindings checks the findings section of a one-cluster report exactly: the new
// findings in four columns (no cluster: there is one), the others collapsed, code spans kept.
func TestMarkdownFindings(t *testing.T) {
	r := &review.Report{
		Clusters: []review.ClusterSummary{{Name: "dev", Kustomizations: 2, Objects: 3}},
		Findings: []rules.Finding{
			{Rule: "prune-transient", Severity: rules.Warning, Status: rules.StatusNew, Cluster: "dev",
				Object: obj("", "PersistentVolumeClaim", "web", "data"), Kustomization: "flux-system/apps",
				Message:    "PersistentVolumeClaim/web/data leaves flux-system/apps (`prune: true`).",
				Suggestion: "Add `kustomize.toolkit.fluxcd.io/prune: disabled` first; ` x`, `a|b` and `token: <redacted>` stay code; `` is empty.",
				File:       "db/data.yaml", Line: 2},
			{Rule: "depends-on-not-found", Severity: rules.Error, Status: rules.StatusExisting, Cluster: "dev",
				Kustomization: "flux-system/db", Message: "flux-system/db depends on flux-system/gone.", File: "clusters/dev/db.yaml", Line: 9},
			{Rule: "render-error", Severity: rules.Error, Status: rules.StatusResolved, Cluster: "dev",
				Kustomization: "flux-system/infra", Message: "an unpaired ` stays escaped"},
		},
	}
	want := Marker + `
### ⚠️ tiergate: 1 new warning

1 existing, 1 resolved · 1 cluster, 2 Kustomizations, 3 objects

#### Findings

| Severity | Rule | Where | Message |
|---|---|---|---|
| ⚠️ warning | ` + "`prune-transient`" + ` | flux-system/apps<br>PersistentVolumeClaim/web/data<br>` + "`db/data.yaml:2`" + ` | PersistentVolumeClaim/web/data leaves flux-system/apps (` + "`prune: true`" + `). |

<details><summary>Suggestions (1)</summary>

` + "`prune-transient`" + ` · dev · flux-system/apps · PersistentVolumeClaim/web/data: Add ` + "`kustomize.toolkit.fluxcd.io/prune: disabled`" + ` first; <code> x</code>, <code>a&#124;b</code> and ` + "`token: <redacted>`" + ` stay code; &#96;&#96; is empty.

</details>

#### Resolved

| Severity | Rule | Where | Message |
|---|---|---|---|
| ❌ error | ` + "`render-error`" + ` | flux-system/infra | an unpaired &#96; stays escaped |

<details><summary>1 existing finding (1 error)</summary>

| Severity | Rule | Where | Message |
|---|---|---|---|
| ❌ error | ` + "`depends-on-not-found`" + ` | flux-system/db<br>` + "`clusters/dev/db.yaml:9`" + ` | flux-system/db depends on flux-system/gone. |

</details>
`
	if diff := cmp.Diff(want, Markdown(r, MarkdownOptions{})); diff != "" {
		t.Errorf("Markdown mismatch (-want +got):\n%s", diff)
	}
}

// TestMarkdownMovesCollapsed checks that a moves table over maxOpenMoves rows is collapsed.
func TestMarkdownMovesCollapsed(t *testing.T) {
	r := &review.Report{}
	rows := ""
	for i := range maxOpenMoves + 1 {
		r.Moves = append(r.Moves, rules.Move{Cluster: "dev", Object: *obj("", "ConfigMap", "apps", fmt.Sprintf("cm-%d", i)),
			From: "flux-system/apps", To: "flux-system/config"})
		rows += fmt.Sprintf("| dev | ConfigMap/apps/cm-%d | flux-system/apps | flux-system/config |\n", i)
	}
	want := "\n#### Moves\n\n<details><summary>11 objects move</summary>\n\n| Cluster | Object | From | To |\n|---|---|---|---|\n" +
		rows + "\n</details>\n"
	got := Markdown(r, MarkdownOptions{})
	if _, moves, _ := strings.Cut(got, "objects\n"); moves != want {
		t.Errorf("moves section = %q, want %q", moves, want)
	}
	r.Moves = r.Moves[:maxOpenMoves]
	if got := Markdown(r, MarkdownOptions{}); !strings.Contains(got, "\n#### Moves\n\n| Cluster |") {
		t.Errorf("%d moves are collapsed:\n%s", maxOpenMoves, got)
	}
}

func TestMarkdownVerdict(t *testing.T) {
	tests := []struct {
		name     string
		findings []rules.Finding
		want     string
	}{
		{"none", nil, "### ✅ tiergate: no new findings"},
		{"errors and warning", []rules.Finding{
			{Severity: rules.Error, Status: rules.StatusNew}, {Severity: rules.Error, Status: rules.StatusNew},
			{Severity: rules.Warning, Status: rules.StatusNew}, {Severity: rules.Error, Status: rules.StatusExisting},
		}, "### ❌ tiergate: 2 new errors, 1 new warning"},
		{"warnings", []rules.Finding{{Severity: rules.Warning, Status: rules.StatusNew}, {Severity: rules.Warning, Status: rules.StatusNew}}, "### ⚠️ tiergate: 2 new warnings"},
		{"notice only", []rules.Finding{{Severity: rules.Notice, Status: rules.StatusNew}, {Severity: rules.Error, Status: rules.StatusResolved}}, "### ✅ tiergate: 1 new notice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := strings.Split(Markdown(&review.Report{Findings: tt.findings}, MarkdownOptions{}), "\n")[1]
			if got != tt.want {
				t.Errorf("verdict = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMarkdownGraph(t *testing.T) {
	got := Markdown(fixture(), MarkdownOptions{})
	for _, want := range []string{
		"<details open><summary>dev: 5 Kustomizations</summary>",
		"<details open><summary>prod: 3 Kustomizations</summary>", // has new findings
		`  k_flux_system_apps --> k_flux_system_platform_config` + "\n",
		`  k_flux_system_flux_system -.-> k_flux_system_infra` + "\n",
		`  k_flux_system_platform_config -. "moves: 2 objects" .-> k_flux_system_platform_config_cdi` + "\n",
		`  k_flux_system_apps == "missing dependsOn" ==> k_flux_system_infra` + "\n",
		`  k_apps_web == "missing dependsOn" ==> k_flux_system_db` + "\n",
		"  class k_flux_system_platform_config_cdi failed\n",
		"  class k_flux_system_gone absent\n",
		"  linkStyle 0,3 stroke:#cf222e,stroke-width:2px\n", // db --> gone names nothing; apps/web misses db
	} {
		if !strings.Contains(got, want) {
			t.Errorf("comment lacks %q", want)
		}
	}
	big := review.ClusterGraph{Cluster: "big"}
	for i := range maxGraphNodes + 1 {
		big.Nodes = append(big.Nodes, review.GraphNode{Kustomization: fmt.Sprintf("flux-system/ks-%d", i)})
	}
	got = Markdown(&review.Report{Graphs: []review.ClusterGraph{big}}, MarkdownOptions{})
	if !strings.Contains(got, "<i>Graph of big: 151 Kustomizations not drawn: more than 150.</i>") || strings.Contains(got, "mermaid") {
		t.Errorf("a graph over %d nodes is drawn:\n%s", maxGraphNodes, got)
	}
}

// TestMarkdownGraphFocus checks that a graph over maxWholeGraph Kustomizations is cut down
// to those a move or a new finding names, their parents and their dependsOn.
func TestMarkdownGraphFocus(t *testing.T) {
	g := review.ClusterGraph{Cluster: "dev", Nodes: []review.GraphNode{{Kustomization: "flux-system/flux-system"}}}
	for i := range maxWholeGraph + 4 {
		n := review.GraphNode{Kustomization: fmt.Sprintf("flux-system/ks-%d", i), Parent: "flux-system/flux-system"}
		if i > 0 {
			n.DependsOn = []string{fmt.Sprintf("flux-system/ks-%d", i-1)}
		}
		g.Nodes = append(g.Nodes, n)
	}
	r := &review.Report{
		Graphs: []review.ClusterGraph{g},
		Moves:  []rules.Move{{Cluster: "dev", Object: *obj("", "ConfigMap", "apps", "x"), From: "flux-system/ks-10", To: "flux-system/ks-20"}},
		Findings: []rules.Finding{
			{Rule: "missing-depends-on", Severity: rules.Error, Status: rules.StatusNew, Cluster: "dev", Kustomization: "flux-system/ks-30", DependsOn: "flux-system/ks-5"},
			{Rule: "missing-depends-on", Severity: rules.Error, Status: rules.StatusExisting, Cluster: "dev", Kustomization: "flux-system/ks-40", DependsOn: "flux-system/ks-5"},
		},
	}
	want := `<details open><summary>dev: 9 of 45 Kustomizations (those this change touches, their parents and dependencies)</summary>

` + "```mermaid" + `
flowchart LR
  k_flux_system_flux_system["flux-system/flux-system"]
  k_flux_system_ks_4["flux-system/ks-4"]
  k_flux_system_ks_5["flux-system/ks-5"]
  k_flux_system_ks_9["flux-system/ks-9"]
  k_flux_system_ks_10["flux-system/ks-10"]
  k_flux_system_ks_19["flux-system/ks-19"]
  k_flux_system_ks_20["flux-system/ks-20"]
  k_flux_system_ks_29["flux-system/ks-29"]
  k_flux_system_ks_30["flux-system/ks-30"]
  k_flux_system_ks_5 --> k_flux_system_ks_4
  k_flux_system_ks_10 --> k_flux_system_ks_9
  k_flux_system_ks_20 --> k_flux_system_ks_19
  k_flux_system_ks_30 --> k_flux_system_ks_29
  k_flux_system_flux_system -.-> k_flux_system_ks_4
  k_flux_system_flux_system -.-> k_flux_system_ks_5
  k_flux_system_flux_system -.-> k_flux_system_ks_9
  k_flux_system_flux_system -.-> k_flux_system_ks_10
  k_flux_system_flux_system -.-> k_flux_system_ks_19
  k_flux_system_flux_system -.-> k_flux_system_ks_20
  k_flux_system_flux_system -.-> k_flux_system_ks_29
  k_flux_system_flux_system -.-> k_flux_system_ks_30
  k_flux_system_ks_10 -. "moves: ConfigMap/x" .-> k_flux_system_ks_20
  k_flux_system_ks_30 == "missing dependsOn" ==> k_flux_system_ks_5
  linkStyle 13 stroke:#cf222e,stroke-width:2px
` + "```" + `

</details>
`
	if diff := cmp.Diff(want, graphBlock(r, g)); diff != "" {
		t.Errorf("graph (-want +got):\n%s", diff)
	}
	if got := Mermaid(g); strings.Count(got, `["flux-system/`) != 45 {
		t.Errorf("bot graph does not draw all 45 Kustomizations:\n%s", got)
	}
}

func TestMermaidLabelAndIDs(t *testing.T) {
	if got, want := mlabel(`a"b]<c>`+"`"), "a#34;b#93;#60;c#62;#96;"; got != want {
		t.Errorf("mlabel = %q, want %q", got, want)
	}
	c := &chart{ids: map[string]string{}, used: map[string]bool{}}
	if a, b := c.ref("x/a-b"), c.ref("x/a_b"); a != "k_x_a_b" || b != "k_x_a_b_2" {
		t.Errorf("ids = %q, %q, want distinct k_x_a_b, k_x_a_b_2", a, b)
	}
}

func TestFencedLongerThanContent(t *testing.T) {
	got := fenced("diff", "a\n`````\nb")
	want := "``````diff\na\n`````\nb\n``````\n"
	if got != want {
		t.Errorf("fenced = %q, want %q", got, want)
	}
}

// huge has 5,000 changed objects with 4 KB diffs and 2,000 findings.
func huge() *review.Report {
	r := fixture()
	diff := "--- base\n+++ head\n" + strings.Repeat("+  key: "+strings.Repeat("v", 60)+"\n", 60) + "```\n"
	for i := range 5000 {
		r.Changed = append(r.Changed, review.ObjectChange{Cluster: "dev", Object: *obj("", "ConfigMap", "apps", fmt.Sprintf("cm-%d", i)),
			Kustomization: "flux-system/apps", File: fmt.Sprintf("apps/cm-%d.yaml", i), Line: 1, Diff: diff})
	}
	for i := range 2000 {
		f := r.Findings[i%2]
		f.Status = []rules.Status{rules.StatusNew, rules.StatusExisting}[i/1000]
		f.Object = obj("", "ConfigMap", "apps", fmt.Sprintf("cm-%d", i))
		r.Findings = append(r.Findings, f)
	}
	return r
}

func TestMarkdownSizeLimit(t *testing.T) {
	r := huge()
	for _, max := range []int{0, 20000, 3000, 600} {
		t.Run(fmt.Sprint(max), func(t *testing.T) {
			got := Markdown(r, MarkdownOptions{MaxChars: max})
			limit := max
			if limit == 0 {
				limit = 65536
			}
			if len(got) > limit {
				t.Errorf("len = %d, want <= %d", len(got), limit)
			}
			if !strings.Contains(got, "\n> ✂️ Cut to fit "+num(limit)+" characters: ") {
				t.Errorf("no cut note in:\n%s", tail(got))
			}
			checkStructure(t, got)
		})
	}
}

// TestMarkdownCutOrder checks that diffs go first: with only diffs too big, every finding,
// graph and list entry stays, and each changed object keeps its heading.
func TestMarkdownCutOrder(t *testing.T) {
	r := fixture()
	diff := strings.Repeat("+  key: "+strings.Repeat("v", 60)+"\n", 20)
	for i := range 200 {
		r.Changed = append(r.Changed, review.ObjectChange{Cluster: "dev", Object: *obj("", "ConfigMap", "apps", fmt.Sprintf("cm-%d", i)),
			Kustomization: "flux-system/apps", Diff: diff})
	}
	got := Markdown(r, MarkdownOptions{})
	checkStructure(t, got)
	checkFindingRows(t, got, r)
	if n := strings.Count(got, "```mermaid"); n != 2 {
		t.Errorf("%d graphs, want 2", n)
	}
	shown := strings.Count(got, "<details><summary>dev · ConfigMap/apps/cm-")
	cut := strings.Count(got, " — <i>diff cut to fit</i>\n")
	if shown == 0 || cut == 0 || shown+cut != 200 {
		t.Errorf("%d diffs shown and %d cut, want both > 0 and 200 in all", shown, cut)
	}
	if want := fmt.Sprintf("\n> ✂️ Cut to fit 65,536 characters: %d changed-object diffs.\n", cut); !strings.HasSuffix(got, want) {
		t.Errorf("comment ends %q, want %q", tail(got), want)
	}
}

// TestMarkdownKeepsWhatThePRChanged: a fix PR resolving 75 errors on a repository with 400
// existing findings, big graphs and big diffs. Every resolved row survives; the existing
// findings are a count and the five most severe; graphs, lists and diffs are cut first.
func TestMarkdownKeepsWhatThePRChanged(t *testing.T) {
	r := fixture()
	r.Findings = r.Findings[:1] // one new error
	for i := range 75 {
		f := r.Findings[0]
		f.Status = rules.StatusResolved
		f.Object = obj("", "ConfigMap", "apps", fmt.Sprintf("resolved-%d", i))
		f.Message = fmt.Sprintf("ConfigMap/apps/resolved-%d in flux-system/apps needs Namespace apps from flux-system/infra, but flux-system/apps has no dependsOn path to flux-system/infra: on a cold cluster its apply fails until they exist.", i)
		r.Findings = append(r.Findings, f)
	}
	for i := range 400 {
		f := r.Findings[0]
		f.Status = rules.StatusExisting
		f.Severity = []rules.Severity{rules.Error, rules.Warning}[min(i/12, 1)] // 12 errors first, as Review sorts
		f.Object = obj("", "ConfigMap", "apps", fmt.Sprintf("existing-%d", i))
		r.Findings = append(r.Findings, f)
	}
	diff := strings.Repeat("+  key: "+strings.Repeat("v", 60)+"\n", 200)
	for i := range 50 {
		r.Changed = append(r.Changed, review.ObjectChange{Cluster: "dev", Object: *obj("", "ConfigMap", "apps", fmt.Sprintf("cm-%d", i)),
			Kustomization: "flux-system/apps", Diff: diff})
	}
	big := review.ClusterGraph{Cluster: "big"}
	for i := range 140 {
		big.Nodes = append(big.Nodes, review.GraphNode{Kustomization: fmt.Sprintf("flux-system/tier-%d", i), DependsOn: []string{fmt.Sprintf("flux-system/tier-%d", (i+1)%140)}})
	}
	r.Graphs = append(r.Graphs, big, big, big)

	got := Markdown(r, MarkdownOptions{})
	checkStructure(t, got)
	checkFindingRows(t, got, r)
	if len(got) >= 65536 {
		t.Errorf("len = %d, want < 65,536", len(got))
	}
	for i := range 75 {
		if row := fmt.Sprintf("ConfigMap/apps/resolved-%d<br>", i); !strings.Contains(got, row) {
			t.Errorf("resolved row %d is missing", i)
		}
	}
	if want := "\n400 existing findings (12 errors, 388 warnings).\n"; !strings.Contains(got, want) {
		t.Errorf("comment lacks %q", want)
	}
	if want := "\n> ✂️ Cut to fit 65,536 characters: 52 changed-object diffs; 1 Kustomization diff; 5 existing findings; 58 entries of the moves, added, removed and changed lists; 1 Kustomization graph.\n"; !strings.HasSuffix(got, want) {
		t.Errorf("comment ends %q, want %q", tail(got), want)
	}
}

// TestMarkdownKeepsResolvedBesideManyNew: new rows that alone overflow the comment leave
// room for the first resolved rows, not an empty Resolved section.
func TestMarkdownKeepsResolvedBesideManyNew(t *testing.T) {
	r := fixture()
	r.Findings = r.Findings[:1]
	for i := range 3000 {
		f := r.Findings[0]
		f.Object = obj("", "ConfigMap", "apps", fmt.Sprintf("new-%d", i))
		r.Findings = append(r.Findings, f)
	}
	for i := range 12 {
		f := r.Findings[0]
		f.Status = rules.StatusResolved
		f.Object = obj("", "ConfigMap", "apps", fmt.Sprintf("resolved-%d", i))
		r.Findings = append(r.Findings, f)
	}
	got := Markdown(r, MarkdownOptions{})
	checkStructure(t, got)
	if len(got) > 65536 {
		t.Errorf("len = %d, want <= 65,536", len(got))
	}
	if n := strings.Count(got, "ConfigMap/apps/resolved-"); n != resolvedFloor {
		t.Errorf("%d resolved rows, want %d", n, resolvedFloor)
	}
	if want := "\n_… and 2 more, cut to fit._\n"; !strings.Contains(got, "#### Resolved\n") || !strings.Contains(got, want) {
		t.Errorf("comment lacks the Resolved section or %q", want)
	}
}

// TestMarkdownCutsExistingBeforeLists: under a tight limit the existing rows go before the
// lists and graphs; the count stays.
func TestMarkdownCutsExistingBeforeLists(t *testing.T) {
	r := fixture()
	for i := range 500 {
		f := r.Findings[0]
		f.Status = rules.StatusExisting
		f.Object = obj("", "ConfigMap", "apps", fmt.Sprintf("cm-%d", i))
		r.Findings = append(r.Findings, f)
	}
	full := Markdown(r, MarkdownOptions{})
	got := Markdown(r, MarkdownOptions{MaxChars: len(full) - 1500})
	checkStructure(t, got)
	if want := "\n<details><summary>501 existing findings (501 errors): the most severe below</summary>\n"; !strings.Contains(got, want) {
		t.Errorf("comment lacks %q:\n%s", want, got)
	}
	if want := "\n> ✂️ Cut to fit " + num(len(full)-1500) + " characters: 2 changed-object diffs; 1 Kustomization diff; 4 existing findings.\n"; !strings.HasSuffix(got, want) {
		t.Errorf("comment ends %q, want %q", tail(got), want)
	}
	for _, keep := range []string{"#### Moves\n", "```mermaid\n", "#### Changed objects\n", "#### Resolved\n"} {
		if !strings.Contains(got, keep) {
			t.Errorf("comment lacks %q", keep)
		}
	}
}

// checkStructure asserts the invariants every comment keeps, whatever was cut.
func checkStructure(t *testing.T, md string) {
	t.Helper()
	lines := strings.Split(md, "\n")
	if lines[0] != Marker {
		t.Errorf("first line = %q, want the marker", lines[0])
	}
	if n := strings.Count(md, Marker); n != 1 {
		t.Errorf("marker appears %d times, want 1", n)
	}
	outside, open := outsideFences(lines)
	if open != "" {
		t.Errorf("code fence %q is never closed", open)
	}
	depth := 0
	for _, l := range outside {
		depth += strings.Count(l, "<details") - strings.Count(l, "</details>")
		if depth < 0 {
			t.Fatalf("</details> without <details> at %q", l)
		}
	}
	if depth != 0 {
		t.Errorf("%d <details> left open", depth)
	}
}

// outsideFences returns the lines outside fenced code blocks, and the fence left open.
func outsideFences(lines []string) (out []string, open string) {
	for _, l := range lines {
		run := len(l) - len(strings.TrimLeft(l, "`"))
		switch {
		case open == "" && run >= 3:
			open = l[:run]
		case open != "" && run >= len(open) && strings.TrimRight(l, "`") == "":
			open = ""
		case open == "":
			out = append(out, l)
		}
	}
	return out, open
}

func insideFences(md, s string) bool {
	outside, _ := outsideFences(strings.Split(md, "\n"))
	return !strings.Contains(strings.Join(outside, "\n"), s)
}

// checkFindingRows asserts that the new and resolved tables hold every new and resolved
// finding of r.
func checkFindingRows(t *testing.T, md string, r *review.Report) {
	t.Helper()
	n := map[rules.Status]int{}
	for _, f := range r.Findings {
		n[f.Status]++
	}
	for _, c := range []struct {
		after string
		want  int
	}{
		{"#### Findings\n", n[rules.StatusNew]},
		{"#### Resolved\n", n[rules.StatusResolved]},
	} {
		got := 0
		if i := strings.Index(md, c.after); i >= 0 {
			got = tableRows(md[i:], tableHead[:len("| Severity |")])
		}
		if got != c.want {
			t.Errorf("table after %q has %d rows, want %d", c.after, got, c.want)
		}
	}
}

// tableRows counts the body rows of the table whose header starts with header.
func tableRows(md, header string) int {
	lines := strings.Split(md, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, header) {
			continue
		}
		n := 0
		for _, r := range lines[i+2:] {
			if !strings.HasPrefix(r, "| ") {
				break
			}
			n++
		}
		return n
	}
	return 0
}

func tail(s string) string {
	return s[max(0, len(s)-300):]
}

// TestMarkdownLongMessageKeepsLaterRows: a dependsOn cycle through 3,000 Kustomizations
// has a message of about 60 KB, and a PR can name a Kustomization with 70,000 characters.
// Before, such a row could not fit the comment, so it and every row after it were cut and
// the comment showed an empty table; now messages and names are clipped.
func TestMarkdownLongMessageKeepsLaterRows(t *testing.T) {
	var cycle []string
	for i := range 3000 {
		cycle = append(cycle, fmt.Sprintf("flux-system/k%d", i))
	}
	msg := "dependsOn cycle " + strings.Join(cycle, " -> ")
	long := "flux-system/" + strings.Repeat("x", 70000) // no Kubernetes name is this long; a PR's can be
	r := &review.Report{
		Clusters: []review.ClusterSummary{{Name: "dev", Kustomizations: 3000}},
		Findings: []rules.Finding{
			{Rule: "duplicate-owner", Severity: rules.Error, Status: rules.StatusNew, Cluster: "dev",
				Kustomization: long, Message: "m", File: "clusters/dev/long.yaml", Line: 3},
			{Rule: "depends-on-cycle", Severity: rules.Error, Status: rules.StatusNew, Cluster: "dev",
				Kustomization: "flux-system/k0", Message: msg, Suggestion: msg, File: "clusters/dev/k0.yaml", Line: 9},
			{Rule: "depends-on-not-found", Severity: rules.Error, Status: rules.StatusNew, Cluster: "dev",
				Kustomization: "flux-system/db", Message: "flux-system/db depends on flux-system/gone.", File: "clusters/dev/db.yaml", Line: 9},
		},
	}
	got := Markdown(r, MarkdownOptions{})
	clipped := msg[:maxTextBytes] + fmt.Sprintf(" … (%s more bytes in the JSON report)", num(len(msg)-maxTextBytes))
	for _, want := range []string{
		"| ❌ error | `duplicate-owner` | " + long[:600] + " … (69,412 more bytes in the JSON report)<br>`clusters/dev/long.yaml:3` | m |\n",
		"| ❌ error | `depends-on-cycle` | flux-system/k0<br>`clusters/dev/k0.yaml:9` | " + prose(clipped) + " |\n",
		"| ❌ error | `depends-on-not-found` | flux-system/db<br>`clusters/dev/db.yaml:9` | flux-system/db depends on flux-system/gone. |\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("comment lacks row %.120q…:\n%.3000s", want, got)
		}
	}
	if strings.Contains(got, "cut to fit") {
		t.Errorf("comment was cut:\n%.3000s", got)
	}
}

// TestMarkdownSharedCause: a broken file that two clusters apply is one row naming both,
// and Kustomizations partial for the same reason share one line.
func TestMarkdownSharedCause(t *testing.T) {
	broken := rules.Finding{Rule: "render-error", Severity: rules.Error, Status: rules.StatusNew, Kustomization: "flux-system/apps",
		Message: "Kustomization flux-system/apps fails to build.", File: "apps/base/kustomization.yaml", Line: 3,
		Clusters: []string{"production", "staging"}}
	inProd, inStaging := broken, broken
	inProd.Cluster, inStaging.Cluster = "production", "staging"
	cm := "substituteFrom ConfigMap/cluster-config not in the repository"
	partial := func(names ...string) []graph.Partial {
		var out []graph.Partial
		for _, n := range names {
			out = append(out, graph.Partial{Kustomization: "flux-system/" + n, Reason: cm})
		}
		return out
	}
	r := &review.Report{
		Clusters: []review.ClusterSummary{
			{Name: "production", Kustomizations: 4, Partial: append(partial("a", "b", "c"), graph.Partial{Kustomization: "flux-system/d", Reason: "remote resources not fetched"})},
			{Name: "staging", Kustomizations: 3, Partial: partial("a")},
		},
		Findings: []rules.Finding{inProd, inStaging},
	}
	want := Marker + `
### ❌ tiergate: 1 new error

0 existing, 0 resolved · 2 clusters, 7 Kustomizations, 0 objects

> ⚠️ <b>Partial render</b>: 5 Kustomizations (production 4, staging 1) are reviewed in part (not everything they apply was rendered), so findings may be missing:
> - 4 Kustomizations (production 3, staging 1): substituteFrom ConfigMap/cluster-config not in the repository — clusters: production, staging · flux-system/a, production · flux-system/b, production · flux-system/c
> - production · flux-system/d: remote resources not fetched

#### Findings

| Severity | Rule | Where | Message |
|---|---|---|---|
| ❌ error | ` + "`render-error`" + ` | clusters: production, staging · flux-system/apps<br>` + "`apps/base/kustomization.yaml:3`" + ` | Kustomization flux-system/apps fails to build. |
`
	if diff := cmp.Diff(want, Markdown(r, MarkdownOptions{})); diff != "" {
		t.Errorf("Markdown mismatch (-want +got):\n%s", diff)
	}
}

// A code span keeps its backticks whatever it holds that Markdown or HTML would read
// (`<redacted>`, `&`, `\`): inside backticks they are text. What a span cannot hold goes
// in <code>, escaped, so it is still code, never bare text.
func TestCodeSpans(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"<redacted>", "`<redacted>`"},
		{"password: <redacted, changed>", "`password: <redacted, changed>`"},
		{"secrets/<redacted>.yaml:3", "`secrets/<redacted>.yaml:3`"},
		{`a & b \ c`, "`a & b \\ c`"},
		{"prune-transient", "`prune-transient`"},
		{"", ""},
		{"a|b", "<code>a&#124;b</code>"},
		{"a`b", "<code>a&#96;b</code>"},
		{"two\nlines", "<code>two<br>lines</code>"},
		{" padded ", "<code> padded </code>"},
		{"<!-- tiergate -->", "<code>&lt;!-- tiergate --&gt;</code>"},
		{"<Details open>", "<code>&lt;Details open&gt;</code>"},
		{"x</details>", "<code>x&lt;/details&gt;</code>"},
	} {
		if got := code(tc.in); got != tc.want {
			t.Errorf("code(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"set `token: <redacted>` first", "set `token: <redacted>` first"},
		{"an unpaired ` <redacted>", "an unpaired &#96; &lt;redacted&gt;"},
		{"<b>`<b>`</b>", "&lt;b&gt;`<b>`&lt;/b&gt;"},
	} {
		if got := prose(tc.in); got != tc.want {
			t.Errorf("prose(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestMarkdownUnread: changed files no cluster reads are said in the verdict and named in a
// note, the first ten, so that "no new findings" does not read as "reviewed and safe".
func TestMarkdownUnread(t *testing.T) {
	r := &review.Report{Clusters: []review.ClusterSummary{{Name: "prod", Kustomizations: 2, Objects: 3}},
		Unread: []string{"archive/apps/legacy.yaml", "archive/<redacted>.yaml"}}
	want := Marker + `
### ✅ tiergate: no new findings · 2 changed files no cluster reads

0 existing, 0 resolved · 1 cluster, 2 Kustomizations, 3 objects

> ℹ️ <b>Outside every cluster</b>: 2 changed files are read by no cluster (no Kustomization's path holds them, no rendered object or in-repo chart comes from them), so nothing here reviews them: ` + "`archive/apps/legacy.yaml`, `archive/<redacted>.yaml`" + `
`
	if d := cmp.Diff(want, Markdown(r, MarkdownOptions{})); d != "" {
		t.Errorf("two files (-want +got):\n%s", d)
	}
	r.Unread = nil
	for i := range 12 {
		r.Unread = append(r.Unread, fmt.Sprintf("old/%02d.yaml", i))
	}
	note := "\n> ℹ️ <b>Outside every cluster</b>: 12 changed files are read by no cluster (no Kustomization's path holds them, no rendered object or in-repo chart comes from them), so nothing here reviews them: " +
		"`old/00.yaml`, `old/01.yaml`, `old/02.yaml`, `old/03.yaml`, `old/04.yaml`, `old/05.yaml`, `old/06.yaml`, `old/07.yaml`, `old/08.yaml`, `old/09.yaml` and 2 more (the JSON report's `unread` lists them all)\n"
	if d := cmp.Diff(note, unreadNote(r)); d != "" {
		t.Errorf("twelve files (-want +got):\n%s", d)
	}
	r.Unread = []string{"old/one.yaml"}
	if got, want := unreadNote(r), "\n> ℹ️ <b>Outside every cluster</b>: 1 changed file is read by no cluster (no Kustomization's path holds it, no rendered object or in-repo chart comes from it), so nothing here reviews it: `old/one.yaml`\n"; got != want {
		t.Errorf("one file: %q, want %q", got, want)
	}
	r.Unread = nil // negative: every changed file is read
	if got := unreadNote(r); got != "" {
		t.Errorf("no unread file: note %q", got)
	}
	if got, want := verdictLine(r), "### ✅ tiergate: no new findings\n"; got != want {
		t.Errorf("no unread file: verdict %q, want %q", got, want)
	}
}
