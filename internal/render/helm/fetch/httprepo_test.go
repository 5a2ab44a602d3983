package fetch

import (
	gocmp "cmp"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/opencontainers/go-digest"
	"sigs.k8s.io/yaml"
)

// helmRepo serves a Helm repository under /repo: index.yaml, with relative chart URLs, and
// the archives under /repo/charts/.
type helmRepo struct {
	srv      *httptest.Server
	counter  *counted
	archives map[string][]byte // by version
	entries  []map[string]any
	block    chan struct{} // when set, index.yaml waits for it
}

func newHelmRepo(t testing.TB, versions ...string) *helmRepo {
	t.Helper()
	r := &helmRepo{archives: map[string][]byte{}}
	for _, v := range versions {
		a := buildChart(t, "app", v)
		r.archives[v] = a
		r.entries = append(r.entries, map[string]any{
			"apiVersion": "v2", "name": "app", "version": v,
			"urls":    []string{"charts/app-" + v + ".tgz"},
			"digest":  digest.FromBytes(a).Encoded(),
			"created": "2026-01-01T00:00:00Z",
		})
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /repo/index.yaml", func(w http.ResponseWriter, req *http.Request) {
		if r.block != nil {
			<-r.block
		}
		entries := append([]any{nil}, anys(r.entries)...) // an empty entry is skipped, as Helm's loadIndex does
		data, err := yaml.Marshal(map[string]any{"apiVersion": "v1", "entries": map[string]any{"app": entries, "empty": []any{nil}}})
		if err != nil {
			t.Error(err)
		}
		w.Write(data)
	})
	mux.HandleFunc("GET /repo/charts/{file}", func(w http.ResponseWriter, req *http.Request) {
		for v, a := range r.archives {
			if req.PathValue("file") == "app-"+v+".tgz" {
				w.Write(a)
				return
			}
		}
		http.NotFound(w, req)
	})
	r.counter = &counted{h: mux}
	r.srv = httptest.NewServer(r.counter)
	t.Cleanup(r.srv.Close)
	return r
}

func (r *helmRepo) want(version string) got {
	d := digest.FromBytes(r.archives[version]).String()
	return got{Version: version, Digest: d, Archive: d}
}

func TestFetchHTTP(t *testing.T) {
	repo := newHelmRepo(t, "1.0.0", "1.2.0", "1.3.0", "1.4.0-rc.1", "2.0.0", "3.0.0", "4.0.0")
	repo.entries[5]["digest"] = digest.FromString("other").Encoded() // 3.0.0 lies about its archive
	repo.entries[6]["urls"] = []string{"http://localhost/charts/app-4.0.0.tgz"}
	repoURL := repo.srv.URL + "/repo" // no trailing slash: chart URLs resolve inside /repo/
	cases := []struct {
		name, chart, version string
		want                 got
		err                  string
	}{
		{name: "constraint", version: "1.x", want: repo.want("1.3.0")},
		{name: "exact", version: "1.2.0", want: repo.want("1.2.0")},
		{name: "exact prerelease", version: "1.4.0-rc.1", want: repo.want("1.4.0-rc.1")},
		{name: "latest stable", version: ">=2 <3", want: repo.want("2.0.0")},
		{name: "digest mismatch", version: "3.0.0",
			err: fmt.Sprintf("fetch chart %s app:3.0.0 from 127.0.0.1: chart %s/charts/app-3.0.0.tgz is %s, index.yaml says %s",
				repoURL, repoURL, digest.FromBytes(repo.archives["3.0.0"]), digest.FromString("other"))},
		{name: "chart URL on a host not allowed", version: "4.0.0",
			err: fmt.Sprintf("fetch chart %s app:4.0.0 from 127.0.0.1: chart \"app\" version 4.0.0 at http://localhost/charts/app-4.0.0.tgz: chart host localhost is not allowed (allow localhost to render it)", repoURL)},
		{name: "no such chart", chart: "empty", version: "1.x",
			err: fmt.Sprintf("fetch chart %s empty (semver 1.x) from 127.0.0.1: index.yaml has no chart \"empty\"", repoURL)},
		{name: "no version", version: "~5",
			err: fmt.Sprintf("fetch chart %s app (semver ~5) from 127.0.0.1: no \"app\" chart with version matching \"~5\" found", repoURL)},
	}
	f := New(Policy{Allow: []string{"127.0.0.1"}, Loopback: true})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			chart := gocmp.Or(tc.chart, "app")
			c, err := f.Fetch(context.Background(), Ref{Kind: KindHTTP, URL: repoURL, Chart: chart, Version: tc.version})
			if diff := cmp.Diff(tc.err, errText(err)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, summary(c)); diff != "" {
				t.Errorf("chart (-want +got):\n%s", diff)
			}
		})
	}
	// One index.yaml for every chart of the repository, one archive per chart fetched.
	if n := repo.counter.n.Load(); n != 1+5 {
		t.Errorf("%d requests, want 6 (index.yaml once, five archives)", n)
	}
}

func TestFetchHTTPLatestStable(t *testing.T) {
	repo := newHelmRepo(t, "1.0.0", "2.0.0", "2.1.0-rc.1")
	f := New(Policy{Allow: []string{"127.0.0.1"}, Loopback: true})
	c, err := f.Fetch(context.Background(), Ref{Kind: KindHTTP, URL: repo.srv.URL + "/repo/", Chart: "app"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(repo.want("2.0.0"), summary(c)); diff != "" {
		t.Errorf("chart (-want +got):\n%s", diff)
	}
}

func anys[T any](xs []T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}
