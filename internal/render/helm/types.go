package helm

import (
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// DefaultKubeVersion is the Kubernetes version charts see when Request.KubeVersion is "".
// Helm's own default differs in test binaries (v1.20.0, chart/common capabilities.go), so
// Render always sets one.
const DefaultKubeVersion = "v1.33.0"

// Request is one render. Chart is the loaded chart (loader.LoadFiles or LoadArchive);
// HelmRelease is the object as applied, its spec fields read by Render; Values are the
// merged values (see Values). KubeVersion is "vMAJOR.MINOR.PATCH" ("" = DefaultKubeVersion);
// APIVersions are added to Helm's default set, as "group/version" or "group/version/Kind".
type Request struct {
	Chart       *chart.Chart
	HelmRelease *unstructured.Unstructured
	Values      map[string]any
	KubeVersion string
	APIVersions []string
	// Seen, when not nil, is the release the templates see as .Release.Name and
	// .Release.Namespace instead of ReleaseOf(HelmRelease): render gives placeholders where
	// a Secret wrote part of them (helmrelease.Placeholders.Release). The created Namespace
	// and the origin labels stay HelmRelease's, as helm-controller writes them.
	Seen *Release
}

// Doc is one rendered object, after post-rendering. Template is its chart-relative source
// file as Helm's "# Source:" names it ("app/templates/deploy.yaml", or "app/crds/x.yaml"),
// or "" for the release Namespace that install.createNamespace creates; Hook is the
// helm.sh/hook annotation ("" for a release object); CRD marks a definition from a crds/
// folder, applied outside the release per the install.crds policy.
type Doc struct {
	Object   map[string]any
	Template string
	Hook     string
	CRD      bool
}

// Result is a successful render: Docs holds the CRDs (per install.crds policy) first, then
// the created Namespace if any, the release manifest in Helm's install order, then the
// hooks (none under install.disableHooks: they never run). Approximate names, sorted, the
// template functions used whose offline output may differ from the cluster's ("lookup",
// "now", "randAlphaNum", ...) and the schema $refs not checked ("schema $ref <url>").
// UnmatchedPatches lists, in spec order, the postRenderers kustomize patches whose target
// selects no object of the stream they ran on (under postRenderStrategy separate: of
// neither stream); kustomize applies such a patch to nothing and says nothing.
type Result struct {
	Docs             []Doc
	Approximate      []string
	UnmatchedPatches []UnmatchedPatch
	// SkippedCRDs lists, as "group/Kind", the CRDs of the chart's crds/ folders (enabled
	// subcharts included) that spec.install.crds: Skip leaves uninstalled; nil otherwise.
	SkippedCRDs []string
}

// UnmatchedPatch is spec.postRenderers[Renderer].kustomize.patches[Patch], whose Target
// ("kind=Deployment,name=web", the selector's set fields) selects nothing.
type UnmatchedPatch struct {
	Renderer, Patch int
	Target          string
}
