package forge_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/forge"
	"github.com/tiergate/tiergate/internal/forge/forgetest"
)

var secret = []byte("test-secret")

func sign(body, key []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// deliveryHeaders are the headers each forge sends (Forgejo sends Gitea's as well).
func deliveryHeaders(forgeDir, event, eventType, id string, body []byte) http.Header {
	h := http.Header{"Content-Type": {"application/json"}}
	sig := sign(body, secret)
	switch forgeDir {
	case "github":
		h.Set("X-GitHub-Event", event)
		h.Set("X-GitHub-Delivery", id)
		h.Set("X-Hub-Signature-256", "sha256="+sig)
		return h
	case "forgejo":
		h.Set("X-Forgejo-Event", event)
		h.Set("X-Forgejo-Event-Type", eventType)
		h.Set("X-Forgejo-Delivery", id)
		h.Set("X-Forgejo-Signature", sig)
	}
	h.Set("X-Gitea-Event", event)
	h.Set("X-Gitea-Event-Type", eventType)
	h.Set("X-Gitea-Delivery", id)
	h.Set("X-Gitea-Signature", sig)
	return h
}

func parse(forgeDir string, h http.Header, body []byte) (*forge.Event, error) {
	if forgeDir == "github" {
		return forge.ParseGitHub(h, body, secret)
	}
	return forge.ParseGitea(h, body, secret)
}

var (
	ghHello   = forge.Repo{Owner: "Codertocat", Name: "Hello-World", CloneURL: "https://github.com/Codertocat/Hello-World.git"}
	gtMyRepo  = forge.Repo{Owner: "jcitizen", Name: "my-repo", CloneURL: "https://try.gitea.io/jcitizen/my-repo.git"}
	gtHello   = forge.Repo{Owner: "gogits", Name: "hello-world", CloneURL: "http://try.gitea.io/gogits/hello-world.git"}
	gtExample = forge.Repo{Owner: "example", Name: "example", CloneURL: "http://localhost:3000/example/example.git"}
	cbTestCI  = forge.Repo{Owner: "test_it", Name: "test_ci_thing", CloneURL: "https://codeberg.org/test_it/test_ci_thing.git"}
	multiLine = forge.Repo{Owner: "Test-CI", Name: "multi-line-secrets", CloneURL: "http://127.0.0.1:3000/Test-CI/multi-line-secrets.git"}
)

const (
	ghHead   = "ec26c3e57ca3a959ca5aad62de7213c562f8c821"
	ghBase   = "f95f852bd8fca8fcc58a9a2d6c842781e32a215e"
	scmHead  = "2eba238e33607c1fa49253182e9fff42baafa1eb"
	scmBase  = "39af58f1eff02aa308e16913e887c8d50362b474"
	wpHead   = "0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c"
	wpBase   = "9353195a19e45482665306e466c832c46560532d"
	anHead   = "d555a5dd07f4d0148a58d4686ec381502ae6a2d4"
	anBase   = "068aee163ffd44eef28a7f9ebd43e2c01774f0fa"
	cbHead   = "36b5813240a9d2daa29b05046d56a53e18f39a3e"
	cbBase   = "67012991d6c69b1c58378346fca366b864d8d1a1"
	syncHead = "788ed8d02d3b7fcfcf6386dbcbca696aa1d4dc25"
	syncBase = "29be01c073851cf0db0c6a466e396b725a670453"
)

const allContributorsBody = "@all-contributors please add jakebolam for code, doc and infra\n" +
	"🤖 Beep boop! This comment was added automatically by [all-contributors-auto-action](https://github.com/marketplace/actions/all-contributors-auto-action).\n" +
	"Not all contributions can be detected from Git & GitHub alone. Please comment any missing contribution types this bot missed.\n" +
	"...and of course, thank you for contributing! 💙"

// webhookFixtures covers every payload file in shared/forge-fixtures; DeliveryID is set
// by the test to "d-" + the file name.
var webhookFixtures = []struct {
	file, event, eventType string
	want                   forge.Event
}{
	{"github/webhooks/issue_comment.created.issue.json", "issue_comment", "",
		forge.Event{Forge: forge.GitHub, Type: forge.EventIgnored, Repo: ghHello}},
	{"github/webhooks/issue_comment.created.pull_request.json", "issue_comment", "",
		forge.Event{Forge: forge.GitHub, Type: forge.EventComment, PR: 1, InstallationID: 11111,
			Repo:    forge.Repo{Owner: "all-contributors", Name: "all-contributors-bot", CloneURL: "https://github.com/all-contributors/all-contributors-bot.git"},
			Comment: &forge.Comment{ID: 453012966, Body: allContributorsBody, Author: "jakebolam"}}},
	{"github/webhooks/pull_request.closed.json", "pull_request", "",
		forge.Event{Forge: forge.GitHub, Type: forge.EventIgnored, Repo: ghHello, PR: 2, HeadSHA: ghHead, BaseSHA: ghBase, InstallationID: 1}},
	{"github/webhooks/pull_request.edited.json", "pull_request", "",
		forge.Event{Forge: forge.GitHub, Type: forge.EventIgnored, PR: 88, Fork: true, InstallationID: 68282,
			Repo:    forge.Repo{Owner: "sotayamashita", Name: "test_project", CloneURL: "https://github.com/sotayamashita/test_project.git"},
			HeadSHA: "bfb50affc45a5d2a95e296f0980ac6f8a3ea698d", BaseSHA: "8b929335dd4d24ab33386118d932d3b956bd2c94"}},
	{"github/webhooks/pull_request.opened.json", "pull_request", "",
		forge.Event{Forge: forge.GitHub, Type: forge.EventReview, Repo: ghHello, PR: 2, HeadSHA: ghHead, BaseSHA: ghBase, InstallationID: 1}},
	{"github/webhooks/pull_request.reopened.json", "pull_request", "",
		forge.Event{Forge: forge.GitHub, Type: forge.EventReview, Repo: ghHello, PR: 2, HeadSHA: ghHead, BaseSHA: ghBase, InstallationID: 1}},
	{"github/webhooks/pull_request.synchronize.json", "pull_request", "",
		forge.Event{Forge: forge.GitHub, Type: forge.EventReview, Repo: ghHello, PR: 2, HeadSHA: ghHead, BaseSHA: ghBase, InstallationID: 1}},

	{"gitea/webhooks/drone-go-scm.issue_comment_created.json", "issue_comment", "issue_comment",
		forge.Event{Forge: forge.Gitea, Type: forge.EventIgnored, Repo: gtHello}},
	{"gitea/webhooks/drone-go-scm.pull_request_closed.json", "pull_request", "pull_request",
		forge.Event{Forge: forge.Gitea, Type: forge.EventIgnored, Repo: gtMyRepo, PR: 1, HeadSHA: scmHead, BaseSHA: scmBase}},
	{"gitea/webhooks/drone-go-scm.pull_request_comment_created.json", "issue_comment", "pull_request_comment",
		forge.Event{Forge: forge.Gitea, Type: forge.EventComment, Repo: gtHello, PR: 2,
			Comment: &forge.Comment{ID: 45, Body: "run gofmt", Author: "unknwon"}}},
	{"gitea/webhooks/drone-go-scm.pull_request_edited.json", "pull_request", "pull_request",
		forge.Event{Forge: forge.Gitea, Type: forge.EventIgnored, Repo: gtMyRepo, PR: 1, HeadSHA: scmHead, BaseSHA: scmBase}},
	{"gitea/webhooks/drone-go-scm.pull_request_opened.json", "pull_request", "pull_request",
		forge.Event{Forge: forge.Gitea, Type: forge.EventReview, Repo: gtMyRepo, PR: 1, HeadSHA: scmHead, BaseSHA: scmBase}},
	{"gitea/webhooks/drone-go-scm.pull_request_reopened.json", "pull_request", "pull_request",
		forge.Event{Forge: forge.Gitea, Type: forge.EventReview, Repo: gtMyRepo, PR: 1, HeadSHA: scmHead, BaseSHA: scmBase}},
	{"gitea/webhooks/drone-go-scm.pull_request_synchronized.json", "pull_request", "pull_request_sync",
		forge.Event{Forge: forge.Gitea, Type: forge.EventReview, Repo: gtMyRepo, PR: 1, HeadSHA: scmHead, BaseSHA: scmBase}},
	{"gitea/webhooks/go-playground.issue-comment-event.json", "issue_comment", "issue_comment",
		forge.Event{Forge: forge.Gitea, Type: forge.EventIgnored, Repo: gtExample}},
	{"gitea/webhooks/go-playground.pull-request-comment-event.json", "issue_comment", "pull_request_comment",
		forge.Event{Forge: forge.Gitea, Type: forge.EventComment, Repo: gtExample, PR: 2,
			Comment: &forge.Comment{ID: 6, Body: "example", Author: "example"}}},
	{"gitea/webhooks/go-playground.pull-request-event.json", "pull_request", "pull_request",
		forge.Event{Forge: forge.Gitea, Type: forge.EventReview, Repo: gtExample, PR: 2, Fork: true,
			HeadSHA: "48e773f892a831faa47c0a160d1b7f0cd369ae2a", BaseSHA: "67b56589a45103f891bdee7c0546e5d40bc02001"}},
	{"gitea/webhooks/woodpecker.HookPullRequest.json", "pull_request", "pull_request",
		forge.Event{Forge: forge.Gitea, Type: forge.EventReview, PR: 1, HeadSHA: wpHead, BaseSHA: wpBase,
			Repo: forge.Repo{Owner: "gordon", Name: "hello-world", CloneURL: "https://gitea.golang.org/gordon/hello-world.git"}}},
	{"gitea/webhooks/woodpecker.HookPullRequestChangeBody.json", "pull_request", "pull_request",
		forge.Event{Forge: forge.Gitea, Type: forge.EventIgnored, PR: 7,
			Repo:    forge.Repo{Owner: "a_nice_user", Name: "hello_world_ci", CloneURL: "https://gitea.com/a_nice_user/hello_world_ci.git"},
			HeadSHA: "07977177c2cd7d46bad37b8472a9d50e7acb9d1f", BaseSHA: "a40211c506550ebd79633d84e913dafa184c6d56"}},
	{"gitea/webhooks/woodpecker.HookPullRequestClosed.json", "pull_request", "pull_request",
		forge.Event{Forge: forge.Gitea, Type: forge.EventIgnored, PR: 1, HeadSHA: anHead, BaseSHA: anBase,
			Repo: forge.Repo{Owner: "anbraten", Name: "test-repo", CloneURL: "https://gitea.com/anbraten/test-repo.git"}}},
	{"gitea/webhooks/woodpecker.HookPullRequestReopened.json", "pull_request", "pull_request",
		forge.Event{Forge: forge.Gitea, Type: forge.EventReview, Repo: cbTestCI, PR: 1, HeadSHA: cbHead, BaseSHA: cbBase}},
	{"gitea/webhooks/woodpecker.HookPullRequestUpdated.json", "pull_request", "pull_request_sync",
		forge.Event{Forge: forge.Gitea, Type: forge.EventReview, Repo: multiLine, PR: 2, HeadSHA: syncHead, BaseSHA: syncBase}},

	{"forgejo/webhooks/constructed.issue_comment.created.pull_request.json", "issue_comment", "pull_request_comment",
		forge.Event{Forge: forge.Gitea, Type: forge.EventComment, Repo: cbTestCI, PR: 1,
			Comment: &forge.Comment{ID: 2000001, Body: "/review please", Author: "6543"}}},
	{"forgejo/webhooks/woodpecker.HookPullRequest.json", "pull_request", "pull_request",
		forge.Event{Forge: forge.Gitea, Type: forge.EventReview, PR: 1, HeadSHA: wpHead, BaseSHA: wpBase,
			Repo: forge.Repo{Owner: "gordon", Name: "hello-world", CloneURL: "https://forgejo.golang.org/gordon/hello-world.git"}}},
	{"forgejo/webhooks/woodpecker.HookPullRequestClosed.json", "pull_request", "pull_request",
		forge.Event{Forge: forge.Gitea, Type: forge.EventIgnored, PR: 1, HeadSHA: anHead, BaseSHA: anBase,
			Repo: forge.Repo{Owner: "anbraten", Name: "test-repo", CloneURL: "https://forgejo.com/anbraten/test-repo.git"}}},
	{"forgejo/webhooks/woodpecker.HookPullRequestEdited.json", "pull_request", "pull_request",
		forge.Event{Forge: forge.Gitea, Type: forge.EventIgnored, PR: 1, HeadSHA: anHead, BaseSHA: anBase,
			Repo: forge.Repo{Owner: "anbraten", Name: "test-repo", CloneURL: "https://forgejo.com/anbraten/test-repo.git"}}},
	{"forgejo/webhooks/woodpecker.HookPullRequestReopened.json", "pull_request", "pull_request",
		forge.Event{Forge: forge.Gitea, Type: forge.EventReview, Repo: cbTestCI, PR: 1, HeadSHA: cbHead, BaseSHA: cbBase}},
	{"forgejo/webhooks/woodpecker.HookPullRequestUpdated.json", "pull_request", "pull_request_sync",
		forge.Event{Forge: forge.Gitea, Type: forge.EventReview, Repo: multiLine, PR: 2, HeadSHA: syncHead, BaseSHA: syncBase}},
}

func TestWebhookFixtures(t *testing.T) {
	dir := forgetest.FixturesDir(t)
	covered := map[string]bool{}
	for _, tc := range webhookFixtures {
		covered[tc.file] = true
		t.Run(tc.file, func(t *testing.T) {
			body := readFixture(t, tc.file)
			forgeDir, _, _ := strings.Cut(tc.file, "/")
			id := "d-" + filepath.Base(tc.file)
			got, err := parse(forgeDir, deliveryHeaders(forgeDir, tc.event, tc.eventType, id, body), body)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.want
			want.DeliveryID = id
			if d := cmp.Diff(&want, got); d != "" {
				t.Errorf("event (-want +got):\n%s", d)
			}
		})
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*", "webhooks", "*.json"))
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f)
		if !covered[filepath.ToSlash(rel)] {
			t.Errorf("fixture %s has no expected event", rel)
		}
	}
}

func readFixture(t *testing.T, file string) []byte {
	t.Helper()
	body, err := os.ReadFile(filepath.Join(forgetest.FixturesDir(t), file))
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// editedFixture returns a fixture with every old replaced by new (old must occur).
func editedFixture(t *testing.T, file, old, new string) []byte {
	t.Helper()
	body := string(readFixture(t, file))
	if !strings.Contains(body, old) {
		t.Fatalf("%s does not contain %q", file, old)
	}
	return []byte(strings.ReplaceAll(body, old, new))
}

func TestGitHubEvents(t *testing.T) {
	ready := editedFixture(t, "github/webhooks/pull_request.opened.json", `"action": "opened"`, `"action": "ready_for_review"`)
	labeled := editedFixture(t, "github/webhooks/pull_request.opened.json", `"action": "opened"`, `"action": "labeled"`)
	botComment := editedFixture(t, "github/webhooks/issue_comment.created.pull_request.json", `"login": "jakebolam"`, `"login": "renovate[bot]"`)
	edited := editedFixture(t, "github/webhooks/issue_comment.created.pull_request.json", `"action": "created"`, `"action": "edited"`)
	ping := []byte(`{"zen":"Keep it logically awesome.","hook_id":1,"installation":{"id":7}}`)
	for _, tc := range []struct {
		name, event string
		body        []byte
		want        func(*forge.Event) any
		wantValue   any
	}{
		{"ready_for_review", "pull_request", ready, func(e *forge.Event) any { return e.Type }, forge.EventReview},
		{"labeled", "pull_request", labeled, func(e *forge.Event) any { return e.Type }, forge.EventIgnored},
		{"bot comment", "issue_comment", botComment, func(e *forge.Event) any { return *e.Comment },
			forge.Comment{ID: 453012966, Body: allContributorsBody, Author: "renovate[bot]", AuthorIsBot: true}},
		{"edited comment", "issue_comment", edited, func(e *forge.Event) any { return e.Type }, forge.EventIgnored},
		{"ping", "ping", ping, func(e *forge.Event) any { return *e },
			forge.Event{Forge: forge.GitHub, DeliveryID: "d", Type: forge.EventPing, InstallationID: 7}},
		{"push", "push", []byte(`{"ref":"refs/heads/main"}`), func(e *forge.Event) any { return *e },
			forge.Event{Forge: forge.GitHub, DeliveryID: "d", Type: forge.EventIgnored}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := forge.ParseGitHub(deliveryHeaders("github", tc.event, "", "d", tc.body), tc.body, secret)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.wantValue, tc.want(got)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestGitHubFormPayload(t *testing.T) {
	body := []byte("payload=" + url.QueryEscape(`{"zen":"z","hook_id":1}`))
	h := deliveryHeaders("github", "ping", "", "d", body)
	h.Set("Content-Type", "application/x-www-form-urlencoded")
	got, err := forge.ParseGitHub(h, body, secret)
	if err != nil || got.Type != forge.EventPing {
		t.Fatalf("ParseGitHub = %+v, %v; want a ping", got, err)
	}
}

// TestGiteaFormPayload: Gitea and Forgejo sign the JSON payload, also when the hook sends it
// as a form; the same signature over the form body is refused.
func TestGiteaFormPayload(t *testing.T) {
	payload := `{"action":"created","is_pull":true,"issue":{"number":3},"comment":{"id":1,"body":"/recheck","user":{"login":"a"}},"repository":{"name":"r","owner":{"login":"o"},"full_name":"o/r","clone_url":"https://h/o/r.git"}}`
	form := []byte("payload=" + url.QueryEscape(payload))
	for _, forgeDir := range []string{"gitea", "forgejo"} {
		h := deliveryHeaders(forgeDir, "issue_comment", "pull_request_comment", "d", []byte(payload))
		h.Set("Content-Type", "application/x-www-form-urlencoded")
		got, err := forge.ParseGitea(h, form, secret)
		if err != nil {
			t.Fatalf("%s: ParseGitea: %v", forgeDir, err)
		}
		want := &forge.Event{Forge: forge.Gitea, DeliveryID: "d", Type: forge.EventComment, PR: 3,
			Repo:    forge.Repo{Owner: "o", Name: "r", CloneURL: "https://h/o/r.git"},
			Comment: &forge.Comment{ID: 1, Author: "a", Body: "/recheck"}}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: event (-want +got):\n%s", forgeDir, d)
		}
		h = deliveryHeaders(forgeDir, "issue_comment", "pull_request_comment", "d", form)
		h.Set("Content-Type", "application/x-www-form-urlencoded")
		if _, err := forge.ParseGitea(h, form, secret); !errors.Is(err, forge.ErrBadSignature) {
			t.Errorf("%s: form signed over the form body: err = %v, want ErrBadSignature", forgeDir, err)
		}
	}
}

// The test vector of GitHub's docs ("Validating webhook deliveries"). Its body is not
// JSON, so a verified delivery fails later, and not with ErrBadSignature.
func TestGitHubDocsVector(t *testing.T) {
	key, body := []byte("It's a Secret to Everybody"), []byte("Hello, World!")
	const vector = "757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
	h := http.Header{}
	h.Set("X-GitHub-Event", "issues")
	h.Set("X-Hub-Signature-256", "sha256="+vector)
	if _, err := forge.ParseGitHub(h, body, key); err == nil || errors.Is(err, forge.ErrBadSignature) {
		t.Fatalf("docs vector: err = %v, want a JSON error after verification", err)
	}
	h.Set("X-Hub-Signature-256", "sha256=857107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17")
	if _, err := forge.ParseGitHub(h, body, key); !errors.Is(err, forge.ErrBadSignature) {
		t.Fatalf("altered vector: err = %v, want ErrBadSignature", err)
	}
}

func TestBadSignatures(t *testing.T) {
	body := []byte(`{"action":"opened"}`)
	other := []byte(`{"action":"closed"}`)
	for _, tc := range []struct {
		name, forgeDir string
		header         func(h http.Header)
		secret         []byte
	}{
		{"github missing", "github", func(h http.Header) { h.Del("X-Hub-Signature-256") }, secret},
		{"github no prefix", "github", func(h http.Header) { h.Set("X-Hub-Signature-256", sign(body, secret)) }, secret},
		{"github sha1 only", "github", func(h http.Header) {
			h.Del("X-Hub-Signature-256")
			h.Set("X-Hub-Signature", "sha1=0000")
		}, secret},
		{"github wrong secret", "github", func(h http.Header) {}, []byte("other")},
		{"github other body", "github", func(h http.Header) { h.Set("X-Hub-Signature-256", "sha256="+sign(other, secret)) }, secret},
		{"github not hex", "github", func(h http.Header) { h.Set("X-Hub-Signature-256", "sha256=zz") }, secret},
		{"github empty secret", "github", func(h http.Header) {}, nil},
		{"gitea missing", "gitea", func(h http.Header) { h.Del("X-Gitea-Signature") }, secret},
		{"gitea prefixed", "gitea", func(h http.Header) { h.Set("X-Gitea-Signature", "sha256="+sign(body, secret)) }, secret},
		{"gitea other body", "gitea", func(h http.Header) { h.Set("X-Gitea-Signature", sign(other, secret)) }, secret},
		{"gitea hub header only", "gitea", func(h http.Header) {
			h.Del("X-Gitea-Signature")
			h.Set("X-Hub-Signature-256", "sha256="+sign(body, secret))
		}, secret},
		{"gitea empty secret", "gitea", func(h http.Header) {}, []byte{}},
		{"forgejo wrong, gitea right", "forgejo", func(h http.Header) { h.Set("X-Forgejo-Signature", sign(other, secret)) }, secret},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := deliveryHeaders(tc.forgeDir, "pull_request", "pull_request", "d", body)
			tc.header(h)
			var err error
			if tc.forgeDir == "github" {
				_, err = forge.ParseGitHub(h, body, tc.secret)
			} else {
				_, err = forge.ParseGitea(h, body, tc.secret)
			}
			if !errors.Is(err, forge.ErrBadSignature) {
				t.Errorf("err = %v, want ErrBadSignature", err)
			}
		})
	}
}

func TestForgejoHeadersOnly(t *testing.T) {
	body := readFixture(t, "forgejo/webhooks/woodpecker.HookPullRequestUpdated.json")
	h := http.Header{}
	h.Set("X-Forgejo-Event", "pull_request")
	h.Set("X-Forgejo-Event-Type", "pull_request_sync")
	h.Set("X-Forgejo-Delivery", "fj-1")
	h.Set("X-Forgejo-Signature", sign(body, secret))
	got, err := forge.ParseGitea(h, body, secret)
	if err != nil {
		t.Fatal(err)
	}
	if got.Type != forge.EventReview || got.DeliveryID != "fj-1" || got.PR != 2 {
		t.Errorf("got %+v", got)
	}
}

func TestBadJSON(t *testing.T) {
	body := []byte(`{"action":`)
	if _, err := forge.ParseGitHub(deliveryHeaders("github", "pull_request", "", "d", body), body, secret); err == nil || errors.Is(err, forge.ErrBadSignature) {
		t.Errorf("GitHub: err = %v, want a parse error", err)
	}
	if _, err := forge.ParseGitea(deliveryHeaders("gitea", "pull_request", "pull_request", "d", body), body, secret); err == nil || errors.Is(err, forge.ErrBadSignature) {
		t.Errorf("Gitea: err = %v, want a parse error", err)
	}
	wrongType := []byte(`{"action":"opened","number":"two"}`)
	if _, err := forge.ParseGitea(deliveryHeaders("gitea", "pull_request", "pull_request", "d", wrongType), wrongType, secret); err == nil || errors.Is(err, forge.ErrBadSignature) {
		t.Errorf("Gitea wrong type: err = %v, want a parse error", err)
	}
}

// TestBadRepository: a signed delivery whose repository is missing or names no valid
// repository is refused at parse time.
func TestBadRepository(t *testing.T) {
	const ghFile = "github/webhooks/pull_request.opened.json"
	const gtFile = "gitea/webhooks/drone-go-scm.pull_request_opened.json"
	ghNoRepo := func(t *testing.T) []byte {
		var p map[string]any
		must(t, json.Unmarshal(readFixture(t, ghFile), &p))
		delete(p, "repository")
		b, err := json.Marshal(p)
		must(t, err)
		return b
	}
	gtNoRepo := func(t *testing.T) []byte {
		var p map[string]any
		must(t, json.Unmarshal(readFixture(t, gtFile), &p))
		delete(p, "repository")
		b, err := json.Marshal(p)
		must(t, err)
		return b
	}
	for _, tc := range []struct {
		name, forgeDir, event string
		body                  func(*testing.T) []byte
		want                  string
	}{
		{"github no repository", "github", "pull_request", ghNoRepo,
			"GitHub pull_request delivery d: incomplete payload: repository owner is missing"},
		{"github name ..", "github", "pull_request", func(t *testing.T) []byte {
			return editedFixture(t, ghFile, `"name": "Hello-World"`, `"name": ".."`)
		}, `GitHub pull_request delivery d: malformed payload: repository name ".." is not a valid name`},
		{"github owner with slash", "github", "pull_request", func(t *testing.T) []byte {
			return editedFixture(t, ghFile, `"login": "Codertocat"`, `"login": "a/b"`)
		}, `GitHub pull_request delivery d: malformed payload: repository owner "a/b" is not a valid name`},
		{"github ssh clone_url", "github", "pull_request", func(t *testing.T) []byte {
			return editedFixture(t, ghFile, `"clone_url": "https://github.com/Codertocat/Hello-World.git"`, `"clone_url": "file:///etc"`)
		}, `GitHub pull_request delivery d: malformed payload: repository clone_url "file:///etc" is not an http(s) URL`},
		{"github comment no clone_url", "github", "issue_comment", func(t *testing.T) []byte {
			return editedFixture(t, "github/webhooks/issue_comment.created.pull_request.json",
				`"clone_url": "https://github.com/all-contributors/all-contributors-bot.git"`, `"clone_url": ""`)
		}, "GitHub issue_comment delivery d: incomplete payload: repository clone_url is missing"},
		{"gitea no repository", "gitea", "pull_request", gtNoRepo,
			"delivery d of Gitea event pull_request: incomplete payload: repository owner is missing"},
		{"gitea name .", "gitea", "pull_request", func(t *testing.T) []byte {
			return editedFixture(t, gtFile, `"name": "my-repo"`, `"name": "."`)
		}, `delivery d of Gitea event pull_request: malformed payload: repository name "." is not a valid name`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := tc.body(t)
			ev, err := parse(tc.forgeDir, deliveryHeaders(tc.forgeDir, tc.event, tc.event, "d", body), body)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("parse = %+v, %v; want error %q", ev, err, tc.want)
			}
		})
	}
}
