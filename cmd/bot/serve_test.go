package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/forge"
	"github.com/tiergate/tiergate/internal/server"
)

func TestServeFlagsFromEnv(t *testing.T) {
	t.Setenv("TIERGATE_GITHUB_WEBHOOK_SECRET", "from-env")
	t.Setenv("TIERGATE_WORKERS", "3")
	t.Setenv("TIERGATE_FORK_PRS", "false")
	t.Setenv("TIERGATE_REVIEW_TIMEOUT", "5m")
	cmd := serveCmd()
	if err := cmd.Flags().Parse([]string{"--workers", "5"}); err != nil {
		t.Fatal(err)
	}
	if err := flagsFromEnv(cmd.Flags()); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, name := range []string{"github-webhook-secret", "workers", "fork-prs", "review-timeout", "listen"} {
		got[name] = cmd.Flags().Lookup(name).Value.String()
	}
	want := map[string]string{
		"github-webhook-secret": "from-env",
		"workers":               "5", // the command line wins
		"fork-prs":              "false",
		"review-timeout":        "5m0s",
		"listen":                ":8080",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("flags (-want +got):\n%s", diff)
	}
}

func TestServeFlagsFromEnvInvalid(t *testing.T) {
	t.Setenv("TIERGATE_WORKERS", "many-secret-value")
	cmd := serveCmd()
	err := flagsFromEnv(cmd.Flags())
	if err == nil || err.Error() != "TIERGATE_WORKERS: not a valid --workers" {
		t.Fatalf("error %v", err)
	}
}

func TestServeHelpNamesEnv(t *testing.T) {
	out, _, err := run(t, "serve", "--help")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "TIERGATE_GITHUB_WEBHOOK_SECRET") {
		t.Fatalf("help does not explain the environment:\n%s", out)
	}
}

func TestServeUsageErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		args []string
		err  string
	}{
		{"no data dir", []string{"serve", "--gitea-url", "https://git.example"}, "--data-dir is required"},
		{"no forge", []string{"serve", "--data-dir", dir}, "configure GitHub (--github-token or --github-app-id) or Gitea (--gitea-url)"},
		{"github without secret", []string{"serve", "--data-dir", dir, "--github-token", "t"}, "--github-webhook-secret is required with GitHub access"},
		{"gitea without token", []string{"serve", "--data-dir", dir, "--gitea-url", "https://git.example", "--gitea-webhook-secret", "s"}, "--gitea-token and --gitea-webhook-secret are required with --gitea-url"},
		{"bad fail-on", []string{"serve", "--data-dir", dir, "--fail-on", "sometimes"}, `--fail-on: unknown severity "sometimes" (want error, warning, notice or never)`},
		{"no workers", []string{"serve", "--data-dir", dir, "--workers", "0"}, "--workers must be at least 1"},
		{"allow-remote with a port", []string{"serve", "--data-dir", dir, "--allow-remote", "git.example.com:8443"}, `--allow-remote: want a lower-case host name such as github.com or *.example.com (fetched over https only), got "git.example.com:8443"`},
		{"plain bot-login with a space", []string{"serve", "--data-dir", dir, "--bot-login", "tg bot"}, `--bot-login: want LOGIN, github=LOGIN or gitea=LOGIN, got "tg bot"`},
		{"two plain bot-logins", []string{"serve", "--data-dir", dir, "--bot-login", "a,b"}, `--bot-login: two logins for every forge: "a" and "b" (name each forge's: github=LOGIN, gitea=LOGIN)`},
		{"bot-login of an unknown forge", []string{"serve", "--data-dir", dir, "--bot-login", "gitlab=tg"}, `--bot-login: want LOGIN, github=LOGIN or gitea=LOGIN, got "gitlab=tg"`},
		{"bot-login with a space", []string{"serve", "--data-dir", dir, "--bot-login", "github=tg bot"}, `--bot-login: want LOGIN, github=LOGIN or gitea=LOGIN, got "github=tg bot"`},
		{"two bot-logins for one forge", []string{"serve", "--data-dir", dir, "--bot-login", "github=a,github=b"}, `--bot-login: two logins for github: "a" and "b"`},
		{"missing app key", []string{"serve", "--data-dir", dir, "--github-app-id", "1", "--github-app-key", filepath.Join(dir, "nope.pem"), "--github-webhook-secret", "s"},
			"--github-app-key: open " + filepath.Join(dir, "nope.pem") + ": no such file or directory"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, code, err := run(t, tc.args...)
			if code != 2 || err == nil || err.Error() != tc.err {
				t.Fatalf("exit %d, error %v; want 2, %q", code, err, tc.err)
			}
		})
	}
}

// TestServeStartsAndStops serves with a Gitea configured from the environment, checks the
// health endpoints and shuts down when the context ends.
func TestServeStartsAndStops(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	dir := filepath.Join(t.TempDir(), "data")
	t.Setenv("TIERGATE_GITEA_URL", "https://git.example")
	t.Setenv("TIERGATE_GITEA_TOKEN", "token")
	t.Setenv("TIERGATE_GITEA_WEBHOOK_SECRET", "secret")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	root := newRoot()
	root.SetOut(&bytes.Buffer{})
	root.SetErr(&bytes.Buffer{})
	root.SetArgs([]string{"serve", "--listen", addr, "--data-dir", dir})
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()

	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("readyz %d", resp.StatusCode)
			}
			break
		}
		select {
		case err := <-done:
			t.Fatalf("serve ended: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not come up: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	resp, err := http.Post("http://"+addr+"/webhooks/github", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("unconfigured GitHub endpoint: %d, want 404", resp.StatusCode)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "queue.db")); err != nil {
		t.Fatal(err)
	}
}

// TestServeForgeGitHosts: clone credentials go only to the forge's own git host.
func TestServeForgeGitHosts(t *testing.T) {
	for _, tc := range []struct {
		api, gitea string
		want       map[forge.Kind]string
	}{
		{"https://api.github.com/", "https://Git.Example:3000/", map[forge.Kind]string{forge.GitHub: "github.com", forge.Gitea: "Git.Example:3000"}},
		{"https://ghe.example/api/v3/", "", map[forge.Kind]string{forge.GitHub: "ghe.example"}},
	} {
		f := serveFlags{githubToken: "t", githubWebhookSecret: "s", githubAPIURL: tc.api,
			giteaURL: tc.gitea, giteaToken: "t", giteaWebhookSecret: "s", reviewTimeout: time.Minute}
		if tc.gitea == "" {
			f.giteaToken, f.giteaWebhookSecret = "", ""
		}
		fs, err := newForges(f, server.NewMetrics())
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, fs.GitHosts); diff != "" {
			t.Errorf("git hosts (-want +got):\n%s", diff)
		}
	}
}

func TestParseBotLogins(t *testing.T) {
	got, err := parseBotLogins([]string{"github=tiergate-app[bot]", "gitea=tier.gate_bot", "github=tiergate-app[bot]"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[forge.Kind]string{forge.GitHub: "tiergate-app[bot]", forge.Gitea: "tier.gate_bot"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("logins (-want +got):\n%s", d)
	}
	for _, bad := range []string{"github=", "=x", "github=-x", "github=x[bot", "gitea=x,y", "-x", "x y"} {
		if _, err := parseBotLogins([]string{bad}); err == nil {
			t.Errorf("parseBotLogins(%q) accepted", bad)
		}
	}
	// The plain form names every forge without an entry of its own, in any order.
	for _, entries := range [][]string{{"tiergate-bot"}, {"tiergate-bot", "tiergate-bot"}} {
		got, err := parseBotLogins(entries)
		if err != nil {
			t.Fatal(err)
		}
		want := map[forge.Kind]string{forge.GitHub: "tiergate-bot", forge.Gitea: "tiergate-bot"}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%q (-want +got):\n%s", entries, d)
		}
	}
	for _, entries := range [][]string{{"tg", "github=tiergate-app[bot]"}, {"github=tiergate-app[bot]", "tg"}} {
		got, err := parseBotLogins(entries)
		if err != nil {
			t.Fatal(err)
		}
		want := map[forge.Kind]string{forge.GitHub: "tiergate-app[bot]", forge.Gitea: "tg"}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%q (-want +got):\n%s", entries, d)
		}
	}
}

// --cache-max-mib N bounds the server's persistent cache to N MiB; 0 or less turns it off
// (server.Options.CacheMaxBytes < 0; its 0 would mean the default).
func TestServeCacheMaxBytes(t *testing.T) {
	for mib, want := range map[int64]int64{1024: 1 << 30, 1: 1 << 20, 0: -1, -5: -1} {
		if got := cacheMaxBytes(mib); got != want {
			t.Errorf("--cache-max-mib %d: %d bytes, want %d", mib, got, want)
		}
	}
}
