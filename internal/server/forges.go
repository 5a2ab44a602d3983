package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/tiergate/tiergate/internal/forge"
)

// ForgeConfig says which forges the server talks to and how: a GitHub token or App, and a
// Gitea/Forgejo base URL and token, each with its webhook secret.
type ForgeConfig struct {
	GitHubAPIURL        string
	GitHubToken         string
	GitHubAppID         int64
	GitHubAppKeyPEM     []byte
	GitHubWebhookSecret string
	GiteaURL            string
	GiteaToken          string
	GiteaWebhookSecret  string
	// HTTPTimeout bounds one forge request, retries included.
	HTTPTimeout time.Duration
	// Retry tunes the retries of forge requests (zero: the defaults of forge.RetryOptions);
	// its Observer is replaced by the metrics'.
	Retry forge.RetryOptions
}

// ConfiguredForges is the Forges of a ForgeConfig, with the git hosts clone credentials
// may go to (Options.GitHost).
type ConfiguredForges struct {
	github   *forge.GitHubClients
	gitea    forge.Client
	secrets  map[forge.Kind][]byte
	GitHosts map[forge.Kind]string
}

// NewForges builds the clients of the configured forges; forge requests are counted in m.
// Errors name the setting that is missing or wrong, in flag terms.
func NewForges(cfg ForgeConfig, m *Metrics) (*ConfiguredForges, error) {
	fs := &ConfiguredForges{secrets: map[forge.Kind][]byte{}, GitHosts: map[forge.Kind]string{}}
	httpClient := &http.Client{Timeout: cfg.HTTPTimeout}
	retry := cfg.Retry
	retry.Observer = m.ForgeRequest
	switch {
	case cfg.GitHubToken != "" || cfg.GitHubAppID != 0:
		if cfg.GitHubWebhookSecret == "" {
			return nil, errors.New("--github-webhook-secret is required with GitHub access")
		}
		gh, err := forge.NewGitHub(forge.GitHubOptions{APIURL: cfg.GitHubAPIURL, Token: cfg.GitHubToken, AppID: cfg.GitHubAppID,
			AppKeyPEM: cfg.GitHubAppKeyPEM, HTTPClient: httpClient, Retry: retry})
		if err != nil {
			return nil, err
		}
		host, err := GitHostOf(cfg.GitHubAPIURL)
		if err != nil {
			return nil, fmt.Errorf("--github-api-url: %w", err)
		}
		fs.github, fs.GitHosts[forge.GitHub], fs.secrets[forge.GitHub] = gh, host, []byte(cfg.GitHubWebhookSecret)
	case cfg.GitHubWebhookSecret != "" || len(cfg.GitHubAppKeyPEM) > 0:
		return nil, errors.New("GitHub needs --github-token or --github-app-id")
	}
	switch {
	case cfg.GiteaURL != "":
		if cfg.GiteaWebhookSecret == "" || cfg.GiteaToken == "" {
			return nil, errors.New("--gitea-token and --gitea-webhook-secret are required with --gitea-url")
		}
		gt, err := forge.NewGitea(cfg.GiteaURL, cfg.GiteaToken, httpClient, retry)
		if err != nil {
			return nil, err
		}
		host, err := GitHostOf(cfg.GiteaURL)
		if err != nil {
			return nil, fmt.Errorf("--gitea-url: %w", err)
		}
		fs.gitea, fs.GitHosts[forge.Gitea], fs.secrets[forge.Gitea] = gt, host, []byte(cfg.GiteaWebhookSecret)
	case cfg.GiteaToken != "" || cfg.GiteaWebhookSecret != "":
		return nil, errors.New("--gitea-token and --gitea-webhook-secret need --gitea-url")
	}
	if fs.github == nil && fs.gitea == nil {
		return nil, errors.New("configure GitHub (--github-token or --github-app-id) or Gitea (--gitea-url)")
	}
	return fs, nil
}

// Client returns the client for the delivery's forge (per installation for a GitHub App).
func (f *ConfiguredForges) Client(ev forge.Event) (forge.Client, error) {
	switch {
	case ev.Forge == forge.GitHub && f.github != nil:
		return f.github.For(ev.InstallationID)
	case ev.Forge == forge.Gitea && f.gitea != nil:
		return f.gitea, nil
	}
	return nil, fmt.Errorf("forge %q is not configured", ev.Forge)
}

// Secret is the webhook secret of kind; nil when the forge is not configured.
func (f *ConfiguredForges) Secret(kind forge.Kind) []byte { return f.secrets[kind] }

// Logins asks each configured forge which account the bot publishes as: known has each
// answer ("" when the forge refuses to tell), failed the forges that could not be asked (a
// 5xx after the retries, a timeout), to ask again.
func (f *ConfiguredForges) Logins(ctx context.Context) (known map[forge.Kind]string, failed []forge.Kind) {
	ids := map[forge.Kind]forge.Identifier{}
	if f.github != nil {
		ids[forge.GitHub] = f.github
	}
	if id, ok := f.gitea.(forge.Identifier); ok {
		ids[forge.Gitea] = id
	}
	known = map[forge.Kind]string{}
	for kind, id := range ids {
		login, err := id.Login(ctx)
		if err != nil {
			failed = append(failed, kind)
			continue
		}
		known[kind] = login
	}
	slices.Sort(failed)
	return known, failed
}
