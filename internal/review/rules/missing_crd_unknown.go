package rules

import (
	"fmt"
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// crdUnknowns are the parts of c not rendered that may install the CRD of o's kind, for
// missing-crd's notice (at most three, then a count), and why the HelmReleases whose chart
// is not rendered but were left out do not count ("" when none was). A Kustomization not
// reviewed or failing, a ResourceSet not rendered, a bootstrap helmfile not read may
// install anything, and count. An unrendered chart counts only with evidence that it may
// ship this CRD (crdChartPlausible), the predicate shape depends-on-not-found and
// health-check-not-found use for "a chart renders into its release namespace"
// (unknownProducersFor); and never when the change itself removes the CRD from a
// Kustomization (removedCRD): that copy is gone for certain, and no chart the review
// cannot see is evidence that another one comes.
func crdUnknowns(c, other *graph.Cluster, v *view, env *Env, o *graph.Object) (unknown []string, why string) {
	removed := removedCRD(c, other, o.ID)
	var dropped []string
	charts := func(ks *graph.Kustomization, hr graph.ObjectID) bool {
		if removed == "" && crdChartPlausible(other, v, ks, hr, o.ID) {
			return true
		}
		dropped = append(dropped, fmt.Sprintf("HelmRelease %s/%s", hr.Namespace, hr.Name))
		return false
	}
	unknown = capList(append(unknownProducersFor(c, charts), env.UnknownCRDs...), 3)
	switch {
	case len(dropped) == 0:
	case removed != "":
		why = fmt.Sprintf(" Certain: %s, so the chart not rendered of %s does not make it uncertain.", removed, joinAnd(capList(dropped, 3)))
	default:
		ns := ""
		if o.ID.Namespace != "" {
			ns = fmt.Sprintf("its release namespace is not %s, ", o.ID.Namespace)
		}
		why = fmt.Sprintf(" The chart not rendered of %s is not counted: %snothing ties it to group %s (its chart's or release's name, the runtime-CRD catalog, or a CRD its chart rendered at the other commit).",
			joinAnd(capList(dropped, 3)), ns, o.ID.Group)
	}
	return unknown, why
}

// removedCRD says which CRD of id's kind a Kustomization of other (the other commit)
// applies itself and c lacks, the change having removed (or, seen from the base, added)
// it ("" when none): the Kustomization is gone, or it builds at c without the CRD (one not reviewed or failing
// at c is unknownProvider's: its build may still hold it).
func removedCRD(c, other *graph.Cluster, id graph.ObjectID) string {
	if other == nil {
		return ""
	}
	is := crdOf(id)
	for _, ref := range other.Order {
		for _, o := range other.Kustomizations[ref].Objects {
			if o.HelmRelease != "" || !is(o) || len(c.Owners[o.ID]) > 0 {
				continue
			}
			ks := c.Kustomizations[ref]
			switch {
			case ks == nil:
				return fmt.Sprintf("%s (%s:%d) is applied at the other commit by Kustomization %s, which this one does not have", o.ID, o.File, o.Line, ref)
			case ks.Err == nil && ks.NotReviewed() == "":
				return fmt.Sprintf("%s (%s:%d) is applied at the other commit by Kustomization %s, whose build at this one lacks it", o.ID, o.File, o.Line, ref)
			}
		}
	}
	return ""
}

// crdChartPlausible reports whether HelmRelease hr of ks, whose chart is not rendered, may
// install the CRD of id's kind: id is namespaced in hr's release namespace (a chart's
// objects, and the custom resources that come with an operator, are in it); its chart's or
// its own name names id's group (chart external-secrets, group external-secrets.io;
// chart widget-operator, group widgets.example.com); or its chart rendered that CRD at the
// other commit. The runtime-CRD catalog's chart entries are decided before (crdKnown).
func crdChartPlausible(other *graph.Cluster, v *view, ks *graph.Kustomization, hr graph.ObjectID, id graph.ObjectID) bool {
	if id.Namespace != "" && releaseNamespaceOf(ks, hr) == id.Namespace {
		return true
	}
	names := []string{hr.Name}
	if o := manifestOf(ks, hr); o != nil && o.Body != nil {
		names = append(names, v.chartOf(o))
	}
	if namesGroup(id.Group, names...) {
		return true
	}
	if other != nil {
		is, rel := crdOf(id), hr.Namespace+"/"+hr.Name
		for _, objs := range other.Owners {
			for _, o := range objs {
				if o.HelmRelease == rel && is(o) {
					return true
				}
			}
		}
	}
	return false
}

// namesGroup reports whether one of names (a chart's, a release's), without a suffix
// such as -operator or -crds, is part of group, or group's first label (of four letters
// or more: "widgets" of widgets.example.com) part of the name.
func namesGroup(group string, names ...string) bool {
	label, _, _ := strings.Cut(group, ".")
	for _, n := range names {
		for _, suffix := range []string{"-operator", "-controller", "-crds", "-crd", "-chart"} {
			n = strings.TrimSuffix(n, suffix)
		}
		if len(n) >= 3 && strings.Contains(group, n) || len(label) >= 4 && strings.Contains(n, strings.TrimSuffix(label, "s")) {
			return true
		}
	}
	return false
}
