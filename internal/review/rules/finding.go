package rules

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// Severity orders findings; --fail-on is a comparison against it.
type Severity int

const (
	None Severity = iota
	Notice
	Warning
	Error
)

var severityNames = []string{"none", "notice", "warning", "error"}

func (s Severity) String() string { return severityNames[s] }

// ParseSeverity reads "notice", "warning", "error" or "never" (which is None).
func ParseSeverity(s string) (Severity, error) {
	switch s {
	case "never", "none":
		return None, nil
	case "notice":
		return Notice, nil
	case "warning":
		return Warning, nil
	case "error":
		return Error, nil
	}
	return None, fmt.Errorf("unknown severity %q (want error, warning, notice or never)", s)
}

func (s Severity) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

func (s *Severity) UnmarshalJSON(b []byte) error {
	var str string
	if err := json.Unmarshal(b, &str); err != nil {
		return err
	}
	v, err := ParseSeverity(str)
	*s = v
	return err
}

// Status says whether a finding is introduced by the change, was already there, or is
// fixed by it.
type Status string

const (
	StatusNew      Status = "new"
	StatusExisting Status = "existing"
	StatusResolved Status = "resolved"
)

// Finding is one rule's verdict on one object or Kustomization.
type Finding struct {
	Rule          string          `json:"rule"`
	Severity      Severity        `json:"severity"`
	Status        Status          `json:"status"`
	Cluster       string          `json:"cluster"`
	Object        *graph.ObjectID `json:"object,omitempty"`
	Kustomization string          `json:"kustomization,omitempty"`
	Message       string          `json:"message"`
	Suggestion    string          `json:"suggestion"`
	File          string          `json:"file,omitempty"`
	Line          int             `json:"line,omitempty"`
	// Details is the whole error chain that Message shortens to one sentence (kustomize's,
	// for a render-error); empty when Message is all there is.
	Details string `json:"details,omitempty"`
	// DependsOn is, for missing-depends-on, the Kustomization ("namespace/name") to add to
	// spec.dependsOn; empty when no edge can help.
	DependsOn string `json:"dependsOn,omitempty"`
	// Clusters lists, sorted, every cluster where the same cause gives the same finding
	// (a folder shared by several clusters); empty when only Cluster has it.
	Clusters []string `json:"clusters,omitempty"`
	// refs are the Kustomizations the finding is about, besides its object: the subject of
	// a finding about a Kustomization, the provider an edge leads to, a cycle's members.
	refs []graph.Ref
	// key is any other detail that tells findings of one rule apart (a variable name).
	key string
	// resolvedAdvice replaces Suggestion when the finding is resolved (found at base only).
	resolvedAdvice string
}

// Resolved is f found at base only: resolved, with the rule's advice for that case (what
// the change did) instead of advice written for the commit where the problem is.
func (f Finding) Resolved() Finding {
	f.Status = StatusResolved
	if f.resolvedAdvice != "" {
		f.Suggestion = f.resolvedAdvice
	}
	return f
}

// Key identifies the finding across base and head: rule, cluster, object, the
// Kustomizations it is about and any rule-specific detail. The Kustomization that holds an
// object is context, not identity: a renamed tier that keeps its objects keeps their findings.
func (f Finding) Key() string { return f.KeyAs(nil) }

// KeyAs is Key with the Kustomizations the finding is about written as alias names them
// (a base Kustomization under its head name when the change renames it; see Renames).
func (f Finding) KeyAs(alias map[graph.Ref]graph.Ref) string {
	obj := ""
	if f.Object != nil {
		obj = f.Object.String()
	}
	refs := make([]string, len(f.refs))
	for i, r := range f.refs {
		if a, ok := alias[r]; ok {
			r = a
		}
		refs[i] = r.String()
	}
	if f.Rule == "depends-on-cycle" {
		sort.Strings(refs) // the members, as a set
	}
	if f.Object == nil && len(f.refs) == 0 {
		refs = []string{f.Kustomization} // a finding made outside this package
	}
	return strings.Join([]string{f.Rule, f.Cluster, obj, strings.Join(refs, ","), f.key}, "\x00")
}

// Env is what a rule may consult besides the graphs. One review uses it from one goroutine.
type Env struct {
	Catalog *Catalog
	// Strict is true when undefined variables fail the reconcile (Flux 2.9 default).
	Strict bool
	// StrictConfigured says .tiergate.yaml sets Strict (strictSubstitution): it then wins
	// over the Flux version a cluster's manifests state (clusterFluxVersion).
	StrictConfigured bool
	// UnknownCRDs names what installs CRDs before Flux that tiergate could not read (a
	// bootstrap helmfile release whose chart is templated or not in the chart catalog, as
	// "helmfile.yaml:12: release cilium: …"): missing-crd is then unknown, a notice.
	UnknownCRDs []string
	// BootstrapNamespaces are the namespaces that exist before Flux runs because a bootstrap
	// helmfile installs a release there (pipeline.BootstrapNamespaces); missing-namespace
	// counts them as created.
	BootstrapNamespaces map[string]bool

	views map[*graph.Cluster]*view
}

// view returns the relations of c, computed once for all rules of a review.
func (e *Env) view(c *graph.Cluster) *view {
	if e.views == nil {
		e.views = map[*graph.Cluster]*view{}
	}
	if v, ok := e.views[c]; ok {
		return v
	}
	v := newView(c)
	e.views[c] = v
	return v
}

// StateRule judges one cluster graph; other is the same cluster at the other commit (may be nil).
type StateRule struct {
	ID    string
	Check func(c, other *graph.Cluster, env *Env) []Finding
}

// ChangeRule judges the change of one cluster from base to head.
type ChangeRule struct {
	ID    string
	Check func(base, head *graph.Cluster, env *Env) []Finding
}

// State lists the state rules in report order.
var State = []StateRule{
	{"render-error", renderError},
	{"helm-render-error", helmRenderError},
	{"depends-on-not-found", dependsOnNotFound},
	{"health-check-not-found", healthCheckNotFound},
	{"source-not-found", sourceNotFound},
	{"depends-on-cycle", dependsOnCycle},
	{"release-collision", releaseCollision},
	{"duplicate-owner", duplicateOwner},
	{"runtime-crd-same-pass", runtimeCRDSamePass},
	{"runtime-namespace-same-pass", runtimeNamespaceSamePass},
	{"namespace-for-release", namespaceForRelease},
	{"missing-namespace", missingNamespace},
	{"postrender-patch-unmatched", postrenderPatchUnmatched},
	{"missing-depends-on", missingDependsOn},
	{"missing-wait", missingWait},
	{"missing-crd", missingCRD},
	{"namespace-not-set", namespaceNotSet},
	{"target-namespace-renames-namespace", targetNamespaceRenamesNamespace},
	{"invalid-name", invalidName},
	{"invalid-spec", invalidSpec},
	{"undefined-variable", undefinedVariable},
	{"substitution-type-change", substitutionTypeChange},
	{"unsubstituted-variable", unsubstitutedVariable},
	{"chart-version-unchanged", chartVersionUnchanged},
	{"helm-render-approximate", helmApproximate},
}

// Change lists the change rules in report order.
var Change = []ChangeRule{
	{"tier-move", tierMove},
	{"prune-transient", pruneTransient},
	{"destructive-prune", destructivePrune},
	{"helm-uninstall", helmUninstall},
	{"values-from-not-found", valuesFromNotFound},
	{"substitute-from-not-found", substituteFromNotFound},
	{"crd-not-upgraded", crdNotUpgraded},
	{"root-path-changed", rootPathChanged},
	{"flux-component-removed", fluxComponentRemoved},
	{"patch-target-lost", patchTargetLost},
}

// IDs lists every rule id, state rules first, in report order.
func IDs() []string {
	var ids []string
	for _, r := range State {
		ids = append(ids, r.ID)
	}
	for _, r := range Change {
		ids = append(ids, r.ID)
	}
	return ids
}

func objectFinding(rule string, sev Severity, cluster string, o *graph.Object, ks graph.Ref) Finding {
	id := o.ID
	return Finding{Rule: rule, Severity: sev, Cluster: cluster, Object: &id, Kustomization: ks.String(), File: o.File, Line: o.Line}
}

// Mask rewrites the parts of f's identity that no exported field shows (the
// Kustomizations it is about, its rule-specific detail) through mask, as the report's
// redaction rewrites the exported ones: Key then identifies the finding as the report
// prints it, and tells nothing the report does not (SARIF hashes it). mask maps a
// "namespace/name" text to its masked form; a ref whose masked form has no '/' keeps its
// namespace. Call it after base and head are compared (Key matches them).
func (f *Finding) Mask(mask func(string) string) {
	if len(f.refs) > 0 {
		refs := make([]graph.Ref, len(f.refs)) // shared with the unmasked finding
		for i, r := range f.refs {
			m := mask(r.String())
			if ns, name, ok := strings.Cut(m, "/"); ok {
				refs[i] = graph.Ref{Namespace: ns, Name: name}
			} else {
				refs[i] = graph.Ref{Namespace: mask(r.Namespace), Name: mask(r.Name)}
			}
		}
		f.refs = refs
	}
	f.key = mask(f.key)
}
