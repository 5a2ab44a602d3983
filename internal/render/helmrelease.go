package render

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sourcegraph/conc/iter"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tiergate/tiergate/internal/render/fluxschema"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/helm"
	"github.com/tiergate/tiergate/internal/render/helm/fetch"
	"github.com/tiergate/tiergate/internal/render/helm/sandbox"
	"github.com/tiergate/tiergate/internal/render/helmrelease"
	"github.com/tiergate/tiergate/internal/render/kustomize"
)

// HelmRenderer renders one chart: helm.Render in process, or a sandbox Pool that runs it
// in a child process under a time and memory bound.
type HelmRenderer interface {
	Render(ctx context.Context, req helm.Request) (*helm.Result, error)
}

// inProcess is helm.Render as a HelmRenderer.
type inProcess struct{}

func (inProcess) Render(ctx context.Context, req helm.Request) (*helm.Result, error) {
	return helm.Render(ctx, req)
}

// ChartFetcher pulls a remote chart (a *fetch.Fetcher, one per review so that base and
// head share resolutions). An error means the chart is unreachable or not allowed
// (*fetch.NotAllowedError): the HelmRelease is not rendered.
type ChartFetcher interface {
	Fetch(ctx context.Context, ref fetch.Ref) (*fetch.Chart, error)
}

// helmReleases renders the HelmReleases every Kustomization of c applies, after the
// substituteFrom fixpoint: the HelmRelease objects are then final (substituted, patched),
// and valuesFrom reads the ConfigMaps and Secrets of the whole graph, cl. Chart output does
// not feed substituteFrom (docs/decisions.md). A HelmRelease that is not rendered or fails
// keeps the objects it rendered in prior (the cluster at the review's base): a failed
// upgrade leaves the installed release as it was, and an unknown one changes nothing known.
func (r *renderer) helmReleases(ctx context.Context, c *graph.Cluster, cl client.Client, rootSrc graph.SourceRef, prior *graph.Cluster) {
	sc := newScopes(c)
	apis := r.apiVersions(c)
	type job struct {
		ks *graph.Kustomization
		hr *graph.Object
	}
	var jobs []job
	secrets := clusterSecretValues(c) // before any chart output joins c
	for _, ref := range c.Order {
		ks := c.Kustomizations[ref]
		if ks.Err != nil {
			continue // kustomize-controller applies nothing of a failed build (flux-semantics.md §3)
		}
		for _, o := range ks.Objects {
			if o.ID.Group == helmrelease.HelmGroup && o.ID.Kind == "HelmRelease" && o.HelmRelease == "" && fluxschema.Accepted(o.Body.GetAPIVersion(), o.ID.Kind) {
				jobs = append(jobs, job{ks, o}) // an unserved version is never applied: missing-crd reports it
			}
		}
	}
	// Charts render in parallel (a sandbox Pool has several workers); c is only read
	// meanwhile, and the outcomes are recorded in order afterwards.
	m := iter.Mapper[job, releaseOutcome]{MaxGoroutines: r.workers}
	outs := m.Map(jobs, func(j *job) releaseOutcome {
		if ctx.Err() != nil {
			return releaseOutcome{}
		}
		return r.helmRelease(ctx, c, j.hr, cl, secrets, rootSrc, sc, apis, prior)
	})
	if ctx.Err() != nil {
		return
	}
	// A kind whose CRD another chart installs has that CRD's scope: render again, from the
	// cache, the releases that had to assume one.
	if all := chartScopes(sc, outs); len(all) > len(sc) {
		for i := range outs {
			if outs[i].release != nil && len(outs[i].release.Notes) > 0 && ctx.Err() == nil {
				outs[i] = r.helmRelease(ctx, c, jobs[i].hr, cl, secrets, rootSrc, all, apis, prior)
			}
		}
	}
	objects := c.ObjectCount()
	for i, out := range outs {
		ks, o := jobs[i].ks, jobs[i].hr
		if out.built != nil {
			if c.HelmCharts == nil {
				c.HelmCharts = map[string]*graph.LoadedChart{}
			}
			c.HelmCharts[out.built.HelmChart] = out.built
		}
		if objects += len(out.objs); objects > r.guards.limits.MaxObjects {
			out = releaseOutcome{err: &graph.ReleaseError{HelmRelease: o.ID, Err: graph.BuildError{File: o.File, Line: o.Line, Limit: true,
				Message: fmt.Sprintf("not rendered: the cluster renders more than tiergate's limit of %d objects (--max-objects)", r.guards.limits.MaxObjects)}}}
		}
		if out.skip != nil || out.err != nil {
			out.objs = priorRelease(prior, ks.Ref, o.ID.Namespace+"/"+o.ID.Name)
		}
		switch {
		case out.skip != nil:
			ks.HelmReleaseSkipped = append(ks.HelmReleaseSkipped, *out.skip)
		case out.err != nil:
			ks.HelmReleaseErrors = append(ks.HelmReleaseErrors, *out.err)
		case out.release != nil:
			ks.Releases = append(ks.Releases, *out.release)
		}
		ks.HelmReleaseSkipped = append(ks.HelmReleaseSkipped, nestedReleases(out.objs)...)
		out.objs = slices.DeleteFunc(out.objs, func(obj *graph.Object) bool { return createdNamespace(obj) && len(c.Owners[obj.ID]) > 0 })
		// ks.Objects may be a build's slice shared with other renders: never append in place.
		ks.Objects = append(slices.Clip(ks.Objects), out.objs...)
		for _, obj := range out.objs {
			c.Owners[obj.ID] = append(c.Owners[obj.ID], obj)
		}
	}
}

// nestedReleases lists the HelmReleases among objs, which a chart renders, as not
// rendered: helm-controller reconciles such a HelmRelease once the parent release applies
// it, like any other, but tiergate renders only the HelmReleases Kustomizations apply, so
// what it installs is unknown (not reviewed, and a part of the cluster rules cannot see).
// A suspended one reconciles nothing.
func nestedReleases(objs []*graph.Object) []graph.ReleaseSkip {
	var out []graph.ReleaseSkip
	for _, o := range objs {
		if o.ID.Group != helmrelease.HelmGroup || o.ID.Kind != "HelmRelease" || o.Body == nil || !fluxschema.Accepted(o.Body.GetAPIVersion(), o.ID.Kind) {
			continue
		}
		name := o.ID.Namespace + "/" + o.ID.Name
		s := graph.ReleaseSkip{HelmRelease: o.ID, File: o.File, Line: o.Line,
			Reason: fmt.Sprintf("HelmRelease %s (rendered by chart template %s of HelmRelease %s, %s:%d) not rendered: tiergate renders the HelmReleases Kustomizations apply, not those a chart renders, and helm-controller installs this one once its parent release applies it",
				name, o.Template, o.HelmRelease, o.File, o.Line)}
		if sus, _, _ := unstructured.NestedBool(o.Body.Object, "spec", "suspend"); sus {
			s.Suspended = true
			s.Reason = fmt.Sprintf("HelmRelease %s (rendered by chart template %s of HelmRelease %s) is suspended: helm-controller does not reconcile it", name, o.Template, o.HelmRelease)
		}
		out = append(out, s)
	}
	return out
}

// chartScopes is sc with the scopes of the CRDs the releases of outs render.
func chartScopes(sc scopes, outs []releaseOutcome) scopes {
	all := maps.Clone(sc)
	for _, out := range outs {
		for _, o := range out.objs {
			if o.ID.Group == crdKind.Group && o.ID.Kind == crdKind.Kind && o.Body != nil {
				all.add(o.Body.Object)
			}
		}
	}
	return all
}

// crdKind is the GroupKind of a CustomResourceDefinition.
var crdKind = schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}

// createdNamespace reports whether obj is the release Namespace of install.createNamespace
// (no template). Helm creates it only when it is missing and never deletes it
// (helm pkg/action/install.go RunWithContext: Create, AlreadyExists ignored), so it is left out when a Kustomization or an
// earlier release of the cluster emits it: it is then theirs, not a second owner.
func createdNamespace(obj *graph.Object) bool {
	return obj.Template == "" && obj.ID.Group == "" && obj.ID.Kind == "Namespace"
}

// priorRelease returns copies of the objects HelmRelease hr ("namespace/name") rendered in
// prior, owned by ks; none without a prior.
func priorRelease(prior *graph.Cluster, ks graph.Ref, hr string) []*graph.Object {
	if prior == nil {
		return nil
	}
	var out []*graph.Object
	for _, ref := range prior.Order {
		for _, o := range prior.Kustomizations[ref].Objects {
			if o.HelmRelease == hr {
				cp := *o
				cp.Owner = ks
				out = append(out, &cp)
			}
		}
	}
	return out
}

// releaseOutcome is what one HelmRelease gives its Kustomization: objects and the
// release, or why not.
type releaseOutcome struct {
	objs    []*graph.Object
	release *graph.Release
	skip    *graph.ReleaseSkip
	err     *graph.ReleaseError
	// built is the in-repo chart the release's HelmChart holds after this commit, nil when
	// no HelmChart builds it.
	built *graph.LoadedChart
}

// helmRelease renders one HelmRelease o, or says why it is not rendered; secrets are the
// values of c's Secrets (clusterSecretValues), which its chart's files never show.
func (r *renderer) helmRelease(ctx context.Context, c *graph.Cluster, o *graph.Object, cl client.Client, secrets []string, rootSrc graph.SourceRef, sc scopes, apis []string, prior *graph.Cluster) releaseOutcome {
	out := r.renderRelease(ctx, c, o, cl, secrets, rootSrc, sc, apis, prior)
	if out.built != nil && out.built.Kept != "" {
		switch {
		case out.release != nil:
			out.release.ChartKept = out.built.Kept
		case out.err != nil:
			out.err.Err.Message += " (" + out.built.Kept + ")"
		}
	}
	return out
}

// renderRelease is helmRelease but for the note of a kept chart.
func (r *renderer) renderRelease(ctx context.Context, c *graph.Cluster, o *graph.Object, cl client.Client, secrets []string, rootSrc graph.SourceRef, sc scopes, apis []string, prior *graph.Cluster) releaseOutcome {
	hr := o.Body
	name := o.ID.Namespace + "/" + o.ID.Name
	var ch, tree *graph.LoadedChart // tree: the tree's chart when ch is the one the HelmChart keeps
	// built is what the HelmChart holds once ch is loaded, whether the release renders or not.
	built := func() *graph.LoadedChart {
		if ch != nil && ch.HelmChart != "" {
			return ch
		}
		return nil
	}
	skip := func(chart string, hosts []string, reason string) releaseOutcome {
		s := &graph.ReleaseSkip{HelmRelease: o.ID, Chart: chart,
			Reason: fmt.Sprintf("HelmRelease %s (%s:%d) not rendered: %s", name, o.File, o.Line, reason), File: o.File, Line: o.Line}
		if len(hosts) > 0 {
			s.Host = hosts[0]
		}
		if len(hosts) > 1 {
			s.AlsoAllow = hosts[1:]
		}
		return releaseOutcome{skip: s, built: built()}
	}
	chartDir := "" // the in-repo chart's folder, once known
	fail := func(err error) releaseOutcome {
		var missing *helmrelease.MissingChart
		return releaseOutcome{built: built(), err: &graph.ReleaseError{HelmRelease: o.ID, Chart: chartDir, ChartMissing: errors.As(err, &missing),
			Err: graph.BuildError{Message: maskRenderError(err.Error(), secrets), File: o.File, Line: o.Line, Limit: refused(err)}}}
	}
	// helm-controller's reconcile stops at a suspended object (HelmReleaseReconciler.Reconcile).
	if s, _, _ := unstructured.NestedBool(hr.Object, "spec", "suspend"); s {
		return releaseOutcome{skip: &graph.ReleaseSkip{HelmRelease: o.ID, Suspended: true, File: o.File, Line: o.Line,
			Reason: fmt.Sprintf("HelmRelease %s (%s:%d) is suspended: helm-controller does not reconcile it, so its chart is not rendered", name, o.File, o.Line)}}
	}
	cs := helmrelease.ResolveChart(hr, c, func(s graph.SourceRef) (string, bool) { return r.sourceRoot(s, rootSrc) })
	if cs.Unresolved != "" {
		return skip("", nil, cs.Unresolved)
	}
	if cs.InRepo {
		chartDir = cs.Dir
		rc, err := helmrelease.LoadRepoChartMemo(r.guards.snap, cs, r.guards.limits.MaxBuildBytes, r.chartMemo())
		var rd *helmrelease.RemoteDependency
		switch {
		case errors.As(err, &rd):
			return skip(cs.Dir, nil, rd.Msg)
		case err != nil:
			return fail(err)
		}
		ch = &graph.LoadedChart{Chart: rc.Chart, Ref: cs.Dir, Digest: "repo:" + rc.Digest, HelmChart: cs.HelmChart, Source: cs.StoreInRepo()}
		if kept := keptChart(prior, cs, ch); kept != nil {
			tree, ch = ch, kept
			// The kept chart is the prior commit's: its files hold that cluster's Secrets.
			secrets = append(slices.Clip(secrets), clusterSecretValues(prior)...)
			chartDir = "" // the kept chart is an earlier commit's: its lines are not the tree's
		}
	} else {
		var reason string
		var hosts []string
		var err error
		ch, hosts, reason, err = r.remoteChart(ctx, cs)
		switch {
		case err != nil:
			return fail(err)
		case ch == nil && hosts == nil:
			return skip(cs.Remote.String(), []string{helmrelease.ChartHost(cs.Remote)}, reason) // the chart's host, as the report names it
		case ch == nil:
			return skip(cs.Remote.String(), hosts, reason)
		}
	}
	if missing := helmrelease.MissingValuesFrom(ctx, hr, cl); missing != "" {
		return skip(ch.Ref, nil, "valuesFrom "+missing+" is not in the cluster's graph (made at runtime or out of band), so its values are unknown")
	}
	mask := r.shared.placeholders()
	// Inline values copied by hand from a cluster Secret are Secret-derived too.
	fields := append(slices.Clip(o.SecretFields), helmrelease.ValueCopies(hr, cl)...)
	valuesOf, substituted := mask.Fields(hr, fields)
	// The chart also sees the release's name, namespace and targetPath keys, and its own files.
	seen, released := mask.Release(valuesOf, o.SecretFields, cl)
	chartSeen, files := mask.ChartFiles(ch.Chart, secrets)
	vals, err := helm.Values(ctx, seen, helmrelease.PlaceholderSecrets{Client: cl, Defaults: chartSeen.Values, Mask: mask})
	if err != nil {
		return fail(err)
	}
	digest := ch.Digest
	if files.Replaced { // the files seen depend on the key and on the cluster's Secrets
		digest += "+placeholders:" + mask.ID() + ":" + files.Digest
	}
	req := helm.Request{Chart: chartSeen, HelmRelease: hr, Values: vals, KubeVersion: r.kubeVersion(), APIVersions: apis}
	if len(released) > 0 {
		rel := helm.ReleaseOf(seen)
		req.Seen = &rel
	}
	var next *helm.Result // what the next version bump renders, when ch is a kept chart
	if tree != nil {
		var note string
		note, next = r.nextBump(ctx, req, tree, secrets)
		ch.Kept += note
	}
	res, err := r.renderChart(ctx, req, digest)
	if err != nil {
		return fail(err) // it names the HelmRelease and the chart
	}
	objs, notes, err := releaseObjects(res, o, helm.ReleaseOf(hr).Namespace, sc, helmrelease.SecretValues(ctx, hr, cl))
	if err != nil {
		return fail(fmt.Errorf("HelmRelease %s: %w", name, err))
	}
	if post := helmrelease.PostRendererSecrets(o.SecretFields); len(post) > 0 {
		for _, obj := range objs {
			kustomize.MarkSpecSecrets(obj, post)
		}
	}
	approx := res.Approximate
	if helmrelease.ReadsSecrets(hr, cl) {
		approx = append(slices.Clip(approx), "valuesFrom Secret values replaced by placeholders")
	}
	if substituted {
		approx = append(slices.Clip(approx), "spec.values substituted from a Secret replaced by placeholders")
	}
	if len(released) > 0 {
		approx = append(slices.Clip(approx), helmrelease.ReleaseFieldsNote)
	}
	if files.Replaced {
		approx = append(slices.Clip(approx), helmrelease.SecretFilesNote)
	}
	if files.Templates {
		approx = append(slices.Clip(approx), helmrelease.SecretTemplatesNote)
	}
	if files.Unmasked {
		approx = append(slices.Clip(approx), helmrelease.UnmaskedFilesNote)
	}
	rel := &graph.Release{HelmRelease: o.ID, Chart: ch.Ref, Version: ch.Chart.Metadata.Version, Values: vals,
		Approximate: approx, Notes: notes, UnmatchedPatches: res.UnmatchedPatches, SkippedCRDs: res.SkippedCRDs}
	if next != nil {
		if nextObjs, _, err := releaseObjects(next, o, helm.ReleaseOf(hr).Namespace, sc, nil); err == nil {
			rel.Unreleased = unreleased(objs, nextObjs)
		}
	}
	return releaseOutcome{built: built(), objs: objs, release: rel}
}

// clusterSecretValues lists the values of every Secret c's Kustomizations render
// (graph.SecretDataValues: manifests, generated, SOPS-encrypted, expanded from a List) and
// what postBuild substitution derived from Secret variables into any object
// (Object.SecretValues), the texts the review redacts (review.SecretStrings), which no
// chart file may show a template (helmrelease.Placeholders.ChartFiles).
func clusterSecretValues(c *graph.Cluster) []string {
	var out []string
	for _, ref := range c.Order {
		for _, o := range c.Kustomizations[ref].Objects {
			if o.HelmRelease != "" || o.Body == nil {
				continue
			}
			out = append(out, o.SecretValues...)
			if o.ID.Group == "" && o.ID.Kind == "Secret" {
				out = append(out, graph.SecretDataValues(o.Body.Object["data"], o.Body.Object["stringData"])...)
			}
		}
	}
	return out
}

// keptChart returns the chart the HelmChart of cs holds at prior when source-controller
// keeps it instead of building ch, nil when it builds ch. Under reconcileStrategy
// ChartVersion (the default) a Git or Bucket chart is repackaged only when Chart.yaml's name
// or version differs from the cached artifact's, or the HelmChart's generation changed
// (source-controller internal/helm/chart/builder_local.go localChartBuilder.Build: the
// CachedChart check; internal/controller/helmchart_controller.go buildFromTarballArtifact:
// Force on a new generation, VersionMetadata only under Revision). So a template or
// values.yaml change without a version bump is not released: the cluster keeps the chart.
func keptChart(prior *graph.Cluster, cs helmrelease.ChartSource, ch *graph.LoadedChart) *graph.LoadedChart {
	if prior == nil || cs.HelmChart == "" || cs.Strategy == "Revision" {
		return nil
	}
	old := prior.HelmCharts[cs.HelmChart]
	if old == nil || old.Digest == ch.Digest || old.Chart.Metadata.Name != ch.Chart.Metadata.Name ||
		old.Chart.Metadata.Version != ch.Chart.Metadata.Version {
		return nil
	}
	k := *old
	k.Kept = fmt.Sprintf("chart %s changes but its version %s does not, and source-controller rebuilds a chart under reconcileStrategy ChartVersion only when the version changes: the release keeps the chart it has",
		ch.Ref, ch.Chart.Metadata.Version)
	return &k
}

// remoteChart pulls the chart of cs through Options.Charts when the remote policy allows
// its host; nil, the hosts to allow (nil when that is the chart's host alone: a fork, a
// failed pull) and the reason when it does not, or the pull fails; an error when the chart does not match its
// OCIRepository's revision (helm-controller fails the release).
func (r *renderer) remoteChart(ctx context.Context, cs helmrelease.ChartSource) (*graph.LoadedChart, []string, string, error) {
	ref, host := cs.Remote, helmrelease.ChartHost(cs.Remote)
	switch {
	case r.remote.Fork:
		return nil, nil, fmt.Sprintf("chart %s is remote, and nothing remote is fetched for a pull request from a fork", ref), nil
	case r.charts == nil || !r.remote.allows(host):
		hosts := append([]string{host}, fetch.RedirectHosts(host, r.remote.Allow)...)
		return nil, hosts, fmt.Sprintf("chart %s is remote (allow %s to render it)", ref, allowHint(hosts)), nil
	}
	pulled, err := r.charts.Fetch(ctx, ref)
	var na *fetch.NotAllowedError
	switch {
	case errors.As(err, &na) && na.From != "":
		return nil, []string{na.Host}, fmt.Sprintf("chart %s is remote: %s redirects its download to %s (allow %s to render it)", ref, na.From, na.Host, na.Host), nil
	case errors.As(err, &na):
		return nil, []string{na.Host}, fmt.Sprintf("chart %s is remote (allow %s to render it)", ref, na.Host), nil
	case err != nil:
		return nil, nil, fmt.Sprintf("chart %s could not be pulled: %v", ref, err), nil
	}
	ch, err := loader.LoadArchive(bytes.NewReader(pulled.Archive))
	if err != nil {
		return nil, nil, fmt.Sprintf("chart %s (%s) does not load: %v", ref, pulled.Digest, err), nil
	}
	if len(cs.ValuesFiles) > 0 {
		return nil, nil, fmt.Sprintf("chart %s: valuesFiles of a remote chart are not applied offline", ref), nil
	}
	if cs.OCISource {
		if err := withRevision(ch, ref, pulled); err != nil {
			return nil, nil, "", err
		}
	}
	return &graph.LoadedChart{Chart: ch, Ref: ref.String(), Digest: pulled.Digest}, nil, "", nil
}

// allowHint names hosts as an allow hint does: "ghcr.io", "ghcr.io and
// pkg-containers.githubusercontent.com".
func allowHint(hosts []string) string {
	if len(hosts) < 2 {
		return strings.Join(hosts, "")
	}
	return strings.Join(hosts[:len(hosts)-1], ", ") + " and " + hosts[len(hosts)-1]
}

// withRevision sets the chart version helm-controller renders an OCIRepository's chart
// with (helm.OCIChartVersion): the artifact revision is "<tag>@<digest>", or the digest
// alone for a digest reference.
func withRevision(ch *chart.Chart, ref fetch.Ref, pulled *fetch.Chart) error {
	revision := pulled.Digest
	if ref.Digest == "" {
		revision = pulled.Tag + "@" + pulled.Digest
	}
	v, err := helm.OCIChartVersion(ch.Metadata.Version, revision)
	if err != nil {
		return err
	}
	ch.Metadata.Version = v
	return nil
}

// renderChart renders req, reusing the Cache's output for the same chart digest, final
// values, HelmRelease (its render fields) and kube/API versions.
func (r *renderer) renderChart(ctx context.Context, req helm.Request, chartDigest string) (*helm.Result, error) {
	key := ""
	if r.shared != nil {
		l := r.guards.limits
		// releaseFormat changes when helm.Result gains a field, so that a stored render
		// made without it is not read back as one that has none.
		parts := []any{releaseFormat, chartDigest, req.Values, req.HelmRelease.Object, req.KubeVersion, req.APIVersions, l.MaxBuildDocuments, l.MaxBuildBytes}
		if req.Seen != nil { // keys of the renders without one stay
			parts = append(parts, req.Seen)
		}
		k, err := json.Marshal(parts)
		if err == nil {
			key = "helm\x00" + graph.Digest(k)
			if v, ok := r.shared.find(key, nil); ok {
				return v.release.res, v.release.err
			}
			if res, err, size, ok := r.shared.loadRelease(key); ok {
				r.shared.store(key, &cacheVariant{release: &releaseOut{res: res, err: err}, bytes: size})
				return res, err
			}
		}
	}
	res, err := r.helm.Render(ctx, req)
	if err == nil {
		err = checkOutput(res, r.guards.limits)
	}
	if key != "" && (err == nil || !refused(err)) {
		r.shared.saveRelease(key, res, err)
	}
	if key != "" && ctx.Err() == nil {
		r.shared.store(key, &cacheVariant{release: &releaseOut{res: res, err: err}, bytes: releaseBytes(key, res)})
	}
	return res, err
}

// chartMemo is the shared Cache as the in-repo charts' memo; nil without one.
func (r *renderer) chartMemo() helmrelease.ChartMemo {
	if r.shared == nil {
		return nil
	}
	return r.shared
}

// releaseFormat versions the stored form of a render (diskRelease); 2 adds SkippedCRDs.
const releaseFormat = 2

// releaseBytes estimates the memory a kept render holds.
func releaseBytes(key string, res *helm.Result) int64 {
	n := int64(len(key))
	if res != nil {
		for _, d := range res.Docs {
			b, _ := json.Marshal(d.Object)
			n += int64(len(b)) * memPerInputByte
		}
	}
	return n
}

// refused reports whether err is tiergate's own bound or shutdown rather than the chart's
// failure: a Limits refusal, the sandbox's time, memory or output bound
// (sandbox.LimitError, --render-timeout), a closed pool or a cancelled review. Such a
// release is not reviewed; only the chart's own failures are helm-render-error findings.
func refused(err error) bool {
	var le *limitError
	var se *sandbox.LimitError
	var rf *helmrelease.RefusedFileError
	return errors.As(err, &le) || errors.As(err, &se) || (errors.As(err, &rf) && rf.Limit) || errors.Is(err, sandbox.ErrClosed) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// limitError is a render that tiergate's Limits refuse, not the chart's failure.
type limitError struct{ msg string }

func (e *limitError) Error() string { return e.msg }

// releaseOut is a kept render of a chart.
type releaseOut struct {
	res *helm.Result
	err error
}

// checkOutput fails a render past the caps one build has (MaxBuildDocuments documents,
// MaxBuildBytes bytes as JSON): a release is capped as a Kustomization's build is.
func checkOutput(res *helm.Result, l graph.Limits) error {
	if len(res.Docs) > l.MaxBuildDocuments {
		return &limitError{fmt.Sprintf("not rendered: the chart renders %d documents, more than tiergate's limit of %d (--max-build-documents)", len(res.Docs), l.MaxBuildDocuments)}
	}
	n := int64(0)
	for _, d := range res.Docs {
		b, _ := json.Marshal(d.Object)
		if n += int64(len(b)); n > l.MaxBuildBytes {
			return &limitError{fmt.Sprintf("not rendered: the chart renders more than tiergate's limit of %d bytes (--max-build-bytes)", l.MaxBuildBytes)}
		}
	}
	return nil
}

// releaseObjects turns the rendered documents into objects of hr's Kustomization.
// Helm sets no namespace: a namespaced object without one lands in the release namespace
// (Helm's kube client applies it there); a kind of unknown scope is taken as namespaced,
// and named in the notes it returns ("scope of Widget.example.com unknown: …").
func releaseObjects(res *helm.Result, hr *graph.Object, namespace string, sc scopes, secrets []string) ([]*graph.Object, []string, error) {
	name := hr.ID.Namespace + "/" + hr.ID.Name
	var out []*graph.Object
	var notes []string
	own := scopes{} // the release's own CRDs (crds/ or templates) say the scope of its kinds
	for _, d := range res.Docs {
		if u := (unstructured.Unstructured{Object: d.Object}); u.GroupVersionKind().GroupKind() == crdKind {
			own.add(d.Object)
		}
	}
	for _, d := range res.Docs {
		u := (&unstructured.Unstructured{Object: d.Object}).DeepCopy() // the Result may be the Cache's
		gvk := u.GroupVersionKind()
		if gvk.Kind == "" || u.GetName() == "" {
			return nil, nil, fmt.Errorf("template %s renders an object without kind or name", d.Template)
		}
		if u.GetNamespace() == "" {
			ns, known := own.namespaced(gvk.Group, gvk.Kind)
			if !known {
				ns, known = sc.namespaced(gvk.Group, gvk.Kind)
			}
			if ns {
				u.SetNamespace(namespace)
			}
			if note := "scope of " + gvk.GroupKind().String() + " unknown: taken as namespaced"; !known && !slices.Contains(notes, note) {
				notes = append(notes, note)
			}
		}
		out = append(out, &graph.Object{ID: graph.ObjectID{Group: gvk.Group, Kind: gvk.Kind, Namespace: u.GetNamespace(), Name: u.GetName()},
			Owner: hr.Owner, File: hr.File, Line: hr.Line, Body: u, SecretValues: secrets, HelmRelease: name, Template: d.Template})
	}
	return out, notes, nil
}
