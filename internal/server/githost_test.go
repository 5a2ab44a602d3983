package server

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/forge"
)

func TestGitHostOf(t *testing.T) {
	tests := map[string]string{
		"https://api.github.com/":         "github.com",
		"https://API.GitHub.com":          "github.com",
		"https://ghe.example/api/v3/":     "ghe.example",
		"https://ghe.example:8443/api/v3": "ghe.example:8443",
		"https://git.example:443/":        "git.example",
		"http://127.0.0.1:3000":           "127.0.0.1:3000",
	}
	for in, want := range tests {
		if got, err := GitHostOf(in); err != nil || got != want {
			t.Errorf("GitHostOf(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := GitHostOf("/no/host"); err == nil || err.Error() != `"/no/host" has no host` {
		t.Errorf("GitHostOf without host: %v", err)
	}
}

func TestCheckCloneURL(t *testing.T) {
	hosts := map[forge.Kind]string{forge.GitHub: "github.com", forge.Gitea: "127.0.0.1:3000"}
	tests := []struct {
		kind forge.Kind
		url  string
		want string // "" = allowed
	}{
		{forge.GitHub, "https://github.com/acme/fleet.git", ""},
		{forge.GitHub, "https://GitHub.COM:443/acme/fleet.git", ""},
		{forge.GitHub, "https://evil.example/acme/fleet.git", "clone URL host evil.example is not the forge's host github.com"},
		{forge.GitHub, "https://github.com:8443/acme/fleet.git", "clone URL host github.com:8443 is not the forge's host github.com"},
		{forge.GitHub, "https://user:pw@github.com.evil.example/a/b.git", "clone URL host github.com.evil.example is not the forge's host github.com"},
		{forge.GitHub, "ssh://github.com/a/b.git", "clone URL of the repository is not an http(s) URL"},
		{forge.Gitea, "http://127.0.0.1:4567/a/b.git", ""}, // loopback: the port is not compared
		{forge.Gitea, "http://localhost:4567/a/b.git", "clone URL host localhost:4567 is not the forge's host 127.0.0.1:3000"},
		{"other", "https://github.com/a/b.git", "no git host is configured for forge other"},
	}
	for _, tc := range tests {
		got := ""
		if err := checkCloneURL(hosts, tc.kind, tc.url); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("checkCloneURL(%s, %q) = %q, want %q", tc.kind, tc.url, got, tc.want)
		}
	}
	if err := checkCloneURL(nil, forge.GitHub, "https://anywhere.example/a/b.git"); err != nil {
		t.Errorf("nil hosts: %v", err)
	}
}

// TestCloneURLOfAnotherHost: a delivery whose clone URL names another host ends in status
// error and nothing is fetched.
func TestCloneURLOfAnotherHost(t *testing.T) {
	h := newHarness(t)
	h.start()
	payload := mustJSON(map[string]any{
		"action": "opened", "number": 7,
		"pull_request": map[string]any{"number": 7,
			"head": map[string]any{"sha": shaA, "repo": ghRepo}, "base": map[string]any{"sha": shaBase, "repo": ghRepo}},
		"repository": map[string]any{"id": 1, "name": "fleet", "owner": map[string]any{"login": "acme"},
			"clone_url": "https://attacker.example:8443/acme/fleet.git"},
	})
	if rec := h.github("pull_request", "d-1", payload, ghSecret); rec.Code != 202 {
		t.Fatalf("status %d", rec.Code)
	}
	calls := h.waitFor("final status", finalStatus(shaA))
	h.waitStoreEmpty()
	want := []call{
		{Method: "PullRequest"},
		{Method: "SetStatus", SHA: shaA, State: forge.StatePending, Text: pendingDescription},
		{Method: "SetStatus", SHA: shaA, State: forge.StateError,
			Text: "clone URL host attacker.example:8443 is not the forge's host github.example"},
	}
	if diff := cmp.Diff(want, calls); diff != "" {
		t.Fatalf("forge calls (-want +got):\n%s", diff)
	}
	if n := len(h.fetch.fetched()); n != 0 {
		t.Fatalf("%d fetches, want none", n)
	}
}
