package fetch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/registry/remote"
)

// buildChart returns the .tgz of a chart named name at version, made as `helm create` and
// `helm package` make it.
func buildChart(t testing.TB, name, version string) []byte {
	t.Helper()
	dir, err := chartutil.Create(name, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c, err := loader.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	c.Metadata.Version = version
	out, err := chartutil.Save(c, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// counted serves h and counts the requests it serves.
type counted struct {
	n atomic.Int64
	h http.Handler
}

func (c *counted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.n.Add(1)
	c.h.ServeHTTP(w, r)
}

// newRegistry starts an OCI registry on 127.0.0.1 and returns its host:port and counter.
func newRegistry(t testing.TB) (string, *counted) {
	t.Helper()
	c := &counted{h: registry.New(registry.Logger(log.New(io.Discard, "", 0)))}
	srv := httptest.NewServer(c)
	t.Cleanup(srv.Close)
	return hostOf(t, srv.URL), c
}

func hostOf(t testing.TB, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// pushChart pushes archive to host/path as Helm pushes a chart (config, one chart layer,
// the version annotation) and tags it; it returns the manifest digest.
func pushChart(t testing.TB, host, path, tag, version string, archive []byte) string {
	t.Helper()
	return pushChartAs(t, host, path, tag, version, chartLayerMediaType, archive)
}

// pushChartAs is pushChart with the layer media type given.
func pushChartAs(t testing.TB, host, path, tag, version, layerType string, archive []byte) string {
	t.Helper()
	ctx := context.Background()
	repo, err := remote.NewRepository(host + "/" + path)
	if err != nil {
		t.Fatal(err)
	}
	repo.PlainHTTP = true
	push := func(mediaType string, data []byte) ocispec.Descriptor {
		desc := ocispec.Descriptor{MediaType: mediaType, Digest: digest.FromBytes(data), Size: int64(len(data))}
		if err := repo.Push(ctx, desc, bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		return desc
	}
	config, err := json.Marshal(map[string]string{"apiVersion": "v2", "name": filepath.Base(path), "version": version})
	if err != nil {
		t.Fatal(err)
	}
	layer := push(layerType, archive)
	cfg := push(chartConfigMediaType, config)
	desc, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, "", oras.PackManifestOptions{
		Layers:              []ocispec.Descriptor{layer},
		ConfigDescriptor:    &cfg,
		ManifestAnnotations: map[string]string{ocispec.AnnotationVersion: version, ocispec.AnnotationCreated: "2026-01-01T00:00:00Z"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := repo.Tag(ctx, desc, tag); err != nil {
		t.Fatal(err)
	}
	return desc.Digest.String()
}

// got is what a test compares of a Chart: the archive by its digest.
type got struct {
	Version, Digest, Archive string
}

func summary(c *Chart) got {
	if c == nil {
		return got{}
	}
	return got{Version: c.Version, Digest: c.Digest, Archive: digest.FromBytes(c.Archive).String()}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func sha(data []byte) []byte {
	s := sha256.Sum256(data)
	return s[:]
}

// manifestSize is the size of manifest d in the registry at host, read with oras directly.
func manifestSize(t testing.TB, host, d string) int64 {
	t.Helper()
	repo, err := remote.NewRepository(host + "/charts/app")
	if err != nil {
		t.Fatal(err)
	}
	repo.PlainHTTP = true
	desc, err := repo.Resolve(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	return desc.Size
}
