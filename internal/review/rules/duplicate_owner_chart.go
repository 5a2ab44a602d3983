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
// of a chart's crds/ under the Create or Skip policy is no second owner: helm-controller
// skips a CRD that exists and never updates it (internal/action/crds.go applyCRDs).
func chartDuplicate(c *graph.Cluster, first, o *graph.Object) (Finding, bool) {
	if crdSkippedByHelm(c, first) || crdSkippedByHelm(c, o) {
		return Finding{}, false
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

// crdSkippedByHelm reports whether o is a CRD of a chart's crds/ that its HelmRelease
// does not replace (spec.install.crds and spec.upgrade.crds both other than CreateReplace).
func crdSkippedByHelm(c *graph.Cluster, o *graph.Object) bool {
	if o.HelmRelease == "" || !crdsFile(o.Template) {
		return false
	}
	hr := helmReleaseOf(c, o.Owner, o.HelmRelease)
	return hr == nil || bodyString(hr.Body, "spec", "install", "crds") != "CreateReplace" && bodyString(hr.Body, "spec", "upgrade", "crds") != "CreateReplace"
}
