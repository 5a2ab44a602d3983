package rules

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// staleCRD is a CRD of a chart's crds/ whose copy on clusters that already run the release
// lacks versions the change's copy serves.
type staleCRD struct {
	crd     *graph.Object // the head's rendered copy
	ks      graph.Ref     // the Kustomization applying the HelmRelease
	hr      *graph.Object // the HelmRelease manifest
	policy  string        // spec.upgrade.crds, "Create" when unset
	kept    string        // graph.Release.ChartKept: why the release keeps its old chart
	chart   string        // the chart's folder in the repository ("" when remote)
	running []string      // served versions of the copy running clusters keep
}

// crdVersionUnserved reports, as crd-not-upgraded errors, the custom resources at head
// whose apiVersion a chart's crds/ CRD serves only from this change on, while clusters that
// already run the release keep the old CRD: helm-controller applies crds/ outside the
// release, and on upgrade Create never updates an existing CRD and Skip applies none
// (internal/action/crds.go applyCRDs, crdPolicyOrDefault; internal/action/upgrade.go
// Upgrade reads GetUpgrade().CRDs). An in-repo chart whose version is not bumped is not
// even upgraded (graph.Release.ChartKept), whatever the policy. There the API server has no
// such version, so the dry-run of the resource's Kustomization fails ('no matches for kind')
// and applies nothing, and the Kustomizations that depend on it wait.
func crdVersionUnserved(base, head *graph.Cluster) []Finding {
	var out []Finding
	for _, s := range staleCRDs(base, head) {
		group, _, _ := unstructured.NestedString(s.crd.Body.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(s.crd.Body.Object, "spec", "names", "kind")
		shipped := shippedVersions(head, s)
		each(head, func(ks *graph.Kustomization, o *graph.Object) {
			v := apiVersionOf(o)
			if o.ID.Group != group || o.ID.Kind != kind || slices.Contains(s.running, v) || !slices.Contains(shipped, v) {
				return
			}
			out = append(out, unservedFinding(head, ks, o, s))
		})
	}
	return out
}

// staleCRDs lists the crds/ CRDs of head's rendered charts, released at base, whose copy
// on running clusters (the base's rendered copy) serves fewer versions than the change
// ships, under an upgrade policy that does not replace it (or a kept chart), and that no
// Kustomization applies itself.
func staleCRDs(base, head *graph.Cluster) []staleCRD {
	if base == nil || head == nil {
		return nil
	}
	was := map[graph.ObjectID]*graph.Object{}
	each(base, func(_ *graph.Kustomization, o *graph.Object) {
		if chartCRD(o) && isCRD(o.ID) {
			was[o.ID] = o
		}
	})
	var out []staleCRD
	each(head, func(ks *graph.Kustomization, o *graph.Object) {
		prev := was[o.ID]
		if !chartCRD(o) || !isCRD(o.ID) || prev == nil || prev.HelmRelease != o.HelmRelease || !releasedAtBase(base, o.HelmRelease) {
			return
		}
		if appliedOutsideCharts(head, o.ID) {
			return // a Kustomization writes its own copy on every reconcile
		}
		rel := releaseOf(ks, o.HelmRelease)
		hr := helmReleaseOf(head, ks.Ref, o.HelmRelease)
		if rel == nil || hr == nil {
			return
		}
		s := staleCRD{crd: o, ks: ks.Ref, hr: hr, policy: crdsPolicy(head, o, "upgrade"), kept: rel.ChartKept, chart: rel.Chart, running: servedVersions(prev.Body)}
		if s.policy == "CreateReplace" && s.kept == "" {
			return
		}
		out = append(out, s)
	})
	return out
}

// appliedOutsideCharts reports whether a Kustomization's own build applies id at c: its
// copy, not the chart's, is what the clusters serve.
func appliedOutsideCharts(c *graph.Cluster, id graph.ObjectID) bool {
	return slices.ContainsFunc(applied(c, id), func(o *graph.Object) bool { return o.HelmRelease == "" })
}

// shippedVersions are the versions the change's copy of s.crd serves: the rendered copy,
// or, for a kept chart (rendered from the base's), the document in the tree's chart file.
func shippedVersions(head *graph.Cluster, s staleCRD) []string {
	if s.kept == "" {
		return servedVersions(s.crd.Body)
	}
	_, rest, ok := strings.Cut(s.crd.Template, "/")
	data, found := head.ReadFile(path.Join(s.chart, rest))
	if !ok || !found {
		return nil
	}
	doc, found := findDoc(string(data), s.crd.ID.Kind, s.crd.ID.Name)
	if !found {
		return nil
	}
	var m map[string]any
	if yaml.Unmarshal([]byte(strings.Join(doc.lines, "\n")), &m) != nil {
		return nil
	}
	return servedVersions(&unstructured.Unstructured{Object: m})
}

// servedVersions are the names of crd's spec.versions with served: true.
func servedVersions(crd *unstructured.Unstructured) []string {
	if crd == nil {
		return nil
	}
	vs, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	var out []string
	for _, v := range vs {
		m, _ := v.(map[string]any)
		if name, _ := m["name"].(string); name != "" && m["served"] == true {
			out = append(out, name)
		}
	}
	return out
}

// apiVersionOf is the version part of o's apiVersion ("v2" of "postgresql.cnpg.io/v2").
func apiVersionOf(o *graph.Object) string {
	if o.Body == nil {
		return ""
	}
	av := o.Body.GetAPIVersion()
	return av[strings.LastIndex(av, "/")+1:]
}

// releaseOf is ks's rendered release of HelmRelease hr ("namespace/name"), nil if none.
func releaseOf(ks *graph.Kustomization, hr string) *graph.Release {
	for i := range ks.Releases {
		if hrName(ks.Releases[i].HelmRelease) == hr {
			return &ks.Releases[i]
		}
	}
	return nil
}

// unservedFinding is the error at o, a custom resource of ks in a version s's CRD lacks on
// running clusters.
func unservedFinding(c *graph.Cluster, ks *graph.Kustomization, o *graph.Object, s staleCRD) Finding {
	f := objectFinding("crd-not-upgraded", Error, c.Name, o, ks.Ref)
	if o.HelmRelease == "" {
		f.Line, _ = keyLine(c, o.File, o.Line, "apiVersion") // the line the change makes
	}
	why := fmt.Sprintf("its spec.upgrade.crds is %s and helm-controller's upgrade %s", policyShown(s.hr), policyEffect(s.policy))
	if s.kept != "" {
		why = "its chart's version is not bumped and helm-controller keeps the chart it has, without upgrading the release"
	}
	fail := fmt.Sprintf("the dry-run of %s fails with 'no matches for kind \"%s\" in version \"%s\"' on every reconcile and applies nothing", ks.Ref, o.ID.Kind, o.Body.GetAPIVersion())
	if o.HelmRelease != "" {
		fail = fmt.Sprintf("helm-controller's upgrade of %s fails with 'unable to build kubernetes objects from release manifest: resource mapping not found ... no matches for kind \"%s\" in version \"%s\"'",
			o.HelmRelease, o.ID.Kind, o.Body.GetAPIVersion())
	}
	if deps := dependents(c, ks.Ref); len(deps) > 0 && o.HelmRelease == "" {
		fail += fmt.Sprintf(", and the Kustomizations that depend on it (%s) wait", listed(deps))
	}
	f.Message = fmt.Sprintf("%s uses %s, which %s of HelmRelease %s's chart (%s) serves only from this change on: clusters that already run the release keep the CRD serving %s, not %s, because %s. "+
		"There %s. A cluster bootstrapped from this commit gets the new CRD.",
		o.ID, o.Body.GetAPIVersion(), s.crd.ID, s.crd.HelmRelease, s.crd.Template, strings.Join(s.running, ", "), apiVersionOf(o), why, fail)
	var steps []string
	if s.kept != "" {
		steps = append(steps, fmt.Sprintf("bump `version` in %s/Chart.yaml", s.chart))
	}
	if s.policy != "CreateReplace" {
		steps = append(steps, fmt.Sprintf("set `spec.upgrade.crds: CreateReplace` on HelmRelease %s (%s:%d)", s.crd.HelmRelease, s.hr.File, policyLineOf(c, s.hr)))
	}
	f.Suggestion = fmt.Sprintf("%s so that the upgrade replaces the CRD, or ship the CRD outside crds/ (from a Kustomization with `wait: true` that %s dependsOn).",
		upperFirst(strings.Join(steps, " and ")), ks.Ref)
	return f
}

// policyShown is the HelmRelease's spec.upgrade.crds as the message shows it.
func policyShown(hr *graph.Object) string {
	if p := bodyString(hr.Body, "spec", "upgrade", "crds"); p != "" {
		return p
	}
	return "Create (the default)"
}

// policyLineOf is the line of hr's spec.upgrade.crds (or a flow-style `upgrade:`), else
// its manifest's line.
func policyLineOf(c *graph.Cluster, hr *graph.Object) int {
	if l, n := keyLine(c, hr.File, hr.Line, "spec", "upgrade", "crds"); n >= 2 {
		return l
	}
	return hr.Line
}

// dependents are the Kustomizations of c that depend on ref, directly or not, in build order.
func dependents(c *graph.Cluster, ref graph.Ref) []string {
	waiting := map[graph.Ref]bool{ref: true}
	for changed := true; changed; {
		changed = false
		for _, r := range c.Order {
			if ks := c.Kustomizations[r]; !waiting[r] && slices.ContainsFunc(ks.Spec.DependsOn, func(d graph.Ref) bool { return waiting[d] }) {
				waiting[r], changed = true, true
			}
		}
	}
	var out []string
	for _, r := range c.Order {
		if waiting[r] && r != ref {
			out = append(out, r.String())
		}
	}
	return out
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
