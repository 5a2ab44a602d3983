package format

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/review"
)

// Two Kustomizations named from different Secret values show the same masked text; they
// are two nodes, told apart by where they stand in the graph (ParentNode, DependsOnNodes),
// never merged by their text (hostile5 ord). A dependsOn whose node is not known is drawn
// by its text, as before.
func TestMermaidMaskedNamesStayApart(t *testing.T) {
	g := review.ClusterGraph{Cluster: "dev", Nodes: []review.GraphNode{
		{Kustomization: "flux-system/o1"},
		{Kustomization: "flux-system/k-<redacted>", Parent: "flux-system/o1", ParentNode: 1},
		{Kustomization: "flux-system/k-<redacted>", Parent: "flux-system/o1", ParentNode: 1,
			DependsOn: []string{"flux-system/k-<redacted>", "flux-system/gone"}, DependsOnNodes: []int{2, 0},
			HelmReleases: []review.GraphRelease{{HelmRelease: "default/app"}}},
	}}
	want := `flowchart LR
  k_flux_system_o1["flux-system/o1"]
  k_flux_system_k__redacted_["flux-system/k-#60;redacted#62;"]
  k_flux_system_k__redacted__2["flux-system/k-#60;redacted#62;"]
  k_flux_system_gone["flux-system/gone"]
  k_flux_system_k__redacted__2 --> k_flux_system_k__redacted_
  k_flux_system_k__redacted__2 --> k_flux_system_gone
  k_flux_system_o1 -.-> k_flux_system_k__redacted_
  k_flux_system_o1 -.-> k_flux_system_k__redacted__2
  classDef absent stroke-dasharray:5 5
  class k_flux_system_gone absent
  linkStyle 1 stroke:#cf222e,stroke-width:2px
  h_flux_system_k__redacted__2_default_app["HelmRelease default/app #40;0 objects#41;"]
  k_flux_system_k__redacted__2 --- h_flux_system_k__redacted__2_default_app
`
	if diff := cmp.Diff(want, Mermaid(g)); diff != "" {
		t.Errorf("Mermaid (-want +got):\n%s", diff)
	}
}
