package forgetest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/tiergate/tiergate/internal/forge/forgetest"
)

// recorder keeps the fake's complaints instead of failing the test.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func do(t *testing.T, srv *forgetest.Server, method, path, auth, body string) int {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestFakesCheckRequests(t *testing.T) {
	gh, gt := "Bearer "+forgetest.Token, "token "+forgetest.Token
	many := strings.Repeat(`{"path":"a","start_line":1,"end_line":1,"annotation_level":"notice","message":"m"},`, 51)
	for _, tc := range []struct {
		name, fake, method, path, auth, body string
		status                               int
		complaint                            string // "" when the fake must not complain
	}{
		{"unknown path", "github", "GET", "/nope", gh, "", 400, "no path matching"},
		{"unknown method", "github", "DELETE", "/app", gh, "", 400, "no DELETE operation"},
		{"missing field", "github", "POST", "/repos/o/r/statuses/abc", gh, `{"context":"c"}`, 400, `required field "state"`},
		{"bad enum", "github", "POST", "/repos/o/r/statuses/abc", gh, `{"state":"bogus"}`, 400, "is not one of"},
		{"bad type", "github", "POST", "/repos/o/r/issues/1/comments", gh, `{"body":3}`, 400, "want string"},
		{"not an integer", "github", "GET", "/repos/o/r/pulls/abc", gh, "", 400, "is not an integer"},
		{"nested required", "github", "POST", "/repos/o/r/pulls/1/reviews", gh, `{"event":"COMMENT","comments":[{"body":"b"}]}`, 400, `required field "path"`},
		{"too many annotations", "github", "PATCH", "/repos/o/r/check-runs/1", gh,
			`{"output":{"title":"t","summary":"s","annotations":[` + strings.TrimSuffix(many, ",") + `]}}`, 400, "at most 50"},
		{"completed without conclusion", "github", "POST", "/repos/o/r/check-runs", gh, `{"name":"n","head_sha":"s","status":"completed"}`, 400, "oneOf"},
		{"not JSON", "github", "POST", "/repos/o/r/issues/1/comments", gh, `{`, 400, "not JSON"},
		{"no auth", "github", "POST", "/repos/o/r/statuses/abc", "", `{"state":"success"}`, 401, "Authorization"},
		{"not implemented", "github", "GET", "/repos/o/r", gh, "", 501, "does not implement"},
		{"valid", "github", "POST", "/repos/o/r/statuses/abc", gh, `{"state":"success"}`, 201, ""},
		{"gitea diff", "gitea", "GET", "/api/v1/repos/o/r/pulls/1.diff", gt, "", 200, ""},
		{"gitea no base path", "gitea", "GET", "/repos/o/r/pulls/1", gt, "", 400, "no path matching"},
		{"gitea required body", "gitea", "POST", "/api/v1/repos/o/r/issues/1/comments", gt, `{}`, 400, `required field "body"`},
		{"gitea null field", "forgejo", "POST", "/api/v1/repos/o/r/pulls/1/reviews", gt, `{"event":"COMMENT","body":"b","comments":null}`, 200, ""},
		{"forgejo bad state", "forgejo", "POST", "/api/v1/repos/o/r/statuses/abc", gt, `{"state":1}`, 400, "want string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			srv := map[string]func(testing.TB) *forgetest.Server{
				"github": forgetest.NewGitHub, "gitea": forgetest.NewGitea, "forgejo": forgetest.NewForgejo,
			}[tc.fake](rec)
			if got := do(t, srv, tc.method, tc.path, tc.auth, tc.body); got != tc.status {
				t.Errorf("status %d, want %d (complaints %q)", got, tc.status, rec.errs)
			}
			switch {
			case tc.complaint == "" && len(rec.errs) > 0:
				t.Errorf("unexpected complaints %q", rec.errs)
			case tc.complaint != "" && (len(rec.errs) != 1 || !strings.Contains(rec.errs[0], tc.complaint)):
				t.Errorf("complaints %q, want one about %q", rec.errs, tc.complaint)
			}
			if n := len(srv.Calls()); n != 1 {
				t.Errorf("%d calls recorded, want 1", n)
			}
		})
	}
}

func TestFailNext(t *testing.T) {
	srv := forgetest.NewGitea(t)
	srv.FailNext("/repos/o/r/pulls/1", 502, map[string]string{"Retry-After": "1"})
	srv.FailNext("/api/v1/repos/o/r/pulls/1", 500, nil)
	srv.SetPR(1, "h", "b", false)
	auth := "token " + forgetest.Token
	for _, want := range []int{502, 500, 200} {
		if got := do(t, srv, "GET", "/api/v1/repos/o/r/pulls/1", auth, ""); got != want {
			t.Errorf("status %d, want %d", got, want)
		}
	}
}
