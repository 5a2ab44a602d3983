package rules

import (
	"fmt"
	"reflect"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// crdNotUpgraded reports the CRDs of a chart's crds/ that a change of a HelmRelease's chart
// or values modifies (or, under Skip, adds) while spec.upgrade.crds is Create (the
// default) or Skip: helm-controller applies crds/ outside the release, and on upgrade
// Create only creates missing CRDs, leaving an existing one as it is, while Skip does
// nothing (internal/action/crds.go applyCRDs, crdPolicyOrDefault: DefaultCRDPolicy is
// Create; internal/action/upgrade.go reads GetUpgrade().CRDs). Clusters that installed the
// release keep the old CRD, and custom resources using what is new in it are rejected or
// lose the new fields. A new cluster installs the new CRD, so the two differ.
func crdNotUpgraded(base, head *graph.Cluster, _ *Env) []Finding {
	if base == nil || head == nil {
		return nil
	}
	was := map[graph.ObjectID]*graph.Object{}
	each(base, func(_ *graph.Kustomization, o *graph.Object) {
		if o.HelmRelease != "" && crdsFile(o.Template) && isCRD(o.ID) {
			was[o.ID] = o
		}
	})
	var out []Finding
	each(head, func(ks *graph.Kustomization, o *graph.Object) {
		if o.HelmRelease == "" || !crdsFile(o.Template) || !isCRD(o.ID) || !rendered(ks, o.HelmRelease) {
			return
		}
		hr := helmReleaseOf(head, ks.Ref, o.HelmRelease)
		if hr == nil || !releasedAtBase(base, o.HelmRelease) {
			return // a new release installs its CRDs
		}
		policy := bodyString(hr.Body, "spec", "upgrade", "crds")
		if policy == "CreateReplace" {
			return
		}
		shown := policy
		if policy == "" {
			policy, shown = "Create", "Create (the default)"
		}
		prev, existed := was[o.ID]
		var change string
		switch {
		case existed && prev.HelmRelease == o.HelmRelease && !reflect.DeepEqual(prev.Body.Object["spec"], o.Body.Object["spec"]):
			change = "changes"
		case !existed && policy == "Skip":
			change = "adds"
		default:
			return
		}
		f := objectFinding("crd-not-upgraded", Warning, head.Name, o, ks.Ref)
		// The policy's own line when the HelmRelease sets one (`crds:`, or `upgrade:` in
		// flow style): where the fix goes.
		if l, n := keyLine(head, hr.File, hr.Line, "spec", "upgrade", "crds"); n >= 2 {
			f.Line = l
		}
		f.Message = fmt.Sprintf("The chart of HelmRelease %s %s %s in %s, but its spec.upgrade.crds is %s: helm-controller's upgrade %s, "+
			"so clusters that already run the release keep the old CRD, and custom resources that use what is new in it are rejected or lose those fields.",
			o.HelmRelease, change, o.ID, o.Template, shown, policyEffect(policy))
		f.Suggestion = fmt.Sprintf("Set `spec.upgrade.crds: CreateReplace` on HelmRelease %s (%s:%d) so the upgrade replaces the chart's CRDs, or apply the CRDs from a Kustomization.", o.HelmRelease, hr.File, f.Line)
		out = append(out, f)
	})
	return out
}

func policyEffect(policy string) string {
	if policy == "Skip" {
		return "applies no CRD of crds/"
	}
	return "creates only the CRDs of crds/ that are missing and never updates an existing one"
}

func isCRD(id graph.ObjectID) bool {
	return id.Group == "apiextensions.k8s.io" && id.Kind == "CustomResourceDefinition"
}

// rendered reports whether HelmRelease hr ("namespace/name") of ks rendered at this
// commit (not objects kept from the prior commit for a chart that failed or was skipped).
func rendered(ks *graph.Kustomization, hr string) bool {
	for _, r := range ks.Releases {
		if hrName(r.HelmRelease) == hr {
			return true
		}
	}
	return false
}

// releasedAtBase reports whether HelmRelease hr is applied by any Kustomization of base.
func releasedAtBase(base *graph.Cluster, hr string) bool {
	return len(applied(base, hrID(hr))) > 0
}
