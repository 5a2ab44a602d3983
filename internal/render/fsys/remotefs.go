package fsys

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/index"
)

// RemoteFS stands between kustomize and remote files: every kustomization file it reads
// has its URL entries (resources, components and bases, and https files in patches,
// generators and the other fields kustomize loads) either fetched under the RemotePolicy
// and replaced by an in-memory copy, or removed and recorded, so that kustomize itself
// never clones or downloads anything. A recorded entry marks the build partial.
type RemoteFS struct {
	filesys.FileSystem
	fetch Fetcher
	mu    sync.Mutex
	urls  map[string]bool
	// copies maps the absolute path of each in-memory copy to its URL.
	copies map[string]string
	// blocked is set when a URL that is not fetched sits where kustomize cannot do
	// without it (a patch, a generator's file): the build cannot run.
	blocked bool
	failed  *remoteFailure
	// openapi is set when a kustomization file read may have an `openapi:` field.
	openapi bool
	// refuseOpenAPI makes such a read fail with ErrSchemaBuild.
	refuseOpenAPI bool
}

// Fetcher fetches the remote files kustomization files name, under the review's policy
// (render's RemotePolicy). A nil *fetcher of render is one: it fetches nothing.
type Fetcher interface {
	// Decide says whether raw may be fetched: its URL when it may, an error wrapping
	// ErrNotFetched when the policy leaves it out (the build is partial), another error
	// when it is refused (the build fails).
	Decide(raw string) (*url.URL, error)
	// Fetch returns the file at u.
	Fetch(ctx context.Context, u *url.URL) ([]byte, error)
}

// ErrNotFetched marks a remote entry that the policy leaves out: the build is partial, not
// failed.
var ErrNotFetched = errors.New("not fetched")

// ErrSchemaBuild fails the read of a kustomization file that may set an OpenAPI schema
// when the build shares kustomize's schema with others: it must be built alone.
var ErrSchemaBuild = errors.New("kustomization may set an OpenAPI schema: build it alone")

// remoteFailure is an allowed remote file that could not be fetched.
type remoteFailure struct {
	kfile, url, reason string
}

// NewRemoteFS returns the remote layer over mem (the artifact with the files a build
// writes), fetching what fetch allows; a nil fetch fetches nothing.
func NewRemoteFS(mem filesys.FileSystem, fetch Fetcher) *RemoteFS {
	return &RemoteFS{FileSystem: mem, fetch: fetch}
}

// RefuseOpenAPI makes the read of a kustomization file that may set an OpenAPI schema
// fail with ErrSchemaBuild; it is set before the build starts.
func (fs *RemoteFS) RefuseOpenAPI() { fs.refuseOpenAPI = true }

// ReadFile reads path; a kustomization file is returned with its remote entries resolved.
func (fs *RemoteFS) ReadFile(path string) ([]byte, error) {
	data, err := fs.FileSystem.ReadFile(path)
	if err != nil || !IsKustomizationFile(path) {
		return data, err
	}
	data = fs.strip(path, data)
	if fs.refuseOpenAPI && fs.SetsOpenAPI() {
		return nil, ErrSchemaBuild
	}
	return data, nil
}

// IsKustomizationFile reports whether path is named as kustomize reads a kustomization
// file (konfig.RecognizedKustomizationFileNames).
func IsKustomizationFile(path string) bool {
	base := filepath.Base(path)
	for _, n := range konfig.RecognizedKustomizationFileNames() {
		if base == n {
			return true
		}
	}
	return false
}

// isRemote reports whether kustomize would fetch ref from the network.
func isRemote(ref string) bool {
	if strings.Contains(ref, "://") || strings.HasPrefix(ref, "git@") || strings.HasPrefix(ref, "git::") {
		return true
	}
	for _, host := range []string{"github.com/", "gitlab.com/", "bitbucket.org/"} {
		if strings.HasPrefix(ref, host) {
			return true
		}
	}
	return false
}

// resourceFields hold entries that may be remote bases or files; loadFields hold file
// paths that kustomize's loader would download when they are http(s) URLs.
var (
	resourceFields = []string{"resources", "components", "bases"}
	loadFields     = []string{"crds", "configurations", "generators", "transformers", "validators", "patchesStrategicMerge"}
	pathLists      = []string{"patches", "patchesJson6902", "replacements"}
	generatorLists = []string{"configMapGenerator", "secretGenerator"}
)

func (fs *RemoteFS) strip(kpath string, data []byte) []byte {
	var n yaml.Node
	if yaml.Unmarshal(data, &n) != nil || len(n.Content) == 0 {
		fs.markOpenAPI() // kustomize may still find an openapi field yaml.v3 cannot parse
		return data
	}
	doc := n.Content[0]
	if len(fields(doc, "openapi")) > 0 {
		fs.markOpenAPI()
	}
	changed := false
	for _, field := range resourceFields {
		for _, seq := range fields(doc, field) {
			if seq.Kind != yaml.SequenceNode {
				continue
			}
			kept := seq.Content[:0:0]
			for _, item := range seq.Content {
				if item.Kind == yaml.ScalarNode && isRemote(item.Value) {
					changed = true
					if !fs.resolve(kpath, item, "", true) {
						continue
					}
				}
				kept = append(kept, item)
			}
			seq.Content = kept
		}
	}
	var loads []*yaml.Node
	for _, field := range loadFields {
		for _, v := range fields(doc, field) {
			loads = append(loads, items(v)...)
		}
	}
	for _, field := range pathLists {
		for _, v := range fields(doc, field) {
			for _, e := range items(v) {
				loads = append(loads, fields(e, "path")...)
			}
		}
	}
	for _, v := range fields(doc, "openapi") {
		loads = append(loads, index.Value(v, "path")) // a map: its keys are matched exactly
	}
	for _, field := range generatorLists {
		for _, v := range fields(doc, field) {
			for _, g := range items(v) {
				for _, f := range []string{"files", "envs"} {
					for _, l := range fields(g, f) {
						loads = append(loads, items(l)...)
					}
				}
				loads = append(loads, fields(g, "env")...)
			}
		}
	}
	for _, item := range loads {
		if item == nil || item.Kind != yaml.ScalarNode {
			continue
		}
		key, raw := "", item.Value
		if k, v, ok := strings.Cut(raw, "="); ok && isHTTP(v) {
			key, raw = k+"=", v
		}
		if isHTTP(raw) {
			changed = true
			item.Value = raw
			fs.resolve(kpath, item, key, false)
		}
	}
	if !changed {
		return data
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	if enc.Encode(&n) != nil {
		return data
	}
	return buf.Bytes()
}

// resolve fetches the URL of item when the policy allows it and points item at the
// in-memory copy (keeping a `key=` prefix); it reports whether item stays. An entry that
// is not fetched is recorded; a resource-like one is dropped, another one is pointed at a
// missing file, so that kustomize never downloads it, and blocks the build.
func (fs *RemoteFS) resolve(kpath string, item *yaml.Node, key string, resource bool) bool {
	raw := item.Value
	var u *url.URL
	err := fmt.Errorf("%w: nothing is fetched", ErrNotFetched)
	if fs.fetch != nil {
		u, err = fs.fetch.Decide(raw)
	}
	var data []byte
	if err == nil {
		data, err = fs.fetch.Fetch(context.Background(), u)
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if err != nil {
		if errors.Is(err, ErrNotFetched) {
			if fs.urls == nil {
				fs.urls = map[string]bool{}
			}
			fs.urls[raw] = true
		} else if fs.failed == nil {
			fs.failed = &remoteFailure{kfile: kpath, url: raw, reason: err.Error()}
		}
		fs.blocked = fs.blocked || !resource
		item.Value = key + notFetchedName
		return false
	}
	sum := sha256.Sum256([]byte(raw))
	local := filepath.Join(filepath.Dir(kpath), ".tiergate-remote-"+hex.EncodeToString(sum[:8])+".yaml")
	if werr := fs.FileSystem.WriteFile(local, data); werr != nil {
		if fs.failed == nil {
			fs.failed = &remoteFailure{kfile: kpath, url: raw, reason: werr.Error()}
		}
		return false
	}
	if fs.copies == nil {
		fs.copies = map[string]string{}
	}
	fs.copies[local] = raw
	item.Value = key + filepath.Base(local)
	return true
}

// notFetchedName stands in for a URL that is not fetched; no such file exists.
const notFetchedName = ".tiergate-remote-not-fetched"

func isHTTP(s string) bool {
	l := strings.ToLower(s)
	return strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "http://")
}

// fields returns the values of every key of mapping m, or of the mappings it merges
// (`<<: *base`), that names the struct field k as kustomize decodes a kustomization file:
// YAML to JSON, then encoding/json, which matches field names case-insensitively
// (strings.EqualFold) and keeps the last of repeated keys. Any of them may be the one
// kustomize uses, so all are returned.
func fields(m *yaml.Node, k string) []*yaml.Node {
	var out []*yaml.Node
	var walk func(m *yaml.Node, depth int)
	walk = func(m *yaml.Node, depth int) {
		m = index.Deref(m)
		if m == nil || m.Kind != yaml.MappingNode || depth > index.MaxMergeDepth {
			return
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			kn := index.Deref(m.Content[i])
			switch {
			case kn == nil || kn.Kind != yaml.ScalarNode:
			case kn.Tag == "!!merge":
				if v := index.Deref(m.Content[i+1]); v != nil && v.Kind == yaml.SequenceNode {
					for _, e := range v.Content { // `<<: [*a, *b]`
						walk(e, depth+1)
					}
				} else {
					walk(v, depth+1)
				}
			case strings.EqualFold(kn.Value, k):
				if v := index.Deref(m.Content[i+1]); v != nil {
					out = append(out, v)
				}
			}
		}
	}
	walk(m, 0)
	return out
}

func items(seq *yaml.Node) []*yaml.Node {
	if seq == nil || seq.Kind != yaml.SequenceNode {
		return nil
	}
	return seq.Content
}

// Failure is the first allowed remote file that could not be fetched, as a BuildError at
// the kustomization line naming it; nil when none failed.
func (fs *RemoteFS) Failure(ix *index.Index, abs string) *graph.BuildError {
	fs.mu.Lock()
	f := fs.failed
	fs.mu.Unlock()
	if f == nil {
		return nil
	}
	file := graph.RelPath(abs, f.kfile)
	return &graph.BuildError{Message: fmt.Sprintf("remote file %s not fetched: %s", f.url, f.reason), File: file, Line: max(ix.LineOf(file, 1, f.url), 1)}
}

// IsBlocked reports whether a URL that is not fetched left the build unable to run.
func (fs *RemoteFS) IsBlocked() bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.blocked
}

// CopiesRel maps each in-memory copy, repo-relative, to its URL.
func (fs *RemoteFS) CopiesRel(abs string) map[string]string {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	out := map[string]string{}
	for p, u := range fs.copies {
		out[graph.RelPath(abs, p)] = u
	}
	return out
}

func (fs *RemoteFS) markOpenAPI() {
	fs.mu.Lock()
	fs.openapi = true
	fs.mu.Unlock()
}

// SetsOpenAPI reports whether a kustomization file read may have an `openapi:` field.
func (fs *RemoteFS) SetsOpenAPI() bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.openapi
}

// Remote lists the remote entries left out of the build, sorted.
func (fs *RemoteFS) Remote() []string {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if len(fs.urls) == 0 {
		return nil
	}
	out := make([]string, 0, len(fs.urls))
	for u := range fs.urls {
		out = append(out, u)
	}
	sort.Strings(out)
	return out
}
