package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"golang.org/x/mod/modfile"

	"github.com/tiergate/tiergate/tools/dockerfilelint"
)

const repoRoot = "../.."

// TestDockerfileRules checks the repository's Dockerfile against go.mod and `bot serve`:
// its Go version, its command, port and environment (tools/dockerfilelint runs its build).
func TestDockerfileRules(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	mf, err := modfile.ParseLax("go.mod", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	fl := serveCmd().Flags()
	names := map[string]bool{}
	fl.VisitAll(func(f *pflag.Flag) { names[envName(f.Name)] = true })
	listen := fl.Lookup("listen").DefValue
	rules := dockerfilelint.Rules{
		GoVersion:  mf.Go.Version,
		FinalBase:  "gcr.io/distroless/static-debian12:nonroot",
		Command:    []string{"serve"},
		ListenPort: listen[strings.LastIndex(listen, ":")+1:],
		EnvPrefix:  envPrefix,
		EnvNames:   names,
	}
	r, err := os.Open(filepath.Join(repoRoot, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	f, err := dockerfilelint.Parse(r)
	if err != nil {
		t.Fatalf("Dockerfile: %v", err)
	}
	if got := f.Problems(rules); len(got) > 0 {
		t.Errorf("Dockerfile:\n%s", strings.Join(got, "\n"))
	}
}
