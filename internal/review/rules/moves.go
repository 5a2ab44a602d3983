package rules

import (
	"github.com/tiergate/tiergate/internal/render/graph"
)

// Move is an object whose owner differs between base and head of one cluster.
type Move struct {
	Cluster string         `json:"cluster"`
	Object  graph.ObjectID `json:"object"`
	From    string         `json:"from"`
	To      string         `json:"to"`
	// FromHelmRelease and ToHelmRelease name the HelmRelease ("namespace/name") inside From
	// and To whose chart renders the object, "" for the Kustomization's own build.
	FromHelmRelease string `json:"fromHelmRelease,omitempty"`
	ToHelmRelease   string `json:"toHelmRelease,omitempty"`
	base            *graph.Object
	head            *graph.Object
}

// Moves lists the objects of a cluster whose first owner changes, in head build order.
// The owner is what applies and deletes the object: a Kustomization's own build, or the
// HelmRelease whose chart renders it (sameOwner), so an object that moves between a
// Kustomization's manifests and a chart of a HelmRelease in that same Kustomization moves.
// An object still emitted by its base owner at head has not moved (it is duplicated); one
// whose new owners all fail at head does not move either (applied): the old owner prunes it.
// A CRD of a chart's crds/ that the release's upgrades leave alone (crdWrittenByUpgrade) is
// no owner at head next to another: the other owner takes it over, whatever the chart keeps.
func Moves(base, head *graph.Cluster) []Move {
	if base == nil || head == nil {
		return nil
	}
	var out []Move
	each(head, func(ks *graph.Kustomization, o *graph.Object) {
		if first := writers(head, applied(head, o.ID)); len(first) == 0 || first[0] != o {
			return
		}
		prev := base.Owners[o.ID]
		if len(prev) == 0 || sameOwner(prev[0], o) {
			return
		}
		for _, h := range writers(head, head.Owners[o.ID]) {
			if sameOwner(h, prev[0]) {
				return
			}
		}
		out = append(out, Move{Cluster: head.Name, Object: o.ID, From: prev[0].Owner.String(), To: ks.Ref.String(),
			FromHelmRelease: prev[0].HelmRelease, ToHelmRelease: o.HelmRelease, base: prev[0], head: o})
	})
	return out
}

// Owner shows an owner: the Kustomization ks ("namespace/name"), and the HelmRelease hr
// inside it when a chart renders the object: "flux-system/apps › HelmRelease default/podinfo".
func Owner(ks, hr string) string {
	if hr == "" {
		return ks
	}
	return ks + " › HelmRelease " + hr
}

// sameOwner reports whether a and b are applied by the same owner: the same HelmRelease
// for chart objects (helm-controller applies and deletes them whichever Kustomization
// applies the HelmRelease), else the same Kustomization's own build.
func sameOwner(a, b *graph.Object) bool {
	if a.HelmRelease != "" || b.HelmRelease != "" {
		return a.HelmRelease == b.HelmRelease
	}
	return a.Owner == b.Owner
}

// writers drops from owners the CRDs of a chart's crds/ that the release's upgrades do not
// write (Create or Skip: helm-controller internal/action/crds.go applyCRDs skips an existing
// CRD), when another owner remains: on a running cluster that owner holds the CRD alone.
func writers(c *graph.Cluster, owners []*graph.Object) []*graph.Object {
	var out []*graph.Object
	for _, o := range owners {
		if !chartCRD(o) || crdWrittenByUpgrade(c, o) {
			out = append(out, o)
		}
	}
	if len(out) == 0 {
		return owners
	}
	return out
}
