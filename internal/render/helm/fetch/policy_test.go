package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/netguard"
)

func TestNotAllowed(t *testing.T) {
	cases := []struct {
		name  string
		allow []string
		ref   Ref
		err   string
		host  string // the NotAllowedError's host, "" for another error
	}{
		{name: "empty allow list pulls nothing", ref: Ref{Kind: KindOCI, URL: "oci://ghcr.io/org/charts/app", Version: "1.0.0"},
			err: "fetch chart oci://ghcr.io/org/charts/app:1.0.0: chart host ghcr.io is not allowed (allow ghcr.io to render it)", host: "ghcr.io"},
		{name: "wildcard covers names below it only", allow: []string{"*.example.com"}, ref: Ref{Kind: KindHTTP, URL: "https://example.com/repo", Chart: "app"},
			err: "fetch chart https://example.com/repo app: chart host example.com is not allowed (allow example.com to render it)", host: "example.com"},
		{name: "port is not part of the name", allow: []string{"charts.example.com:8443"}, ref: Ref{Kind: KindOCI, URL: "oci://charts.example.com:8443/app"},
			err: "fetch chart oci://charts.example.com:8443/app: chart host charts.example.com is not allowed (allow charts.example.com to render it)", host: "charts.example.com"},
		{name: "plain http refused", allow: []string{"charts.example.com"}, ref: Ref{Kind: KindHTTP, URL: "http://charts.example.com/repo", Chart: "app"},
			err: "fetch chart http://charts.example.com/repo app: only https is fetched, not http (http://charts.example.com/repo)"},
		{name: "OCI URL without a path", allow: []string{"ghcr.io"}, ref: Ref{Kind: KindOCI, URL: "oci://ghcr.io"},
			err: "fetch chart oci://ghcr.io: an OCI chart URL is oci://host/path/chart, not oci://ghcr.io"},
		{name: "credentials in the URL", allow: []string{"charts.example.com"}, ref: Ref{Kind: KindHTTP, URL: "https://bot:secret@charts.example.com/repo", Chart: "app"},
			err: "fetch chart https://bot:xxxxx@charts.example.com/repo app: a chart URL carries no credentials (https://bot:xxxxx@charts.example.com/repo)"},
		{name: "unknown kind", ref: Ref{Kind: "git", URL: "https://github.com/org/repo"},
			err: `fetch chart https://github.com/org/repo: chart source kind "git" is neither "oci" nor "http"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(Policy{Allow: tc.allow}).Fetch(context.Background(), tc.ref)
			if diff := cmp.Diff(tc.err, errText(err)); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			var nae *NotAllowedError
			host := ""
			if errors.As(err, &nae) {
				host = nae.Host
			}
			if host != tc.host {
				t.Errorf("NotAllowedError host %q, want %q", host, tc.host)
			}
		})
	}
}

func TestRedirectToAnotherHostRefused(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://localhost:1/repo/index.yaml", http.StatusFound)
	}))
	defer srv.Close()
	host := hostOf(t, srv.URL)
	_, err := New(Policy{Allow: []string{"127.0.0.1"}, Loopback: true}).Fetch(context.Background(), Ref{Kind: KindHTTP, URL: srv.URL + "/repo", Chart: "app"})
	want := fmt.Sprintf(`fetch chart %s/repo app from 127.0.0.1: Get "http://localhost:1/repo/index.yaml": redirect from %s to localhost:1 refused: chart host localhost is not allowed (allow localhost to render it)`, srv.URL, host)
	if diff := cmp.Diff(want, errText(err)); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
}

// Without Loopback, an allowed name that resolves to 127.0.0.1 is refused at connect time.
func TestDialerRefusesLoopback(t *testing.T) {
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	defer srv.Close()
	host := hostOf(t, srv.URL)
	for _, ref := range []Ref{
		{Kind: KindHTTP, URL: srv.URL + "/repo", Chart: "app"},
		{Kind: KindOCI, URL: "oci://" + host + "/charts/app", Version: "1.0.0"},
	} {
		_, err := New(Policy{Allow: []string{"127.0.0.1"}}).Fetch(context.Background(), ref)
		var want string
		if ref.Kind == KindHTTP {
			want = fmt.Sprintf(`fetch chart %s/repo app from 127.0.0.1: Get "%s/repo/index.yaml": dial tcp %s: refused to dial %s: a loopback address`, srv.URL, srv.URL, host, host)
		} else {
			want = fmt.Sprintf(`fetch chart oci://%s/charts/app:1.0.0 from 127.0.0.1: Get "https://%s/v2/charts/app/manifests/1.0.0": dial tcp %s: refused to dial %s: a loopback address`, host, host, host, host)
		}
		if diff := cmp.Diff(want, errText(err)); diff != "" {
			t.Errorf("error (-want +got):\n%s", diff)
		}
	}
}

func TestControl(t *testing.T) {
	cases := []struct {
		addr     string
		loopback bool
		err      string
	}{
		{addr: "93.184.215.14:443"},
		{addr: "[2606:4700::1111]:443"},
		{addr: "127.0.0.1:443", err: "refused to dial 127.0.0.1:443: a loopback address"},
		{addr: "127.0.0.1:443", loopback: true},
		{addr: "127.0.0.2:443", loopback: true, err: "refused to dial 127.0.0.2:443: a loopback address"},
		{addr: "[::1]:443", loopback: true, err: "refused to dial [::1]:443: a loopback address"},
		{addr: "[::ffff:127.0.0.1]:443", err: "refused to dial [::ffff:127.0.0.1]:443: a loopback address"},
		{addr: "10.1.2.3:443", err: "refused to dial 10.1.2.3:443: a private address"},
		{addr: "192.168.0.1:443", err: "refused to dial 192.168.0.1:443: a private address"},
		{addr: "169.254.169.254:80", err: "refused to dial 169.254.169.254:80: a link-local address"},
		{addr: "[fd00:ec2::254]:80", err: "refused to dial [fd00:ec2::254]:80: a private address"},
		{addr: "100.64.0.1:443", err: "refused to dial 100.64.0.1:443: a special-purpose address"},
		{addr: "100.100.100.200:80", err: "refused to dial 100.100.100.200:80: a special-purpose address"},
		{addr: "0.0.0.0:443", err: "refused to dial 0.0.0.0:443: a unspecified address"},
		{addr: "[::]:443", err: "refused to dial [::]:443: a unspecified address"},
		{addr: "224.0.0.1:443", err: "refused to dial 224.0.0.1:443: a multicast address"},
		{addr: "[fe80::1%eth0]:443", err: "refused to dial [fe80::1%eth0]:443: a link-local address"},
	}
	for _, tc := range cases {
		c := newHTTPClient(Policy{Loopback: tc.loopback}, &limits{})
		if diff := cmp.Diff(tc.err, errText(c.control("tcp", tc.addr, nil))); diff != "" {
			t.Errorf("%s (loopback %t) (-want +got):\n%s", tc.addr, tc.loopback, diff)
		}
	}
	if netguard.Internal(netip.MustParseAddr("8.8.8.8")) != "" {
		t.Error("8.8.8.8 is public")
	}
}

func TestSizeLimits(t *testing.T) {
	host, _ := newRegistry(t)
	archive := buildChart(t, "app", "1.0.0")
	manifest := pushChart(t, host, "charts/app", "1.0.0", "1.0.0", archive)
	repo := newHelmRepo(t, "1.0.0")
	repoURL := repo.srv.URL + "/repo"
	oci := Ref{Kind: KindOCI, URL: "oci://" + host + "/charts/app", Version: "1.0.0"}
	cases := []struct {
		name   string
		limits limits
		ref    Ref
		err    string
	}{
		{name: "index.yaml", limits: limits{index: 64, manifest: 1 << 20, blob: 1 << 20}, ref: Ref{Kind: KindHTTP, URL: repoURL, Chart: "app"},
			err: fmt.Sprintf("fetch chart %s app from 127.0.0.1: index.yaml is larger than 64 bytes", repoURL)},
		{name: "http archive", limits: limits{index: 1 << 20, manifest: 1 << 20, blob: 100}, ref: Ref{Kind: KindHTTP, URL: repoURL, Chart: "app"},
			err: fmt.Sprintf("fetch chart %s app from 127.0.0.1: chart %s/charts/app-1.0.0.tgz is larger than 100 bytes", repoURL, repoURL)},
		{name: "OCI chart layer", limits: limits{index: 1 << 20, manifest: 1 << 20, blob: 100}, ref: oci,
			err: fmt.Sprintf("fetch chart %s from 127.0.0.1: chart layer sha256:%x is %d bytes, over the limit of 100", oci, sha(archive), len(archive))},
	}
	cases = append(cases, struct {
		name   string
		limits limits
		ref    Ref
		err    string
	}{name: "OCI manifest", limits: limits{index: 1 << 20, manifest: 100, blob: 1 << 20}, ref: oci,
		err: fmt.Sprintf("fetch chart %s from 127.0.0.1: manifest %s is %d bytes, over the limit of 100", oci, manifest, manifestSize(t, host, manifest))})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := New(Policy{Allow: []string{"127.0.0.1"}, Loopback: true})
			f.limits = tc.limits
			_, err := f.Fetch(context.Background(), tc.ref)
			if diff := cmp.Diff(tc.err, errText(err)); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFetchDeadline(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // never answers
	}))
	defer srv.Close()
	f := New(Policy{Allow: []string{"127.0.0.1"}, Loopback: true, Timeout: 50 * time.Millisecond})
	_, err := f.Fetch(context.Background(), Ref{Kind: KindHTTP, URL: srv.URL + "/repo", Chart: "app"})
	want := fmt.Sprintf(`fetch chart %s/repo app from 127.0.0.1: over the 50ms fetch deadline: Get "%s/repo/index.yaml": context deadline exceeded`, srv.URL, srv.URL)
	if diff := cmp.Diff(want, errText(err)); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
}

// A registry that serves its blobs from another host (ghcr.io sends them to
// pkg-containers.githubusercontent.com) works when that host is allowed too.
func TestBlobRedirectToAllowedHost(t *testing.T) {
	host, reg := newRegistry(t)
	archive := buildChart(t, "app", "1.0.0")
	manifest := pushChart(t, host, "charts/app", "1.0.0", "1.0.0", archive)
	_, port, _ := strings.Cut(host, ":")
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/blobs/") {
			http.Redirect(w, r, "http://localhost:"+port+r.URL.Path, http.StatusTemporaryRedirect)
			return
		}
		reg.ServeHTTP(w, r)
	}))
	defer redirecting.Close()
	ref := Ref{Kind: KindOCI, URL: "oci://" + hostOf(t, redirecting.URL) + "/charts/app", Version: "1.0.0"}

	c, err := New(Policy{Allow: []string{"127.0.0.1", "localhost"}, Loopback: true}).Fetch(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got{Version: "1.0.0", Digest: manifest, Archive: summary(&Chart{Archive: archive}).Archive}, summary(c)); diff != "" {
		t.Errorf("chart (-want +got):\n%s", diff)
	}

	_, err = New(Policy{Allow: []string{"127.0.0.1"}, Loopback: true}).Fetch(context.Background(), ref)
	layer := summary(&Chart{Archive: archive}).Archive
	want := fmt.Sprintf(`fetch chart %s from 127.0.0.1: Get "http://localhost:%s/v2/charts/app/blobs/%s": redirect from %s to localhost:%s refused: chart host localhost is not allowed (allow localhost to render it)`,
		ref, port, layer, hostOf(t, redirecting.URL), port)
	if diff := cmp.Diff(want, errText(err)); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
	var na *NotAllowedError
	if !errors.As(err, &na) || *na != (NotAllowedError{Host: "localhost", From: "127.0.0.1"}) {
		t.Errorf("NotAllowedError = %+v, want the redirect's host and the host it came from", na)
	}
}

// A registry that wants a token gets an anonymous one, asked once per Fetcher, and only
// from an allowed host.
func TestAnonymousRegistryToken(t *testing.T) {
	host, reg := newRegistry(t)
	archive := buildChart(t, "app", "1.0.0")
	pushChart(t, host, "charts/app", "1.0.0", "1.0.0", archive)
	pushChart(t, host, "charts/other", "1.0.0", "1.0.0", archive)
	var tokens, credentials int
	realmHost := "" // set below, once the server's address is known
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/token" {
			tokens++
			if r.Header.Get("Authorization") != "" {
				credentials++
			}
			fmt.Fprint(w, `{"token":"anonymous"}`)
			return
		}
		if r.Header.Get("Authorization") != "Bearer anonymous" {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm="http://%s/token",service="test"`, realmHost))
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		reg.ServeHTTP(w, r)
	}))
	defer srv.Close()
	realmHost = hostOf(t, srv.URL)
	_, port, _ := strings.Cut(realmHost, ":")
	url := "oci://" + hostOf(t, srv.URL) + "/charts/"

	f := New(Policy{Allow: []string{"127.0.0.1"}, Loopback: true})
	for _, chart := range []string{"app", "other"} {
		if _, err := f.Fetch(context.Background(), Ref{Kind: KindOCI, URL: url + chart, Version: "1.0.0"}); err != nil {
			t.Fatal(err)
		}
	}
	// oras asks a token per repository scope: one per chart, none with credentials.
	if tokens != 2 || credentials != 0 {
		t.Errorf("%d token requests, %d with credentials; want 2 and 0", tokens, credentials)
	}

	// oras refuses a realm on a loopback or private address itself; a public one that is
	// not allowed is refused before it is dialled.
	realmHost = "192.0.2.1:" + port
	_, err := New(Policy{Allow: []string{"127.0.0.1"}, Loopback: true}).Fetch(context.Background(), Ref{Kind: KindOCI, URL: url + "app", Version: "1.0.0"})
	var nae *NotAllowedError
	t.Log(errText(err))
	if !errors.As(err, &nae) || nae.Host != "192.0.2.1" {
		t.Errorf("token realm on a host not allowed: %v, want a NotAllowedError for 192.0.2.1", err)
	}
}
