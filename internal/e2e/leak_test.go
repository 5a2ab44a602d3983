package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tiergate/tiergate/internal/leaktest"
)

// TestServeSecretLeaks reviews testdata/scenarios/secret-leaks through `bot serve` on each
// forge: no Secret-derived value (the scenario's leak-values.txt) stands in any line of the
// server's JSON log, nor in any request the server makes to the forge — statuses, the summary
// comment, line comments, check runs — nor in a comment the forge holds. The review still
// shows the object named from the Secret, as <redacted>-production.
func TestServeSecretLeaks(t *testing.T) {
	eachFlavour(t, []flavour{githubApp, gitea}, func(t *testing.T, fl flavour) {
		e := newEnv(t, fl, "secret-leaks")
		values := leaktest.Values(t, e.scenario)
		in := e.start(true)
		code, body := in.send(e.prDelivery(e.repo.head, ""))
		expectStatus(t, "opened", code, body, http.StatusAccepted, `"queued"`)
		calls := e.waitCalls("final status of head", e.finalStatus(e.repo.head))
		e.waitRuns(in, "success", 1)

		outputs := map[string]string{"server log": e.log.String()}
		for i, c := range calls {
			b, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			outputs[fmt.Sprintf("forge call %d (%s %s)", i, c.Method, c.Path)] = string(b)
		}
		for _, c := range e.fake.Comments(1) {
			outputs["comment by "+c.Author] = c.Body
		}
		for name, out := range outputs {
			for _, v := range values {
				if strings.Contains(out, v) {
					t.Errorf("%s shows the Secret-derived value %q", name, v)
				}
			}
		}
		if n := strings.Count(outputs["server log"], "\n"); n == 0 {
			t.Errorf("the server logged nothing: the sweep of its log cannot fail")
		}
		if s := e.summary().Body; !strings.Contains(s, "ConfigMap/default/&lt;redacted&gt;-production") && !strings.Contains(s, "ConfigMap/default/<redacted>-production") {
			t.Errorf("the summary does not name ConfigMap/default/<redacted>-production:\n%s", s)
		}
	})
}

// leakValues reads the scenario's leak-values.txt: one Secret-derived value a line, #
// comments (cmd/bot TestSecretLeaks reads the same list).
func leakValues(t *testing.T, dir string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "leak-values.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s/leak-values.txt lists no value", dir)
	}
	return out
}
