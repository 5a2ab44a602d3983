package render

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tiergate/tiergate/internal/config"
	"github.com/tiergate/tiergate/internal/netguard"
	"github.com/tiergate/tiergate/internal/render/fsys"
)

// RemotePolicy says which remote files kustomize builds may fetch (DESIGN.md "Rendering"
// 5). The zero value fetches nothing: remote entries are left out and the Kustomization is
// reported partial. Only plain files (`https://host/path/file.yaml`) are fetched; git
// remote bases (`github.com/org/repo//path?ref=v1`, `git@…`, `https://host/org/repo//dir`)
// are never cloned and stay partial.
type RemotePolicy struct {
	// Allow lists the host names whose files may be fetched, compared case-insensitively
	// ("raw.githubusercontent.com"); "*.example.com" allows every name below example.com
	// but not example.com itself, as config.Remote.Allows reads it. A port is not part of
	// the name.
	Allow []string
	// Timeout caps one fetch, redirects included; default 10 seconds.
	Timeout time.Duration
	// MaxBytes caps one fetched file; default 1 MiB.
	MaxBytes int64
	// Fork says that the head comes from a fork: nothing is fetched, whatever Allow says,
	// so a stranger's PR cannot make the bot reach any host.
	Fork bool

	// Test hooks (not part of key): the resolver, which addresses may be dialled (nil: public ones only)
	// and the CA pool to trust (nil: the system's).
	lookup  func(ctx context.Context, host string) ([]netip.Addr, error)
	permit  func(netip.Addr) bool
	rootCAs *x509.CertPool
}

const (
	defaultRemoteTimeout  = 10 * time.Second
	defaultRemoteMaxBytes = 1 << 20
	maxRedirects          = 3
)

// fetcher fetches remote files under a RemotePolicy, each URL once per Render.
type fetcher struct {
	policy RemotePolicy
	client *http.Client

	mu    sync.Mutex
	cache map[string]fetched
}

type fetched struct {
	data []byte
	err  error
}

func newFetcher(p RemotePolicy) *fetcher {
	if p.Timeout <= 0 {
		p.Timeout = defaultRemoteTimeout
	}
	if p.MaxBytes <= 0 {
		p.MaxBytes = defaultRemoteMaxBytes
	}
	if p.lookup == nil {
		p.lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	if p.permit == nil {
		p.permit = publicAddr
	}
	f := &fetcher{policy: p, cache: map[string]fetched{}}
	f.client = &http.Client{
		Timeout: p.Timeout,
		Transport: &http.Transport{
			Proxy:               nil, // a proxy would dial for us, past the address check
			DialContext:         f.dial,
			TLSClientConfig:     &tls.Config{RootCAs: p.rootCAs, MinVersion: tls.VersionTLS12},
			TLSHandshakeTimeout: p.Timeout,
			DisableKeepAlives:   true,
		},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > maxRedirects {
				return fmt.Errorf("more than %d redirects", maxRedirects)
			}
			return f.allowed(req.URL)
		},
	}
	return f
}

// Decide says whether raw may be fetched: nil when it may, an error wrapping fsys.ErrNotFetched
// when the policy leaves it out (partial), another error when it is refused (build error).
func (f *fetcher) Decide(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || !strings.Contains(raw, "://") {
		return nil, fmt.Errorf("%w: git remote bases are never cloned", fsys.ErrNotFetched)
	}
	if strings.Contains(strings.TrimPrefix(u.Path, "/"), "//") || u.Query().Has("ref") || strings.HasSuffix(u.Path, ".git") {
		return nil, fmt.Errorf("%w: git remote bases are never cloned", fsys.ErrNotFetched)
	}
	if f == nil || !f.hostAllowed(u.Hostname()) {
		return nil, fmt.Errorf("%w: host %s is not on the remote allow list", fsys.ErrNotFetched, u.Hostname())
	}
	if f.policy.Fork {
		return nil, fmt.Errorf("%w: the pull request comes from a fork", fsys.ErrNotFetched)
	}
	return u, f.allowed(u)
}

// allowed checks a URL the client is about to request, the first or a redirect.
func (f *fetcher) allowed(u *url.URL) error {
	if u.Scheme != "https" {
		return fmt.Errorf("only https is fetched, not %s", u.Scheme)
	}
	if !f.hostAllowed(u.Hostname()) {
		return fmt.Errorf("host %s is not on the remote allow list", u.Hostname())
	}
	return nil
}

// hostAllowed reports whether host matches an Allow entry, as .tiergate.yaml's
// remote.allow reads it.
func (f *fetcher) hostAllowed(host string) bool {
	return (&config.Remote{Allow: f.policy.Allow}).Allows(strings.TrimSuffix(host, "."))
}

// Fetch returns the file at u, at most MaxBytes long.
func (f *fetcher) Fetch(ctx context.Context, u *url.URL) ([]byte, error) {
	key := u.String()
	f.mu.Lock()
	c, ok := f.cache[key]
	f.mu.Unlock()
	if ok {
		return c.data, c.err
	}
	data, err := f.get(ctx, u)
	f.mu.Lock()
	f.cache[key] = fetched{data, err}
	f.mu.Unlock()
	return data, err
}

func (f *fetcher) get(ctx context.Context, u *url.URL) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %s", resp.Status)
	}
	if resp.ContentLength > f.policy.MaxBytes {
		return nil, fmt.Errorf("%d bytes, over the limit of %d (remote maxBytes)", resp.ContentLength, f.policy.MaxBytes)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, f.policy.MaxBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > f.policy.MaxBytes {
		return nil, fmt.Errorf("more than %d bytes (remote maxBytes)", f.policy.MaxBytes)
	}
	return data, nil
}

// dial resolves host itself, refuses it when any answer is not a permitted address, and
// dials the checked address; the Control hook checks again the address actually dialled,
// so neither a second DNS answer (rebinding) nor a proxy can reach another one.
func (f *fetcher) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	ips, err := f.policy.lookup(ctx, host)
	if err != nil {
		return nil, err
	}
	if len(ips) == 0 {
		return nil, fmt.Errorf("no address for %s", host)
	}
	for _, ip := range ips {
		if !f.policy.permit(ip.Unmap()) {
			return nil, fmt.Errorf("%s resolves to %s, a private, loopback, link-local or metadata address", host, ip)
		}
	}
	d := &net.Dialer{Control: func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil || !f.policy.permit(ap.Addr().Unmap()) {
			return fmt.Errorf("refused to dial %s", address)
		}
		return nil
	}}
	return d.DialContext(ctx, network, net.JoinHostPort(ips[0].Unmap().String(), port))
}

// publicAddr reports whether a may be dialled (netguard.Internal names none of its kinds).
func publicAddr(a netip.Addr) bool { return netguard.Internal(a) == "" }

// key identifies what the policy lets a build fetch: two renders whose builds read the
// same inputs under the same key skip the same remote entries.
func (p RemotePolicy) key() string {
	allow := append([]string(nil), p.Allow...)
	sort.Strings(allow)
	return fmt.Sprintf("%q %s %d %t", allow, p.Timeout, p.MaxBytes, p.Fork)
}

// allows reports whether p admits the host (config.Remote.Allows), nothing for a fork.
func (p RemotePolicy) allows(host string) bool {
	return !p.Fork && host != "" && (&config.Remote{Allow: p.Allow}).Allows(host)
}
