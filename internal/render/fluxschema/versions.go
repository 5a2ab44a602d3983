package fluxschema

import (
	"fmt"
	"slices"
	"strings"
)

// Older is an API version a Flux kind's CRD no longer serves: Until is the last Flux minor
// release (2.Until) whose CRD still served it.
type Older struct {
	Version string
	Until   int
}

// kindVersions are the API versions of one Flux kind tiergate interprets: Current is what
// the CRDs of Flux 2.8 and later serve, Older what earlier releases still served.
type kindVersions struct {
	Current []string
	Older   []Older
}

// AcceptedFrom is the oldest Flux minor release whose served versions tiergate renders as
// the Flux objects they are: Flux 2.7 still serves the v1beta2 Kustomization, HelmRelease
// v2beta2 and the v1beta2 sources (deprecated); DESIGN.md "also accept v1beta2".
const AcceptedFrom = 7

// versions lists the served API versions of the Flux kinds tiergate interprets, from their
// CRDs (config/crd/bases, spec.versions[].served): kustomize-controller
// kustomize.toolkit.fluxcd.io_kustomizations.yaml serves v1 only from v1.8.0 (Flux 2.8), v1
// and v1beta2 in v1.7 (Flux 2.7), v1beta1 too in v1.6 (Flux 2.6); helm-controller
// helm.toolkit.fluxcd.io_helmreleases.yaml v2 only from v1.5.0 (Flux 2.8), v2beta2 until
// v1.4 (Flux 2.7), v2beta1 until v1.3 (Flux 2.6); source-controller's GitRepository,
// HelmRepository, HelmChart and Bucket v1 only from v1.8.0 (Flux 2.8), v1beta2 until v1.7,
// v1beta1 until v1.6; OCIRepository v1 (from v1.6) and v1beta2 until v1.7; ExternalArtifact
// v1; source-watcher's ArtifactGenerator v1beta1; flux-operator's kinds v1. The Flux
// releases pin those controller versions (flux2 manifests/bases/*/kustomization.yaml).
var versions = map[string]kindVersions{
	"kustomize.toolkit.fluxcd.io/Kustomization":       {[]string{"v1"}, []Older{{"v1beta2", 7}, {"v1beta1", 6}}},
	"helm.toolkit.fluxcd.io/HelmRelease":              {[]string{"v2"}, []Older{{"v2beta2", 7}, {"v2beta1", 6}}},
	"source.toolkit.fluxcd.io/GitRepository":          {[]string{"v1"}, []Older{{"v1beta2", 7}, {"v1beta1", 6}}},
	"source.toolkit.fluxcd.io/HelmRepository":         {[]string{"v1"}, []Older{{"v1beta2", 7}, {"v1beta1", 6}}},
	"source.toolkit.fluxcd.io/HelmChart":              {[]string{"v1"}, []Older{{"v1beta2", 7}, {"v1beta1", 6}}},
	"source.toolkit.fluxcd.io/Bucket":                 {[]string{"v1"}, []Older{{"v1beta2", 7}, {"v1beta1", 6}}},
	"source.toolkit.fluxcd.io/OCIRepository":          {[]string{"v1"}, []Older{{"v1beta2", 7}}},
	"source.toolkit.fluxcd.io/ExternalArtifact":       {[]string{"v1"}, nil},
	"source.extensions.fluxcd.io/ArtifactGenerator":   {[]string{"v1beta1"}, nil},
	"fluxcd.controlplane.io/FluxInstance":             {[]string{"v1"}, nil},
	"fluxcd.controlplane.io/ResourceSet":              {[]string{"v1"}, nil},
	"fluxcd.controlplane.io/ResourceSetInputProvider": {[]string{"v1"}, nil},
	"fluxcd.controlplane.io/FluxReport":               {[]string{"v1"}, nil},
}

// Interpreted reports whether group/kind is a Flux kind whose served versions are known.
func Interpreted(group, kind string) bool {
	_, ok := versions[group+"/"+kind]
	return ok
}

// ServedBy lists the API versions the CRD of group/kind serves in Flux 2.minor (minor < 0:
// the newest release), current first; nil for a kind this package does not know.
func ServedBy(group, kind string, minor int) []string {
	kv, ok := versions[group+"/"+kind]
	if !ok {
		return nil
	}
	out := slices.Clone(kv.Current)
	for _, o := range kv.Older {
		if minor >= 0 && minor <= o.Until {
			out = append(out, o.Version)
		}
	}
	return out
}

// Accepted reports whether tiergate renders an object of apiVersion ("group/version") and
// kind as the Flux object it is: a kind it does not interpret always, else a version
// served by Flux 2.AcceptedFrom or later. Any other version fails the apply with 'no
// matches for kind' (the API server has no such version), so nothing of it is reconciled.
func Accepted(apiVersion, kind string) bool {
	group, version, ok := strings.Cut(apiVersion, "/")
	if !ok || !Interpreted(group, kind) {
		return true
	}
	return slices.Contains(ServedBy(group, kind, AcceptedFrom), version)
}

// History says which versions of group/kind Flux serves: "v1 (v1beta2 until Flux 2.7,
// v1beta1 until Flux 2.6)"; "" for a kind this package does not know.
func History(group, kind string) string {
	kv, ok := versions[group+"/"+kind]
	if !ok {
		return ""
	}
	s := strings.Join(kv.Current, ", ")
	var older []string
	for _, o := range kv.Older {
		older = append(older, fmt.Sprintf("%s until Flux 2.%d", o.Version, o.Until))
	}
	if len(older) > 0 {
		s += " (" + strings.Join(older, ", ") + ")"
	}
	return s
}
