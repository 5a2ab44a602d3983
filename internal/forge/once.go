package forge

import (
	"context"
	"errors"
	"fmt"
	"regexp"
)

// maxUnanswered bounds the attempts of a write that is not safe to repeat (writeOnce) when
// none gets an answer and what it would have made is not found.
const maxUnanswered = 3

// noBlindRetry marks the context of a request that creates something (a comment, a
// review): retryTransport does not repeat it when it gets no answer.
type noBlindRetry struct{}

// withoutBlindRetry is ctx for a request that retryTransport must not repeat after a
// transport error or an attempt timeout: the forge may have carried it out.
func withoutBlindRetry(ctx context.Context) context.Context {
	return context.WithValue(ctx, noBlindRetry{}, true)
}

func blindRetryAllowed(ctx context.Context) bool { return ctx.Value(noBlindRetry{}) == nil }

// UnansweredError is a write that got no answer (a reset connection, an attempt timeout):
// the forge may have carried it out. retryTransport returns it, instead of repeating the
// request, for requests marked withoutBlindRetry.
type UnansweredError struct{ Err error }

func (e *UnansweredError) Error() string {
	return "no answer (the forge may have carried the request out): " + e.Err.Error()
}

func (e *UnansweredError) Unwrap() error { return e.Err }

// writeOnce runs post, a request that creates something, without blind retries: when it
// gets no answer (UnansweredError), find looks for what it would have created and post
// runs again only if that is not there, at most maxUnanswered times. Before, the
// transport repeated such a request after a reset that came once the forge had applied
// it, or after an attempt timeout: two summary comments, two line-comment reviews.
func writeOnce(ctx context.Context, post func(context.Context) error, find func(context.Context) (bool, error)) error {
	for attempt := 1; ; attempt++ {
		err := post(withoutBlindRetry(ctx))
		var un *UnansweredError
		if err == nil || !errors.As(err, &un) || ctx.Err() != nil || attempt == maxUnanswered {
			return err
		}
		found, ferr := find(ctx)
		if ferr != nil {
			return fmt.Errorf("%w; looking for what it created: %v", err, ferr)
		}
		if found {
			return nil
		}
	}
}

// replyMarkerRE finds a ReplyMarker in a reply's body.
var replyMarkerRE = regexp.MustCompile(`<!-- tiergate reply to comment -?[0-9]+ -->`)

// replyOnce posts a reply: through writeOnce, found by its ReplyMarker, when body holds one
// (the bot's answers to a /recheck do); else with blind retries, as any request.
func replyOnce(ctx context.Context, body string, post func(context.Context) error, find func(ctx context.Context, marker string) (bool, error)) error {
	marker := replyMarkerRE.FindString(body)
	if marker == "" {
		return post(ctx)
	}
	return writeOnce(ctx, post, func(ctx context.Context) (bool, error) { return find(ctx, marker) })
}

// hasBody reports whether one of found reads body: a summary created although its answer
// was lost.
func hasBody(found []summaryComment, body string) bool {
	for _, c := range found {
		if c.body == body {
			return true
		}
	}
	return false
}
