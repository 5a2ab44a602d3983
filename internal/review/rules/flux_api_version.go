package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/tiergate/tiergate/internal/render/fluxschema"
	"github.com/tiergate/tiergate/internal/render/graph"
)

// unservedFluxVersions reports, as missing-crd errors, objects of the Flux kinds tiergate
// interprets (Kustomization, HelmRelease, the sources, ArtifactGenerator, flux-operator's)
// whose apiVersion names a version their CRD does not serve in the cluster: the REST
// mapping of kustomize-controller's dry-run fails with 'no matches for kind "Kustomization"
// in version "kustomize.toolkit.fluxcd.io/g"' (fluxcd/pkg ssa ResourceManager.ApplyAllStaged;
// Helm's KubeClient.Build for a chart's object), so the object is never created, and
// tiergate does not build it as the kind it names (fluxschema.Accepted). The served
// versions are those of the kind's CRD in the graph (spec.versions[].served, a bootstrap's
// gotk-components.yaml), else those of the Flux release the repository states
// (clusterFluxVersion; fluxschema.ServedBy), else those tiergate accepts (Flux 2.7 and
// later: v1beta2 still counts, deprecated). One finding per Kustomization (or HelmRelease)
// and apiVersion, at its first object's apiVersion line.
func unservedFluxVersions(c *graph.Cluster) []Finding {
	var out []Finding
	served := map[string]servedSet{}
	seen := map[string]bool{}
	each(c, func(ks *graph.Kustomization, o *graph.Object) {
		if o.Body == nil || !fluxschema.Interpreted(o.ID.Group, o.ID.Kind) {
			return
		}
		gk := o.ID.Group + "/" + o.ID.Kind
		s, ok := served[gk]
		if !ok {
			s = servedIn(c, o.ID.Group, o.ID.Kind)
			served[gk] = s
		}
		version := apiVersionOf(o)
		once := ks.Ref.String() + "\x00" + o.HelmRelease + "\x00" + o.Body.GetAPIVersion() + "\x00" + o.ID.Kind
		if slices.Contains(s.versions, version) || seen[once] {
			return
		}
		seen[once] = true
		out = append(out, unservedVersionFinding(c, ks, o, s))
	})
	return out
}

// servedSet is what a cluster's CRD of one Flux kind serves, and the evidence.
type servedSet struct {
	versions []string
	basis    string // "its CRD in the graph (file:line) serves v1", …
}

// servedIn is what c serves of group/kind: its CRD in the graph, else the Flux release
// the repository states, else what tiergate accepts.
func servedIn(c *graph.Cluster, group, kind string) servedSet {
	is := crdOf(graph.ObjectID{Group: group, Kind: kind})
	for _, ref := range c.Order {
		for _, o := range c.Kustomizations[ref].Objects {
			if is(o) {
				vs := servedVersions(o.Body)
				return servedSet{vs, fmt.Sprintf("its CRD in the graph (%s:%d) serves %s", o.File, o.Line, orNone(vs))}
			}
		}
	}
	if fv, ok := clusterFluxVersion(c); ok {
		if minor, ok := fluxMinor(fv); ok {
			vs := fluxschema.ServedBy(group, kind, minor)
			return servedSet{vs, fmt.Sprintf("%s, whose CRD serves %s; Flux serves %s", fv.describe(c.Name), strings.Join(vs, ", "), fluxschema.History(group, kind))}
		}
	}
	vs := fluxschema.ServedBy(group, kind, fluxschema.AcceptedFrom)
	return servedSet{vs, fmt.Sprintf("Flux serves %s", fluxschema.History(group, kind))}
}

// fluxMinor is the Flux minor release (2.minor) of v: its own minor, the newest one a
// FluxInstance's range admits, or, for a kustomize-controller image tag v1.N, N (Flux 2.N
// ships kustomize-controller v1.N: flux2 manifests/bases/kustomize-controller).
func fluxMinor(v fluxVersion) (int, bool) {
	if sv, err := semver.NewVersion(v.Text); err == nil {
		if v.Component != "" || sv.Major() == 2 {
			return int(sv.Minor()), true
		}
		return 0, false
	}
	cons, err := semver.NewConstraint(v.Text)
	if err != nil {
		return 0, false
	}
	for minor := 40; minor >= 0; minor-- {
		for _, patch := range []uint64{99, 0} {
			if cons.Check(semver.New(2, uint64(minor), patch, "", "")) {
				return minor, true
			}
		}
	}
	return 0, false
}

func orNone(vs []string) string {
	if len(vs) == 0 {
		return "no version"
	}
	return strings.Join(vs, ", ")
}

// unservedVersionFinding is the error at o, whose apiVersion s does not serve.
func unservedVersionFinding(c *graph.Cluster, ks *graph.Kustomization, o *graph.Object, s servedSet) Finding {
	f := objectFinding("missing-crd", Error, c.Name, o, ks.Ref)
	f.key = o.ID.Group + "/" + o.ID.Kind + "@" + o.Body.GetAPIVersion()
	if o.HelmRelease != "" {
		f.key += "\x00" + o.HelmRelease
	}
	what, fails := o.ID.String(), fmt.Sprintf("the dry-run of %s fails with 'no matches for kind \"%s\" in version \"%s\"' on every reconcile and applies nothing", ks.Ref, o.ID.Kind, o.Body.GetAPIVersion())
	switch {
	case o.HelmRelease != "":
		what += fmt.Sprintf(" (chart template %s of HelmRelease %s)", o.Template, o.HelmRelease)
		fails = fmt.Sprintf("helm-controller's install or upgrade of %s fails with 'unable to build kubernetes objects from release manifest: resource mapping not found ... no matches for kind \"%s\" in version \"%s\"' and applies nothing of the release", o.HelmRelease, o.ID.Kind, o.Body.GetAPIVersion())
	case o.ResourceSet != "":
		fails = fmt.Sprintf("the apply of ResourceSet %s fails with 'no matches for kind \"%s\" in version \"%s\"'", o.ResourceSet, o.ID.Kind, o.Body.GetAPIVersion())
	default:
		f.Line, _ = keyLine(c, o.File, o.Line, "apiVersion")
	}
	review := fmt.Sprintf("tiergate does not review it as a %s", o.ID.Kind)
	if fluxschema.Accepted(o.Body.GetAPIVersion(), o.ID.Kind) {
		review = fmt.Sprintf("tiergate still reviews it as the %s Flux 2.%d served, which this cluster does not apply", o.ID.Kind, fluxschema.AcceptedFrom)
	}
	f.Message = fmt.Sprintf("%s has apiVersion %s, a version the %s CRD of cluster %s does not serve: %s. So %s, and %s.",
		what, o.Body.GetAPIVersion(), o.ID.Kind, c.Name, s.basis, fails, review)
	if len(s.versions) == 0 {
		f.Suggestion = fmt.Sprintf("Install a CRD of %s that serves the version, or remove %s from %s:%d.", kindName(o.ID), o.ID, o.File, o.Line)
		return f
	}
	want := o.ID.Group + "/" + s.versions[0]
	f.Suggestion = fmt.Sprintf("Set `apiVersion: %s` on %s (%s:%d), and fix its spec for that version where it differs.", want, o.ID, o.File, f.Line)
	if o.HelmRelease != "" {
		f.Suggestion = fmt.Sprintf("Make chart template %s of HelmRelease %s render `apiVersion: %s` for %s (its values, or a chart version that does).", o.Template, o.HelmRelease, want, o.ID)
	}
	return f
}
