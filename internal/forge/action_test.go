package forge_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/forge"
	"github.com/tiergate/tiergate/internal/forge/forgetest"
)

func TestParseGitHubPayload(t *testing.T) {
	dir := filepath.Join(forgetest.FixturesDir(t), "github", "webhooks")
	hello := forge.Repo{Owner: "Codertocat", Name: "Hello-World", CloneURL: "https://github.com/Codertocat/Hello-World.git"}
	review := func(head, base string) *forge.Event {
		return &forge.Event{Forge: forge.GitHub, Type: forge.EventReview, Repo: hello, PR: 2, HeadSHA: head, BaseSHA: base, InstallationID: 1}
	}
	cases := []struct {
		event, file string
		want        *forge.Event
		err         string
	}{
		{"pull_request", "pull_request.opened.json",
			review("ec26c3e57ca3a959ca5aad62de7213c562f8c821", "f95f852bd8fca8fcc58a9a2d6c842781e32a215e"), ""},
		{"pull_request", "pull_request.synchronize.json",
			review("ec26c3e57ca3a959ca5aad62de7213c562f8c821", "f95f852bd8fca8fcc58a9a2d6c842781e32a215e"), ""},
		// The workflow chose to run on this action; the review runs whatever it is.
		{"pull_request_target", "pull_request.closed.json",
			review("ec26c3e57ca3a959ca5aad62de7213c562f8c821", "f95f852bd8fca8fcc58a9a2d6c842781e32a215e"), ""},
		{"push", "pull_request.opened.json", nil,
			"GitHub push event: not a pull request event (want pull_request or pull_request_target)"},
		{"pull_request", "issue_comment.created.issue.json", nil,
			"GitHub pull_request event: incomplete payload: pull_request is missing"},
	}
	for _, tc := range cases {
		t.Run(tc.event+" "+tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, tc.file))
			must(t, err)
			got, err := forge.ParseGitHubPayload(tc.event, data)
			if fmt.Sprint(err) != fmt.Sprint(errOrNil(tc.err)) {
				t.Fatalf("error %v, want %s", err, tc.err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("event (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := forge.ParseGitHubPayload("pull_request", []byte("{")); err == nil {
		t.Fatal("truncated JSON parsed")
	}
}

func errOrNil(s string) error {
	if s == "" {
		return nil
	}
	return fmt.Errorf("%s", s)
}

func TestIsForbidden(t *testing.T) {
	srv, c, _ := newGitHubToken(t)
	path := "/repos/acme/fleet/statuses/" + headSHA
	srv.FailNext(path, 403, nil)
	err := c.SetStatus(context.Background(), repo, headSHA, forge.StatePending, "x")
	if !forge.IsForbidden(err) {
		t.Fatalf("403: IsForbidden(%v) = false", err)
	}
	if !forge.IsForbidden(fmt.Errorf("publish: %w", err)) {
		t.Fatal("a wrapped 403 is not forbidden")
	}
	srv.FailNext(path, 404, nil)
	if err := c.SetStatus(context.Background(), repo, headSHA, forge.StatePending, "x"); err == nil || forge.IsForbidden(err) {
		t.Fatalf("404: %v", err)
	}
	if forge.IsForbidden(nil) {
		t.Fatal("nil is forbidden")
	}
}
