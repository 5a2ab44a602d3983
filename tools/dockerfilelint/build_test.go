package dockerfilelint

import (
	"debug/buildinfo"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestBuildStage runs the repository Dockerfile's go build line, with its environment and
// on its build context, and checks that it makes a static Linux binary that reports the
// version it was given: what the image's build stage does, without Docker.
func TestBuildStage(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles bot with -trimpath (a minute or two)")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	f := readRepoDockerfile(t)
	const version = "v0.0.0-dockerfile-test"
	gb, err := f.GoBuild(f.Stages[0], map[string]string{"TARGETOS": "linux", "TARGETARCH": runtime.GOARCH, "VERSION": version})
	if err != nil {
		t.Fatalf("Dockerfile: %v", err)
	}
	ctx := t.TempDir()
	if err := CopyContext(repoRoot, ctx); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "bot")
	args := slices.Clone(gb.Args)
	args[slices.Index(args, gb.Out)] = out
	cmd := exec.Command(goBin, args...)
	cmd.Dir = ctx // WORKDIR /src; COPY . .
	cmd.Env = append(os.Environ(), gb.Env...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, msg)
	}

	bin, err := elf.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer bin.Close()
	for _, p := range bin.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("binary has a %v program header: it is not static", p.Type)
		}
	}
	if bin.Section(".dynamic") != nil {
		t.Error("binary has a .dynamic section: it is not static")
	}
	info, err := buildinfo.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	for k, want := range map[string]string{"CGO_ENABLED": "0", "-trimpath": "true", "GOOS": "linux", "GOARCH": runtime.GOARCH} {
		if settings[k] != want {
			t.Errorf("build setting %s = %q, want %q", k, settings[k], want)
		}
	}
	if runtime.GOOS == "linux" {
		got, err := exec.Command(out, "version").Output()
		if err != nil {
			t.Fatal(err)
		}
		if want := "tiergate " + version + "\n"; string(got) != want {
			t.Errorf("bot version: %q, want %q", got, want)
		}
	}
}
