package render

import (
	"context"
	"crypto/x509"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// remoteServer is a local HTTPS server whose certificate is valid for example.com. It
// serves /a.yaml (a ConfigMap), /patch.yaml, /big.yaml (2 MiB), /slow.yaml (answers only
// when the client gives up), /redirect-http and /redirect-other, and counts requests.
type remoteServer struct {
	*httptest.Server
	hits atomic.Int64
	port string
}

func newRemoteServer(t *testing.T) *remoteServer {
	s := &remoteServer{}
	s.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		switch r.URL.Path {
		case "/a.yaml":
			fmt.Fprint(w, cm("default", "remote", "from: example.com"))
		case "/patch.yaml":
			fmt.Fprint(w, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: default\ndata:\n  patched: \"yes\"\n")
		case "/big.yaml":
			fmt.Fprint(w, strings.Repeat("#", 2<<20))
		case "/slow.yaml":
			<-r.Context().Done()
		case "/redirect-http":
			http.Redirect(w, r, "http://example.com:"+s.port+"/a.yaml", http.StatusFound)
		case "/redirect-other":
			http.Redirect(w, r, "https://other.example:"+s.port+"/a.yaml", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	s.port = strings.TrimPrefix(s.URL[strings.LastIndex(s.URL, ":"):], ":")
	return s
}

// policy allows example.com, which resolves to addrs; loopback counts as public only when
// loopbackOK, as no test may reach a real host.
func (s *remoteServer) policy(loopbackOK bool, addrs ...string) RemotePolicy {
	p := RemotePolicy{Allow: []string{"example.com", "other.example"}, Timeout: 2 * time.Second, MaxBytes: 1 << 20}
	p.lookup = func(_ context.Context, host string) ([]netip.Addr, error) {
		var out []netip.Addr
		for _, a := range addrs {
			out = append(out, netip.MustParseAddr(a))
		}
		return out, nil
	}
	if loopbackOK {
		p.permit = func(a netip.Addr) bool { return a.IsLoopback() }
	}
	p.rootCAs = x509Pool(s.Server)
	return p
}

func x509Pool(s *httptest.Server) *x509.CertPool {
	return s.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
}

func TestRemoteResources(t *testing.T) {
	srv := newRemoteServer(t)
	base := "https://example.com:" + srv.port
	cases := []struct {
		name          string
		kustomization string
		policy        RemotePolicy
		wantErr       *graph.BuildError
		wantRemote    []string
		wantObjects   []string
		wantHits      int64
	}{
		{"allowed and fetched", "resources:\n  - cm.yaml\n  - " + base + "/a.yaml\n", srv.policy(true, "127.0.0.1"), nil, nil,
			[]string{"flux-system/apps ConfigMap/default/a apps/cm.yaml:2", "flux-system/apps ConfigMap/default/remote " + base + "/a.yaml:0"}, 1},
		{"allowed patch fetched", "resources: [cm.yaml]\npatches:\n  - path: " + base + "/patch.yaml\n", srv.policy(true, "127.0.0.1"), nil, nil,
			[]string{"flux-system/apps ConfigMap/default/a apps/cm.yaml:2"}, 1},
		{"host not on the allow list", "resources:\n  - cm.yaml\n  - https://elsewhere.example:" + srv.port + "/a.yaml\n", srv.policy(true, "127.0.0.1"), nil,
			[]string{"https://elsewhere.example:" + srv.port + "/a.yaml"}, []string{"flux-system/apps ConfigMap/default/a apps/cm.yaml:2"}, 0},
		{"no allow list", "resources:\n  - cm.yaml\n  - " + base + "/a.yaml\n", RemotePolicy{}, nil,
			[]string{base + "/a.yaml"}, []string{"flux-system/apps ConfigMap/default/a apps/cm.yaml:2"}, 0},
		{"patch not on the allow list is not downloaded", "resources: [cm.yaml]\npatches:\n  - path: " + base + "/patch.yaml\n", RemotePolicy{}, nil,
			[]string{base + "/patch.yaml"}, nil, 0},
		{"fork", "resources:\n  - cm.yaml\n  - " + base + "/a.yaml\n", func() RemotePolicy { p := srv.policy(true, "127.0.0.1"); p.Fork = true; return p }(), nil,
			[]string{base + "/a.yaml"}, []string{"flux-system/apps ConfigMap/default/a apps/cm.yaml:2"}, 0},
		{"git remote base", "resources:\n  - cm.yaml\n  - https://example.com/org/repo//deploy?ref=v1\n", srv.policy(true, "127.0.0.1"), nil,
			[]string{"https://example.com/org/repo//deploy?ref=v1"}, []string{"flux-system/apps ConfigMap/default/a apps/cm.yaml:2"}, 0},
		{"http", "resources:\n  - cm.yaml\n  - http://example.com:" + srv.port + "/a.yaml\n", srv.policy(true, "127.0.0.1"),
			&graph.BuildError{Message: "remote file http://example.com:" + srv.port + "/a.yaml not fetched: only https is fetched, not http", File: "apps/kustomization.yaml", Line: 3}, nil, nil, 0},
		{"loopback answer", "resources:\n  - " + base + "/a.yaml\n", srv.policy(false, "127.0.0.1"),
			&graph.BuildError{Message: "remote file " + base + "/a.yaml not fetched: Get \"" + base + "/a.yaml\": example.com resolves to 127.0.0.1, a private, loopback, link-local or metadata address", File: "apps/kustomization.yaml", Line: 2}, nil, nil, 0},
		{"private answer among public ones", "resources:\n  - " + base + "/a.yaml\n", srv.policy(false, "93.184.215.14", "10.0.0.7"),
			&graph.BuildError{Message: "remote file " + base + "/a.yaml not fetched: Get \"" + base + "/a.yaml\": example.com resolves to 10.0.0.7, a private, loopback, link-local or metadata address", File: "apps/kustomization.yaml", Line: 2}, nil, nil, 0},
		{"metadata answer", "resources:\n  - " + base + "/a.yaml\n", srv.policy(false, "169.254.169.254"),
			&graph.BuildError{Message: "remote file " + base + "/a.yaml not fetched: Get \"" + base + "/a.yaml\": example.com resolves to 169.254.169.254, a private, loopback, link-local or metadata address", File: "apps/kustomization.yaml", Line: 2}, nil, nil, 0},
		{"IPv6 metadata answer", "resources:\n  - " + base + "/a.yaml\n", srv.policy(false, "fd00:ec2::254"),
			&graph.BuildError{Message: "remote file " + base + "/a.yaml not fetched: Get \"" + base + "/a.yaml\": example.com resolves to fd00:ec2::254, a private, loopback, link-local or metadata address", File: "apps/kustomization.yaml", Line: 2}, nil, nil, 0},
		{"too big", "resources:\n  - " + base + "/big.yaml\n", srv.policy(true, "127.0.0.1"),
			&graph.BuildError{Message: "remote file " + base + "/big.yaml not fetched: more than 1048576 bytes (remote maxBytes)", File: "apps/kustomization.yaml", Line: 2}, nil, nil, 1},
		{"timeout", "resources:\n  - " + base + "/slow.yaml\n", func() RemotePolicy { p := srv.policy(true, "127.0.0.1"); p.Timeout = 300 * time.Millisecond; return p }(),
			&graph.BuildError{Message: "remote file " + base + "/slow.yaml not fetched: Get \"" + base + "/slow.yaml\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)", File: "apps/kustomization.yaml", Line: 2}, nil, nil, 1},
		{"address checked again when dialled", "resources:\n  - " + base + "/a.yaml\n", func() RemotePolicy {
			// The first check passes, any later one fails: the dialled address is checked again.
			p, checks := srv.policy(true, "127.0.0.1"), 0
			p.permit = func(a netip.Addr) bool { checks++; return checks == 1 }
			return p
		}(), &graph.BuildError{Message: "remote file " + base + "/a.yaml not fetched: Get \"" + base + "/a.yaml\": dial tcp 127.0.0.1:" + srv.port + ": refused to dial 127.0.0.1:" + srv.port, File: "apps/kustomization.yaml", Line: 2}, nil, nil, 0},
		{"redirect to another allowed host resolving to a private address", "resources:\n  - " + base + "/redirect-other\n", func() RemotePolicy {
			p := srv.policy(true, "127.0.0.1")
			p.lookup = func(_ context.Context, host string) ([]netip.Addr, error) {
				if host == "other.example" {
					return []netip.Addr{netip.MustParseAddr("10.0.0.7")}, nil
				}
				return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
			}
			return p
		}(), &graph.BuildError{Message: "remote file " + base + "/redirect-other not fetched: Get \"https://other.example:" + srv.port + "/a.yaml\": other.example resolves to 10.0.0.7, a private, loopback, link-local or metadata address", File: "apps/kustomization.yaml", Line: 2}, nil, nil, 1},
		{"redirect to http", "resources:\n  - " + base + "/redirect-http\n", srv.policy(true, "127.0.0.1"),
			&graph.BuildError{Message: "remote file " + base + "/redirect-http not fetched: Get \"http://example.com:" + srv.port + "/a.yaml\": only https is fetched, not http", File: "apps/kustomization.yaml", Line: 2}, nil, nil, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv.hits.Store(0)
			dir := hostile(t, map[string]string{"apps/kustomization.yaml": tc.kustomization, "apps/cm.yaml": cm("default", "a")})
			g, err := Render(context.Background(), dir, Options{Remote: tc.policy})
			if err != nil {
				t.Fatal(err)
			}
			c := g.Cluster("dev")
			apps := c.Kustomizations[appsRef]
			if d := cmp.Diff(tc.wantErr, apps.Err); d != "" {
				t.Errorf("error (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.wantRemote, apps.Remote); d != "" {
				t.Errorf("not fetched (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.wantObjects, ownedBy(c, appsRef)); d != "" {
				t.Errorf("objects (-want +got):\n%s", d)
			}
			if got := srv.hits.Load(); got != tc.wantHits {
				t.Errorf("server saw %d requests, want %d", got, tc.wantHits)
			}
		})
	}
}

func TestRemotePatchIsApplied(t *testing.T) {
	srv := newRemoteServer(t)
	dir := hostile(t, map[string]string{
		"apps/kustomization.yaml": "resources: [cm.yaml]\npatches:\n  - path: https://example.com:" + srv.port + "/patch.yaml\n",
		"apps/cm.yaml":            cm("default", "a"),
	})
	g, err := Render(context.Background(), dir, Options{Remote: srv.policy(true, "127.0.0.1")})
	if err != nil {
		t.Fatal(err)
	}
	apps := g.Cluster("dev").Kustomizations[appsRef]
	if apps.Err != nil || len(apps.Objects) != 1 {
		t.Fatalf("apps: %v, %d objects", apps.Err, len(apps.Objects))
	}
	got, _, _ := unstructured.NestedString(apps.Objects[0].Body.Object, "data", "patched")
	if got != "yes" {
		t.Errorf("data.patched = %q, want the remote patch applied", got)
	}
}

func TestPublicAddr(t *testing.T) {
	for _, tc := range []struct {
		addr string
		want bool
	}{
		{"93.184.215.14", true}, {"2606:4700::1111", true},
		{"127.0.0.1", false}, {"::1", false}, {"10.1.2.3", false}, {"172.16.0.1", false}, {"192.168.1.1", false},
		{"169.254.169.254", false}, {"fe80::1", false}, {"fd00:ec2::254", false}, {"100.100.100.200", false},
		{"0.0.0.0", false}, {"::", false}, {"224.0.0.1", false}, {"64:ff9b::a00:1", false}, {"::ffff:10.0.0.1", false},
	} {
		a := netip.MustParseAddr(tc.addr)
		if got := publicAddr(a.Unmap()); got != tc.want {
			t.Errorf("publicAddr(%s) = %v, want %v", tc.addr, got, tc.want)
		}
	}
}

func TestHostAllowed(t *testing.T) {
	f := newFetcher(RemotePolicy{Allow: []string{"raw.githubusercontent.com", "*.Example.com"}})
	for host, want := range map[string]bool{
		"raw.githubusercontent.com": true, "RAW.githubusercontent.com.": true, "githubusercontent.com": false,
		"a.example.com": true, "a.b.example.com": true, "example.com": false, "badexample.com": false, "example.com.evil": false,
	} {
		if got := f.hostAllowed(host); got != want {
			t.Errorf("hostAllowed(%q) = %v, want %v", host, got, want)
		}
	}
}

// TestKustomizationKeysAnyCaseAreNotFetched: kustomize decodes a kustomization file
// through encoding/json, which matches field names case-insensitively and keeps the last
// of repeated keys, so `Resources:` or a second `resources:` in a base lists resources as
// `resources:` does. Their URLs must not be fetched either.
func TestKustomizationKeysAnyCaseAreNotFetched(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, cm("default", "remote"))
	}))
	t.Cleanup(srv.Close)
	url := srv.URL + "/cm.yaml"
	cases := []struct {
		name, base  string
		wantObjects []string
	}{
		{"capitalised resources", "Resources:\n- " + url + "\n- cm.yaml\n", []string{"ConfigMap/default/local"}},
		{"repeated resources", "resources: [cm.yaml]\nresources:\n- " + url + "\n- cm.yaml\n", []string{"ConfigMap/default/local"}},
		{"capitalised patch path", "resources: [cm.yaml]\npatches:\n- Path: " + url + "\n", nil},
		{"capitalised generator files", "resources: [cm.yaml]\nconfigMapGenerator:\n- name: g\n  Files: [" + url + "]\n", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hits.Store(0)
			dir := hostile(t, map[string]string{
				"apps/kustomization.yaml":      "resources: [base]\n",
				"apps/base/kustomization.yaml": tc.base,
				"apps/base/cm.yaml":            cm("default", "local"),
			})
			for _, exact := range []bool{false, true} {
				g, err := Render(context.Background(), dir, Options{ExactBuild: exact})
				if err != nil {
					t.Fatal(err)
				}
				apps := g.Cluster("dev").Kustomizations[appsRef]
				var got []string
				for _, o := range apps.Objects {
					got = append(got, o.ID.String())
				}
				if d := cmp.Diff(tc.wantObjects, got); d != "" {
					t.Errorf("exact=%v: objects (-want +got):\n%s", exact, d)
				}
				if d := cmp.Diff([]string{url}, apps.Remote); d != "" {
					t.Errorf("exact=%v: remote entries left out (-want +got):\n%s", exact, d)
				}
			}
			if n := hits.Load(); n != 0 {
				t.Errorf("the server saw %d requests, want none", n)
			}
		})
	}
}
