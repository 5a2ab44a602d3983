package forge_test

import (
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/forge"
)

// fuzzForges are the header sets a delivery may come with, indexed by the fuzzed byte.
var fuzzForges = []string{"github", "gitea", "forgejo"}

// FuzzWebhook feeds arbitrary bodies and headers to ParseGitHub and ParseGitea. Invariants:
// neither panics; a validly signed delivery that is accepted yields an Event that survives
// the JSON round trip of the durable queue unchanged and carries the delivery id and a
// repository the forge API can address; the same delivery with one bit of its signature
// flipped is always refused with ErrBadSignature.
func FuzzWebhook(f *testing.F) {
	for _, tc := range webhookFixtures {
		body, err := os.ReadFile(filepath.Join(fixturesDirOrEmpty(), tc.file))
		if err != nil {
			continue // the corpus in testdata/fuzz still seeds the target
		}
		forgeDir, _, _ := strings.Cut(tc.file, "/")
		f.Add(forgeIndex(forgeDir), tc.event, tc.eventType, "d-"+filepath.Base(tc.file), "application/json", body, uint16(7))
	}
	f.Add(uint8(0), "ping", "", "d", "application/x-www-form-urlencoded", []byte(`payload=%7B%22zen%22%3A%22z%22%7D`), uint16(0))
	f.Add(uint8(1), "issue_comment", "pull_request_comment", "d", "application/json",
		[]byte(`{"action":"created","is_pull":true,"issue":{"number":3},"comment":{"id":1,"body":"/recheck","user":{"login":"a"}},"repository":{"name":"r","full_name":"o/r","clone_url":"https://h/o/r.git"}}`), uint16(63))
	f.Fuzz(func(t *testing.T, which uint8, event, eventType, delivery, contentType string, body []byte, flip uint16) {
		forgeDir := fuzzForges[int(which)%len(fuzzForges)]
		h := deliveryHeaders(forgeDir, event, eventType, delivery, body)
		h.Set("Content-Type", contentType)
		if forgeDir != "github" {
			// Gitea and Forgejo sign the JSON payload, which a form carries in its payload field.
			resign(h, giteaSignedPart(contentType, body))
		}
		ev, err := parse(forgeDir, h, body)
		if err == nil {
			checkAccepted(t, forgeDir, delivery, ev)
		} else if errors.Is(err, forge.ErrBadSignature) {
			t.Fatalf("a valid signature is refused: %v", err)
		}

		sigHeader := map[string]string{"github": "X-Hub-Signature-256", "gitea": "X-Gitea-Signature", "forgejo": "X-Forgejo-Signature"}[forgeDir]
		sig := h.Get(sigHeader)
		hexStart := len(sig) - 64 // GitHub's value is "sha256=" + 64 hex digits
		bit := int(flip) % (64 * 4)
		sig = sig[:hexStart+bit/4] + flipHex(sig[hexStart+bit/4], bit%4) + sig[hexStart+bit/4+1:]
		h.Set(sigHeader, sig)
		if ev, err := parse(forgeDir, h, body); !errors.Is(err, forge.ErrBadSignature) {
			t.Fatalf("signature %s with bit %d flipped: got %+v, %v; want ErrBadSignature", sig, bit, ev, err)
		}
	})
}

// checkAccepted asserts what every accepted delivery guarantees.
func checkAccepted(t *testing.T, forgeDir, delivery string, ev *forge.Event) {
	t.Helper()
	wantForge := forge.Gitea
	if forgeDir == "github" {
		wantForge = forge.GitHub
	}
	if ev.Forge != wantForge {
		t.Errorf("Forge = %q, want %q", ev.Forge, wantForge)
	}
	if want := strings.ToValidUTF8(delivery, "\uFFFD"); ev.DeliveryID != want {
		t.Errorf("DeliveryID = %q, want the header's %q", ev.DeliveryID, want)
	}
	switch ev.Type {
	case forge.EventReview, forge.EventComment:
		r := ev.Repo
		for _, s := range []string{r.Owner, r.Name} {
			if s == "" || s == "." || s == ".." || strings.ContainsAny(s, "/\\") {
				t.Errorf("accepted repository %+v cannot be an API path segment", r)
			}
		}
		if !strings.HasPrefix(r.CloneURL, "https://") && !strings.HasPrefix(r.CloneURL, "http://") {
			t.Errorf("accepted clone URL %q is not http(s)", r.CloneURL)
		}
		if ev.Type == forge.EventComment && ev.Comment == nil {
			t.Errorf("comment event without a comment: %+v", ev)
		}
	case forge.EventPing, forge.EventIgnored:
	default:
		t.Errorf("unknown event type %q", ev.Type)
	}
	data, err := json.Marshal(ev)
	if err != nil {
		t.Fatalf("marshal event: %v", err)
	}
	var back forge.Event
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatalf("unmarshal event %s: %v", data, err)
	}
	if d := cmp.Diff(ev, &back); d != "" {
		t.Errorf("event changes through the queue's JSON (-parsed +stored):\n%s", d)
	}
}

func forgeIndex(dir string) uint8 {
	for i, d := range fuzzForges {
		if d == dir {
			return uint8(i)
		}
	}
	return 0
}

// flipHex returns hex digit c with bit b (0..3) of its value flipped, in lower case.
func flipHex(c byte, b int) string {
	const digits = "0123456789abcdef"
	v := strings.IndexByte(digits, c)
	return string(digits[v^(1<<b)])
}

// giteaSignedPart is what Gitea and Forgejo sign for a body of contentType: the body, or a
// form's payload field (nothing when the body is no such form).
func giteaSignedPart(contentType string, body []byte) []byte {
	if mt, _, _ := mime.ParseMediaType(contentType); mt != "application/x-www-form-urlencoded" {
		return body
	}
	form, err := url.ParseQuery(string(body))
	if err != nil || !form.Has("payload") {
		return nil
	}
	return []byte(form.Get("payload"))
}

// resign replaces the Gitea and Forgejo signatures in h by those of signed.
func resign(h http.Header, signed []byte) {
	sig := sign(signed, secret)
	h.Set("X-Gitea-Signature", sig)
	if h.Get("X-Forgejo-Signature") != "" {
		h.Set("X-Forgejo-Signature", sig)
	}
}

// fixturesDirOrEmpty is forgetest.FixturesDir without the skip: seeds are optional.
func fixturesDirOrEmpty() string {
	if dir := os.Getenv("FORGE_FIXTURES"); dir != "" {
		return dir
	}
	return filepath.Join("..", "..", "..", "shared", "forge-fixtures") // /work/shared next to the checkout
}
