package rules

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// chartDuplicate reports o, a second owner of first's identity where either comes from a
// chart: kustomize-controller's server-side apply and helm-controller's release each write
// their own version on every reconcile or upgrade (helm-controller takes ownership of
// existing objects by default: internal/action/install.go newInstall and upgrade.go
// newUpgrade set TakeOwnership = !spec.install/upgrade.disableTakeOwnership, and Helm's
// requireAdoption adopts any existing object), and a Kustomization's garbage
// collection or a release's upgrade or uninstall deletes it from under the other. A CRD
// of a chart's crds/ is applied outside the release and never deleted (helm-controller
// internal/action/crds.go applyCRDs; Helm pkg/action/install.go installCRDs keeps crds/ out
// of the release manifest, so no upgrade or uninstall removes it): on a running cluster
// only an upgrade under spec.upgrade.crds CreateReplace writes it again (crdWrittenByUpgrade),
// which makes both write it, a warning (chartCRDDuplicate). Under Create or Skip the
// release creates it only at install, when missing, and the Kustomization has it from then on.
func chartDuplicate(c *graph.Cluster, first, o *graph.Object) (Finding, bool) {
	if chartCRD(first) || chartCRD(o) {
		return chartCRDDuplicate(c, first, o)
	}
	f := objectFinding("duplicate-owner", Error, c.Name, o, o.Owner)
	a, b := Owner(first.Owner.String(), first.HelmRelease), Owner(o.Owner.String(), o.HelmRelease)
	who := "kustomize-controller and helm-controller overwrite each other's version"
	if first.HelmRelease != "" && o.HelmRelease != "" {
		who = "the two Helm releases take it from each other on every upgrade"
	}
	if hr, fields := refusesAdoption(c, first, o); hr != "" {
		who += fmt.Sprintf("; and HelmRelease %s sets %s, so Helm refuses the object when another owner created it first "+
			"('invalid ownership metadata': helm pkg/action/validate.go existingResourceConflict) and that install or upgrade fails", hr, fields)
	}
	f.Message = fmt.Sprintf("%s is applied by both %s (%s) and %s (%s): %s, and whichever prunes, upgrades without it or uninstalls deletes it from under the other.",
		o.ID, a, origin(first), b, origin(o), who)
	f.Suggestion = fmt.Sprintf("Keep %s in one place: remove it from %s or from %s.", o.ID, source(first), source(o))
	return f, true
}

// refusesAdoption names the HelmRelease of first or o that does not take ownership of an
// existing object, and which of spec.install/upgrade.disableTakeOwnership it sets; "" when
// each takes ownership (helm-controller's default).
func refusesAdoption(c *graph.Cluster, first, o *graph.Object) (string, string) {
	for _, x := range []*graph.Object{first, o} {
		if x.HelmRelease == "" {
			continue
		}
		hr := helmReleaseOf(c, x.Owner, x.HelmRelease)
		if hr == nil || hr.Body == nil {
			continue
		}
		var set []string
		for _, action := range []string{"install", "upgrade"} {
			if v, _, _ := unstructured.NestedBool(hr.Body.Object, "spec", action, "disableTakeOwnership"); v {
				set = append(set, "spec."+action+".disableTakeOwnership")
			}
		}
		if len(set) > 0 {
			return x.HelmRelease, strings.Join(set, " and ")
		}
	}
	return "", ""
}

// origin shows where o comes from: "apps/cm.yaml:2", or "chart template app/templates/cm.yaml".
func origin(o *graph.Object) string {
	if o.HelmRelease != "" {
		return "chart template " + o.Template
	}
	return fmt.Sprintf("%s:%d", o.File, o.Line)
}

// source is where to remove o.
func source(o *graph.Object) string {
	if o.HelmRelease != "" {
		return fmt.Sprintf("the chart of HelmRelease %s (template %s, or disable it in the values at %s:%d)", o.HelmRelease, o.Template, o.File, o.Line)
	}
	return o.File
}

// chartCRD reports whether o is a CRD of a chart's crds/ (any document there that
// helm-controller applies: chrt.CRDObjects() keeps only CRDs).
func chartCRD(o *graph.Object) bool {
	return o.HelmRelease != "" && crdsFile(o.Template)
}

// crdsPolicy is spec.<action>.crds ("install" or "upgrade") of o's HelmRelease, Create when
// unset (helm-controller internal/action/crds.go crdPolicyOrDefault, read by Install in
// install.go and Upgrade in upgrade.go), "" when the HelmRelease is not in c.
func crdsPolicy(c *graph.Cluster, o *graph.Object, action string) string {
	hr := helmReleaseOf(c, o.Owner, o.HelmRelease)
	if hr == nil {
		return ""
	}
	if p := bodyString(hr.Body, "spec", action, "crds"); p != "" {
		return p
	}
	return "Create"
}

// crdWrittenByUpgrade reports whether o, a CRD of a chart's crds/, is written again by
// every upgrade of its release: only under spec.upgrade.crds CreateReplace (applyCRDs
// Updates the CRDs; Create skips an existing CRD, Skip applies none).
func crdWrittenByUpgrade(c *graph.Cluster, o *graph.Object) bool {
	return chartCRD(o) && crdsPolicy(c, o, "upgrade") == "CreateReplace"
}

// chartCRDDuplicate reports o when it or first is a CRD of a chart's crds/ that the
// release's upgrades replace (crdWrittenByUpgrade): a warning that both write it, since
// neither deletes it (Helm never deletes crds/ CRDs). Under Create or Skip there is no
// finding: the release creates the CRD only at install and only when missing.
func chartCRDDuplicate(c *graph.Cluster, first, o *graph.Object) (Finding, bool) {
	hr := first
	if !chartCRD(hr) {
		hr = o
	}
	if !crdWrittenByUpgrade(c, hr) {
		return Finding{}, false
	}
	other := o
	if hr == o {
		other = first
	}
	f := objectFinding("duplicate-owner", Warning, c.Name, o, o.Owner)
	f.Message = fmt.Sprintf("%s is written by both %s (%s) and %s (%s): HelmRelease %s sets spec.upgrade.crds: CreateReplace, so every upgrade replaces it with the chart's copy "+
		"and the next apply of the other owner writes its own back; neither deletes it (Helm never deletes the CRDs of crds/).",
		o.ID, Owner(first.Owner.String(), first.HelmRelease), origin(first), Owner(o.Owner.String(), o.HelmRelease), origin(o), hr.HelmRelease)
	f.Suggestion = fmt.Sprintf("Keep %s in one place: remove it from %s, or from the chart's crds/ (%s), or set spec.upgrade.crds to Create on HelmRelease %s so that its upgrades leave it to %s.",
		o.ID, other.File, hr.Template, hr.HelmRelease, Owner(other.Owner.String(), other.HelmRelease))
	return f, true
}
