package e2e

import (
	"bytes"
	"net/http"
	"net/url"
	"testing"

	"github.com/tiergate/tiergate/internal/forge"
)

// TestFormEncodedDelivery: a webhook configured with content type
// application/x-www-form-urlencoded sends the JSON as the form's payload field. GitHub signs
// the form body (go-github messages.go ValidatePayloadFromBody checks the raw body); Gitea and
// Forgejo sign the JSON payload itself (services/webhook/deliver.go: addDefaultHeaders gets
// the PayloadContent, not the form). Each is queued and reviewed as a JSON delivery is; a
// signed form without a JSON payload is answered 400 and runs nothing.
func TestFormEncodedDelivery(t *testing.T) {
	eachForge(t, []flavour{github, gitea, forgejo}, func(t *testing.T, e *env, exp expectation) {
		in := e.start(true)
		// post sends d's JSON as a form, signed as the forge signs it.
		post := func(d delivery) (int, string) {
			form := []byte("payload=" + url.QueryEscape(string(d.body)))
			signed := d
			if e.fl.kind == forge.GitHub {
				signed.body = form
			}
			req, err := http.NewRequest(http.MethodPost, in.http.URL+e.fl.endpoint, bytes.NewReader(form))
			if err != nil {
				t.Fatal(err)
			}
			req.Header = e.headers(signed)
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			return in.do(req)
		}
		bad := e.prDelivery(e.repo.head, "")
		bad.body = []byte("{not json")
		code, body := post(bad)
		expectStatus(t, "form without a JSON payload", code, body, http.StatusBadRequest, "not valid JSON")

		code, body = post(e.prDelivery(e.repo.head, ""))
		expectStatus(t, "form-encoded opened", code, body, http.StatusAccepted, `"queued"`)
		calls := e.waitCalls("final status", e.finalStatus(e.repo.head))
		e.assertCalls("form-encoded delivery", calls, e.reviewRun(e.repo.head, 0, exp))
	})
}
