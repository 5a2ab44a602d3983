package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/sourcegraph/conc/pool"

	"github.com/tiergate/tiergate/internal/cachestore"
	"github.com/tiergate/tiergate/internal/forge"
	"github.com/tiergate/tiergate/internal/gitrepo"
	"github.com/tiergate/tiergate/internal/render"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/review/format"
)

// Forges gives the server its forge clients and webhook secrets.
type Forges interface {
	// Client returns the client that publishes to ev's repository (for GitHub Apps: the
	// installation of ev).
	Client(ev forge.Event) (forge.Client, error)
	// Secret returns the webhook secret of kind; empty: the forge is not configured and its
	// endpoint answers 404.
	Secret(kind forge.Kind) []byte
}

// Fetcher brings a PR's commits into a local repository.
type Fetcher interface {
	// Fetch returns a repository holding ev's head and base, the merge base of the two (the
	// side a review compares against) and the head.
	Fetch(ctx context.Context, ev forge.Event, client forge.Client) (repo *gitrepo.Repo, base, head plumbing.Hash, err error)
}

// Options configures a Server. DataDir, Forges and Fetcher are required.
type Options struct {
	// DataDir holds the queue (queue.db) and pulled charts by digest (charts/); it must
	// exist and be writable.
	DataDir string
	Forges  Forges
	Fetcher Fetcher
	// Workers is the number of reviews run at once (0: 2).
	Workers int
	// ReviewTimeout bounds one run, fetch to final status (0: 10 minutes).
	ReviewTimeout time.Duration
	// FailOn overrides the repository configuration's failOn ("error" when both are empty).
	FailOn string
	// SkipForkPRs answers PRs from forks with a success status instead of reviewing them.
	SkipForkPRs bool
	// MaxBodyBytes caps a webhook body (0: 5 MiB); larger deliveries get 413.
	MaxBodyBytes int64
	// MaxBodiesInFlight caps the webhook bodies read at once (0: 16), so the memory that
	// deliveries hold before their signature is checked is at most this times MaxBodyBytes:
	// anyone can send a body. A delivery waits for a slot for at most BodyWait (0: 10 s,
	// GitHub's delivery timeout), then gets 503.
	MaxBodiesInFlight int
	BodyWait          time.Duration
	// LoginRetry times the learning of the bot's login while a forge does not tell it.
	LoginRetry LoginRetry
	// BotLogins names the bot's own account per forge: its comments never trigger a run
	// (accounts the forge marks as bots never do).
	BotLogins map[forge.Kind]string
	// GitHost names, per forge, the host ("name" or "name:port", see GitHostOf) a
	// repository's clone URL must point at: the forge's credentials are sent to no other host.
	// A run of a forge without an entry ends in status error; nil checks nothing.
	GitHost map[forge.Kind]string
	// BuildCacheBytes bounds the memory of the build cache shared by all reviews, which
	// reuses Kustomization builds whose inputs are unchanged (0: 256 MiB).
	BuildCacheBytes int64
	// CacheMaxBytes bounds the persistent cache in DataDir/cache (cachestore), under the
	// build cache: builds, objects after substitution and chart renders outlive a restart,
	// so the first reviews after one start warm (0: 1 GiB; < 0: no persistent cache).
	CacheMaxBytes int64
	// Version is tiergate's version; with the build's modules it names the persistent
	// cache's entries (cachestore.Version), so another build never reads them.
	Version string
	// AllowRemote lists the hosts reviews may fetch remote resources from (never for
	// fork PRs); a repository's remote.allow can only narrow it. Empty: none.
	AllowRemote []string
	// Limits bounds what one review reads and renders (zero fields: graph.DefaultLimits).
	Limits graph.Limits
	// Helm renders HelmRelease charts for every review (a sandbox Pool the caller owns);
	// nil: in process.
	Helm render.HelmRenderer
	// Metrics receives the server's metrics (nil: new ones).
	Metrics *Metrics
	// Logger receives JSON-able structured logs (nil: discarded).
	Logger *slog.Logger
}

const (
	defaultWorkers       = 2
	defaultReviewTimeout = 10 * time.Minute
	defaultMaxBody       = 5 << 20
	defaultMaxBodies     = 16
	defaultBodyWait      = 10 * time.Second
	defaultCacheMaxBytes = 1 << 30
)

// Server receives webhooks, queues reviews durably and runs them.
type Server struct {
	opts    Options
	log     *slog.Logger
	store   *store
	queue   *queue
	metrics *Metrics
	cache   *render.Cache
	disk    *cachestore.Store // the persistent layer of cache; nil: none
	handler http.Handler
	// bodies holds one token per webhook body being read (Options.MaxBodiesInFlight).
	bodies chan struct{}
	closed atomic.Bool
	now    func() time.Time
	// sleep is the learner's wait between asks (the package's sleep; tests record it).
	sleep func(ctx context.Context, d time.Duration) bool
	// storeRetry is how long a job waits to run again when neither its store nor its
	// forge works (storeRetryDelay; tests shorten it).
	storeRetry time.Duration
	// localDirs are hidden from error statuses (hideDirs).
	localDirs []localDir
	// logins are the bot's own accounts as the forges told them (fromBot, botLogin); a
	// forge that refused to tell has "".
	logins atomic.Pointer[map[forge.Kind]string]
	// learner: the logins are learnt in the background (learnLogins), never by a run;
	// learning is true while that learner still asks.
	learner  bool
	learning atomic.Bool
	// resumed is closed once Run has read the stored queue (tests wait on it before they
	// break the store under a running server).
	resumed    chan struct{}
	resumeOnce sync.Once
}

// loginsFinder is implemented by Forges that can tell the bot's accounts (ConfiguredForges).
type loginsFinder interface {
	Logins(ctx context.Context) (known map[forge.Kind]string, failed []forge.Kind)
}

// identityTimeout bounds asking the forges for the bot's accounts when Run starts (in the
// background; the workers do not wait for it).
const identityTimeout = 30 * time.Second

// New opens the queue in opts.DataDir. Call Run to work the queue and Close when Run has
// returned.
func New(opts Options) (*Server, error) {
	if opts.DataDir == "" || opts.Forges == nil || opts.Fetcher == nil {
		return nil, errors.New("server: DataDir, Forges and Fetcher are required")
	}
	if opts.Workers <= 0 {
		opts.Workers = defaultWorkers
	}
	if opts.ReviewTimeout <= 0 {
		opts.ReviewTimeout = defaultReviewTimeout
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = defaultMaxBody
	}
	if opts.MaxBodiesInFlight <= 0 {
		opts.MaxBodiesInFlight = defaultMaxBodies
	}
	if opts.BodyWait <= 0 {
		opts.BodyWait = defaultBodyWait
	}
	opts.LoginRetry = opts.LoginRetry.withDefaults()
	if opts.Metrics == nil {
		opts.Metrics = NewMetrics()
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	st, err := openStore(filepath.Join(opts.DataDir, "queue.db"))
	if err != nil {
		return nil, err
	}
	s := &Server{
		opts:       opts,
		log:        opts.Logger,
		store:      st,
		queue:      newQueue(opts.Metrics.depth),
		metrics:    opts.Metrics,
		cache:      render.NewCache(opts.BuildCacheBytes),
		now:        time.Now,
		sleep:      sleep,
		storeRetry: storeRetryDelay,
		bodies:     make(chan struct{}, opts.MaxBodiesInFlight),
		localDirs:  localDirs(opts.DataDir),
		resumed:    make(chan struct{}),
	}
	s.openDisk()
	s.metrics.watchCache(s.cache)
	s.handler = s.routes()
	return s, nil
}

// openDisk gives the build cache its persistent layer in DataDir/cache. A folder that
// cannot be opened is logged and the server goes on with the memory cache alone: the
// cache only saves time.
func (s *Server) openDisk() {
	max := s.opts.CacheMaxBytes
	if max < 0 {
		return
	}
	if max == 0 {
		max = defaultCacheMaxBytes
	}
	st, err := cachestore.Open(filepath.Join(s.opts.DataDir, "cache"), cachestore.Version(s.opts.Version), max)
	if err != nil {
		s.log.Warn("no persistent cache", "err", redact(err.Error()))
		return
	}
	s.disk = st
	s.cache.Persist(st)
}

// Handler serves the webhook, health and metrics endpoints.
func (s *Server) Handler() http.Handler { return s.handler }

// Run queues every stored job and works the queue with opts.Workers workers until ctx ends.
// Reviews still running then are cancelled without a final status; their jobs stay stored
// and run again after a restart.
func (s *Server) Run(ctx context.Context) error {
	keys, jobs, err := s.store.jobs()
	if err != nil {
		return err
	}
	if lf, ok := s.opts.Forges.(loginsFinder); ok {
		// In the background: a forge that is slow to answer must not hold the queue; a
		// /recheck whose login is unknown meanwhile waits without a worker (runner.recheck).
		s.learner = true
		s.learning.Store(true)
		go s.learnLogins(ctx, lf)
	}
	for i, k := range keys {
		s.queue.submit(k, jobs[i].Kind, jobs[i].HeadSHA, jobs[i].Seq)
	}
	if len(keys) > 0 {
		s.log.Info("resuming accepted jobs", "jobs", len(keys))
	}
	s.resumeOnce.Do(func() { close(s.resumed) })
	p := pool.New().WithMaxGoroutines(s.opts.Workers)
	for range s.opts.Workers {
		p.Go(func() {
			for {
				r, ok := s.queue.next(ctx)
				if !ok {
					return
				}
				s.process(ctx, r)
				s.queue.done(r)
			}
		})
	}
	p.Wait()
	return nil
}

// Close closes the queue; webhooks are answered 503 from then on.
func (s *Server) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	err := s.store.close()
	if s.disk != nil {
		// Writes the entries still queued and trims the folder to CacheMaxBytes.
		if derr := s.disk.Close(); err == nil {
			err = derr
		}
	}
	return err
}

type parseFunc func(h http.Header, body, secret []byte) (*forge.Event, error)

func (s *Server) routes() http.Handler {
	r := gin.New()
	r.Use(gin.CustomRecoveryWithWriter(io.Discard, func(c *gin.Context, err any) {
		s.log.Error("handler panic", "path", c.FullPath(), "panic", fmt.Sprint(err), "stack", string(debug.Stack()))
		c.AbortWithStatusJSON(http.StatusInternalServerError, gin.H{"error": "internal error"})
	}))
	_ = r.SetTrustedProxies(nil) // client addresses are never used
	r.POST("/webhooks/github", s.webhook(forge.GitHub, forge.ParseGitHub))
	r.POST("/webhooks/gitea", s.webhook(forge.Gitea, forge.ParseGitea))
	r.GET("/healthz", func(c *gin.Context) { c.JSON(http.StatusOK, gin.H{"status": "ok"}) })
	r.GET("/readyz", s.ready)
	r.GET("/metrics", gin.WrapH(s.metrics.handler()))
	return r
}

// acquireBody takes a slot to read a webhook body, waiting at most BodyWait; false when
// none came free or the request ended.
func (s *Server) acquireBody(ctx context.Context) bool {
	select {
	case s.bodies <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(s.opts.BodyWait)
	defer t.Stop()
	select {
	case s.bodies <- struct{}{}:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
}

// webhook verifies and parses a delivery before anything else, then queues what it asks for.
func (s *Server) webhook(kind forge.Kind, parse parseFunc) gin.HandlerFunc {
	return func(c *gin.Context) {
		secret := s.opts.Forges.Secret(kind)
		if len(secret) == 0 {
			c.JSON(http.StatusNotFound, gin.H{"error": string(kind) + " webhooks are not configured"})
			return
		}
		if !s.acquireBody(c.Request.Context()) {
			c.JSON(http.StatusServiceUnavailable, gin.H{"error": fmt.Sprintf("busy: %d webhook bodies are being read", s.opts.MaxBodiesInFlight)})
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, s.opts.MaxBodyBytes))
		if err != nil {
			<-s.bodies
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				c.JSON(http.StatusRequestEntityTooLarge, gin.H{"error": fmt.Sprintf("body exceeds %d bytes", s.opts.MaxBodyBytes)})
				return
			}
			c.JSON(http.StatusBadRequest, gin.H{"error": "read body"})
			return
		}
		ev, err := parse(c.Request.Header, body, secret)
		<-s.bodies // the body is parsed: release its slot
		if errors.Is(err, forge.ErrBadSignature) {
			s.log.Warn("webhook rejected: bad signature", "forge", kind)
			c.JSON(http.StatusUnauthorized, gin.H{"error": forge.ErrBadSignature.Error()})
			return
		}
		if err != nil {
			s.log.Warn("webhook rejected", "forge", kind, "err", err)
			c.JSON(http.StatusBadRequest, gin.H{"error": err.Error()})
			return
		}
		ev.Forge = kind
		switch ev.Type {
		case forge.EventPing:
			c.JSON(http.StatusOK, gin.H{"status": "pong"})
		case forge.EventReview:
			if ev.PR <= 0 || !plumbing.IsHash(ev.HeadSHA) {
				c.JSON(http.StatusBadRequest, gin.H{"error": "review event without PR number or head commit"})
				return
			}
			s.accept(c, *ev, kindReview, ev.HeadSHA)
		case forge.EventComment:
			if ev.PR > 0 && ev.Comment != nil && isRecheck(ev.Comment.Body) && !s.fromBot(kind, ev.Comment) {
				s.accept(c, *ev, kindRecheck, "")
				return
			}
			c.JSON(http.StatusAccepted, gin.H{"status": "ignored"})
		default:
			c.JSON(http.StatusAccepted, gin.H{"status": "ignored"})
		}
	}
}

// accept stores the job (committed before the 202) and schedules it.
func (s *Server) accept(c *gin.Context, ev forge.Event, kind jobKind, head string) {
	log := s.log.With("delivery", ev.DeliveryID, "forge", ev.Forge, "repo", ev.Repo.FullName(), "pr", ev.PR, "kind", kind)
	if head != "" {
		log = log.With("head", head)
	}
	if s.closed.Load() {
		c.JSON(http.StatusServiceUnavailable, gin.H{"error": "queue closed"})
		return
	}
	key := jobKey(ev)
	if kind == kindRecheck {
		key = recheckKey(ev)
	}
	delivery := ""
	if ev.DeliveryID != "" {
		delivery = string(ev.Forge) + "/" + ev.DeliveryID
	}
	j := &job{Event: ev, Kind: kind, HeadSHA: head, Enqueued: s.now().UTC()}
	res, err := s.store.accept(delivery, key, j, s.now())
	if err != nil {
		log.Error("queue write failed", "err", err)
		c.JSON(http.StatusServiceUnavailable, gin.H{"error": "queue unavailable"})
		return
	}
	switch res {
	case duplicate:
		log.Info("duplicate delivery dropped")
		c.JSON(http.StatusOK, gin.H{"status": "duplicate"})
		return
	case known:
		// Its job is queued or running already: a second run would publish the same.
		log.Info("a review of this head is already queued")
		c.JSON(http.StatusAccepted, gin.H{"status": "queued", "job": key})
		return
	case reviewed:
		// A late redelivery: the head has its review's final status; a /recheck reviews again.
		log.Info("this head's review is published already: nothing runs")
		c.JSON(http.StatusOK, gin.H{"status": "reviewed"})
		return
	}
	s.queue.submit(key, j.Kind, j.HeadSHA, j.Seq)
	log.Info("job accepted")
	c.JSON(http.StatusAccepted, gin.H{"status": "queued", "job": key})
}

// isRecheck reports whether a comment has a line that is exactly /recheck.
func isRecheck(body string) bool {
	for line := range strings.Lines(body) {
		if strings.TrimSpace(line) == "/recheck" {
			return true
		}
	}
	return false
}

// fromBot reports whether c was written by a bot, by this bot's account (Options.BotLogins,
// else as the forge told) or is the summary. A comment by the bot's account whose login is
// not known yet passes: runner.recheck refuses to run it.
func (s *Server) fromBot(kind forge.Kind, c *forge.Comment) bool {
	self := s.opts.BotLogins[kind]
	if self == "" {
		self = s.knownLogins()[kind]
	}
	return c.AuthorIsBot || (self != "" && strings.EqualFold(c.Author, self)) ||
		strings.HasPrefix(strings.TrimSpace(c.Body), format.Marker)
}

// knownLogins are the bot's accounts the forges told so far (never nil).
func (s *Server) knownLogins() map[forge.Kind]string {
	if l := s.logins.Load(); l != nil {
		return *l
	}
	return map[forge.Kind]string{}
}

// learnLogin records login as the bot's account on kind.
func (s *Server) learnLogin(kind forge.Kind, login string) {
	for {
		old := s.logins.Load()
		next := map[forge.Kind]string{}
		if old != nil {
			maps.Copy(next, *old)
		}
		next[kind] = login
		if s.logins.CompareAndSwap(old, &next) {
			return
		}
	}
}

// botLogin is the bot's account on kind: Options.BotLogins, else learnt from the forge
// (asked through client now when not known yet). "" when the forge refuses to tell; an
// error when it could not be asked (it is asked again next time).
func (s *Server) botLogin(ctx context.Context, kind forge.Kind, client forge.Client) (string, error) {
	if l := s.opts.BotLogins[kind]; l != "" {
		return l, nil
	}
	if l, ok := s.knownLogins()[kind]; ok {
		return l, nil
	}
	id, ok := client.(forge.Identifier)
	if !ok {
		return "", nil
	}
	login, err := id.Login(ctx)
	if err != nil {
		return "", err
	}
	s.learnLogin(kind, login)
	return login, nil
}

// ready answers 200 when the queue is open and the data directory takes a write (a byte,
// synced).
func (s *Server) ready(c *gin.Context) {
	if s.closed.Load() {
		c.JSON(http.StatusServiceUnavailable, gin.H{"error": "queue closed"})
		return
	}
	// An empty file takes no block: a full disk still creates one, so a byte is written.
	f, err := os.CreateTemp(s.opts.DataDir, ".readyz-*")
	if err == nil {
		_, err = f.Write([]byte{'\n'})
		if err == nil {
			err = f.Sync()
		}
		if cErr := f.Close(); err == nil {
			err = cErr
		}
		if rmErr := os.Remove(f.Name()); err == nil {
			err = rmErr
		}
	}
	if err != nil {
		s.log.Warn("not ready: data dir not writable", "err", err)
		c.JSON(http.StatusServiceUnavailable, gin.H{"error": "data dir not writable"})
		return
	}
	c.JSON(http.StatusOK, gin.H{"status": "ready"})
}
