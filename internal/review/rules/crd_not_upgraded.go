package rules

import (
	"fmt"
	"path"
	"reflect"
	"regexp"
	"strings"

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
		// The suggestion names the policy's own line when the HelmRelease sets one
		// (`crds:`, or `upgrade:` in flow style): where the fix goes.
		policyLine := hr.Line
		if l, n := keyLine(head, hr.File, hr.Line, "spec", "upgrade", "crds"); n >= 2 {
			policyLine = l
		}
		f.Line = policyLine
		// The finding itself sits on the CRD's document in the chart's crds/ file, the
		// line the PR changes, when the chart is a folder of the repository.
		if file, line := chartDocLine(head, ks, o); line > 0 {
			f.File, f.Line = file, line
		}
		f.Message = fmt.Sprintf("The chart of HelmRelease %s %s %s in %s, but its spec.upgrade.crds is %s: helm-controller's upgrade %s, "+
			"so clusters that already run the release keep the old CRD, and custom resources that use what is new in it are rejected or lose those fields.",
			o.HelmRelease, change, o.ID, o.Template, shown, policyEffect(policy))
		f.Suggestion = fmt.Sprintf("Set `spec.upgrade.crds: CreateReplace` on HelmRelease %s (%s:%d) so the upgrade replaces the chart's CRDs, or apply the CRDs from a Kustomization.", o.HelmRelease, hr.File, policyLine)
		out = append(out, f)
	})
	return out
}

// chartDocLine locates o, an object the chart of an in-repo HelmRelease rendered from
// chart file o.Template ("app/crds/x.yaml", Helm's CRD.Filename, the chart's name first),
// in the repository: the release's chart folder (graph.Release.Chart) joined with the
// rest of the path, at the `kind:` line of the document that names o. ("", 0) when the
// chart is not a folder of the repository (remote, packaged) or the document is not found.
func chartDocLine(c *graph.Cluster, ks *graph.Kustomization, o *graph.Object) (string, int) {
	_, rest, ok := strings.Cut(o.Template, "/")
	if !ok {
		return "", 0
	}
	for _, rel := range ks.Releases {
		if rel.HelmRelease != hrID(o.HelmRelease) {
			continue
		}
		file := path.Join(rel.Chart, rest)
		data, ok := c.ReadFile(file)
		if !ok {
			return "", 0
		}
		return file, docKindLine(string(data), o.ID.Kind, o.ID.Name)
	}
	return "", 0
}

// docKindLine is the 1-based line of the `kind: <kind>` of the YAML document in text that
// has a `name: <name>` line, 0 when none has.
func docKindLine(text, kind, name string) int {
	kindRe := regexp.MustCompile(`^kind:\s*["']?` + literal(kind) + `["']?\s*$`)
	nameRe := regexp.MustCompile(`^\s+name:\s*["']?` + literal(name) + `["']?\s*$`)
	kindAt, named := 0, false
	for i, l := range strings.Split(text, "\n") {
		l = strings.TrimRight(l, "\r")
		if strings.HasPrefix(l, "---") {
			kindAt, named = 0, false
			continue
		}
		if kindAt == 0 && kindRe.MatchString(l) {
			kindAt = i + 1
		}
		named = named || nameRe.MatchString(l)
		if kindAt > 0 && named {
			return kindAt
		}
	}
	return 0
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
