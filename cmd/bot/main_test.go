package main

import (
	"flag"
	"os"
	"testing"
)

// TestMain lets the test binary be a sandbox Pool's worker: commands under test that render
// charts (graph, build, action, review with --helm-sandbox) start os.Executable() with the
// argument helm-worker, as the bot binary is started in production.
// testPlaceholderKey is the test run's TIERGATE_PLACEHOLDER_KEY.
const testPlaceholderKey = "0707070707070707070707070707070707070707070707070707070707070707"

func TestMain(m *testing.M) {
	flag.Parse()
	if flag.Arg(0) == "helm-worker" {
		root := newRoot()
		root.SetArgs([]string{"helm-worker"})
		if err := root.Execute(); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	// Commands under test use the persistent cache by default: in a folder of the test
	// run, never the user's.
	tmp, err := os.MkdirTemp("", "tiergate-test-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", tmp)
	// One placeholder key for every command of the run, as TIERGATE_PLACEHOLDER_KEY gives
	// an operator: a review on a new cache folder then equals one without the cache
	// (TestSecondRunSameReport), as it does for processes sharing a folder.
	os.Setenv(placeholderKeyEnv, testPlaceholderKey)
	if mustPlaceholderKey() != 0 {
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}
