package e2e

import (
	"bytes"
	"net/http"
	"net/url"
	"testing"
)

// TestFormEncodedDelivery: a webhook configured with content type
// application/x-www-form-urlencoded sends the JSON as the form's payload field, signed over
// the form body. It is queued and reviewed as a JSON delivery is; a signed form without a
// JSON payload is answered 400 and runs nothing.
func TestFormEncodedDelivery(t *testing.T) {
	eachForge(t, []flavour{github, gitea, forgejo}, func(t *testing.T, e *env, exp expectation) {
		in := e.start(true)
		post := func(d delivery) (int, string) {
			req, err := http.NewRequest(http.MethodPost, in.http.URL+e.fl.endpoint, bytes.NewReader(d.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header = e.headers(d)
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			return in.do(req)
		}
		bad := e.prDelivery(e.repo.head, "")
		bad.body = []byte("payload=" + url.QueryEscape("{not json"))
		code, body := post(bad)
		expectStatus(t, "form without a JSON payload", code, body, http.StatusBadRequest, "not valid JSON")

		d := e.prDelivery(e.repo.head, "")
		d.body = []byte("payload=" + url.QueryEscape(string(d.body)))
		code, body = post(d)
		expectStatus(t, "form-encoded opened", code, body, http.StatusAccepted, `"queued"`)
		calls := e.waitCalls("final status", e.finalStatus(e.repo.head))
		e.assertCalls("form-encoded delivery", calls, e.reviewRun(e.repo.head, 0, exp))
	})
}
