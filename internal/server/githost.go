package server

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/tiergate/tiergate/internal/forge"
)

// GitHostOf is the host ("name" or "name:port") of the git server behind a forge API or base
// URL: the host of rawURL, with api.github.com mapped to github.com (GitHub Enterprise serves
// git on the host of its API). A default port (443 for https, 80 for http) is dropped.
func GitHostOf(rawURL string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", err
	}
	if u.Hostname() == "" {
		return "", fmt.Errorf("%q has no host", rawURL)
	}
	host := normalHost(u)
	if strings.EqualFold(host, "api.github.com") {
		host = "github.com"
	}
	return host, nil
}

// normalHost is u's host without a default port.
func normalHost(u *url.URL) string {
	port := u.Port()
	if (port == "443" && strings.EqualFold(u.Scheme, "https")) || (port == "80" && strings.EqualFold(u.Scheme, "http")) {
		return u.Hostname()
	}
	return u.Host
}

// checkCloneURL refuses a clone URL that does not point at the forge's own git host, so that
// the forge's credentials are sent nowhere else. With no hosts configured (nil) nothing is
// checked.
func checkCloneURL(hosts map[forge.Kind]string, kind forge.Kind, cloneURL string) error {
	if hosts == nil {
		return nil
	}
	want := hosts[kind]
	if want == "" {
		return fmt.Errorf("no git host is configured for forge %s", kind)
	}
	u, err := url.Parse(cloneURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Hostname() == "" {
		return fmt.Errorf("clone URL of the repository is not an http(s) URL")
	}
	if !sameHost(normalHost(u), want) {
		return fmt.Errorf("clone URL host %s is not the forge's host %s", u.Host, want)
	}
	return nil
}

// sameHost compares two "name[:port]" hosts: names case-insensitively, ports exactly unless
// both names are loopback.
func sameHost(a, b string) bool {
	an, ap := splitHost(a)
	bn, bp := splitHost(b)
	if !strings.EqualFold(an, bn) {
		return false
	}
	return ap == bp || (isLoopback(an) && isLoopback(bn))
}

func splitHost(h string) (name, port string) {
	u := url.URL{Host: h}
	return u.Hostname(), u.Port()
}

func isLoopback(name string) bool {
	if strings.EqualFold(name, "localhost") {
		return true
	}
	ip := net.ParseIP(name)
	return ip != nil && ip.IsLoopback()
}
