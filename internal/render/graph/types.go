package graph

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/fluxcd/pkg/sourceignore"
	"github.com/fluxcd/pkg/sourceignore/gitignore"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/helm"
)

// Ref names a Flux Kustomization; it prints as "namespace/name".
type Ref struct {
	Namespace string
	Name      string
}

func (r Ref) String() string { return r.Namespace + "/" + r.Name }

// ObjectID is the identity Flux keeps in a Kustomization's inventory: group, kind,
// namespace, name (the version is not part of it). Core-group objects have Group "".
type ObjectID struct {
	Group     string `json:"group"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

func (id ObjectID) String() string {
	gk := id.Kind
	if id.Group != "" {
		gk += "." + id.Group
	}
	if id.Namespace == "" {
		return gk + "/" + id.Name
	}
	return gk + "/" + id.Namespace + "/" + id.Name
}

// IDOf is the inventory identity (ObjectID) of u: its group, kind, namespace and name as
// the object sets them, without defaulting.
func IDOf(u *unstructured.Unstructured) ObjectID {
	gvk := u.GroupVersionKind()
	return ObjectID{Group: gvk.Group, Kind: gvk.Kind, Namespace: u.GetNamespace(), Name: u.GetName()}
}

// GroupKind returns "group/Kind" ("Kind" alone for the core group).
func (id ObjectID) GroupKind() string {
	if id.Group == "" {
		return id.Kind
	}
	return id.Group + "/" + id.Kind
}

// Object is one rendered Kubernetes object after postBuild substitution.
type Object struct {
	ID    ObjectID
	Owner Ref
	// File is the repo-relative, slash-separated path of the manifest (or of the
	// kustomization.yaml whose generator made it); Line is the 1-based line of its `kind:`.
	File string
	Line int
	// Body is the object as Flux would apply it (before owner labels).
	Body *unstructured.Unstructured
	// Undefined lists variables the object uses without a default that no substitute or
	// substituteFrom defines (strict substitution fails on them).
	Undefined []string
	// Literal lists ${VAR} expressions that ship unsubstituted because substitution does
	// not run for this object's Kustomization.
	Literal []string
	// SecretValues lists the values of the postBuild variables read from a substituteFrom
	// Secret when substitution ran on the object, longest first: review redacts them
	// wherever they occur in Body, as it redacts a Secret's own values (the variables are
	// those Flux's ContextWithSecretVarsCollector reports).
	SecretValues []string
	// DerivedValues are the SecretValues that are no variable's value but what a bash-style
	// operator made of one (${NS:0:4}, ${NS^^}), longest first. Substitution records where
	// each stands (SecretFields), so review need not redact one by value where it stands
	// inside a larger literal word ("moni" of "monitoring"), which would tell it.
	DerivedValues []string `json:",omitempty"`
	// SecretFields are the fields of Body whose text postBuild substitution wrote, in part
	// or whole, from a variable read from a substituteFrom Secret: review redacts them at
	// their position whatever the length of the value (render vars.go fieldsOf).
	SecretFields []SecretField `json:",omitempty"`
	// TypeChanges are the string fields of the source that postBuild substitution turned
	// into another YAML type (fluxcd/pkg/kustomize SubstituteVariables parses the
	// substituted YAML text again): rule substitution-type-change.
	TypeChanges []TypeChange `json:",omitempty"`
	// NamedAsTarget is true for a v1 Namespace of a Kustomization with spec.targetNamespace
	// whose metadata.name as written differs from the target but becomes it by the
	// Kustomization's postBuild substitution (`${TENANT}`, TENANT the target). kustomize's
	// namespace transformer renames it to the target during the build, before substitution
	// (kustomize-controller build: SecureBuild, then SubstituteVariables per resource), so
	// Flux applies the name the user meant: rule target-namespace-renames-namespace.
	NamedAsTarget bool `json:",omitempty"`
	// ResourceSet is the flux-operator ResourceSet ("namespace/name") that rendered the
	// object, applied by Owner; "" for an object of Owner's own build.
	ResourceSet string
	// Placeholders is true for an object of a ResourceSet whose inputs (or its providers'
	// defaultValues) held Secret-derived fields: the templates saw placeholders there
	// (render expandResourceSets), so the name and texts made of them are not the
	// cluster's, and rule invalid-name does not judge the name.
	Placeholders bool `json:",omitempty"`
	// HelmRelease is the HelmRelease ("namespace/name") whose chart rendered the object,
	// applied by helm-controller for Owner; "" for an object of Owner's own build. File and
	// Line are then the HelmRelease's manifest, and Template the chart's template
	// ("app/templates/deploy.yaml", Helm's "# Source:").
	HelmRelease string
	Template    string
}

// SecretField is one field of an object's Body that postBuild substitution wrote from a
// Secret variable.
type SecretField struct {
	// Path leads to the field in Body after substitution: map keys, and list indices as
	// decimal strings ("spec", "containers", "0", "image").
	Path []string
	// Key is true when the Secret-derived text is the last element of Path itself (a map
	// key), not the value it holds.
	Key bool
	// Parts is the field's text as substitution wrote it, in order: literal text, and
	// text derived from a Secret variable (Secret true).
	Parts []TextPart
}

// TextPart is one piece of a substituted text.
type TextPart struct {
	Text   string
	Secret bool `json:",omitempty"`
}

// Masked returns the field's text with each Secret-derived part replaced by mask(part).
func (f SecretField) Masked(mask func(string) string) string {
	var b strings.Builder
	for _, p := range f.Parts {
		if p.Secret {
			b.WriteString(mask(p.Text))
		} else {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// ValueAt returns the value at path in v (an object's map): map entries by key, list
// entries by decimal index, as SecretField.Path and TypeChange.Path lead; false when path
// leads nowhere.
func ValueAt(v any, path []string) (any, bool) {
	for _, p := range path {
		switch x := v.(type) {
		case map[string]any:
			c, ok := x[p]
			if !ok {
				return nil, false
			}
			v = c
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// Text returns the field's text as substitution wrote it.
func (f SecretField) Text() string { return f.Masked(func(s string) string { return s }) }

// TypeChange is a string field of an object's source that postBuild substitution turned
// into another type: Flux substitutes the object's YAML text and parses it again, so
// "${ONE}" with ONE=1 becomes the integer 1 (fluxcd/pkg/kustomize SubstituteVariables and
// varSubstitution: res.AsYAML, envsubst.Eval, yaml.YAMLToJSON).
type TypeChange struct {
	// Path leads to the field in Body after substitution, as SecretField.Path.
	Path []string
	// Vars are the variables the field's text reads, in order, without repeats.
	Vars []string
	// Type is what the field became: "integer", "number", "boolean" or "null".
	Type string
	// Value is the field's new value as YAML text; "" when a variable it reads came from
	// a Secret (the value is not shown).
	Value string `json:",omitempty"`
}

// SourceRef is a Flux cross-object reference to a source.
type SourceRef struct {
	Kind, Name, Namespace string
}

func (s SourceRef) String() string { return s.Kind + "/" + s.Namespace + "/" + s.Name }

// SubstituteRef is one postBuild.substituteFrom entry.
type SubstituteRef struct {
	Kind     string `json:"kind"`
	Name     string `json:"name"`
	Optional bool   `json:"optional,omitempty"`
}

// PostBuild is spec.postBuild.
type PostBuild struct {
	Substitute     map[string]string `json:"substitute,omitempty"`
	SubstituteFrom []SubstituteRef   `json:"substituteFrom,omitempty"`
}

// HealthCheck is one spec.healthChecks entry.
type HealthCheck struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	Namespace  string `json:"namespace,omitempty"`
}

// Spec holds the fields of a Flux Kustomization that decide what it builds and in which
// order Flux applies and prunes it (kustomize.toolkit.fluxcd.io/v1 KustomizationSpec).
type Spec struct {
	Path               string
	Prune              bool
	Wait               bool
	Suspend            bool
	Force              bool
	DependsOn          []Ref
	HealthChecks       []HealthCheck
	SourceRef          SourceRef
	TargetNamespace    string
	PostBuild          *PostBuild
	SubstituteStrategy string
	DeletionPolicy     string
}

// BuildError is a failed build kept as data. File and Line point at the most specific
// place known: the kustomization.yaml line naming a missing file, else the file itself.
type BuildError struct {
	// Message says what fails in one sentence a Flux user can act on (summarize); Details,
	// when set, is the error chain kustomize or Flux gave, whole, which Message shortens.
	Message string
	Details string
	File    string
	Line    int
	// Rejected counts the Kustomizations the build emits that the API server rejects: the
	// build succeeds, and the apply's dry-run fails as a whole (flux-semantics.md §3).
	Rejected int
	// Unserved counts those of Rejected that are Flux objects of an API version their CRD
	// does not serve ('no matches for kind'): missing-crd reports each at its apiVersion
	// line, so render-error leaves a Kustomization failing only for them to it.
	Unserved int `json:",omitempty"`
	// Unfetched says that remote entries were left out of the build that failed: the
	// failure may be theirs (a patch whose target is in a remote base), so it is unknown
	// and the Kustomization gets NeedsRemote, not Err.
	Unfetched bool
	// Limit says that tiergate's own Limits stopped the build, not Flux: the
	// Kustomization is also not reviewed.
	Limit bool
}

// IsLimit reports whether why, a refusal or build message, is one of tiergate's own
// bounds (render Limits, the --max-* flags): every such message names "tiergate's limit"
// or "tiergate's per-file limit", and no Flux or kustomize message does. The build then
// stops because of tiergate, not Flux, and the Kustomization is not reviewed.
func IsLimit(why string) bool {
	return strings.Contains(why, "tiergate's limit") || strings.Contains(why, "tiergate's per-file limit")
}

// Error is "file:line: message", or the message alone when it starts with its own
// location already (render's summaries: "a.yaml:10 is not valid YAML: ...").
func (e *BuildError) Error() string {
	at := fmt.Sprintf("%s:%d", e.File, e.Line)
	if strings.HasPrefix(e.Message, at+" ") || strings.HasPrefix(e.Message, at+":") {
		return e.Message
	}
	return at + ": " + e.Message
}

// MapTexts returns e, or a copy of it with Message and Details replaced by mask of each
// when mask changes either (a masking of Secret-derived text). e may be shared by a
// cache, so it is never modified; nil gives nil.
func (e *BuildError) MapTexts(mask func(string) string) *BuildError {
	if e == nil {
		return nil
	}
	msg, details := mask(e.Message), mask(e.Details)
	if msg == e.Message && details == e.Details {
		return e
	}
	c := *e
	c.Message, c.Details = msg, details
	return &c
}

// ResourceSetError is a ResourceSet that flux-operator fails to render (a template or
// input error): it applies nothing, and the Kustomization that applies it still applies.
type ResourceSetError struct {
	ResourceSet ObjectID
	Err         BuildError
}

// ResourceSetSkip is a ResourceSet that is not rendered: what it applies is unknown.
type ResourceSetSkip struct {
	ResourceSet ObjectID
	// Reason names the ResourceSet, its file and line, and why.
	Reason string
}

// Release is a HelmRelease of a Kustomization that was rendered: what the comment's
// summary of a chart change reads.
type Release struct {
	HelmRelease ObjectID
	// Chart is the chart's reference (ChartRef.String, or the repo folder of an in-repo
	// chart) and Version its Chart.yaml version.
	Chart, Version string
	// Values are the final values the chart was rendered with (defaults not included).
	Values map[string]any
	// Approximate lists why offline output may differ from the cluster's ("lookup", …).
	Approximate []string
	// Notes say what tiergate assumed of the output ("scope of Widget.example.com unknown:
	// taken as namespaced").
	Notes []string
	// UnmatchedPatches are the postRenderers kustomize patches whose target selects nothing
	// of the chart's output (helm.Result.UnmatchedPatches).
	UnmatchedPatches []helm.UnmatchedPatch
	// SkippedCRDs lists, as "group/Kind", the CRDs of the chart's crds/ that
	// spec.install.crds: Skip leaves uninstalled (helm.Result.SkippedCRDs).
	SkippedCRDs []string
	// ChartKept says why the release was rendered with the chart its HelmChart already holds
	// (the prior commit's), not the tree's: an in-repo chart whose files change without a
	// version bump under reconcileStrategy ChartVersion (keptChart); "" when it is the tree's.
	ChartKept string
	// Unreleased lists, when ChartKept is set, the objects the tree's chart renders and the
	// kept one does not: they reach the cluster only once the chart's version is bumped.
	Unreleased []ObjectID `json:",omitempty"`
}

// ReleaseSkip is a HelmRelease whose chart was not rendered: what it installs is unknown.
type ReleaseSkip struct {
	HelmRelease ObjectID
	// Chart is the chart reference when it is known, Host the host to allow to render it
	// ("" when allowing a host would not help).
	Chart, Host string
	// AlsoAllow lists the other hosts the pull needs and the policy does not allow: where
	// Host's registry redirects its blob downloads (pkg-containers.githubusercontent.com
	// for ghcr.io).
	AlsoAllow []string
	// Suspended says that the HelmRelease is suspended: helm-controller does not reconcile
	// it, so nothing is unknown (a note, not "not reviewed").
	Suspended bool
	// Reason names the HelmRelease and why ("chart oci://… is remote (allow ghcr.io to render it)").
	Reason string
	File   string
	Line   int
}

// ReleaseError is a HelmRelease whose chart fails to render (helm-controller's install
// fails the same way): data, at the HelmRelease's line. Err.Limit says that tiergate's
// Limits refused the output instead: the HelmRelease is then not reviewed.
type ReleaseError struct {
	HelmRelease ObjectID
	Err         BuildError
	// Chart is the repository folder of an in-repo chart ("charts/web"), to which the
	// template paths of Helm's messages ("web/templates/x.yaml") are relative; "" for a
	// chart from elsewhere.
	Chart string `json:",omitempty"`
	// ChartMissing says that Chart is not a folder of the repository: source-controller's
	// HelmChart fails before anything renders (helmrelease.MissingChart).
	ChartMissing bool `json:",omitempty"`
}

// Kustomization is one node of a cluster's graph.
type Kustomization struct {
	Ref  Ref
	Spec Spec
	// Parent is the Kustomization whose build emitted this one; nil for the root.
	Parent *Ref
	// File and Line locate the Kustomization object's own manifest.
	File string
	Line int
	// Body is the Kustomization object as emitted by its parent (after substitution).
	Body *unstructured.Unstructured
	// SecretFields are the fields of Body its parent's postBuild substitution wrote from a
	// Secret (Object.SecretFields of the object emitted): a postBuild.substitute variable
	// among them is Secret-derived in this Kustomization's own substitution.
	SecretFields []SecretField `json:",omitempty"`
	Objects      []*Object
	Err          *BuildError
	// Remote lists remote resources that were not fetched; the build is then partial.
	Remote []string
	// Skipped says why the Kustomization was not built at all (an unmapped source).
	Skipped string
	// NeedsRemote is kustomize's error when the build cannot run without a remote entry
	// that was not fetched (a patch targeting an object of a remote base): what was not
	// fetched is unknown, so the build is not reviewed rather than failed.
	NeedsRemote string
	// PriorSpec says that Spec and Body are the Kustomization's at render.Options.Prior: its
	// parent fails, so Flux applies nothing the parent emits, and the object already in
	// the cluster keeps reconciling this commit's files with its old spec.
	PriorSpec bool
	// Vars is the set of postBuild variables that resolved, names only.
	Vars map[string]bool
	// Unresolved lists substituteFrom sources ("Secret/name") that the graph does not render:
	// they exist only at runtime (an ExternalSecret, a bootstrap script), so the variables
	// they define are unknown and undefined variables are not reported.
	Unresolved []string
	// ResourceSetSkipped lists the ResourceSets it applies whose objects were not rendered,
	// and why: inputs that only a live service gives (expandResourceSets).
	ResourceSetSkipped []ResourceSetSkip
	// ResourceSetErrors lists the ResourceSets it applies that flux-operator fails to
	// render, at the ResourceSet's line: the Kustomization itself applies.
	ResourceSetErrors []ResourceSetError
	// Releases lists the HelmReleases it applies whose charts rendered; their objects are
	// in Objects with Object.HelmRelease set.
	Releases []Release
	// HelmReleaseSkipped lists the HelmReleases it applies whose charts were not rendered.
	HelmReleaseSkipped []ReleaseSkip
	// HelmReleaseErrors lists the HelmReleases it applies whose charts fail to render.
	HelmReleaseErrors []ReleaseError
	// Substituted is what postBuild substitution wrote for its objects, in bytes.
	Substituted int64
	// Reads is the set of tree paths (slash-separated, relative to the tree root) its
	// kustomize build looked at, as the build cache key records them (render fsys.Dep): a
	// file it read or checked, or, ending in "/", a folder it read with all below it. A
	// build in an ArtifactGenerator's artifact records the repository files the artifact
	// files it read were copied from (render/artifact View.Reads). Nil when not known:
	// not built (skipped, failed, needing a remote file).
	Reads map[string]bool `json:",omitempty"`
	// JSON is Body as JSON, made once: a cache key of the generator and of substitution.
	JSON *BodyJSON
}

// BodyJSON is a Kustomization's Body marshalled once (Kustomization.BodyJSON).
type BodyJSON struct {
	once sync.Once
	data []byte
}

// BodyJSON returns ks.Body as JSON (Body is never modified once ks is made).
func (ks *Kustomization) BodyJSON() []byte {
	if ks.JSON == nil { // not made by kustomize.NewKustomization
		data, _ := json.Marshal(ks.Body.Object)
		return data
	}
	ks.JSON.once.Do(func() { ks.JSON.data, _ = json.Marshal(ks.Body.Object) })
	return ks.JSON.data
}

// Partial describes a Kustomization whose build is incomplete.
type Partial struct {
	Kustomization string   `json:"kustomization"`
	Reason        string   `json:"reason"`
	URLs          []string `json:"urls,omitempty"`
}

// Cluster is one Flux installation: a root Kustomization and everything it reconciles.
type Cluster struct {
	// Name is what the cluster is shown as: its root folder's last element.
	Name string
	// ID is the cluster's identity across commits: its root Kustomization's
	// "namespace/name@Kind/namespace/name" of its source (as flux bootstrap or flux-operator
	// creates it), "config:<name>" for a configured cluster, "folder:<path>" for an
	// uncovered folder. Moving the root's path keeps it; MatchClusters pairs by it.
	ID string
	// RootFile is the repo-relative file the root was found in (gotk-sync.yaml, the
	// FluxInstance's or HelmRelease's manifest, .tiergate.yaml).
	RootFile string
	// Dir is the absolute path the cluster was rendered at (fsys.Source.Root); File paths are
	// relative to it. Read files with ReadFile: a source from git has no folder on disk.
	Dir string
	// Source is what the cluster was rendered from.
	Source *Snapshot
	// RootDir is the repo-relative folder of the root Kustomization's path.
	RootDir string
	Root    Ref
	// Contested is the Kustomization of the root's own Ref that a build emits with another
	// path or source, when the root is made by flux-operator from a FluxInstance: the
	// operator and kustomize-controller then both apply that one object, each with its own
	// spec. The root is then kept under "<name> (FluxInstance)" and Contested is built too.
	Contested *Kustomization
	// Running is what the root in the cluster, with its prior spec, does with this commit
	// when the commit moves the root's path; nil when it does not, or without a prior.
	Running        *RunningRoot
	Kustomizations map[Ref]*Kustomization
	// Order lists Kustomizations in build order (parents before children, then by name).
	Order []Ref
	// Owners maps every object to the Kustomizations that emit it, in build order.
	Owners map[ObjectID][]*Object
	// HelmCharts are the in-repo charts the cluster's HelmCharts hold after this commit, by
	// helmrelease.ChartSource.HelmChart: what the next commit's render keeps under ChartVersion.
	HelmCharts map[string]*LoadedChart
	// Sources are the folders its Kustomizations' sources pack (render.SourceFiles).
	Sources []SourceView
}

// Graph is the rendering of one commit: every cluster found.
type Graph struct {
	Clusters []*Cluster
	// UnselectedClusters are the clusters found but left out by render.Options.Clusters
	// (or by Selected), identity only (Name, ID, RootFile).
	UnselectedClusters []*Cluster
	// Discovery says how the clusters were found; DiscoveryFolders means the repository
	// has no Flux root at all.
	Discovery Discovery
	// Key is the Cache key the graph is kept under; "" when it is not kept.
	Key string
}

// UnselectedNames names the clusters of g.UnselectedClusters, in order.
func (g *Graph) UnselectedNames() []string {
	var out []string
	for _, c := range g.UnselectedClusters {
		out = append(out, c.Name)
	}
	return out
}

// Failed reports whether a Kustomization, a ResourceSet or a HelmRelease of g fails or is
// not rendered, so that render.Options.Prior matters.
func (g *Graph) Failed() bool {
	for _, c := range g.Clusters {
		for _, ks := range c.Kustomizations {
			if ks.Err != nil || len(ks.ResourceSetErrors) > 0 || len(ks.ResourceSetSkipped) > 0 ||
				len(ks.HelmReleaseErrors) > 0 || len(ks.HelmReleaseSkipped) > 0 {
				return true
			}
		}
	}
	return false
}

// Cluster returns the cluster with that name, or nil.
func (g *Graph) Cluster(name string) *Cluster {
	for _, c := range g.Clusters {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// NotReviewed says why ks, at head, was not built in full, or "" when it was: an unmapped
// source (Skipped), remote content not fetched (a build that needs it, or one that left it
// out), or one of tiergate's own limits (Err.Limit: no render-error, Flux would build it).
// A failing build was reviewed: it is a render-error. A failing parent
// (PriorSpec) or a runtime substituteFrom source leaves the build reviewed.
func (ks *Kustomization) NotReviewed() string {
	switch {
	case ks.Skipped != "":
		return ks.Skipped
	case ks.NeedsRemote != "":
		return "not built: it needs remote resources that are not fetched (" + ks.NeedsRemote + ")"
	case len(ks.Remote) > 0:
		return "remote resources not fetched: only the local part is reviewed"
	case ks.Err != nil && ks.Err.Limit:
		return "stopped by tiergate's own limit, not by Flux (raise the flag it names to review this Kustomization): " + ks.Err.Message + requestNote(ks.Err.Message)
	}
	return ""
}

// refusedSize is the size a --max-file-bytes refusal names (fsys SourceBuilder.AddFile).
var refusedSize = regexp.MustCompile(`has (\d+) bytes, over tiergate's per-file limit`)

// maxRequestBody is the API server's limit on one write request's body, 3 MiB
// (k8s.io/apiserver pkg/server/config.go NewConfig, MaxRequestBodyBytes).
const maxRequestBody = 3 << 20

// requestNote is what a refused file's size means for Flux: kustomize-controller reads a
// file of any size, but one object over the API server's request limit cannot be applied;
// "" when msg names no refused file that large.
func requestNote(msg string) string {
	m := refusedSize.FindStringSubmatch(msg)
	if m == nil {
		return ""
	}
	if n, err := strconv.ParseInt(m[1], 10, 64); err != nil || n <= maxRequestBody {
		return ""
	}
	return fmt.Sprintf("; Flux reads that file, but one object of that size is over the %d bytes the API server accepts in one write request (k8s.io/apiserver MaxRequestBodyBytes): if the file is one object, its apply fails on every reconcile", maxRequestBody)
}

// ObjectCount is the number of objects rendered in c.
func (c *Cluster) ObjectCount() int {
	n := 0
	for _, ks := range c.Kustomizations {
		n += len(ks.Objects)
	}
	return n
}

// ReadFile returns the content of the repo-relative file rel of the artifact the cluster
// was rendered from; false when it has none (or it was refused).
func (c *Cluster) ReadFile(rel string) ([]byte, bool) {
	if c.Source == nil {
		return nil, false
	}
	return c.Source.Read(rel)
}

// Lines is Source.Lines: the lines of the repo-relative file rel of the artifact, split
// once and shared (read only); false when the cluster has no artifact or rel no content.
func (c *Cluster) Lines(rel string) ([]string, bool) {
	if c.Source == nil {
		return nil, false
	}
	return c.Source.Lines(rel)
}

// HoldsManifests reports whether the repo-relative folder dir ("" or "." for the root) of
// the artifact the cluster was rendered from holds a YAML file at any depth: whether a
// Kustomization whose path is dir still finds something to build (kustomize-controller fails
// a missing path). False when the cluster has no artifact.
func (c *Cluster) HoldsManifests(dir string) bool {
	if c.Source == nil {
		return false
	}
	dir = strings.Trim(path.Clean("/"+dir), "/")
	if dir == "" {
		return len(c.Source.Files) > 0
	}
	// The folders holding a YAML file, gathered once: kept asks for each Kustomization the
	// change removes, and a scan of every file each time was quadratic.
	holding := c.Source.Memo("graph.holding", func() any {
		set := map[string]bool{}
		for _, f := range c.Source.Files {
			for d := path.Dir(f); d != "." && !set[d]; d = path.Dir(d) {
				set[d] = true
			}
		}
		return set
	}).(map[string]bool)
	return holding[dir]
}

// Discovery says how a graph's clusters were found.
type Discovery string

const (
	// DiscoveryConfig: the clusters of .tiergate.yaml.
	DiscoveryConfig Discovery = "config"
	// DiscoveryRoots: Flux roots (bootstrap, FluxInstance, flux-instance HelmRelease).
	DiscoveryRoots Discovery = "roots"
	// DiscoveryFolders: no Flux root exists; each folder of Kustomizations that nothing
	// else covers is reviewed as a cluster.
	DiscoveryFolders Discovery = "uncovered-folders"
)

// LoadedChart is a chart ready to render, with the reference it is shown by and the
// digest its render is cached under.
type LoadedChart struct {
	Chart  *chart.Chart
	Ref    string
	Digest string
	// HelmChart is the HelmChart that builds it (helmrelease.ChartSource.HelmChart), "" for none.
	HelmChart string
	// Kept says why this is the prior commit's chart, not the tree's ("" when it is the tree's).
	Kept string
	// Source is the in-repo chart's helmrelease.ChartSource as JSON (StoreInRepo), from
	// which a graph read from the persistent cache loads it from the tree again; nil for a
	// pulled chart.
	Source json.RawMessage `json:",omitempty"`
}

// SourceView is a folder of the repository that a cluster's source packs into its artifact,
// with that GitRepository's spec.ignore patterns ("" for none).
type SourceView struct{ Dir, Ignore string }

// Contains returns whether a repo-relative file is in v's artifact.
func (v SourceView) Contains() func(rel string) bool {
	var domain []string
	if v.Dir != "" && v.Dir != "." {
		domain = strings.Split(v.Dir, "/")
	}
	var m gitignore.Matcher
	if v.Ignore != "" {
		m = sourceignore.NewMatcher(sourceignore.ReadPatterns(strings.NewReader(v.Ignore), domain))
	}
	return func(rel string) bool {
		if len(domain) > 0 && !strings.HasPrefix(rel, v.Dir+"/") {
			return false
		}
		return m == nil || !m.Match(strings.Split(rel, "/"), false)
	}
}

// ReadsPath reports whether the build of ks looked at f (a tree path): f itself, or a
// folder above it read whole (Reads).
func (ks *Kustomization) ReadsPath(f string) bool {
	if ks.Reads[f] {
		return true
	}
	for d := path.Dir(f); d != "." && d != "/"; d = path.Dir(d) {
		if ks.Reads[d+"/"] {
			return true
		}
	}
	return ks.Reads["./"]
}
