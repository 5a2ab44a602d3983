package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tiergate/tiergate/internal/forge"
	"github.com/tiergate/tiergate/internal/gitrepo"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/helm/sandbox"
	"github.com/tiergate/tiergate/internal/review/rules"
	"github.com/tiergate/tiergate/internal/server"
)

type serveFlags struct {
	listen, dataDir                                string
	githubToken, githubAppKey, githubWebhookSecret string
	githubAppID                                    int64
	githubAPIURL                                   string
	giteaURL, giteaToken, giteaWebhookSecret       string
	failOn                                         string
	workers                                        int
	reviewTimeout                                  time.Duration
	forkPRs                                        bool
	buildCacheMiB, cacheMaxMiB                     int64
	allowRemote                                    []string
	botLogins                                      []string
	limits                                         graph.Limits
	helm                                           helmPoolFlags
}

// envPrefix starts the environment variable that stands in for a flag not given:
// --github-webhook-secret is TIERGATE_GITHUB_WEBHOOK_SECRET.
const envPrefix = "TIERGATE_"

const shutdownTimeout = 30 * time.Second

func serveCmd() *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Review pull requests on webhooks from GitHub and Gitea/Forgejo",
		Long: `Serve receives GitHub (POST /webhooks/github) and Gitea/Forgejo (POST /webhooks/gitea)
webhooks, queues the reviews they ask for in --data-dir and publishes each result as a
commit status, a summary comment and line comments. It serves /healthz, /readyz and /metrics.

Every flag not given on the command line is read from the environment variable
TIERGATE_<FLAG>, upper case with - as _ (e.g. TIERGATE_GITHUB_WEBHOOK_SECRET); prefer the
environment for secrets and tokens.`,
		Example: `  TIERGATE_GITHUB_WEBHOOK_SECRET=... bot serve --data-dir /var/lib/tiergate \
    --github-app-id 123 --github-app-key /etc/tiergate/app.pem`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := flagsFromEnv(cmd.Flags()); err != nil {
				return usageErr("%v", err)
			}
			return runServe(cmd.Context(), f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.listen, "listen", ":8080", "address to serve HTTP on")
	fl.StringVar(&f.dataDir, "data-dir", "", "directory for the queue and repository mirrors (required)")
	fl.StringVar(&f.githubToken, "github-token", "", "GitHub token (or use --github-app-id and --github-app-key)")
	fl.Int64Var(&f.githubAppID, "github-app-id", 0, "GitHub App id")
	fl.StringVar(&f.githubAppKey, "github-app-key", "", "GitHub App private key (PEM file)")
	fl.StringVar(&f.githubWebhookSecret, "github-webhook-secret", "", "GitHub webhook secret")
	fl.StringVar(&f.githubAPIURL, "github-api-url", "https://api.github.com/", "GitHub REST API URL (GitHub Enterprise: https://HOST/api/v3/)")
	fl.StringVar(&f.giteaURL, "gitea-url", "", "Gitea or Forgejo base URL")
	fl.StringVar(&f.giteaToken, "gitea-token", "", "Gitea or Forgejo token")
	fl.StringVar(&f.giteaWebhookSecret, "gitea-webhook-secret", "", "Gitea or Forgejo webhook secret")
	fl.StringVar(&f.failOn, "fail-on", "", "fail the status on a new finding at or above: error, warning, notice or never (default: the repository's failOn, else error)")
	fl.IntVar(&f.workers, "workers", 2, "reviews run at once")
	fl.DurationVar(&f.reviewTimeout, "review-timeout", 10*time.Minute, "time limit of one review, fetch to final status")
	f.helm.register(fl)
	fl.StringSliceVar(&f.allowRemote, "allow-remote", nil, "hosts whose remote resources reviews may fetch over https (never for fork PRs); a repository's remote.allow can only narrow it")
	limitFlags(fl, &f.limits)
	fl.Int64Var(&f.buildCacheMiB, "build-cache-mib", 256, "memory for Kustomization builds reused across reviews, in MiB")
	fl.Int64Var(&f.cacheMaxMiB, "cache-max-mib", 1024, "bound of the persistent cache in --data-dir/cache, in MiB (builds and chart renders outlive a restart; 0: none)")
	fl.StringSliceVar(&f.botLogins, "bot-login", nil, "the account the bot publishes as: github=LOGIN, gitea=LOGIN (Gitea and Forgejo), or a plain LOGIN for every forge without its own (repeatable, comma-separated): its comments never run a review. Default: asked of the forge (GET /user, or the App's slug); while neither tells it, no /recheck runs")
	fl.BoolVar(&f.forkPRs, "fork-prs", true, "review PRs from forks (false: answer them with a success status)")
	return cmd
}

// flagsFromEnv sets each flag not given on the command line from TIERGATE_<FLAG>.
func flagsFromEnv(fs *pflag.FlagSet) error {
	var errs []error
	fs.VisitAll(func(fl *pflag.Flag) {
		if fl.Changed || fl.Name == "help" {
			return
		}
		name := envName(fl.Name)
		if v, ok := os.LookupEnv(name); ok {
			if err := fs.Set(fl.Name, v); err != nil {
				// The value is not echoed: it may be a secret.
				errs = append(errs, fmt.Errorf("%s: not a valid --%s", name, fl.Name))
			}
		}
	})
	return errors.Join(errs...)
}

func envName(flag string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// newForges builds the clients of the forges the flags configure.
func newForges(f serveFlags, metrics *server.Metrics) (*server.ConfiguredForges, error) {
	cfg := server.ForgeConfig{
		GitHubAPIURL: f.githubAPIURL, GitHubToken: f.githubToken, GitHubAppID: f.githubAppID,
		GitHubWebhookSecret: f.githubWebhookSecret, GiteaURL: f.giteaURL, GiteaToken: f.giteaToken,
		GiteaWebhookSecret: f.giteaWebhookSecret, HTTPTimeout: f.reviewTimeout,
	}
	if f.githubAppKey != "" {
		pem, err := os.ReadFile(f.githubAppKey)
		if err != nil {
			return nil, usageErr("--github-app-key: %v", err)
		}
		cfg.GitHubAppKeyPEM = pem
	}
	fs, err := server.NewForges(cfg, metrics)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return fs, nil
}

// botLoginRe is a login as GitHub, Gitea and Forgejo allow them (letters, digits, '-',
// '_', '.'), with GitHub's "[bot]" suffix for an App.
var botLoginRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*(\[bot\])?$`)

// parseBotLogins reads --bot-login entries into server.Options.BotLogins: FORGE=LOGIN, with
// FORGE github or gitea (Gitea and Forgejo), names the account on that forge; a plain LOGIN
// names it on every forge without an entry of its own (one value cannot name two accounts
// that differ: with GitHub and Gitea both configured, give each its own entry). A usage
// error names the bad entry.
func parseBotLogins(entries []string) (map[forge.Kind]string, error) {
	out := map[forge.Kind]string{}
	plain := ""
	for _, e := range entries {
		kind, login, ok := strings.Cut(e, "=")
		if !ok {
			if !botLoginRe.MatchString(e) {
				return nil, usageErr("--bot-login: want LOGIN, github=LOGIN or gitea=LOGIN, got %q", e)
			}
			if plain != "" && plain != e {
				return nil, usageErr("--bot-login: two logins for every forge: %q and %q (name each forge's: github=LOGIN, gitea=LOGIN)", plain, e)
			}
			plain = e
			continue
		}
		k := forge.Kind(kind)
		if (k != forge.GitHub && k != forge.Gitea) || !botLoginRe.MatchString(login) {
			return nil, usageErr("--bot-login: want LOGIN, github=LOGIN or gitea=LOGIN, got %q", e)
		}
		if prev, dup := out[k]; dup && prev != login {
			return nil, usageErr("--bot-login: two logins for %s: %q and %q", k, prev, login)
		}
		out[k] = login
	}
	if plain != "" {
		for _, k := range []forge.Kind{forge.GitHub, forge.Gitea} {
			if out[k] == "" {
				out[k] = plain
			}
		}
	}
	return out, nil
}

func runServe(ctx context.Context, f serveFlags) error {
	helmOpts, err := f.helm.options()
	if err != nil {
		return err
	}
	if f.dataDir == "" {
		return usageErr("--data-dir is required")
	}
	if f.failOn != "" {
		if _, err := rules.ParseSeverity(f.failOn); err != nil {
			return usageErr("--fail-on: %v", err)
		}
	}
	if f.workers < 1 {
		return usageErr("--workers must be at least 1")
	}
	if err := checkAllowRemote(f.allowRemote); err != nil {
		return err
	}
	if f.reviewTimeout <= 0 {
		return usageErr("--review-timeout must be positive")
	}
	botLogins, err := parseBotLogins(f.botLogins)
	if err != nil {
		return err
	}
	metrics := server.NewMetrics()
	fs, err := newForges(f, metrics)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(f.dataDir, 0o700); err != nil {
		return &exitError{code: 2, err: fmt.Errorf("--data-dir: %w", err)}
	}
	mirrors, err := gitrepo.NewMirrors(filepath.Join(f.dataDir, "mirrors"))
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	gin.SetMode(gin.ReleaseMode)
	pool := sandbox.NewPool(helmOpts) // one for every review: workers are reused
	defer pool.Close()
	srv, err := server.New(server.Options{
		DataDir:         f.dataDir,
		Forges:          fs,
		Fetcher:         server.MirrorFetcher{Mirrors: mirrors},
		Workers:         f.workers,
		ReviewTimeout:   f.reviewTimeout,
		FailOn:          f.failOn,
		SkipForkPRs:     !f.forkPRs,
		BuildCacheBytes: f.buildCacheMiB << 20,
		CacheMaxBytes:   cacheMaxBytes(f.cacheMaxMiB),
		Version:         version,
		AllowRemote:     f.allowRemote,
		BotLogins:       botLogins,
		Limits:          f.limits,
		Helm:            pool,
		GitHost:         fs.GitHosts,
		Metrics:         metrics,
		Logger:          log,
	})
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return &exitError{code: 2, err: err}
	}

	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	ran := make(chan error, 1)
	go func() { ran <- srv.Run(ctx) }()
	log.Info("serving", "listen", ln.Addr().String(), "workers", f.workers,
		"github", fs.Secret(forge.GitHub) != nil, "gitea", fs.Secret(forge.Gitea) != nil)

	var serveErr, runErr error
	runDone := false
	select {
	case <-ctx.Done():
	case serveErr = <-served:
	case runErr = <-ran:
		runDone = true
	}
	stop() // stops the workers; the jobs of running reviews stay queued
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		log.Error("http shutdown", "err", err)
	}
	if !runDone {
		runErr = <-ran
	}
	if runErr != nil {
		return &exitError{code: 2, err: runErr}
	}
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return &exitError{code: 2, err: serveErr}
	}
	return nil
}

// cacheMaxBytes is server.Options.CacheMaxBytes for --cache-max-mib: 0 (or less) is no
// persistent cache.
func cacheMaxBytes(mib int64) int64 {
	if mib <= 0 {
		return -1
	}
	return mib << 20
}
