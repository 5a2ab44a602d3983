package rules

import (
	"fmt"
	"path"
	"reflect"
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
// lose the new fields. A new cluster installs the new CRD, so the two differ. A custom
// resource that uses a version only the new CRD serves is an error of its own, at the
// resource (crdVersionUnserved).
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
		// The finding itself sits in the CRD's document in the chart's crds/ file, on the
		// first line the PR changes, when the chart is a folder of the repository.
		if file, line := chartDocLine(base, head, ks, o); line > 0 {
			f.File, f.Line = file, line
		}
		f.Message = fmt.Sprintf("The chart of HelmRelease %s %s %s in %s, but its spec.upgrade.crds is %s: helm-controller's upgrade %s, "+
			"so clusters that already run the release keep the old CRD, and custom resources that use what is new in it are rejected or lose those fields.",
			o.HelmRelease, change, o.ID, o.Template, shown, policyEffect(policy))
		f.Suggestion = fmt.Sprintf("Set `spec.upgrade.crds: CreateReplace` on HelmRelease %s (%s:%d) so the upgrade replaces the chart's CRDs, or apply the CRDs from a Kustomization.", o.HelmRelease, hr.File, policyLine)
		out = append(out, f)
	})
	return append(out, crdVersionUnserved(base, head)...)
}

// chartDocLine locates o, an object the chart of an in-repo HelmRelease rendered from
// chart file o.Template ("app/crds/x.yaml", Helm's CRD.Filename, the chart's name first),
// in the repository: the release's chart folder (graph.Release.Chart) joined with the
// rest of the path. The line is the first head line of the document that names o which
// differs from the same document in base's copy of that file (firstChanged): GitHub takes
// line comments only on changed lines (publish.LineComments), and a CRD change is seldom
// on its `kind:` line. Without a base copy, or when the document only lost lines, it is
// the document's `kind:` line. ("", 0) when the chart is not a folder of the repository
// (remote, packaged) or the document is not found.
func chartDocLine(base, head *graph.Cluster, ks *graph.Kustomization, o *graph.Object) (string, int) {
	_, rest, ok := strings.Cut(o.Template, "/")
	if !ok {
		return "", 0
	}
	for _, rel := range ks.Releases {
		if rel.HelmRelease != hrID(o.HelmRelease) {
			continue
		}
		file := path.Join(rel.Chart, rest)
		data, ok := head.ReadFile(file)
		if !ok {
			return "", 0
		}
		now, found := findDoc(string(data), o.ID.Kind, o.ID.Name)
		if !found {
			return file, 0
		}
		if old, ok := base.ReadFile(file); ok {
			if was, found := findDoc(string(old), o.ID.Kind, o.ID.Name); found {
				if i := firstChanged(was.lines, now.lines); i >= 0 {
					return file, now.first + i
				}
			}
		}
		return file, now.kindLine
	}
	return "", 0
}

// yamlDoc is one YAML document of a file: its lines (without the `---` separators), the
// 1-based line of its first one and of its `kind:` line.
type yamlDoc struct {
	lines           []string
	first, kindLine int
}

// findDoc is the YAML document of text with a top-level `kind: <kind>` and a `name:
// <name>` line; false when none has.
func findDoc(text, kind, name string) (yamlDoc, bool) {
	kindRe := scalarLine(kindKeyTop, kind, lineEnd)
	nameRe := scalarLine(nameKeyInner, name, lineEnd)
	var d yamlDoc
	named := false
	lines := strings.Split(text, "\n")
	for i := 0; i <= len(lines); i++ {
		if i == len(lines) || strings.HasPrefix(lines[i], "---") {
			if d.kindLine > 0 && named {
				return d, true
			}
			d, named = yamlDoc{}, false
			continue
		}
		l := strings.TrimRight(lines[i], "\r")
		if d.first == 0 {
			d.first = i + 1
		}
		d.lines = append(d.lines, l)
		if d.kindLine == 0 && kindRe.MatchString(l) {
			d.kindLine = i + 1
		}
		named = named || nameRe.MatchString(l)
	}
	return yamlDoc{}, false
}

// firstChanged is the index in now of the first line a line diff from was adds or
// changes: past the lines both share at the start, when some of now is left before the
// lines both share at the end. -1 when now only lost lines or equals was (a diff then adds
// no line of the document to comment on).
func firstChanged(was, now []string) int {
	p := 0
	for p < len(was) && p < len(now) && was[p] == now[p] {
		p++
	}
	s := 0
	for s < len(was)-p && s < len(now)-p && was[len(was)-1-s] == now[len(now)-1-s] {
		s++
	}
	if p >= len(now)-s {
		return -1
	}
	return p
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
