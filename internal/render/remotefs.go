package render

import (
	"bytes"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// remoteFS hides remote resources from kustomize: every kustomization file it reads has
// URL entries removed from resources, components and bases, and the URLs are recorded.
// kustomize then never clones or downloads anything, and the build is marked partial.
type remoteFS struct {
	filesys.FileSystem
	mu   sync.Mutex
	urls map[string]bool
	// openapi is set when a kustomization file read has an `openapi:` field.
	openapi bool
}

func (fs *remoteFS) ReadFile(path string) ([]byte, error) {
	data, err := fs.FileSystem.ReadFile(path)
	if err != nil || !isKustomizationFile(path) {
		return data, err
	}
	return fs.strip(data), nil
}

func isKustomizationFile(path string) bool {
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

func (fs *remoteFS) strip(data []byte) []byte {
	var n yaml.Node
	if yaml.Unmarshal(data, &n) != nil || len(n.Content) == 0 {
		fs.markOpenAPI() // kustomize may still find an openapi field yaml.v3 cannot parse
		return data
	}
	if value(n.Content[0], "openapi") != nil {
		fs.markOpenAPI()
	}
	changed := false
	for _, field := range []string{"resources", "components", "bases"} {
		seq := value(n.Content[0], field)
		if seq == nil || seq.Kind != yaml.SequenceNode {
			continue
		}
		kept := seq.Content[:0:0]
		for _, item := range seq.Content {
			if item.Kind == yaml.ScalarNode && isRemote(item.Value) {
				fs.mu.Lock()
				if fs.urls == nil {
					fs.urls = map[string]bool{}
				}
				fs.urls[item.Value] = true
				fs.mu.Unlock()
				changed = true
				continue
			}
			kept = append(kept, item)
		}
		seq.Content = kept
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

func (fs *remoteFS) markOpenAPI() {
	fs.mu.Lock()
	fs.openapi = true
	fs.mu.Unlock()
}

func (fs *remoteFS) setsOpenAPI() bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.openapi
}

func (fs *remoteFS) remote() []string {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	out := make([]string, 0, len(fs.urls))
	for u := range fs.urls {
		out = append(out, u)
	}
	sort.Strings(out)
	return out
}
