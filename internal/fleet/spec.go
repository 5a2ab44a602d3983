package fleet

import (
	"errors"
	"fmt"
	"math/rand/v2"
)

// Spec sizes a fleet. Every cluster has the same tiers (Flux Kustomizations) in the same
// dependsOn layers; the clusters differ in their overlays and substitution variables.
type Spec struct {
	// Clusters is the number of clusters, C ≥ 1, named cluster-01, cluster-02, ...
	Clusters int
	// Kustomizations is the number of tiers per cluster, K, not counting the root
	// flux-system Kustomization: one tier "cluster-config" in layer 0 and K-1 app tiers
	// spread evenly over layers 1..Layers-1. K-1 ≥ Layers-1.
	Kustomizations int
	// Objects is the number of objects each app tier renders, O ≥ 4: a Namespace, a
	// ConfigMap, a ClusterRole, then Deployment, Service, ConfigMap in turn.
	Objects int
	// Layers is the number of dependsOn layers, L ≥ 3 (0 means 4). Each app tier of layer
	// l ≥ 2 depends on one or two tiers of layer l-1; layer 1 depends on cluster-config.
	Layers int
	// Seed drives every random choice: dependsOn edges, images, regions, shape targets.
	Seed uint64
	// HelmReleases is the number of app tiers, H ≤ K-1 (the first H by name), that also
	// apply a HelmRelease of the in-repo chart charts/app (GitRepository flux-system),
	// with inline values and a valuesFrom of the app's ConfigMap. H > 0 adds ChartBump.
	HelmReleases int
}

// Shape is a kind of pull request that Write commits as a head.
type Shape string

const (
	// OneFile edits one field (a Deployment's image tag) in one app's base.
	OneFile Shape = "one-file"
	// MoveObject moves a ClusterRole from one app tier's base to the base of a tier that
	// depends on it directly.
	MoveObject Shape = "move-object"
	// RenameTier renames one app tier in every cluster (its Kustomization file too) and
	// updates the dependsOn of the tiers that depend on it.
	RenameTier Shape = "rename-tier"
	// SharedBase edits the kustomize Component that every overlay app's base includes:
	// every object of every overlay tier of every cluster changes.
	SharedBase Shape = "shared-base"
	// ChartBump bumps charts/app's version and edits one of its templates: every
	// HelmRelease's objects change. Written only for a Spec with HelmReleases.
	ChartBump Shape = "chart-bump"
)

// Shapes lists every Shape in a stable order.
var Shapes = []Shape{OneFile, MoveObject, RenameTier, SharedBase}

// tier is one Flux Kustomization of every cluster.
type tier struct {
	name      string
	layer     int
	plain     bool // a directory without kustomization.yaml, built by the Flux generator
	dependsOn []string
	image     string // the tag of the app's Deployments
	release   bool   // it also applies a HelmRelease of charts/app
}

// Edit says what a head commit changed, for tests and benchmark labels.
type Edit struct {
	// App is the app tier edited (OneFile), the tier the object leaves (MoveObject) or the
	// tier renamed (RenameTier); empty for SharedBase.
	App string
	// To is the tier the object moves to (MoveObject) or the new name (RenameTier).
	To string
	// Object names the object edited or moved.
	Object string
	// Dependents lists the tiers whose dependsOn a RenameTier updates, sorted.
	Dependents []string
}

// plan is the shape of the fleet shared by all clusters.
type plan struct {
	spec     Spec
	clusters []string
	regions  map[string]string
	tiers    []*tier // cluster-config first, then apps in name order
	edits    map[Shape]Edit
}

const configTier = "cluster-config"

func (s Spec) withDefaults() Spec {
	if s.Layers == 0 {
		s.Layers = 4
	}
	return s
}

// validate explains which field of s is out of range.
func (s Spec) validate() error {
	switch {
	case s.Clusters < 1:
		return fmt.Errorf("fleet spec: Clusters %d: want at least 1", s.Clusters)
	case s.Objects < 4:
		return fmt.Errorf("fleet spec: Objects %d: want at least 4 (Namespace, ConfigMap, ClusterRole, Deployment)", s.Objects)
	case s.Layers < 3:
		return fmt.Errorf("fleet spec: Layers %d: want at least 3", s.Layers)
	case s.HelmReleases < 0 || s.HelmReleases > s.Kustomizations-1:
		return fmt.Errorf("fleet spec: HelmReleases %d: want 0 to %d (one per app tier)", s.HelmReleases, s.Kustomizations-1)
	case s.Kustomizations-1 < 2*(s.Layers-1):
		return fmt.Errorf("fleet spec: Kustomizations %d: want at least %d for %d layers (two app tiers per layer)", s.Kustomizations, 2*(s.Layers-1)+1, s.Layers)
	}
	return nil
}

var regions = []string{"eu-west-1", "eu-central-1", "us-east-1", "us-west-2", "ap-south-1"}

// newPlan lays out the tiers and picks the targets of every shape.
func newPlan(s Spec) (*plan, error) {
	s = s.withDefaults()
	if err := s.validate(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(s.Seed, 0x7469657267617465))
	p := &plan{spec: s, regions: map[string]string{}, edits: map[Shape]Edit{}}
	for i := range s.Clusters {
		c := fmt.Sprintf("cluster-%02d", i+1)
		p.clusters = append(p.clusters, c)
		p.regions[c] = regions[rng.IntN(len(regions))]
	}
	p.tiers = append(p.tiers, &tier{name: configTier, plain: true})
	apps := s.Kustomizations - 1
	byLayer := make([][]*tier, s.Layers)
	byLayer[0] = p.tiers[:1]
	for i := range apps {
		t := &tier{
			name:    fmt.Sprintf("app-%04d", i),
			layer:   1 + i*(s.Layers-1)/apps,
			plain:   i%4 == 3,
			image:   fmt.Sprintf("1.%d.%d", rng.IntN(20), rng.IntN(10)),
			release: i < s.HelmReleases,
		}
		prev := byLayer[t.layer-1]
		first := rng.IntN(len(prev))
		t.dependsOn = []string{prev[first].name}
		if len(prev) > 1 && rng.IntN(2) == 1 {
			second := (first + 1 + rng.IntN(len(prev)-1)) % len(prev)
			t.dependsOn = append(t.dependsOn, prev[second].name)
		}
		byLayer[t.layer] = append(byLayer[t.layer], t)
		p.tiers = append(p.tiers, t)
	}
	return p, p.pickEdits(rng)
}

// pickEdits chooses the tiers each shape changes.
func (p *plan) pickEdits(rng *rand.Rand) error {
	var overlays, moves [][2]*tier
	var renames []*tier
	dependents := map[string][]string{}
	byName := map[string]*tier{}
	for _, t := range p.tiers {
		byName[t.name] = t
		for _, d := range t.dependsOn {
			dependents[d] = append(dependents[d], t.name)
		}
	}
	for _, t := range p.tiers[1:] {
		if !t.plain {
			overlays = append(overlays, [2]*tier{t})
			for _, d := range t.dependsOn {
				if from := byName[d]; from.name != configTier && !from.plain {
					moves = append(moves, [2]*tier{from, t})
				}
			}
		}
		if len(dependents[t.name]) > 0 {
			renames = append(renames, t)
		}
	}
	if len(moves) == 0 || len(renames) == 0 {
		return errors.New("fleet spec: no pair of overlay tiers ordered by dependsOn to move an object between; raise Kustomizations")
	}
	a := overlays[rng.IntN(len(overlays))][0]
	p.edits[OneFile] = Edit{App: a.name, Object: "Deployment/" + a.name + "/" + a.name + "-3"}
	m := moves[rng.IntN(len(moves))]
	p.edits[MoveObject] = Edit{App: m[0].name, To: m[1].name, Object: "ClusterRole/" + m[0].name + "-reader"}
	r := renames[rng.IntN(len(renames))]
	p.edits[RenameTier] = Edit{App: r.name, To: r.name + "-v2", Dependents: dependents[r.name]}
	p.edits[SharedBase] = Edit{Object: "components/common"}
	if p.spec.HelmReleases > 0 {
		p.edits[ChartBump] = Edit{Object: "charts/app"}
	}
	return nil
}
