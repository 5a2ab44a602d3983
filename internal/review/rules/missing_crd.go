package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// missingCRD reports an object whose kind nothing provides: not built in, no CRD of it in
// any Kustomization or rendered chart of the cluster, no trigger in the cluster of a
// runtime-catalog entry for it, not preinstalled (.tiergate.yaml preinstalledCRDs or a
// bootstrap helmfile), not one of the kinds a Flux installation or a distribution serves
// (installedKind). kustomize-controller dry-runs every object before it applies a stage
// (fluxcd/pkg ssa ResourceManager.ApplyAllStaged): the REST mapping fails with 'no matches
// for kind', the whole apply fails, and so on every cluster built from the repository
// (shrinedogg/biggs.dog#441: an ExternalSecret reused where nothing installs
// external-secrets). One finding per Kustomization and kind, at its first object. When part
// of the cluster is not rendered or a bootstrap helmfile could not be read (crdUnknowns:
// an unrendered chart only where it may plausibly ship the CRD, and not when the change
// removed the CRD from a Kustomization), the CRD may come from there: one notice per kind
// saying so; none
// when a Kustomization whose build is unknown here emitted the CRD at the other commit
// (unknownProvider). An object
// a HelmRelease's chart renders (a ServiceMonitor where nothing installs
// monitoring.coreos.com) fails helm-controller's install or upgrade instead: Helm builds the
// release manifest through the REST mapper before it applies anything (helm pkg/action
// Install.RunWithContext, KubeClient.Build: 'unable to build kubernetes objects from release
// manifest: resource mapping not found ... no matches for kind'), and
// Upgrade does the same; one finding per HelmRelease and kind, at the HelmRelease, naming the
// chart template. A Kustomization with remote
// resources not fetched is skipped: release bundles ship the CRDs of their own kinds, as for
// the CRD needs of missing-depends-on, and it is already listed as not reviewed.
func missingCRD(c, other *graph.Cluster, env *Env) []Finding {
	v := env.view(c)
	var out []Finding
	noticed := map[string]bool{} // unknown: one notice per kind for the cluster
	skipped := skippedCRDs(c)
	for _, ref := range c.Order {
		ks := c.Kustomizations[ref]
		if len(ks.Remote) > 0 {
			continue // its remote resources, not fetched, usually ship its CRDs (knownNeeds); it is listed not reviewed
		}
		seen := map[string]bool{}
		for _, o := range ks.Objects {
			gk := o.ID.Group + "/" + o.ID.Kind
			once := gk // one finding per Kustomization, or per HelmRelease of it, and kind
			if o.HelmRelease != "" {
				once = gk + "\x00" + o.HelmRelease
			}
			if seen[once] || noticed[gk] || v.crdKnown(o.ID, env) || unknownProvider(c, other, crdOf(o.ID)) != "" {
				continue
			}
			comp := v.absentComponent(o.ID)
			if comp != "" && removedComponent(other, c, comp) {
				continue // flux-component-removed reports it, at the components line
			}
			seen[once] = true
			f := objectFinding("missing-crd", Error, c.Name, o, ref)
			f.key = once
			if comp != "" {
				componentMissingCRD(&f, c, o, ref, comp, v.installed().instance)
				out = append(out, f)
				continue
			}
			kind := kindName(o.ID)
			catalog := ""
			if ps := env.Catalog.Providers(gk); len(ps) > 0 {
				var names []string
				for _, p := range ps {
					names = append(names, "a "+p.TriggerName())
				}
				catalog = fmt.Sprintf(" (the runtime-CRD catalog has it from %s, and cluster %s has none)", joinOr(names), c.Name)
			}
			if sk, ok := skipped[gk]; ok {
				skippedCRDFinding(&f, c, o, ref, kind, sk)
				out = append(out, f)
				continue
			}
			unknown, notCounted := crdUnknowns(c, other, v, env, o)
			if len(unknown) > 0 {
				noticed[gk] = true
				f.Severity = Notice
				f.Message = fmt.Sprintf("No reviewed Kustomization or chart of cluster %s installs the CRD of %s%s, used by %s and maybe others; not checked, since %s may install it.",
					c.Name, kind, catalog, o.ID, joinAnd(unknown))
				f.Suggestion = fmt.Sprintf("Nothing to do if one of them installs the CRD of %s; if the cluster has it before Flux runs, declare group %s under preinstalledCRDs.groups in .tiergate.yaml.", kind, o.ID.Group)
				out = append(out, f)
				continue
			}
			if o.HelmRelease != "" {
				chartMissingCRD(&f, c, other, o, kind, catalog)
				f.Message += notCounted
				out = append(out, f)
				continue
			}
			applier := "The dry-run of " + ref.String()
			if o.ResourceSet != "" {
				applier = "The apply of ResourceSet " + o.ResourceSet
			}
			fails := fmt.Sprintf("%s fails with 'no matches for kind \"%s\" in version \"%s\"' on every reconcile and applies nothing.", applier, o.ID.Kind, o.Body.GetAPIVersion())
			f.Message = fmt.Sprintf("%s is of kind %s, which no CRD of cluster %s provides: no Kustomization or chart installs one%s, it is not declared preinstalled, and it is not built in. %s",
				o.ID, kind, c.Name, catalog, keptCRDClause(c, other, o.ID, fails)) + notCounted
			f.Suggestion = fmt.Sprintf("Install the CRD of %s in this cluster (its chart in a HelmRelease, or its CRD manifests in a Kustomization that %s dependsOn), remove %s from %s:%d, or, if the cluster has the CRD before Flux runs, declare group %s under preinstalledCRDs.groups in .tiergate.yaml.",
				kind, ref, o.ID, o.File, o.Line, o.ID.Group)
			bootstrapComponent(&f, v, o.ID)
			out = append(out, f)
		}
	}
	return append(out, unservedFluxVersions(c)...)
}

// bootstrapComponent adds to f, for a Flux kind missing from a graph that holds Flux's own
// CRDs (a bootstrap's gotk-components.yaml, which `flux install --export` writes with the
// CRDs of the components it installs), the component to add and how: the flux CLI's
// --components-extra for the opt-in controllers, --components for the default ones
// (flux2 cmd/flux/install.go, the installArgs components and componentsExtra flags).
func bootstrapComponent(f *Finding, v *view, id graph.ObjectID) {
	comp := fluxComponent(id.Group, id.Kind)
	if comp == "" || !v.installed().fluxCRDs {
		return
	}
	flag := "--components-extra=" + comp
	if slices.Contains(defaultComponents, comp) {
		flag = "--components listing " + comp
	}
	f.Message += fmt.Sprintf(" The cluster's Flux CRDs (gotk-components.yaml) are those of the controllers it installs, and %s is not among them.", comp)
	f.Suggestion = fmt.Sprintf("Install %s: regenerate the Flux manifests with `flux install --export` (or `flux bootstrap`) and %s. Otherwise: %s", comp, flag, f.Suggestion)
}

// componentMissingCRD words f for object o of a Flux kind whose controller, comp, the
// cluster's FluxInstance fi does not list: flux-operator installs neither the controller
// nor its CRDs, so the kind is unknown to the API server and the dry-run (or Helm's
// manifest build) fails as for any missing CRD. Unrendered charts do not soften it to a
// notice: a chart that installed Flux's CRDs beside flux-operator would fight the operator
// over them.
func componentMissingCRD(f *Finding, c *graph.Cluster, o *graph.Object, ref graph.Ref, comp string, fi *fluxInstance) {
	fails := fmt.Sprintf("the dry-run of %s fails with 'no matches for kind \"%s\" in version \"%s\"' on every reconcile and applies nothing", ref, o.ID.Kind, o.Body.GetAPIVersion())
	what := o.ID.String()
	if o.HelmRelease != "" {
		fails = fmt.Sprintf("helm-controller's install or upgrade of %s fails with 'unable to build kubernetes objects from release manifest: resource mapping not found ... no matches for kind \"%s\" in version \"%s\"' and applies nothing of the release", o.HelmRelease, o.ID.Kind, o.Body.GetAPIVersion())
		what += fmt.Sprintf(" (chart template %s of HelmRelease %s)", o.Template, o.HelmRelease)
	}
	f.Message = fmt.Sprintf("%s is of kind %s, served by %s, which cluster %s's %s does not install: %s, and flux-operator installs only those controllers and their CRDs; %s.",
		what, kindName(o.ID), comp, c.Name, fi.label(c), componentsNow(fi), fails)
	f.Suggestion = fmt.Sprintf("Add %s to %s of %s (%s:%d), or remove %s from %s:%d.",
		comp, instanceField(fi.obj, "components"), instanceName(fi.obj), fi.obj.File, fi.line(c), o.ID, o.File, o.Line)
}

// keptCRDClause says where fails (a sentence: what fails without the CRD of id) holds:
// everywhere, unless other has that CRD from a chart whose release Helm leaves it in the
// cluster as c removes it (HelmLeaves: crds/, applied outside the release by
// helm-controller's applyCRDs; or helm.sh/resource-policy: keep, which the uninstall skips,
// helm pkg/action/uninstall.go filterManifestsToKeep). Clusters where that release ran keep
// the CRD and its kind, so only a cluster bootstrapped from c fails.
func keptCRDClause(c, other *graph.Cluster, id graph.ObjectID, fails string) string {
	if other == nil {
		return fails
	}
	is := crdOf(id)
	for _, ref := range other.Order {
		for _, o := range other.Kustomizations[ref].Objects {
			if !is(o) || len(c.Owners[o.ID]) > 0 {
				continue
			}
			if why := HelmLeaves(o, other, c); why != "" {
				hr := helmReleaseOf(other, o.Owner, o.HelmRelease)
				return fmt.Sprintf("Clusters where release %s ran keep %s (%s), so the kind is served there; a cluster bootstrapped from this commit never gets it: there %s",
					releaseLabel(hr), o.ID, why, strings.ToLower(fails[:1])+fails[1:])
			}
		}
	}
	return fails
}

// crdOf matches the CustomResourceDefinition that serves id's group and kind.
func crdOf(id graph.ObjectID) func(*graph.Object) bool {
	return func(o *graph.Object) bool {
		return isCRD(o.ID) && o.Body != nil && bodyString(o.Body, "spec", "group") == id.Group && bodyString(o.Body, "spec", "names", "kind") == id.Kind
	}
}

// chartMissingCRD words f for an object of HelmRelease o.HelmRelease's chart: Helm's
// install or upgrade fails building the release manifest, and nothing of the release is
// applied. f is at the HelmRelease (o.File, o.Line).
func chartMissingCRD(f *Finding, c, other *graph.Cluster, o *graph.Object, kind, catalog string) {
	fails := fmt.Sprintf("helm-controller's install or upgrade of %s fails with 'unable to build kubernetes objects from release manifest: resource mapping not found ... no matches for kind \"%s\" in version \"%s\"' on every reconcile and applies nothing of the release.",
		o.HelmRelease, o.ID.Kind, o.Body.GetAPIVersion())
	f.Message = fmt.Sprintf("%s, rendered by chart template %s of HelmRelease %s, is of kind %s, which no CRD of cluster %s provides: no Kustomization or chart installs one%s, it is not declared preinstalled, and it is not built in. %s",
		o.ID, o.Template, o.HelmRelease, kind, c.Name, catalog, keptCRDClause(c, other, o.ID, fails))
	f.Suggestion = fmt.Sprintf("Install the CRD of %s in this cluster before HelmRelease %s (its chart in a HelmRelease that %s dependsOn, or its CRD manifests in a Kustomization applied first), turn off what renders %s in the values of HelmRelease %s (%s:%d), or, if the cluster has the CRD before Flux runs, declare group %s under preinstalledCRDs.groups in .tiergate.yaml.",
		kind, o.HelmRelease, o.HelmRelease, o.Template, o.HelmRelease, o.File, o.Line, o.ID.Group)
}

// skippedCRD is a HelmRelease whose chart has a CRD in crds/ that its install.crds: Skip
// leaves uninstalled, with the line of that policy.
type skippedCRD struct {
	hr         string // namespace/name
	file       string
	line       int
	policyLine int
}

// skippedCRDs maps "group/Kind" to the first HelmRelease (in build order) whose chart ships
// its CRD in crds/ under install.crds: Skip (graph.Release.SkippedCRDs).
func skippedCRDs(c *graph.Cluster) map[string]skippedCRD {
	out := map[string]skippedCRD{}
	for _, ref := range c.Order {
		ks := c.Kustomizations[ref]
		for _, rel := range ks.Releases {
			if len(rel.SkippedCRDs) == 0 {
				continue
			}
			o := manifestOf(ks, rel.HelmRelease)
			if o == nil {
				continue
			}
			line, _ := keyLine(c, o.File, o.Line, "spec", "install", "crds")
			for _, gk := range rel.SkippedCRDs {
				if _, ok := out[gk]; !ok {
					out[gk] = skippedCRD{hr: rel.HelmRelease.Namespace + "/" + rel.HelmRelease.Name, file: o.File, line: o.Line, policyLine: line}
				}
			}
		}
	}
	return out
}

// skippedCRDFinding words f for object o of kind, whose CRD the chart of sk.hr ships in
// crds/ but does not install: helm-controller's applyCRDs (internal/action/crds.go) returns
// before reading the chart's CRDs under policy Skip, and Helm installs crds/ only through
// it (the install runs with SkipCRDs), so the kind stays unknown to the API server.
func skippedCRDFinding(f *Finding, c *graph.Cluster, o *graph.Object, ref graph.Ref, kind string, sk skippedCRD) {
	cause := fmt.Sprintf("HelmRelease %s's chart ships the CRD of %s in crds/, but its spec.install.crds is Skip (%s:%d), so helm-controller never installs it (applyCRDs skips crds/ under that policy) and no other Kustomization or chart of cluster %s does",
		sk.hr, kind, sk.file, sk.policyLine, c.Name)
	fail := fmt.Sprintf("the dry-run of %s fails with 'no matches for kind \"%s\" in version \"%s\"' on every reconcile and applies nothing", ref, o.ID.Kind, o.Body.GetAPIVersion())
	if o.HelmRelease != "" {
		fail = fmt.Sprintf("helm-controller's install or upgrade of %s fails with 'unable to build kubernetes objects from release manifest: resource mapping not found ... no matches for kind \"%s\" in version \"%s\"' and applies nothing of the release",
			o.HelmRelease, o.ID.Kind, o.Body.GetAPIVersion())
	}
	what := o.ID.String()
	if o.Template != "" {
		what += fmt.Sprintf(" (chart template %s of HelmRelease %s)", o.Template, o.HelmRelease)
	}
	f.Severity = Error
	f.Message = fmt.Sprintf("%s is of kind %s: %s; %s.", what, kind, cause, fail)
	f.Suggestion = fmt.Sprintf("Set `crds: CreateReplace` (or `Create`) under spec.install of HelmRelease %s (%s:%d) so that helm-controller installs the chart's CRDs, or install the CRD of %s from a CRD tier (a Kustomization with the CRD manifests, `wait: true`) that %s dependsOn.",
		sk.hr, sk.file, sk.policyLine, kind, ref)
}

// crdKnown reports whether the cluster serves id's kind: built in, a CRD of the graph (a
// build's or a rendered chart's), a runtime-catalog kind whose trigger the cluster has,
// preinstalled, or installedKind.
func (v *view) crdKnown(id graph.ObjectID, env *Env) bool {
	gk := id.Group + "/" + id.Kind
	if _, ok := v.crdScope[gk]; ok || env.Catalog.Preinstalled(id.Group) || v.installedKind(id.Group) {
		return true
	}
	if fluxGroup(id.Group) {
		// builtin lists Flux's kinds; the graph's CRDs or the FluxInstance's components
		// have the last word on them
		return !v.installed().fluxCRDs && v.absentComponent(id) == ""
	}
	if builtin(id.Group, id.Kind) {
		return true
	}
	for _, rk := range env.Catalog.Providers(gk) {
		if len(v.triggerOwners(rk)) > 0 {
			return true
		}
	}
	return false
}

// distributionGroups are API groups whose CRDs Kubernetes distributions and managed
// clusters install themselves, which no repository can show: Gateway API (GKE, AKS,
// OpenShift, k3s/RKE2 with Traefik), CSI snapshots (GKE, AKS, EKS add-ons), k3s/RKE2's
// HelmChart controller, Talos's API access (talos.dev ServiceAccount), OpenShift's and the
// cloud providers' own groups.
var distributionGroups = map[string]bool{
	"gateway.networking.k8s.io": true, "snapshot.storage.k8s.io": true, "groupsnapshot.storage.k8s.io": true,
	"helm.cattle.io": true, "k3s.cattle.io": true, "metrics.k8s.io": true, "talos.dev": true,
	"networking.gke.io": true, "cloud.google.com": true, "monitoring.googleapis.com": true,
	"vpcresources.k8s.aws": true, "crd.k8s.amazonaws.com": true,
}

// installedKind reports whether the kinds of group exist in any cluster that reconciles the
// repository: Flux's own (*.toolkit.fluxcd.io, source.extensions.fluxcd.io) unless the graph
// holds Flux's CRDs (gotk-components.yaml: then those say which controllers are installed,
// and an ImagePolicy without the image controllers' CRDs is missing) or a FluxInstance
// (then its components do, absentComponent),
// flux-operator's (fluxcd.controlplane.io: a repository that uses them runs the operator, often
// installed before Flux) unless the graph holds its CRDs, and distributionGroups.
func (v *view) installedKind(group string) bool {
	switch {
	case distributionGroups[group] || strings.HasSuffix(group, ".openshift.io"):
		return true
	case fluxGroup(group):
		return !v.installed().fluxCRDs && v.installed().instance == nil
	case group == "fluxcd.controlplane.io":
		return !v.installed().operatorCRDs
	}
	return false
}

// installation is what a view knows of the Flux installation, computed once.
type installation struct {
	// fluxCRDs: the graph holds Flux's own CRDs (gotk-components.yaml: at least those of
	// GitRepository and Kustomization, which every installation has).
	fluxCRDs bool
	// operatorCRDs: the graph holds flux-operator's CRDs (at least FluxInstance's).
	operatorCRDs bool
	// instance is the cluster's FluxInstance, whose components say which of Flux's
	// controllers and CRDs flux-operator installs; nil when there is none.
	instance *fluxInstance
}

func (v *view) installed() *installation {
	if v.flux == nil {
		_, src := v.crdScope["source.toolkit.fluxcd.io/GitRepository"]
		_, kus := v.crdScope["kustomize.toolkit.fluxcd.io/Kustomization"]
		_, op := v.crdScope["fluxcd.controlplane.io/FluxInstance"]
		v.flux = &installation{fluxCRDs: src && kus, operatorCRDs: op, instance: clusterFluxInstance(v.c)}
	}
	return v.flux
}

// fluxGroup reports whether group is one of Flux's own controllers.
func fluxGroup(group string) bool {
	return strings.HasSuffix(group, ".toolkit.fluxcd.io") || group == "source.extensions.fluxcd.io"
}

// absentComponent is the Flux component that serves id's kind when the cluster's
// FluxInstance does not install it; "" when it does, when id is not Flux's, or when the
// graph holds Flux's own CRDs (a bootstrap's gotk-components.yaml: those CRDs decide).
// flux-operator builds only the listed components' manifests, CRDs included
// (flux-operator internal/controller/fluxinstance_controller.go build: options.Components
// = obj.GetComponents()).
func (v *view) absentComponent(id graph.ObjectID) string {
	in := v.installed()
	comp := fluxComponent(id.Group, id.Kind)
	if in.fluxCRDs || in.instance == nil || comp == "" || in.instance.has(comp) {
		return ""
	}
	return comp
}
