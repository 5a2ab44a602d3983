package rules

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/tiergate/tiergate/internal/render/fluxinstance"
	"github.com/tiergate/tiergate/internal/render/graph"
)

// fluxVersion is the Flux version the repository states for a cluster, and whether
// kustomize-controller fails a reconcile on an undefined variable there: the
// StrictPostBuildSubstitutions feature gate, opt-in from kustomize-controller v1.3 and on by
// default from v1.9.0, Flux 2.9 (kustomize-controller internal/features/features.go, the
// `features` map; flux-semantics.md §2).
type fluxVersion struct {
	// Text is the version as written ("2.6.x", "v2.6.0"), Component the controller it is of
	// ("" for Flux itself, "kustomize-controller" for an image tag).
	Text, Component string
	// From says where it was read, for the message.
	From   string
	Strict bool
}

// strictFlux is the first Flux version, and strictKC the first kustomize-controller
// version, with StrictPostBuildSubstitutions on by default.
var strictFlux, strictKC = semver.MustParse("2.9.0"), semver.MustParse("1.9.0")

// headerVersion is the line `flux install --export` and bootstrap write at the top of
// gotk-components.yaml (flux CLI pkg/manifestgen/install: "# Flux Version: <version>").
var headerVersion = regexp.MustCompile(`^#\s*Flux Version:\s*(v?\d+\.\d+\.\d+\S*)`)

// clusterFluxVersion reads c's Flux version where the repository states it, first found
// first: a FluxInstance's spec.distribution.version (a semver range: flux-operator installs
// the newest Flux matching it, so the gate is on when the range admits 2.9 or later), the
// header of gotk-components.yaml, the tag of the kustomize-controller image. False when
// none says.
func clusterFluxVersion(c *graph.Cluster) (fluxVersion, bool) {
	objs := sortedObjects(c)
	if o := clusterInstance(c, objs); o != nil {
		v, _ := graph.ValueAt(o.Body.Object, []string{"spec", "distribution", "version"})
		if s, ok := v.(string); ok {
			if strict, ok := rangeStrict(s); ok {
				return fluxVersion{Text: s, From: fmt.Sprintf("%s of %s, %s:%d", instanceField(o, "distribution", "version"), instanceName(o), o.File, o.Line), Strict: strict}, true
			}
		}
	}
	for _, o := range objs {
		if path.Base(o.File) != "gotk-components.yaml" || c.Source == nil {
			continue
		}
		lines, _ := c.Source.Lines(o.File)
		if m := header(lines); m != "" {
			if v, err := semver.NewVersion(m); err == nil {
				return fluxVersion{Text: m, From: "the header of " + o.File, Strict: !v.LessThan(strictFlux)}, true
			}
		}
	}
	for _, o := range objs {
		if tag, ok := kustomizeControllerTag(o); ok {
			if v, err := semver.NewVersion(tag); err == nil {
				return fluxVersion{Text: tag, Component: "kustomize-controller", Strict: !v.LessThan(strictKC),
					From: fmt.Sprintf("the image of Deployment %s/%s, %s:%d", o.ID.Namespace, o.ID.Name, o.File, o.Line)}, true
			}
		}
	}
	return fluxVersion{}, false
}

// header is the version of the "# Flux Version:" line among the comments and document
// separators that open a file's lines; "" when there is none.
func header(lines []string) string {
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if m := headerVersion.FindStringSubmatch(l); m != nil {
			return m[1]
		}
		if l != "---" && !strings.HasPrefix(l, "#") && l != "" {
			return ""
		}
	}
	return ""
}

// fluxInstances are the FluxInstances among objs, in their order: FluxInstance objects
// (fluxcd.controlplane.io, with a body), and for each flux-instance HelmRelease whose chart
// was not rendered, the FluxInstance its chart renders from its values
// (fluxinstance.FromHelmRelease, valuesFrom resolved against objs), at the HelmRelease's
// manifest, with HelmRelease naming it.
func fluxInstances(objs []*graph.Object) []*graph.Object {
	rendered := map[string]bool{}
	for _, o := range objs {
		if isFluxInstance(o) && o.HelmRelease != "" {
			rendered[o.HelmRelease] = true
		}
	}
	var out []*graph.Object
	for _, o := range objs {
		switch {
		case isFluxInstance(o):
			out = append(out, o)
		case o.Body != nil && o.HelmRelease == "" && isHelmRelease(o) && fluxinstance.IsChartRelease(o.Body, o.File) && !rendered[o.ID.Namespace+"/"+o.ID.Name]:
			fi := fluxinstance.FromHelmRelease(o.Body, objs)
			out = append(out, &graph.Object{ID: graph.IDOf(fi), Owner: o.Owner, File: o.File, Line: o.Line, Body: fi, HelmRelease: o.ID.Namespace + "/" + o.ID.Name})
		}
	}
	return out
}

// clusterInstance is the FluxInstance flux-operator reconciles in c (objs: c's
// sortedObjects): only one named fluxinstance.Name, in the operator's runtime namespace
// (flux-operator cmd/operator/main.go caches FluxInstances by that name and namespace;
// the CRD rejects any other name). The runtime namespace is not in the repository: the
// one in the namespace of c's root (flux-operator creates the root in its instance's
// namespace) wins, else the first; nil when none is named so.
func clusterInstance(c *graph.Cluster, objs []*graph.Object) *graph.Object {
	var first *graph.Object
	for _, o := range fluxInstances(objs) {
		if o.ID.Name != fluxinstance.Name {
			continue
		}
		if o.ID.Namespace == c.Root.Namespace {
			return o
		}
		if first == nil {
			first = o
		}
	}
	return first
}

// isFluxInstance reports whether o is a FluxInstance object with a body.
func isFluxInstance(o *graph.Object) bool {
	return o.ID.Group == "fluxcd.controlplane.io" && o.ID.Kind == "FluxInstance" && o.Body != nil
}

// instanceName is "FluxInstance ns/name", or for one a HelmRelease's values make,
// "FluxInstance ns/name of HelmRelease ns/hr".
func instanceName(o *graph.Object) string {
	s := "FluxInstance " + o.ID.Namespace + "/" + o.ID.Name
	if o.HelmRelease != "" {
		s += " of HelmRelease " + o.HelmRelease
	}
	return s
}

// instanceField is where a FluxInstance field is written: spec.<keys>, or for one a
// HelmRelease's values make, the values' instance.<keys>.
func instanceField(o *graph.Object, keys ...string) string {
	if o.HelmRelease != "" {
		return "instance." + strings.Join(keys, ".")
	}
	return "spec." + strings.Join(keys, ".")
}

// sortedObjects is every object of c once, by file and line.
func sortedObjects(c *graph.Cluster) []*graph.Object {
	var out []*graph.Object
	for _, objs := range c.Owners {
		if len(objs) > 0 {
			out = append(out, objs[0])
		}
	}
	slices.SortFunc(out, func(a, b *graph.Object) int {
		if a.File != b.File {
			return strings.Compare(a.File, b.File)
		}
		return a.Line - b.Line
	})
	return out
}

// rangeStrict reports whether the newest Flux version a FluxInstance's version range
// admits has the gate on: whether the range admits any version from 2.9 on (probed up to
// 3.x; Flux 2.9 exists, so flux-operator's newest match is at least that).
func rangeStrict(r string) (bool, bool) {
	c, err := semver.NewConstraint(r)
	if err != nil {
		return false, false
	}
	for minor := uint64(9); minor <= 40; minor++ {
		for _, patch := range []uint64{0, 99} {
			if c.Check(semver.New(2, minor, patch, "", "")) {
				return true, true
			}
		}
	}
	return c.Check(semver.New(3, 0, 0, "", "")), true
}

// kustomizeControllerTag is the tag of o's kustomize-controller image when o is a
// Deployment that runs one.
func kustomizeControllerTag(o *graph.Object) (string, bool) {
	if o.ID.Kind != "Deployment" || o.Body == nil {
		return "", false
	}
	v, _ := graph.ValueAt(o.Body.Object, []string{"spec", "template", "spec", "containers"})
	list, _ := v.([]any)
	for _, e := range list {
		m, _ := e.(map[string]any)
		img, _ := m["image"].(string)
		img, _, _ = strings.Cut(img, "@")
		i := strings.LastIndex(img, ":")
		if i > 0 && path.Base(img[:i]) == "kustomize-controller" {
			return img[i+1:], true
		}
	}
	return "", false
}

// describe is what a message says of v: "cluster dev runs Flux v2.6.0 (the header of …)".
func (v fluxVersion) describe(cluster string) string {
	what := "Flux"
	if v.Component != "" {
		what = v.Component
	}
	return fmt.Sprintf("cluster %s runs %s %s (%s)", cluster, what, v.Text, v.From)
}
