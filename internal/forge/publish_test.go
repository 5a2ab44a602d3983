package forge

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIsSummaryMatchesOnlyTheBotsMarkerComment(t *testing.T) {
	for _, tc := range []struct {
		name, body, author string
		bot                bool
		me                 string
		want               bool
	}{
		{"mine", summaryMarker + "\nreview", "tiergate[bot]", true, "tiergate[bot]", true},
		{"mine, login case differs", summaryMarker + "\nreview", "TierGate[bot]", true, "tiergate[bot]", true},
		{"a person posts the marker", summaryMarker + "\nfake", "mallory", false, "tiergate[bot]", false},
		{"another bot posts the marker", summaryMarker + "\nfake", "other[bot]", true, "tiergate[bot]", false},
		{"marker not at the start", "hello\n" + summaryMarker, "tiergate[bot]", true, "tiergate[bot]", false},
		{"marker after a space", " " + summaryMarker, "tiergate[bot]", true, "tiergate[bot]", false},
		{"identity unknown, a person posts the marker", summaryMarker + "\nfake", "mallory", false, "", false},
		{"identity unknown, the Actions bot", summaryMarker + "\nreview", "github-actions[bot]", true, "", true},
	} {
		if got := isSummary(tc.body, tc.author, tc.bot, tc.me); got != tc.want {
			t.Errorf("%s: isSummary = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestPlanSummary: the newest of the bot's marker comments is edited (not when it holds the
// body already) and the older ones deleted; while the bot's login is unknown the matches
// are any bot account's, so none is deleted.
func TestPlanSummary(t *testing.T) {
	found := []summaryComment{{id: 7, body: "a"}, {id: 12, body: "c"}, {id: 9, body: "b"}}
	for _, tc := range []struct {
		name        string
		found       []summaryComment
		body        string
		deleteOlder bool
		want        summaryPlan
	}{
		{"none", nil, "x", true, summaryPlan{create: true}},
		{"newest edited, older deleted", found, "x", true, summaryPlan{edit: 12, delete: []int64{7, 9}}},
		{"newest holds the body", found, "c", true, summaryPlan{delete: []int64{7, 9}}},
		{"login unknown: nothing deleted", found, "x", false, summaryPlan{edit: 12}},
	} {
		got := planSummary(tc.found, tc.body, tc.deleteOlder)
		if d := cmp.Diff(tc.want, got, cmp.AllowUnexported(summaryPlan{})); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
}

// fakeComments is a PR's comments behind a summaryAPI: find lists the bot's marker
// comments only (isSummary, as both forges' findSummaries), and every call is recorded.
type fakeComments struct {
	all     []fakeComment
	next    int64
	calls   []string
	status  int // the answer to a delete that fails: its HTTP status
	failDel int64
}

type fakeComment struct {
	id           int64
	author, body string
}

func (f *fakeComments) api() summaryAPI {
	return summaryAPI{forge: "test", repo: Repo{Owner: "acme", Name: "fleet"}, pr: 3,
		find: func(context.Context) ([]summaryComment, error) {
			f.calls = append(f.calls, "list")
			var out []summaryComment
			for _, c := range f.all {
				if isSummary(c.body, c.author, false, "bot") {
					out = append(out, summaryComment{id: c.id, body: c.body})
				}
			}
			return out, nil
		},
		create: func(_ context.Context, body string) error {
			f.next++
			f.calls = append(f.calls, fmt.Sprintf("create %d", f.next))
			f.all = append(f.all, fakeComment{f.next, "bot", body})
			return nil
		},
		edit: func(_ context.Context, id int64, body string) error {
			f.calls = append(f.calls, fmt.Sprintf("edit %d", id))
			for i := range f.all {
				if f.all[i].id == id {
					f.all[i].body = body
				}
			}
			return nil
		},
		remove: func(_ context.Context, id int64) (int, error) {
			f.calls = append(f.calls, fmt.Sprintf("delete %d", id))
			if id == f.failDel {
				return f.status, errors.New("refused")
			}
			f.all = slices.DeleteFunc(f.all, func(c fakeComment) bool { return c.id == id })
			return http.StatusNoContent, nil
		},
	}
}

// TestUpsertSummary: the one summary logic both forges share. The newest of the bot's
// marker comments is edited and the older ones deleted, a person's comment carrying the
// marker is never touched; with none, one is created; the same body again writes nothing
// but the deletes; with the bot's login unknown nothing is deleted; a delete answered 404
// is no error, any other failure names the comment.
func TestUpsertSummary(t *testing.T) {
	ctx := context.Background()
	f := &fakeComments{next: 10, all: []fakeComment{
		{1, "mallory", summaryMarker + "\nforged"}, {2, "bot", summaryMarker + "\nold"}, {3, "bot", "no marker"}, {4, "bot", summaryMarker + "\nnewer"},
	}}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(upsertSummary(ctx, f.api(), "review", "bot"))
	wantAll := []fakeComment{{1, "mallory", summaryMarker + "\nforged"}, {3, "bot", "no marker"}, {4, "bot", summaryMarker + "\nreview"}}
	if d := cmp.Diff([]string{"list", "edit 4", "delete 2"}, f.calls); d != "" {
		t.Errorf("calls (-want +got):\n%s", d)
	}
	if d := cmp.Diff(wantAll, f.all, cmp.AllowUnexported(fakeComment{})); d != "" {
		t.Errorf("comments (-want +got):\n%s", d)
	}

	f.calls = nil
	must(upsertSummary(ctx, f.api(), summaryMarker+"\nreview", "bot"))
	if d := cmp.Diff([]string{"list"}, f.calls); d != "" {
		t.Errorf("the same body again: calls (-want +got):\n%s", d)
	}

	f.calls, f.all = nil, []fakeComment{{1, "mallory", summaryMarker + "\nforged"}}
	must(upsertSummary(ctx, f.api(), "first", "bot"))
	if d := cmp.Diff([]string{"list", "create 11"}, f.calls); d != "" {
		t.Errorf("no summary yet: calls (-want +got):\n%s", d)
	}

	f.calls = nil
	f.all = append(f.all, fakeComment{12, "bot", summaryMarker + "\nsecond"})
	must(upsertSummary(ctx, f.api(), "third", ""))
	if d := cmp.Diff([]string{"list", "edit 12"}, f.calls); d != "" {
		t.Errorf("login unknown: calls (-want +got):\n%s", d)
	}

	f.calls, f.failDel, f.status = nil, 11, http.StatusNotFound
	must(upsertSummary(ctx, f.api(), "fourth", "bot"))
	if d := cmp.Diff([]string{"list", "edit 12", "delete 11"}, f.calls); d != "" {
		t.Errorf("delete answered 404: calls (-want +got):\n%s", d)
	}
	f.status = http.StatusInternalServerError
	err := upsertSummary(ctx, f.api(), "fifth", "bot")
	if want := "test: delete older summary 11 of acme/fleet#3: refused"; err == nil || err.Error() != want {
		t.Errorf("delete failing: error %v, want %q", err, want)
	}
}
