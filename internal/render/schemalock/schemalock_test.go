package schemalock

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// state is the guard's state, for comparing whole.
type state struct{ Dirty, Parsed, LazyDone bool }

func now() state {
	mu.RLock()
	defer mu.RUnlock()
	return state{dirty, parsed, lazyDone}
}

// run is Alone over a build that records how it was asked and answers stopped, dirtied.
func run(t *testing.T, answers map[bool][2]bool) []bool {
	t.Helper()
	var asked []bool
	out := Alone(func(pristine bool) (string, bool, bool) {
		asked = append(asked, pristine)
		a := answers[pristine]
		return "built", a[0], a[1]
	})
	if out != "built" {
		t.Fatalf("Alone returned %q", out)
	}
	return asked
}

// TestFirstBuildRunsOnPristineSchema: the process's first build runs alone without a
// parse; the next build that shares the schema parses it, once.
func TestFirstBuildRunsOnPristineSchema(t *testing.T) {
	Restart()
	if _, ok := Shared(); ok {
		t.Fatal("Shared before any build: ok, want the first build alone")
	}
	if d := cmp.Diff([]bool{true}, run(t, nil)); d != "" {
		t.Errorf("runs (pristine?) (-want +got):\n%s", d)
	}
	if got := Parses(); got != 0 {
		t.Errorf("parses after the first build %d, want 0", got)
	}
	for i := 0; i < 2; i++ {
		release, ok := Shared()
		if !ok {
			t.Fatal("Shared after the first build: not ok")
		}
		release()
	}
	if got := Parses(); got != 1 {
		t.Errorf("parses after two shared builds %d, want 1", got)
	}
	if d := cmp.Diff(state{Parsed: true, LazyDone: true}, now()); d != "" {
		t.Errorf("state (-want +got):\n%s", d)
	}
}

// TestPristineBuildStoppedAtOpenAPIRunsPreloaded: a first build that stops at an
// `openapi:` field runs again on the preloaded builtin schema, and leaves it dirty, so
// the next build runs alone after a reset.
func TestPristineBuildStoppedAtOpenAPIRunsPreloaded(t *testing.T) {
	Restart()
	asked := run(t, map[bool][2]bool{true: {true, true}, false: {false, true}})
	if d := cmp.Diff([]bool{true, false}, asked); d != "" {
		t.Errorf("runs (pristine?) (-want +got):\n%s", d)
	}
	if got := Parses(); got != 1 {
		t.Errorf("parses %d, want 1 (the preload)", got)
	}
	if d := cmp.Diff(state{Dirty: true, Parsed: true, LazyDone: true}, now()); d != "" {
		t.Errorf("state (-want +got):\n%s", d)
	}
	if _, ok := Shared(); ok {
		t.Error("Shared on a dirty schema: ok")
	}
	if d := cmp.Diff([]bool{false}, run(t, nil)); d != "" {
		t.Errorf("next build's runs (-want +got):\n%s", d)
	}
	if got, want := now(), (state{Parsed: true, LazyDone: true}); got != want || Parses() != 2 {
		t.Errorf("after the reset: state %+v, parses %d, want %+v and 2", got, Parses(), want)
	}
}

// TestPristineBuildPanicDirties: a first build that panicked (dirtied, not stopped) is not
// run again, and the schema is reset before the next build.
func TestPristineBuildPanicDirties(t *testing.T) {
	Restart()
	if d := cmp.Diff([]bool{true}, run(t, map[bool][2]bool{true: {false, true}})); d != "" {
		t.Errorf("runs (-want +got):\n%s", d)
	}
	if d := cmp.Diff(state{Dirty: true, LazyDone: true}, now()); d != "" {
		t.Errorf("state (-want +got):\n%s", d)
	}
}

// TestBuiltinPreloads: the post-renderer's run, as the process's first, runs alone on the
// pristine schema; after a build, or on a dirty schema, it finds the builtin one parsed and
// holds it shared.
func TestBuiltinPreloads(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before func()
		during state
		parses int
	}{
		{"first run", func() {}, state{LazyDone: true}, 0},
		{"after a build", func() { run(t, nil) }, state{Parsed: true, LazyDone: true}, 1},
		{"dirty", func() { Exclusive(func() {}) }, state{Parsed: true, LazyDone: true}, 1},
	} {
		Restart()
		tc.before()
		var during state
		Builtin(func() { during = state{dirty, parsed, lazyDone} })
		if d := cmp.Diff(tc.during, during); d != "" {
			t.Errorf("%s: state during the run (-want +got):\n%s", tc.name, d)
		}
		if got := Parses(); got != tc.parses {
			t.Errorf("%s: parses %d, want %d", tc.name, got, tc.parses)
		}
	}
}
