// Package config reads `.tiergate.yaml`, the per-repository settings of tiergate: cluster
// roots, source-to-folder mappings, runtime-CRD catalog additions, rule severities,
// ignored findings and the remote allow list (docs/config.md; JSON Schema in
// docs/tiergate.schema.json). Unknown keys are errors that name the file, line and key, so a
// typo never silently changes a review.
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// kubeVersion is what .Capabilities.KubeVersion accepts: vMAJOR.MINOR[.PATCH].
var kubeVersion = regexp.MustCompile(`^v?[0-9]+\.[0-9]+(\.[0-9]+)?$`)

// FileName is the configuration file read from the repository root.
const FileName = ".tiergate.yaml"

// Cluster declares one cluster root: Path is the repo-relative folder the root
// Kustomization applies (its spec.path); SourceRef ("Kind/namespace/name") is its source,
// GitRepository/flux-system/flux-system when empty.
type Cluster struct {
	Name      string `json:"name" yaml:"name"`
	Path      string `json:"path" yaml:"path"`
	SourceRef string `json:"sourceRef,omitempty" yaml:"sourceRef,omitempty"`
}

// RuntimeKind is a kind whose CRD a controller creates at runtime.
type RuntimeKind struct {
	Group string `json:"group" yaml:"group"`
	Kind  string `json:"kind" yaml:"kind"`
	// Scope is "Namespaced" or "Cluster".
	Scope string `json:"scope" yaml:"scope"`
}

// RuntimeCRDs says that Kinds (or every kind of Groups) appear once an object of
// CreatedWhen ("group/Kind") reconciles; with Chart, only a HelmRelease of that chart.
type RuntimeCRDs struct {
	Kinds       []RuntimeKind `json:"kinds,omitempty" yaml:"kinds,omitempty"`
	Groups      []string      `json:"groups,omitempty" yaml:"groups,omitempty"`
	CreatedWhen string        `json:"createdWhen" yaml:"createdWhen"`
	Chart       string        `json:"chart,omitempty" yaml:"chart,omitempty"`
}

// Preinstalled names CRDs by API group, or by the Helm chart that installs them (the
// chart names of the runtime-CRD catalog).
type Preinstalled struct {
	Groups []string `json:"groups,omitempty" yaml:"groups,omitempty"`
	Charts []string `json:"charts,omitempty" yaml:"charts,omitempty"`
}

// Config is the content of .tiergate.yaml.
type Config struct {
	Clusters []Cluster `json:"clusters,omitempty" yaml:"clusters,omitempty"`
	// Sources maps a Flux source ("Kind/namespace/name", e.g. OCIRepository/flux-system/flux-system
	// or ExternalArtifact/apps/foo) to the repo folder its paths are relative to.
	Sources     map[string]string `json:"sources,omitempty" yaml:"sources,omitempty"`
	RuntimeCRDs []RuntimeCRDs     `json:"runtimeCRDs,omitempty" yaml:"runtimeCRDs,omitempty"`
	// PreinstalledCRDs are CRDs that exist before Flux reconciles anything (applied by a
	// bootstrap script or a cluster add-on): their kinds need no dependsOn edge.
	PreinstalledCRDs Preinstalled `json:"preinstalledCRDs,omitempty" yaml:"preinstalledCRDs,omitempty"`
	// StrictSubstitution is true unless set to false: undefined variables are then warnings
	// (Flux before 2.9, or StrictPostBuildSubstitutions=false). Set, it wins over the Flux
	// version a cluster's manifests state (review/rules clusterFluxVersion).
	StrictSubstitution *bool `json:"strictSubstitution,omitempty" yaml:"strictSubstitution,omitempty"`
	// FailOn is the default of --fail-on.
	FailOn string `json:"failOn,omitempty" yaml:"failOn,omitempty"`
	// FailOnUnreviewed fails the review when a head Kustomization was not built in full
	// (the default of --fail-on-unreviewed).
	FailOnUnreviewed bool `json:"failOnUnreviewed,omitempty" yaml:"failOnUnreviewed,omitempty"`
	// KustomizationDefaults are spec fields given to every Flux Kustomization that does not
	// set them, as a mutating admission webhook or a policy engine does in the cluster
	// (e.g. postBuild injected by kustomize-mutating-webhook). Keys are spec field names.
	KustomizationDefaults map[string]any `json:"kustomizationDefaults,omitempty" yaml:"kustomizationDefaults,omitempty"`
	// Rules overrides rule defaults, keyed by rule id (docs/rules.md).
	Rules map[string]Rule `json:"rules,omitempty" yaml:"rules,omitempty"`
	// Ignore lists the findings to take out of the verdict.
	Ignore []Ignore `json:"ignore,omitempty" yaml:"ignore,omitempty"`
	// KubeVersion is the Kubernetes version HelmRelease charts are rendered for
	// (.Capabilities.KubeVersion, "v1.33.0"); "": helm.DefaultKubeVersion.
	KubeVersion string `json:"kubeVersion,omitempty" yaml:"kubeVersion,omitempty"`
	// APIVersions are API versions the clusters serve that no CRD in the graph declares
	// ("group/version" or "group/version/Kind"), added to .Capabilities.APIVersions.
	APIVersions []string `json:"apiVersions,omitempty" yaml:"apiVersions,omitempty"`
	// Remote allows fetching remote kustomize resources and charts from some hosts; nil: none.
	Remote *Remote `json:"remote,omitempty" yaml:"remote,omitempty"`

	// name is the file name errors give; lines maps key paths to their lines (keyLines).
	name  string
	lines map[string]int
}

// Strict reports whether undefined variables fail the reconcile (the Flux 2.9 default).
func (c *Config) Strict() bool {
	return c == nil || c.StrictSubstitution == nil || *c.StrictSubstitution
}

// SourceDir returns the folder mapped to a source "Kind/namespace/name": an exact key
// first, then the first matching glob key in sorted order (e.g. "ExternalArtifact/*/*").
func (c *Config) SourceDir(source string) (string, bool) {
	if dir, ok := c.Sources[source]; ok {
		return dir, true
	}
	keys := make([]string, 0, len(c.Sources))
	for k := range c.Sources {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if ok, _ := path.Match(k, source); ok {
			return c.Sources[k], true
		}
	}
	return "", false
}

// Load reads a configuration file. A missing file at the default location is not an
// error (optional=true): it yields an empty Config.
func Load(path string, optional bool) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		if optional && os.IsNotExist(err) {
			return &Config{}, nil
		}
		return nil, fmt.Errorf("read config: %w", err)
	}
	defer f.Close()
	// One byte over MaxBytes is enough for Parse to refuse it: the rest is never read.
	data, err := io.ReadAll(io.LimitReader(f, MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	return Parse(path, data)
}

// MaxBytes is the largest configuration file Parse reads, 1 MiB: a real one has a few
// kilobytes, and the head's comes from the pull request.
const MaxBytes = 1 << 20

// Parse decodes configuration text; name is used in errors, which are *Error and read
// "name:line: key: message" (e.g. ".tiergate.yaml:12: rules.missing-wai: unknown key").
// Every error of the file is reported, in line order (the first is the *Error, the others
// its More): a decode error of one key (unknown, wrong type) does not hide the others or a
// bad value elsewhere; only a YAML syntax error, after which nothing can be read, stops it.
// Text over MaxBytes is refused unread; yaml.v3 refuses an alias bomb ("excessive aliasing").
// Rule ids are checked by CheckRules, or by ParseKnown with the rest.
func Parse(name string, data []byte) (*Config, error) {
	c, errs := parse(name, data)
	if err := joinErrors(errs); err != nil {
		return nil, err
	}
	return c, nil
}

// ParseKnown is Parse and CheckRules(known) in one, reporting the errors of both in line
// order: an unknown rule id is listed with the file's other errors, not after they are fixed.
func ParseKnown(name string, data []byte, known []string) (*Config, error) {
	c, errs := parse(name, data)
	if c != nil {
		errs = append(errs, c.checkRules(known)...)
	}
	if err := joinErrors(errs); err != nil {
		return nil, err
	}
	return c, nil
}

// parse decodes and checks data, collecting every error; the Config is nil when the text
// cannot be read at all (over MaxBytes, a YAML syntax error).
func parse(name string, data []byte) (*Config, []*Error) {
	c := Config{name: name}
	if len(data) > MaxBytes {
		return nil, []*Error{{File: name, Message: fmt.Sprintf("more than %d bytes, over tiergate's limit for a configuration file (config.MaxBytes)", MaxBytes)}}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var errs []*Error
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			return nil, decodeError(name, data, err)
		}
		// yaml.v3 decodes every other key after a TypeError: check them as well.
		errs = decodeError(name, data, err)
	}
	c.lines = keyLines(data)
	for _, e := range c.check() {
		// A key that failed to decode is not also reported for the value it lacks.
		if !slices.ContainsFunc(errs, func(d *Error) bool { return related(d.key, e.key) }) {
			errs = append(errs, e)
		}
	}
	return &c, errs
}

// check validates the decoded values, one error per bad key.
func (c *Config) check() []*Error {
	var errs []*Error
	add := func(key, format string, args ...any) { errs = append(errs, c.errorf(key, format, args...).(*Error)) }
	if c.KustomizationDefaults != nil {
		// Kubernetes objects hold JSON values: int64/float64, not YAML's int.
		raw, err := json.Marshal(c.KustomizationDefaults)
		c.KustomizationDefaults = nil
		if err == nil {
			err = json.Unmarshal(raw, &c.KustomizationDefaults)
		}
		if err != nil {
			add("kustomizationDefaults", "%v", err)
		}
	}
	for i, cl := range c.Clusters {
		key := fmt.Sprintf("clusters[%d]", i)
		if cl.Name == "" || cl.Path == "" {
			add(key, "name and path are required")
		} else if !inRepo(cl.Path) {
			add(key+".path", "want a folder inside the repository such as clusters/prod, got %q", cl.Path)
		}
		if cl.SourceRef != "" && strings.Count(cl.SourceRef, "/") != 2 {
			add(key+".sourceRef", "want Kind/namespace/name, got %q", cl.SourceRef)
		}
	}
	for _, k := range sortedKeys(c.Sources) {
		if _, err := path.Match(k, ""); err != nil || strings.Count(k, "/") != 2 {
			add("sources."+k, "want a key Kind/namespace/name (globs allowed)")
		} else if v := c.Sources[k]; v != "" && !inRepo(v) {
			add("sources."+k, "want a folder inside the repository such as kubernetes, got %q", v)
		}
	}
	for i, r := range c.RuntimeCRDs {
		key := fmt.Sprintf("runtimeCRDs[%d]", i)
		if strings.Count(r.CreatedWhen, "/") != 1 {
			add(key+".createdWhen", "want group/Kind, got %q", r.CreatedWhen)
		}
		for j, k := range r.Kinds {
			if k.Kind == "" {
				add(fmt.Sprintf("%s.kinds[%d]", key, j), "kind is required")
			} else if k.Scope != "Namespaced" && k.Scope != "Cluster" {
				add(fmt.Sprintf("%s.kinds[%d].scope", key, j), "want Namespaced or Cluster, got %q", k.Scope)
			}
		}
	}
	switch c.FailOn {
	case "", "error", "warning", "notice", "never":
	default:
		add("failOn", "want error, warning, notice or never, got %q", c.FailOn)
	}
	if c.KubeVersion != "" && !kubeVersion.MatchString(c.KubeVersion) {
		add("kubeVersion", "want a Kubernetes version such as v1.33.0, got %q", c.KubeVersion)
	}
	for i, v := range c.APIVersions {
		if n := strings.Count(v, "/"); v == "" || n > 2 || strings.Contains(v, " ") {
			add(fmt.Sprintf("apiVersions[%d]", i), "want group/version or group/version/Kind, got %q", v)
		}
	}
	return append(errs, c.checkReview()...)
}

// inRepo reports whether p names a folder inside the repository: relative, and not
// leaving it through "..".
func inRepo(p string) bool {
	return filepath.IsLocal(filepath.FromSlash(p))
}
