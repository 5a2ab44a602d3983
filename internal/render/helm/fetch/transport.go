package fetch

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/tiergate/tiergate/internal/config"
	"github.com/tiergate/tiergate/internal/netguard"
)

// limits are the byte caps of one fetch (HELM.md §4), enforced while reading.
type limits struct {
	index    int64 // index.yaml
	manifest int64 // OCI manifest and one page of the tag list
	blob     int64 // chart archive
}

var defaultLimits = limits{index: 64 << 20, manifest: 4 << 20, blob: 32 << 20}

const maxRedirects = 5

// httpClient is the only way out of the package: every request, redirect and token request
// (an OCI registry's auth realm) is checked against the Policy, and every connection against
// the address it dials.
type httpClient struct {
	policy Policy
	limits *limits
	client *http.Client
}

func newHTTPClient(p Policy, l *limits) *httpClient {
	c := &httpClient{policy: p, limits: l}
	d := &net.Dialer{Timeout: p.Timeout, Control: c.control}
	c.client = &http.Client{
		Transport: checked{c, &http.Transport{
			Proxy:               nil, // a proxy from the environment would dial for us, past the address check
			DialContext:         d.DialContext,
			TLSClientConfig:     &tls.Config{MinVersion: tls.VersionTLS12},
			TLSHandshakeTimeout: p.Timeout,
			ForceAttemptHTTP2:   true,
			MaxIdleConnsPerHost: 4,
			IdleConnTimeout:     30 * time.Second,
		}},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > maxRedirects {
				return fmt.Errorf("more than %d redirects", maxRedirects)
			}
			if err := c.checkRequest(req.URL); err != nil {
				if na, ok := err.(*NotAllowedError); ok {
					na.From = via[0].URL.Hostname()
				}
				return fmt.Errorf("redirect from %s to %s refused: %w", via[len(via)-1].URL.Host, req.URL.Host, err)
			}
			return nil
		},
	}
	return c
}

// checked refuses any request the Policy does not allow before it reaches the transport.
type checked struct {
	c    *httpClient
	next http.RoundTripper
}

func (t checked) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.c.checkRequest(req.URL); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	return t.next.RoundTrip(req)
}

func (c *httpClient) checkRequest(u *url.URL) error {
	if err := c.checkURL(u); err != nil {
		return err
	}
	return c.checkHost(u.Hostname())
}

// checkURL refuses every scheme but https (and http for Loopback tests).
func (c *httpClient) checkURL(u *url.URL) error {
	if u.Scheme == "https" || (c.policy.Loopback && u.Scheme == "http") {
		return nil
	}
	return fmt.Errorf("only https is fetched, not %s (%s)", u.Scheme, u.Redacted())
}

func (c *httpClient) checkHost(host string) error {
	if !(&config.Remote{Allow: c.policy.Allow}).Allows(strings.TrimSuffix(host, ".")) {
		return &NotAllowedError{Host: host}
	}
	return nil
}

// control runs for every address the dialer is about to connect to, after DNS, so neither
// a name resolving to an internal address nor a rebinding answer reaches one.
func (c *httpClient) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("refused to dial %s: not an IP address", address)
	}
	a := ap.Addr().Unmap()
	if c.policy.Loopback && a == netip.AddrFrom4([4]byte{127, 0, 0, 1}) {
		return nil
	}
	if class := netguard.Internal(a); class != "" {
		return fmt.Errorf("refused to dial %s: a %s address", address, class)
	}
	return nil
}

// get reads the body at rawURL, failing once it passes max bytes.
func (c *httpClient) get(ctx context.Context, rawURL string, max int64, what string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", userAgent)
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: HTTP %s", req.URL.Redacted(), resp.Status)
	}
	return readCapped(resp.Body, max, what)
}

// readCapped reads r, failing once it passes max bytes.
func readCapped(r io.Reader, max int64, what string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes", what, max)
	}
	return data, nil
}

const userAgent = "tiergate"
