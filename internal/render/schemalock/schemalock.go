// Package schemalock guards kustomize's one OpenAPI schema per process (kyaml/openapi's
// globals) for every krusty run of tiergate: the Kustomization builds of package render
// and the post-renderer of package render/helm.
//
// A kustomization file's `openapi:` field replaces the schema (openapi.SetSchema, from
// krusty.Kustomizer.Run and target.KustTarget) for every build running at that moment:
// kubernetes-sigs/kustomize#3659, why fluxcd/pkg/kustomize.Build (kustomize_generator.go)
// builds one at a time, resetting the schema and preloading the builtin one before each
// build. kyaml parses the builtin schema on first need (openapi.initSchema, under its
// schemaLock), but openapi.IsNamespaceScoped reads the parsed maps without that lock, so a
// build may not run beside a parse. Parsing costs about 25 ms of CPU (decodeBuiltinBundle),
// a large share of a small review; a build without strategic-merge patches never needs it.
//
// The states: dirty (an earlier build may have set another schema: reset and preload before
// the next one), parsed (the builtin schema is parsed and in place: builds may share it),
// and, at start, pristine (nothing has set or parsed it). The first build of the process
// runs alone on the pristine schema, so kyaml parses it only if that build needs it; a
// build that could set a schema is stopped by the caller and run again alone after the
// reset and preload, as Build does.
package schemalock

import (
	"sync"

	"sigs.k8s.io/kustomize/kyaml/openapi"
)

var (
	mu sync.RWMutex
	// dirty (under mu): the schema may differ from the builtin one.
	dirty bool
	// parsed (under mu): the builtin schema is parsed and in place (openapi.Schema called
	// since the last reset, and nothing set another).
	parsed bool
	// lazyDone (under mu): the one build on the pristine schema has run.
	lazyDone bool
	// parses counts this package's calls of openapi.Schema (tests).
	parses int
)

// Shared takes the schema shared, the builtin one parsed, for a build that refuses any
// `openapi:` field, and returns the function that releases it; ok is false (nothing held)
// when the build must run alone (Alone): the schema may be another one, or no build has
// run yet on the pristine schema.
func Shared() (release func(), ok bool) {
	mu.RLock()
	if parsed && !dirty {
		return mu.RUnlock, true
	}
	wait := dirty || !lazyDone
	mu.RUnlock()
	if wait {
		return nil, false
	}
	mu.Lock()
	if dirty {
		mu.Unlock()
		return nil, false
	}
	parse()
	mu.Unlock()
	return Shared()
}

// Alone holds the schema exclusively while build runs and returns what build returned.
// On the pristine schema (the process's first build) build runs with pristine true: it
// must refuse an `openapi:` field and report stopped when it stopped at one; it then runs
// again with pristine false, after the schema is reset and the builtin one preloaded, as
// every later build runs. dirtied, from the run that counted, says the schema may no longer
// be the builtin one (the build read an `openapi:` field, or panicked).
func Alone[T any](build func(pristine bool) (out T, stopped, dirtied bool)) T {
	mu.Lock()
	defer mu.Unlock()
	if !dirty && !lazyDone {
		lazyDone = true
		out, stopped, dirtied := build(true)
		if !stopped {
			dirty = dirtied
			return out
		}
		dirty = true
	}
	preload()
	out, _, dirtied := build(false)
	dirty = dirtied
	return out
}

// Builtin runs fn with the builtin schema, for a krusty run whose kustomization has no
// `openapi:` field (the post-renderer's, generated): as the process's first run, alone on
// the pristine schema (kyaml parses it on need); otherwise parsed and held shared.
func Builtin(fn func()) {
	mu.Lock()
	if !dirty && !lazyDone {
		lazyDone = true
		defer mu.Unlock()
		fn()
		return
	}
	mu.Unlock()
	release, ok := Shared()
	for !ok {
		mu.Lock()
		preload()
		mu.Unlock()
		release, ok = Shared()
	}
	defer release()
	fn()
}

// Exclusive holds the schema exclusively while fn runs, which leaves it dirty
// (fluxcd/pkg/kustomize.Build resets it and leaves it reset, or set by the build).
func Exclusive(fn func()) {
	mu.Lock()
	defer mu.Unlock()
	dirty = true
	fn()
}

// preload resets the schema if it is dirty and parses the builtin one (under mu held
// exclusively); the pristine schema is gone then.
func preload() {
	lazyDone = true
	if dirty {
		openapi.ResetOpenAPI()
		parsed, dirty = false, false
	}
	parse()
}

// parse preloads the builtin schema (under mu held exclusively).
func parse() {
	if !parsed {
		_ = openapi.Schema()
		parses++
		parsed = true
	}
}

// Restart returns the guard to the state of a new process: kyaml's schema reset, nothing
// parsed, no build run (tests that start from a new process's state).
func Restart() {
	mu.Lock()
	defer mu.Unlock()
	openapi.ResetOpenAPI()
	dirty, parsed, lazyDone, parses = false, false, false, 0
}

// Parses is how many times the guard has parsed the builtin schema since Restart (tests).
func Parses() int {
	mu.RLock()
	defer mu.RUnlock()
	return parses
}
