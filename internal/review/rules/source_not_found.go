package rules

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/artifact"
	"github.com/tiergate/tiergate/internal/render/graph"
)

// sourceNotFound reports a Kustomization `spec.sourceRef`, a HelmRelease
// `spec.chart.spec.sourceRef` or a HelmRelease `spec.chartRef` that names a Flux source no
// Kustomization or chart of the cluster creates.
//
//   - kustomize-controller's Reconcile (internal/controller/kustomization_controller.go)
//     gets the source first; on NotFound it marks Ready=False (ArtifactFailed), logs
//     "Source '<kind>/<ns>/<name>' not found" and requeues at the retry interval: nothing
//     of the Kustomization is built, applied or pruned, and its dependents wait.
//   - helm-controller's reconcileRelease (internal/controller/helmrelease_controller.go)
//     calls getSource for a chartRef (OCIRepository, HelmChart, ExternalArtifact) and
//     fails with "could not get Source object"; for spec.chart it creates the HelmChart
//     `<ns>-<name>` (internal/reconcile/helmchart_template.go buildHelmChartFromTemplate),
//     whose source source-controller cannot get (HelmChartReconciler.reconcileSource), so
//     the HelmRelease waits for a chart that never becomes Ready.
//
// The namespace defaults to the referrer's own, as both controllers read it. A source
// counts as existing when a build or a chart emits it, when it is the root's source, when
// a Kustomization of the graph was built from it (a source .tiergate.yaml maps to a
// folder), when it is the HelmChart another HelmRelease's spec.chart makes, when an
// ArtifactGenerator makes the ExternalArtifact, or when the HelmRelease's chart rendered
// from it. A suspended referrer reconciles nothing: no finding. When another part of the
// cluster that may create it is not rendered (unknownProducersIn of the source's namespace:
// a chart renders into its release namespace), the source may come from it: a notice.
func sourceNotFound(c, _ *graph.Cluster, _ *Env) []Finding {
	known := knownSources(c)
	exists := func(s graph.SourceRef) bool {
		return known[s] || (s.Kind == "ExternalArtifact" && len(artifact.Owners(c, s)) > 0)
	}
	var out []Finding
	for _, ref := range c.Order {
		ks := c.Kustomizations[ref]
		src := ks.Spec.SourceRef
		if ks.Spec.Suspend || src.Kind == "" || exists(src) {
			continue
		}
		line, _ := keyLine(c, ks.File, ks.Line, "spec", "sourceRef")
		home := c.Root // a Kustomization's source comes from the build that applies it
		if ks.Parent != nil {
			home = *ks.Parent
		}
		f := Finding{Rule: "source-not-found", Cluster: c.Name, Kustomization: ref.String(), File: ks.File, Line: line,
			refs: []graph.Ref{ref}, key: src.String()}
		describeMissingSource(&f, c, known, src, "Kustomization "+ref.String(), "spec.sourceRef",
			"kustomize-controller marks it not Ready with 'Source '"+src.String()+"' not found' and retries: nothing of it is built, applied or pruned, and what dependsOn it waits",
			"Kustomization "+ref.String(), home)
		out = append(out, f)
	}
	rendered := renderedReleases(c)
	for _, h := range helmReleases(c) {
		if h.suspended() || rendered[h.o.ID] {
			continue
		}
		for _, r := range chartSources(h) {
			if exists(r.src) {
				continue
			}
			line := h.o.Line
			if h.o.HelmRelease == "" {
				line, _ = keyLine(c, h.o.File, h.o.Line, r.path...)
			}
			id := h.o.ID
			f := Finding{Rule: "source-not-found", Cluster: c.Name, Kustomization: h.ks.String(), Object: &id, File: h.o.File, Line: line, key: r.src.String()}
			describeMissingSource(&f, c, known, r.src, "HelmRelease "+h.ref.String(), strings.Join(r.path, "."), r.effect, "HelmRelease "+h.ref.String(), h.ks)
			out = append(out, f)
		}
	}
	return out
}

// describeMissingSource fills f's severity, message and suggestion for source src that
// subject's field names and the cluster lacks; self is the subject as unknownProducers
// names it, left out of the parts that may create the source (its own chart is not
// rendered because of this very source); home is the Kustomization whose manifests (or
// those of one it dependsOn) the source belongs in.
func describeMissingSource(f *Finding, c *graph.Cluster, known map[graph.SourceRef]bool, src graph.SourceRef, subject, field, effect, self string, home graph.Ref) {
	unknown := unknownProducersExcept(c, src.Namespace, self)
	others := sameKind(known, src.Kind)
	hint := ""
	if len(others) > 0 {
		hint = fmt.Sprintf(" Existing %s sources: %s.", src.Kind, strings.Join(capList(others, 5), ", "))
	}
	fix := fmt.Sprintf("Point %s of %s (%s:%d) at an existing %s, or add %s %s/%s to the manifests of Kustomization %s or of one it dependsOn.",
		field, subject, f.File, f.Line, src.Kind, src.Kind, src.Namespace, src.Name, home)
	if len(unknown) > 0 {
		f.Severity = Notice
		f.Message = fmt.Sprintf("%s's %s names %s %s/%s, which no reviewed Kustomization or chart of cluster %s creates; not checked, since %s may create it.%s",
			subject, field, src.Kind, src.Namespace, src.Name, c.Name, joinAnd(capList(unknown, 3)), hint)
		f.Suggestion = "Nothing to do if one of them creates it; otherwise: " + fix
		return
	}
	f.Severity = Error
	f.Message = fmt.Sprintf("%s's %s names %s %s/%s, which no Kustomization or chart of cluster %s creates (the namespace defaults to the referrer's own): %s.%s",
		subject, field, src.Kind, src.Namespace, src.Name, c.Name, effect, hint)
	f.Suggestion = fix
}

// knownSources is the set of Flux sources cluster c has (see sourceNotFound).
func knownSources(c *graph.Cluster) map[graph.SourceRef]bool {
	known := map[graph.SourceRef]bool{}
	for id := range c.Owners {
		if id.Group == "source.toolkit.fluxcd.io" {
			known[graph.SourceRef{Kind: id.Kind, Namespace: id.Namespace, Name: id.Name}] = true
		}
	}
	for _, ref := range c.Order {
		if ks := c.Kustomizations[ref]; ks.Skipped == "" && ks.Spec.SourceRef.Kind != "" {
			known[ks.Spec.SourceRef] = true
		}
	}
	if root := c.Kustomizations[c.Root]; root != nil {
		known[root.Spec.SourceRef] = true
	}
	for _, h := range helmReleases(c) {
		for _, r := range chartSources(h) {
			if r.path[1] == "chart" { // spec.chart makes HelmChart <ns>-<name> in the sourceRef's namespace
				known[graph.SourceRef{Kind: "HelmChart", Namespace: r.src.Namespace, Name: h.ref.Namespace + "-" + h.ref.Name}] = true
			}
		}
	}
	return known
}

// sameKind lists the sources of kind in known as "namespace/name", sorted.
func sameKind(known map[graph.SourceRef]bool, kind string) []string {
	var out []string
	for s := range known {
		if s.Kind == kind {
			out = append(out, s.Namespace+"/"+s.Name)
		}
	}
	sort.Strings(out)
	return out
}

// renderedReleases is the set of HelmReleases whose chart rendered: their source was found.
func renderedReleases(c *graph.Cluster) map[graph.ObjectID]bool {
	out := map[graph.ObjectID]bool{}
	for _, ks := range c.Kustomizations {
		for _, r := range ks.Releases {
			out[r.HelmRelease] = true
		}
	}
	return out
}

// chartSource is one source a HelmRelease reads its chart from, with the key path that
// names it and what helm-controller does when it is missing.
type chartSource struct {
	src    graph.SourceRef
	path   []string
	effect string
}

// chartSources lists the sources HelmRelease h names: spec.chart.spec.sourceRef and
// spec.chartRef, each namespace defaulting to the HelmRelease's.
func chartSources(h hrNode) []chartSource {
	var out []chartSource
	read := func(path []string, effect func(graph.SourceRef) string) {
		m, ok, _ := unstructured.NestedStringMap(h.o.Body.Object, path...)
		if !ok || m["name"] == "" || m["kind"] == "" {
			return
		}
		ns := m["namespace"]
		if ns == "" {
			ns = h.ref.Namespace
		}
		s := graph.SourceRef{Kind: m["kind"], Namespace: ns, Name: m["name"]}
		out = append(out, chartSource{src: s, path: path, effect: effect(s)})
	}
	read([]string{"spec", "chart", "spec", "sourceRef"}, func(s graph.SourceRef) string {
		return fmt.Sprintf("source-controller cannot build HelmChart %s/%s-%s from it, so helm-controller never installs or upgrades the release and the HelmRelease stays not Ready",
			s.Namespace, h.ref.Namespace, h.ref.Name)
	})
	read([]string{"spec", "chartRef"}, func(s graph.SourceRef) string {
		return "helm-controller fails every reconcile with 'could not get Source object', so it never installs or upgrades the release"
	})
	return out
}
