package rules

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// runtimeCRDSamePass reports a custom resource whose CRD a controller creates at runtime
// when it sits in the same Kustomization as the object that makes the controller create
// it. kustomize-controller dry-runs every object of a stage before applying any
// (fluxcd/pkg ssa ApplyAllStaged, flux-semantics.md §3): the unknown kind fails the dry-run,
// the trigger is never applied, the CRD never appears. A permanent deadlock. Not in a
// Kustomization with remote resources not fetched: they may ship the CRD (knownNeeds).
func runtimeCRDSamePass(c, _ *graph.Cluster, env *Env) []Finding {
	v := env.view(c)
	var out []Finding
	for _, ref := range c.Order {
		ks := c.Kustomizations[ref]
		if len(ks.Remote) > 0 {
			continue
		}
		for _, o := range ks.Objects {
			if o.HelmRelease != "" {
				continue // helm-controller applies it, after the chart's crds/, not ks's dry-run
			}
			rk, ok := runtimeKind(v, env, o)
			if !ok {
				continue
			}
			trigger := v.findTrigger(ks, rk)
			if trigger == nil {
				continue
			}
			f := objectFinding("runtime-crd-same-pass", Error, c.Name, o, ref)
			f.Message = fmt.Sprintf("%s's CRD is created at runtime once %s reconciles, but both are in %s: on a cluster without the CRD, Flux's dry-run rejects the unknown kind %s, nothing in the stage is applied, and the CRD never appears%s.",
				o.ID, trigger.ID, ref, o.ID.Kind, rk.basis("; "))
			f.Suggestion = samePassFix(ks, o, trigger, v.movedDeps(env, ks, o))
			out = append(out, f)
		}
	}
	return out
}

// runtimeKind returns the catalog entry of o's kind when no build in the graph ships its CRD.
func runtimeKind(v *view, env *Env, o *graph.Object) (RuntimeKind, bool) {
	gk := o.ID.Group + "/" + o.ID.Kind
	if _, shipped := v.crdOwners[gk]; shipped {
		return RuntimeKind{}, false
	}
	return v.runtimeKind(env, gk)
}

// findTrigger returns ks's first object that makes rk's CRD appear.
func (v *view) findTrigger(ks *graph.Kustomization, rk RuntimeKind) *graph.Object {
	for _, o := range ks.Objects {
		if v.triggers(o, rk) {
			return o
		}
	}
	return nil
}

// triggers reports whether o is of rk's trigger kind (and, for a HelmRelease, of its chart).
func (v *view) triggers(o *graph.Object, rk RuntimeKind) bool {
	group, kind := triggerID(rk.Trigger)
	if rk.FromCatalog() && v.rendered[o.ID] {
		return false // the render says what its chart installs; the catalog is the fallback
	}
	if rk.HelmRelease != "" {
		return o.HelmRelease == "" && o.ID.Group == group && o.ID.Kind == kind && o.ID.Namespace+"/"+o.ID.Name == rk.HelmRelease
	}
	return o.ID.Group == group && o.ID.Kind == kind && (rk.Chart == "" || v.chartOf(o) == rk.Chart)
}

// chartOf names a HelmRelease's chart: spec.chart.spec.chart, or for spec.chartRef the
// last path element of the OCIRepository's URL (the HelmChart's spec.chart).
func (v *view) chartOf(o *graph.Object) string {
	if c, _, _ := unstructured.NestedString(o.Body.Object, "spec", "chart", "spec", "chart"); c != "" {
		return path.Base(c)
	}
	ref, ok, _ := unstructured.NestedStringMap(o.Body.Object, "spec", "chartRef")
	if !ok {
		return ""
	}
	ns := ref["namespace"]
	if ns == "" {
		ns = o.ID.Namespace
	}
	for _, src := range v.c.Owners[sourceID(ref["kind"], ns, ref["name"])] {
		if u, _, _ := unstructured.NestedString(src.Body.Object, "spec", "url"); u != "" {
			name, _, _ := strings.Cut(path.Base(u), ":")
			return name
		}
		if c, _, _ := unstructured.NestedString(src.Body.Object, "spec", "chart"); c != "" {
			return c
		}
	}
	return ref["name"]
}

// movedDep is a provider that a Kustomization holding a moved object must dependsOn, and
// what of it the object needs.
type movedDep struct {
	ref  graph.Ref
	what []string
}

// movedDeps lists, besides ks, the Kustomizations that a new Kustomization holding o must
// dependsOn: for each need of o (its Namespace, its CRD, a StorageClass...) that ks neither
// provides nor applies after (no dependsOn path or parent chain to a provider), the provider
// missing-depends-on would name (upstream). Without them the moved o would be reported
// missing-depends-on in its new Kustomization, as it is in ks.
func (v *view) movedDeps(env *Env, ks *graph.Kustomization, o *graph.Object) []movedDep {
	var out []movedDep
	for _, n := range knownNeeds(ks, v.objectNeeds(o, env)) {
		if slices.ContainsFunc(n.providers, func(p graph.Ref) bool { return v.appliesAfter(ks.Ref, p) }) {
			continue
		}
		p := v.upstream(n.providers)
		if i := slices.IndexFunc(out, func(d movedDep) bool { return d.ref == p }); i >= 0 {
			out[i].what = append(out[i].what, n.what)
			continue
		}
		out = append(out, movedDep{ref: p, what: []string{n.what}})
	}
	slices.SortFunc(out, func(a, b movedDep) int { return strings.Compare(a.ref.String(), b.ref.String()) })
	return out
}

// movedFix is the start of the advice to move o out of ks: "Move o (file:line) to a new
// Kustomization that dependsOn ks[, and on p (for what)...]", and the dependsOn entries the
// new Kustomization's spec lists, indented for a `dependsOn:` at four spaces.
func movedFix(ks *graph.Kustomization, o *graph.Object, extra []movedDep) (lead, entries string) {
	lead = fmt.Sprintf("Move %s (%s:%d) to a new Kustomization that dependsOn %s", o.ID, o.File, o.Line, ks.Ref)
	for _, d := range extra {
		lead += fmt.Sprintf(", and on %s (for %s)", d.ref, strings.Join(d.what, " and "))
	}
	return lead, movedEntries(ks, extra, "      ")
}

// movedEntries is the dependsOn list of a Kustomization holding an object moved out of ks:
// ks, then each of extra, one "\n<indent>- name:" entry each (with namespace: when it
// is not ks's).
func movedEntries(ks *graph.Kustomization, extra []movedDep, indent string) string {
	deps := []graph.Ref{ks.Ref}
	for _, d := range extra {
		deps = append(deps, d.ref)
	}
	var b strings.Builder
	for _, d := range deps {
		b.WriteString("\n" + indent + "- name: " + d.Name)
		if d.Namespace != ks.Ref.Namespace {
			b.WriteString("\n" + indent + "  namespace: " + d.Namespace)
		}
	}
	return b.String()
}

// samePassFix is the concrete fix: o in a Kustomization of its own that dependsOn ks, and
// ks Ready only once the trigger is (providerWait). extra (movedDeps) are the other
// providers the new Kustomization must depend on, e.g. the tier of o's Namespace.
func samePassFix(ks *graph.Kustomization, o, trigger *graph.Object, extra []movedDep) string {
	ready := fmt.Sprintf("%s is Ready", trigger.ID)
	if trigger.ID.Kind == "HelmRelease" {
		ready = fmt.Sprintf("HelmRelease %s/%s is Ready (its chart installed, CRDs included)", trigger.ID.Namespace, trigger.ID.Name)
	}
	name := ks.Ref.Name + "-" + strings.ToLower(o.ID.Kind) + "s"
	var b strings.Builder
	lead, entries := movedFix(ks, o, extra)
	b.WriteString(lead)
	clause, snippet, why := providerWait(ks, trigger, "the CRD")
	fmt.Fprintf(&b, "%s, so that it is applied only once %s. %s\n%s", clause, ready, why, snippet)
	fmt.Fprintf(&b, "  # the new Kustomization, e.g. %s/%s, with the same sourceRef and a path holding %s\n", ks.Ref.Namespace, name, path.Base(o.File))
	fmt.Fprintf(&b, "  spec:\n    dependsOn:%s", entries)
	return b.String()
}

// providerWait is what the split of a same-pass finding asks of ks, the Kustomization that
// keeps the trigger: kustomize-controller holds a dependent until its dependsOn are Ready
// (kustomization_controller.go checkDependencies), and a Kustomization without `wait` or a
// healthCheck on the trigger is Ready as soon as it has applied (checkHealth), before the
// controller has created what (the CRD, the Namespace); with wait, a HelmRelease must be
// Ready, its chart installed, and a CDI must have reconciled. clause is appended to the
// move ("", ", and set `wait: true` on …", or ", and add a healthCheck … to …" when ks already
// lists healthChecks, which `wait: true` would override), snippet the YAML of that change
// ("" when none), why the sentence that says why dependsOn alone is not enough, or that ks
// already waits.
func providerWait(ks *graph.Kustomization, trigger *graph.Object, what string) (clause, snippet, why string) {
	if waitsFor(ks, trigger.ID.Group+"/"+trigger.ID.Kind) {
		how := "`wait: true`"
		if !ks.Spec.Wait {
			how = "a healthCheck on " + trigger.ID.String()
		}
		return "", "", fmt.Sprintf("%s already has %s, so it is Ready only once %s is healthy, and its dependents start after that.", ks.Ref, how, trigger.ID)
	}
	why = fmt.Sprintf("dependsOn alone is not enough: kustomize-controller starts a dependent once %s is Ready, and without `wait: true` or a healthCheck on %s that is as soon as it has applied, before %s exists.", ks.Ref, trigger.ID, what)
	if len(ks.Spec.HealthChecks) > 0 {
		entry := fmt.Sprintf("      - apiVersion: %s\n        kind: %s\n        name: %s\n", trigger.Body.GetAPIVersion(), trigger.ID.Kind, trigger.ID.Name)
		if trigger.ID.Namespace != "" {
			entry += fmt.Sprintf("        namespace: %s\n", trigger.ID.Namespace)
		}
		return fmt.Sprintf(", and add a healthCheck for %s to the healthChecks of %s (%s:%d)", trigger.ID, ks.Ref, ks.File, ks.Line),
			fmt.Sprintf("  # Kustomization %s\n  spec:\n    healthChecks:\n%s", ks.Ref, entry), why
	}
	return fmt.Sprintf(", and set `wait: true` on %s (%s:%d)", ks.Ref, ks.File, ks.Line),
		fmt.Sprintf("  # Kustomization %s\n  spec:\n    wait: true\n", ks.Ref), why
}
