package helm

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/common"
	commonutil "helm.sh/helm/v4/pkg/chart/common/util"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
	kubefake "helm.sh/helm/v4/pkg/kube/fake"
	release "helm.sh/helm/v4/pkg/release/v1"
	"helm.sh/helm/v4/pkg/storage"
	"helm.sh/helm/v4/pkg/storage/driver"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// Render renders req as helm-controller installs it (internal/action/install.go Install and
// newInstall): Helm v4's action.Install with the client-only dry run, release name and
// namespace from ReleaseOf, SkipCRDs (CRDs come from the chart's crds/ folders per
// spec.install.crds, as applyCRDs does), Devel, TakeOwnership unless
// install.disableTakeOwnership, hooks unless install.disableHooks, and the post-renderers
// of BuildPostRenderers under spec.postRenderStrategy (default combined).
//
// It differs from the controller where offline demands: Helm's schema validation is
// skipped (its loader reads file:// and fetches http(s) $refs) and values.schema.json is
// checked here with in-chart $refs only; template functions depending on time, chance or
// the cluster are deterministic and reported in Result.Approximate; there is no DNS.
//
// req.Chart is not changed (Helm's dependency processing runs on a copy), so one loaded
// chart serves many renders. The error is the chart's failure, the data of a render-error
// finding; a panic in Helm or kustomize is returned as an error.
func Render(ctx context.Context, req Request) (res *Result, err error) {
	if req.Chart == nil || req.Chart.Metadata == nil || req.HelmRelease == nil {
		return nil, errors.New("render: a chart and a HelmRelease are required")
	}
	hr := req.HelmRelease
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("render HelmRelease %s/%s: chart %s panicked: %v", hr.GetNamespace(), hr.GetName(), req.Chart.Name(), r)
		}
	}()
	req.Chart = cloneChart(req.Chart)
	res, err = render(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("render HelmRelease %s/%s (chart %s %s): %w", hr.GetNamespace(), hr.GetName(),
			req.Chart.Name(), req.Chart.Metadata.Version, err)
	}
	return res, nil
}

func render(ctx context.Context, req Request) (*Result, error) {
	hr := req.HelmRelease
	spec, err := specOf(hr)
	if err != nil {
		return nil, err
	}
	kv := req.KubeVersion
	if kv == "" {
		kv = DefaultKubeVersion
	}
	kubeVersion, err := common.ParseKubeVersion(kv)
	if err != nil {
		return nil, fmt.Errorf("kube version %q: %w", kv, err)
	}
	rel := ReleaseOf(hr)
	vals := req.Values
	if vals == nil {
		vals = map[string]any{}
	}
	used := &usage{}
	cfg := offlineConfig(used)

	var docs []Doc
	var skipped []string
	// applyCRDs (internal/action/crds.go) processes dependencies before reading CRDObjects,
	// so only enabled subcharts contribute, and returns before that under Skip: what it
	// skips is kept so that missing-crd can name the policy as the cause.
	if crds := req.Chart.CRDObjects(); len(crds) > 0 && spec.Install.CRDs == crdsSkip {
		skipped = skippedCRDs(cloneChart(req.Chart), vals)
	} else if len(crds) > 0 {
		if err := chartutil.ProcessDependencies(req.Chart, vals); err != nil {
			return nil, fmt.Errorf("failed to process chart dependencies: %w", err)
		}
		if docs, err = crdDocs(req.Chart.CRDObjects(), hr.GetNamespace(), hr.GetName()); err != nil {
			return nil, fmt.Errorf("failed to apply CustomResourceDefinitions: %w", err)
		}
	}

	// Helm validates values after processing dependencies and before rendering
	// (Install.RunWithContext, ToRenderValuesWithSchemaValidation): here on a copy, since
	// its own validation is off.
	var approx []string
	if !spec.Install.DisableSchemaValidation {
		if approx, err = checkSchema(cloneChart(req.Chart), vals); err != nil {
			return nil, err
		}
	}

	install := action.NewInstall(cfg)
	install.DryRunStrategy = action.DryRunClient
	seen := rel
	if req.Seen != nil {
		seen = *req.Seen
	}
	install.ReleaseName = seen.Name
	install.Namespace = seen.Namespace
	// helm-controller's default (newInstall; newUpgrade reads spec.upgrade's): adopt
	// existing objects. The client-only dry run never reads the cluster, so it changes
	// nothing here (Install.RunWithContext checks ownership only when interactWithServer);
	// duplicate-owner reads the field from the HelmRelease.
	install.TakeOwnership = !spec.Install.DisableTakeOwnership
	install.DisableHooks = spec.Install.DisableHooks
	install.SkipSchemaValidation = true
	install.Devel = true
	install.SkipCRDs = true
	install.KubeVersion = kubeVersion
	install.APIVersions = slices.Clone(req.APIVersions)
	var patches patchMatches
	install.PostRenderer = postRenderers(spec, hr.GetNamespace(), hr.GetName(), &patches)
	install.PostRenderStrategy = action.PostRenderStrategy(spec.PostRenderStrategy)

	out, err := install.RunWithContext(ctx, req.Chart, vals)
	if err != nil {
		return nil, err
	}
	r, ok := out.(*release.Release)
	if !ok {
		return nil, errors.New("only the Chart API v2 is supported")
	}
	manifest, err := manifestDocs(r.Manifest)
	if err != nil {
		return nil, err
	}
	if spec.Install.CreateNamespace && spec.TargetNamespace != "" {
		docs = append(docs, namespaceDoc(rel.Namespace))
	}
	docs = append(docs, manifest...)
	// Hooks are rendered but never run under disableHooks (Install.performInstall skips
	// execHook), so they are not objects of the cluster.
	hooks := r.Hooks
	if spec.Install.DisableHooks {
		hooks = nil
	}
	for _, h := range hooks {
		objs, err := decodeDocs(h.Manifest)
		if err != nil {
			return nil, fmt.Errorf("hook %s: %w", h.Path, err)
		}
		for _, o := range objs {
			docs = append(docs, Doc{Object: o, Template: h.Path, Hook: hookOf(o)})
		}
	}
	approx = append(approx, used.names()...)
	slices.Sort(approx)
	return &Result{Docs: docs, Approximate: slices.Compact(approx), UnmatchedPatches: patches.unmatched(), SkippedCRDs: skipped}, nil
}

// checkSchema processes c's dependencies and validates vals coalesced with its defaults.
func checkSchema(c *chart.Chart, vals map[string]any) ([]string, error) {
	if err := chartutil.ProcessDependencies(c, vals); err != nil {
		return nil, fmt.Errorf("chart dependencies processing failed: %w", err)
	}
	merged, err := commonutil.CoalesceValues(c, vals)
	if err != nil {
		return nil, err
	}
	approx, err := validateSchema(c, merged)
	if err != nil {
		return nil, fmt.Errorf("values don't meet the specifications of the schema(s) in the following chart(s):\n%w", err)
	}
	return approx, nil
}

// offlineConfig is an action.Configuration that reaches nothing: release records in
// memory, a kube client that only prints (to nowhere), no REST config, and the
// deterministic template functions.
func offlineConfig(used *usage) *action.Configuration {
	cfg := action.NewConfiguration(action.ConfigurationSetLogger(slog.DiscardHandler))
	cfg.Releases = storage.Init(driver.NewMemory())
	cfg.KubeClient = &kubefake.PrintingKubeClient{Out: io.Discard}
	cfg.CustomTemplateFuncs = templateFuncs(used)
	return cfg
}

// namespaceDoc is the Namespace install.createNamespace creates (counted only with a
// targetNamespace, newInstall), as Install.RunWithContext creates it after the dry-run
// return: outside the release, with a "name" label and no post-rendering.
func namespaceDoc(name string) Doc {
	return Doc{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace",
		"metadata": map[string]any{"name": name, "labels": map[string]any{"name": name}}}}
}

// crdDocs are the CustomResourceDefinitions of crds with the origin labels; other kinds
// in a crds/ folder are dropped, as applyCRDs does.
func crdDocs(crds []chart.CRD, namespace, name string) ([]Doc, error) {
	var docs []Doc
	for _, c := range crds {
		objs, err := decodeDocs(string(c.File.Data))
		if err != nil {
			return nil, fmt.Errorf("failed to parse CustomResourceDefinitions from %s: %w", c.Name, err)
		}
		for _, o := range objs {
			if apiGroup(o) != "apiextensions.k8s.io" || o["kind"] != "CustomResourceDefinition" {
				continue
			}
			setLabels(o, map[string]string{labelName: name, labelNamespace: namespace})
			docs = append(docs, Doc{Object: o, Template: c.Filename, CRD: true})
		}
	}
	return docs, nil
}

// skippedCRDs lists the "group/Kind" of the CRDs in crds/ of ch's enabled charts, sorted;
// a chart whose dependencies or CRD files do not read gives what could be read (the
// render reports the error itself when it matters).
func skippedCRDs(ch *chart.Chart, vals map[string]any) []string {
	_ = chartutil.ProcessDependencies(ch, vals)
	docs, _ := crdDocs(ch.CRDObjects(), "", "")
	var out []string
	for _, d := range docs {
		group, _, _ := unstructured.NestedString(d.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(d.Object, "spec", "names", "kind")
		if kind != "" {
			out = append(out, group+"/"+kind)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// manifestDocs splits a release manifest at Helm's "---\n# Source: <path>\n" headers
// (action.go renderResources).
func manifestDocs(manifest string) ([]Doc, error) {
	var docs []Doc
	for _, part := range strings.Split(manifest, "---\n# Source: ") {
		path, body, _ := strings.Cut(part, "\n")
		if strings.TrimSpace(part) == "" {
			continue
		}
		objs, err := decodeDocs(body)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		for _, o := range objs {
			docs = append(docs, Doc{Object: o, Template: path})
		}
	}
	return docs, nil
}

// decodeDocs parses a YAML stream into objects with Kubernetes' number types (int64 or
// float64, as unstructured.Unstructured holds them), skipping empty documents.
func decodeDocs(stream string) ([]map[string]any, error) {
	var out []map[string]any
	r := utilyaml.NewYAMLReader(bufioReader(stream))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		j, err := utilyaml.ToJSON(doc)
		if err != nil {
			return nil, err
		}
		if bytes.Equal(bytes.TrimSpace(j), []byte("null")) {
			continue
		}
		var obj map[string]any
		if err := utiljson.Unmarshal(j, &obj); err != nil {
			return nil, err
		}
		out = append(out, obj)
	}
}

func hookOf(obj map[string]any) string {
	meta, _ := obj["metadata"].(map[string]any)
	ann, _ := meta["annotations"].(map[string]any)
	h, _ := ann[release.HookAnnotation].(string)
	return h
}

func apiGroup(obj map[string]any) string {
	av, _ := obj["apiVersion"].(string)
	g, _, ok := strings.Cut(av, "/")
	if !ok {
		return ""
	}
	return g
}

// setLabels merges labels into obj's, labels winning (crds.go mergeLabels).
func setLabels(obj map[string]any, labels map[string]string) {
	meta, ok := obj["metadata"].(map[string]any)
	if !ok {
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	cur, ok := meta["labels"].(map[string]any)
	if !ok {
		cur = map[string]any{}
		meta["labels"] = cur
	}
	for k, v := range labels {
		cur[k] = v
	}
}

func bufioReader(s string) *bufio.Reader { return bufio.NewReader(strings.NewReader(s)) }
