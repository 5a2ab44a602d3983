package server

import (
	"context"
	"errors"
	"time"

	"github.com/tiergate/tiergate/internal/forge"
)

// LoginRetry times how the server learns the bot's login while a forge does not tell it
// (GET /user or GET /app failing); zero fields take the defaults.
type LoginRetry struct {
	// Backoff is the learner's first wait after a failed ask, doubled after each failure
	// up to MaxBackoff (defaults 2 s and 5 min).
	Backoff, MaxBackoff time.Duration
	// Recheck is how long a /recheck whose login is unknown waits before it is queued
	// again (default 15 s); GiveUp is how long after it was accepted such a /recheck is
	// given up (default 1 h).
	Recheck, GiveUp time.Duration
}

const (
	defaultLoginBackoff    = 2 * time.Second
	defaultLoginMaxBackoff = 5 * time.Minute
	defaultLoginRecheck    = 15 * time.Second
	defaultLoginGiveUp     = time.Hour
)

func (l LoginRetry) withDefaults() LoginRetry {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&l.Backoff, defaultLoginBackoff)
	def(&l.MaxBackoff, defaultLoginMaxBackoff)
	def(&l.Recheck, defaultLoginRecheck)
	def(&l.GiveUp, defaultLoginGiveUp)
	return l
}

// errLoginUnknown ends a /recheck run whose forge has not told the bot's login yet: the
// learner asks, the run does not.
var errLoginUnknown = errors.New("the bot's login is unknown (the forge has not answered GET /user yet; --bot-login names it)")

// learnLogins is the one learner of the bot's accounts: it asks every configured forge,
// keeps each answer, and asks the forges that failed again after a backoff that doubles up
// to LoginRetry.MaxBackoff, until all answered or ctx ends. s.learning is true meanwhile.
func (s *Server) learnLogins(ctx context.Context, lf loginsFinder) {
	defer s.learning.Store(false)
	wait := s.opts.LoginRetry.Backoff
	for first := true; ; first = false {
		ictx, cancel := context.WithTimeout(ctx, identityTimeout)
		known, failed := lf.Logins(ictx)
		cancel()
		for kind, login := range known {
			s.learnLogin(kind, login)
		}
		if first || len(failed) == 0 {
			s.log.Info("the bot's accounts", "logins", s.knownLogins())
		}
		if len(failed) == 0 {
			return
		}
		s.log.Warn("the bot's login is unknown; asking again", "forges", failed, "in", wait.String())
		if !s.sleep(ctx, wait) {
			return
		}
		wait = min(2*wait, s.opts.LoginRetry.MaxBackoff)
	}
}

// knownLogin is the bot's account on kind without asking a forge: Options.BotLogins, else
// as the learner learnt it. ok is false while it is not known ("" with ok: the forge
// refuses to tell).
func (s *Server) knownLogin(kind forge.Kind) (login string, ok bool) {
	if l := s.opts.BotLogins[kind]; l != "" {
		return l, true
	}
	l, ok := s.knownLogins()[kind]
	return l, ok
}

// sleep waits d, or until ctx ends; it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
