package rules

import (
	"cmp"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/helmrelease"
)

// placeholderNote is the graph.Release.Approximate entry of a release whose valuesFrom
// reads a Secret (internal/render helmRelease).
const placeholderNote = "valuesFrom Secret values replaced by placeholders"

// substitutedNote is the entry of a release whose spec.values postBuild substitution wrote
// from a Secret variable: the chart renders placeholders there (render
// helmrelease.WithPlaceholderFields).
const substitutedNote = "spec.values substituted from a Secret replaced by placeholders"

// helmApproximate reports, as a notice, each rendered HelmRelease whose offline render is
// not exactly what helm-controller installs (graph.Release Approximate and Notes): template
// functions that read the cluster or the clock or chance (lookup is {} without a cluster, as
// Helm's client-less engine; the others are fixed), valuesFrom Secrets rendered from
// placeholders, a values.schema.json $ref not read, a kind of unknown scope taken as
// namespaced. The objects are reviewed, but may differ in the cluster.
func helmApproximate(c, _ *graph.Cluster, _ *Env) []Finding {
	var out []Finding
	for _, ref := range c.Order {
		ks := c.Kustomizations[ref]
		for _, rel := range ks.Releases {
			parts, fix := approximateParts(rel)
			if len(parts) == 0 {
				continue
			}
			f := releaseFinding("helm-render-approximate", Notice, c, ks, rel.HelmRelease)
			f.Message = fmt.Sprintf("HelmRelease %s/%s is rendered offline with assumptions, so its objects may differ in the cluster: %s.",
				rel.HelmRelease.Namespace, rel.HelmRelease.Name, strings.Join(parts, "; "))
			f.Suggestion = strings.Join(fix, " ")
			out = append(out, f)
		}
	}
	return out
}

// approximateParts says what of rel is approximate, and what a user can do about it.
func approximateParts(rel graph.Release) (parts, fix []string) {
	var funcs, refs []string
	var secrets []string
	unmasked := false
	for _, a := range rel.Approximate {
		switch {
		case a == placeholderNote || a == substitutedNote || a == helmrelease.ReleaseFieldsNote || a == helmrelease.SecretFilesNote ||
			a == helmrelease.SecretTemplatesNote:
			secrets = append(secrets, a)
		case a == helmrelease.UnmaskedFilesNote:
			unmasked = true
		case strings.HasPrefix(a, "schema $ref "):
			refs = append(refs, strings.TrimPrefix(a, "schema $ref "))
		default:
			funcs = append(funcs, a)
		}
	}
	if len(funcs) > 0 {
		parts = append(parts, "template functions "+strings.Join(funcs, ", ")+" (lookup returns {} without a cluster; time, random and key functions are fixed)")
		fix = append(fix, "Check what the templates calling them render once the release is installed.")
	}
	if len(secrets) > 0 {
		parts = append(parts, strings.Join(secrets, ", ")+" (tiergate never shows Secret values, nor lets a chart transform one)")
	}
	if unmasked {
		parts = append(parts, helmrelease.UnmaskedFilesNote)
		fix = append(fix, "Give the Secrets a chart's files hold values of 4 bytes or more that are not common words, or keep those files out of the chart (.helmignore).")
	}
	if len(refs) > 0 {
		parts = append(parts, "values.schema.json $ref "+strings.Join(refs, ", ")+" not read (only the chart's own files are), so the values are not checked against it")
		fix = append(fix, "helm-controller fetches the $ref and validates the values against it: check them with `helm lint`.")
	}
	for _, n := range rel.Notes {
		parts = append(parts, n)
		if strings.HasPrefix(n, "scope of ") {
			fix = append(fix, "Add the kind's CRD to the graph or to .tiergate.yaml preinstalledCRDs so that its scope is known.")
		}
	}
	if len(fix) == 0 {
		fix = append(fix, "No action needed.")
	}
	return parts, fix
}

// chartVersionUnchanged reports each HelmRelease rendered with the chart its HelmChart
// already holds because its in-repo chart changes without a version bump
// (graph.Release.ChartKept): under reconcileStrategy ChartVersion source-controller
// repackages a Git or Bucket chart only when Chart.yaml's version changes
// (internal/helm/chart/builder_local.go localChartBuilder.Build), so the chart change is not
// released and the cluster keeps the old templates. A warning: the change has no effect.
// ChartKept also names Helm's error when the changed chart itself fails to render, which
// the next version bump brings (render nextBumpFailure). The base's chart is taken as the
// packaged one: which commit source-controller packaged depends on the commits it observed
// (each reconcile builds the tree of the revision it fetched), which no git history tells.
// The finding is on the line that chooses the chart's version (chartVersionLine).
//
// An object that the change moves from a Kustomization into the unbumped chart (the tree's
// chart renders it, the kept one does not: graph.Release.Unreleased) is named: its old
// Kustomization's garbage collection deletes it, and nothing creates it again until the
// version is bumped, since helm-controller upgrades a release only when the chart's name or
// version or the values' digest changes (internal/action/verify.go VerifyRelease, from
// internal/reconcile/state.go DetermineReleaseState), and then with the chart packaged.
func chartVersionUnchanged(c, other *graph.Cluster, _ *Env) []Finding {
	var out []Finding
	for _, ref := range c.Order {
		ks := c.Kustomizations[ref]
		for _, rel := range ks.Releases {
			if rel.ChartKept == "" {
				continue
			}
			f := releaseFinding("chart-version-unchanged", Warning, c, ks, rel.HelmRelease)
			// reconcileStrategy is a HelmChart's: the HelmRelease's chart template, or the
			// HelmChart its chartRef names.
			strategy := ", or set `reconcileStrategy: Revision` in the HelmRelease's spec.chart.spec to rebuild on every commit"
			if o := manifestOf(ks, rel.HelmRelease); o != nil {
				f.File, f.Line = chartVersionLine(c, o)
				if o.Body != nil {
					if ref, ok, _ := unstructured.NestedStringMap(o.Body.Object, "spec", "chartRef"); ok {
						strategy = ""
						if ref["kind"] == "HelmChart" {
							strategy = fmt.Sprintf(", or set `reconcileStrategy: Revision` in the spec of HelmChart %s (%s:%d) to rebuild on every commit", ref["name"], f.File, f.Line)
						}
					}
				}
			}
			f.Message = fmt.Sprintf("HelmRelease %s/%s does not get this change of its chart (the objects shown are rendered from the chart it keeps, taken to be the base's: if earlier commits changed the chart without a bump too, the cluster runs the one packaged when its version or HelmChart spec last changed): %s.",
				rel.HelmRelease.Namespace, rel.HelmRelease.Name, rel.ChartKept)
			if gone := movedIntoKeptChart(rel, c, other); gone != "" {
				f.Message += " " + gone
			}
			f.Suggestion = fmt.Sprintf("Bump `version` in %s/Chart.yaml (now %s)%s.", rel.Chart, rel.Version, strategy)
			out = append(out, f)
		}
	}
	return out
}

// chartVersionLine locates where HelmRelease o's chart version is chosen: its
// spec.chart.spec.version, else spec.chart.spec.chart (where the version goes); for a
// spec.chartRef, the referenced source's manifest (namespace defaulting to o's, as
// helm-controller's getSource reads it): a HelmChart's spec.version or spec.chart, an
// OCIRepository's spec.ref.digest, spec.ref.semver or spec.ref.tag (the one getArtifactRef
// reads), else spec.ref or spec.url. o's own
// line when none is found.
func chartVersionLine(c *graph.Cluster, o *graph.Object) (string, int) {
	at := func(file string, from int, paths ...[]string) (int, bool) {
		for _, p := range paths {
			if l, n := keyLine(c, file, from, p...); n == len(p) {
				return l, true
			}
		}
		return from, false
	}
	if o.Body == nil {
		return o.File, o.Line
	}
	ref, ok, _ := unstructured.NestedStringMap(o.Body.Object, "spec", "chartRef")
	if !ok {
		l, _ := at(o.File, o.Line, []string{"spec", "chart", "spec", "version"}, []string{"spec", "chart", "spec", "chart"})
		return o.File, l
	}
	id := graph.ObjectID{Group: "source.toolkit.fluxcd.io", Kind: ref["kind"], Namespace: cmp.Or(ref["namespace"], o.ID.Namespace), Name: ref["name"]}
	srcs := c.Owners[id]
	if len(srcs) == 0 {
		l, _ := at(o.File, o.Line, []string{"spec", "chartRef"})
		return o.File, l
	}
	src := srcs[0]
	var paths [][]string
	switch id.Kind {
	case "HelmChart":
		paths = [][]string{{"spec", "version"}, {"spec", "chart"}}
	case "OCIRepository":
		// In getArtifactRef's order: digest, then semver, then tag.
		paths = [][]string{{"spec", "ref", "digest"}, {"spec", "ref", "semver"}, {"spec", "ref", "tag"}, {"spec", "ref"}, {"spec", "url"}}
	}
	l, _ := at(src.File, src.Line, paths...)
	return src.File, l
}

// releaseFinding is a finding about HelmRelease id of ks, at its manifest's line.
func releaseFinding(rule string, sev Severity, c *graph.Cluster, ks *graph.Kustomization, id graph.ObjectID) Finding {
	for _, o := range ks.Objects {
		if o.ID == id && o.HelmRelease == "" {
			return objectFinding(rule, sev, c.Name, o, ks.Ref)
		}
	}
	return Finding{Rule: rule, Severity: sev, Cluster: c.Name, Object: &id, Kustomization: ks.Ref.String()}
}

// movedIntoKeptChart says which objects of rel.Unreleased the change moves out of a
// Kustomization of other (the base) that garbage-collects them, when c (the head) applies
// them nowhere: deleted by that prune, and not back before the version bump. "" when none.
func movedIntoKeptChart(rel graph.Release, c, other *graph.Cluster) string {
	if other == nil {
		return ""
	}
	var gone []string
	owners := map[graph.Ref]bool{}
	var order []graph.Ref
	for _, id := range rel.Unreleased {
		if len(applied(c, id)) > 0 {
			continue
		}
		for _, o := range other.Owners[id] {
			if o.HelmRelease == "" && !protected(o) && garbageCollects(o.Owner, other, c) {
				gone = append(gone, id.String())
				if !owners[o.Owner] {
					owners[o.Owner] = true
					order = append(order, o.Owner)
				}
				break
			}
		}
	}
	if len(gone) == 0 {
		return ""
	}
	it := "it"
	if len(gone) > 1 {
		it = "them"
	}
	return fmt.Sprintf("This change moves %s into the chart, which the kept chart does not render: the garbage collection of %s deletes %s, "+
		"and nothing creates %s again until the chart's version is bumped (helm-controller upgrades a release only when the chart's name or version or the values change, and then with the chart it has).",
		listed(gone), andRefs(order), it, it)
}

// andRefs is "a", "a and b", "a, b and c".
func andRefs(refs []graph.Ref) string {
	names := make([]string, len(refs))
	for i, r := range refs {
		names[i] = r.String()
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
