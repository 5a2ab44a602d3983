package ghaction

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// installResult is what one run of scripts/action-install.sh leaves: exit status, output,
// the GITHUB_OUTPUT file, the installed binary ("" if none) and the paths requested.
type installResult struct {
	Exit           int
	Stdout, Stderr string
	Output         string
	Binary         string
	Requests       []string
}

// runInstall runs the Action's install script against srv with
// the runner's environment env (merged over a clean one).
func runInstall(t *testing.T, srv *httptest.Server, requests *[]string, env map[string]string) installResult {
	t.Helper()
	for _, tool := range []string{"bash", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed: %v", tool, err)
		}
	}
	dir := t.TempDir()
	dest, output := filepath.Join(dir, "tiergate-bot"), filepath.Join(dir, "output")
	if err := os.WriteFile(output, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"PATH": os.Getenv("PATH"), "TMPDIR": dir, "GITHUB_OUTPUT": output, "TG_DEST": dest,
		"TG_REPO": "tiergate/tiergate", "TG_REF": "v1.2.3", "RUNNER_OS": "Linux", "RUNNER_ARCH": "X64"}
	vars["TG_RELEASES_URL"] = srv.URL
	for k, v := range env {
		vars[k] = v
	}
	cmd := exec.Command("bash", filepath.Join("..", "..", "scripts", "action-install.sh"))
	for k, v := range vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	res := installResult{}
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatal(err)
		}
		res.Exit = exit.ExitCode()
	}
	res.Stdout, res.Stderr = stdout.String(), strings.ReplaceAll(stderr.String(), srv.URL, "SERVER")
	res.Stdout = strings.ReplaceAll(res.Stdout, srv.URL, "SERVER")
	out, err := os.ReadFile(output)
	if err != nil {
		t.Fatal(err)
	}
	res.Output = string(out)
	if bin, err := os.ReadFile(dest); err == nil {
		res.Binary = string(bin)
		if fi, _ := os.Stat(dest); fi.Mode()&0o111 == 0 {
			t.Errorf("%s is not executable: %v", dest, fi.Mode())
		}
	}
	res.Requests = *requests
	return res
}

// releaseServer serves files under /tiergate/tiergate/releases/download/v1.2.3/, as GitHub
// serves release assets, 404 for anything else, and records each request's path.
func releaseServer(t *testing.T, files map[string]string, requests *[]string) *httptest.Server {
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		*requests = append(*requests, r.URL.Path)
		mu.Unlock()
		name, ok := strings.CutPrefix(r.URL.Path, "/tiergate/tiergate/releases/download/v1.2.3/")
		body, found := files[name]
		switch {
		case name == "checksums.txt" && body == "403":
			http.Error(w, "rate limited", http.StatusForbidden)
		case ok && found:
			_, _ = w.Write([]byte(body))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// TestActionInstall runs scripts/action-install.sh against a loopback release server: a
// good checksum installs the runner's asset, a bad one installs nothing and fails the
// step, a ref without a release (or a local action) asks for the Go build.
func TestActionInstall(t *testing.T) {
	const linux, darwin = "linux amd64 binary\n", "darwin arm64 binary\n"
	checksums := sha256Hex(linux) + "  bot_linux_amd64\n" + sha256Hex(darwin) + "  bot_darwin_arm64\n"
	const dl = "/tiergate/tiergate/releases/download/v1.2.3/"
	good := map[string]string{"checksums.txt": checksums, "bot_linux_amd64": linux, "bot_darwin_arm64": darwin}
	for _, tc := range []struct {
		name  string
		files map[string]string
		env   map[string]string
		want  installResult
	}{
		{"good checksum", good, nil, installResult{
			Stdout: "tiergate: installed bot_linux_amd64 of release v1.2.3 (sha256 " + sha256Hex(linux) + ")\n",
			Output: "build=false\n", Binary: linux, Requests: []string{dl + "checksums.txt", dl + "bot_linux_amd64"},
		}},
		{"darwin arm64", good, map[string]string{"RUNNER_OS": "macOS", "RUNNER_ARCH": "ARM64"}, installResult{
			Stdout: "tiergate: installed bot_darwin_arm64 of release v1.2.3 (sha256 " + sha256Hex(darwin) + ")\n",
			Output: "build=false\n", Binary: darwin, Requests: []string{dl + "checksums.txt", dl + "bot_darwin_arm64"},
		}},
		{"bad checksum", map[string]string{"checksums.txt": checksums, "bot_linux_amd64": "tampered\n"}, nil, installResult{
			Exit: 1,
			Stderr: "tiergate: bot_linux_amd64 of release v1.2.3: sha256 " + sha256Hex("tampered\n") +
				", checksums.txt says " + sha256Hex(linux) + "; not installed\n",
			Requests: []string{dl + "checksums.txt", dl + "bot_linux_amd64"},
		}},
		{"asset missing from checksums.txt", map[string]string{"checksums.txt": sha256Hex(darwin) + "  bot_darwin_arm64\n"}, nil, installResult{
			Exit:     1,
			Stderr:   "tiergate: SERVER" + dl[:len(dl)-1] + "/checksums.txt has no line for bot_linux_amd64\n",
			Requests: []string{dl + "checksums.txt"},
		}},
		{"missing release", nil, map[string]string{"TG_REF": "main"}, installResult{
			Stdout: "tiergate: no release main of tiergate/tiergate; building it with Go\n",
			Output: "build=true\n", Requests: []string{"/tiergate/tiergate/releases/download/main/checksums.txt"},
		}},
		{"server refuses", map[string]string{"checksums.txt": "403"}, nil, installResult{
			Exit:     1,
			Stderr:   "tiergate: GET SERVER" + dl + "checksums.txt: HTTP 403\n",
			Requests: []string{dl + "checksums.txt"},
		}},
		{"local action", good, map[string]string{"TG_REF": ""}, installResult{
			Stdout: "tiergate: the action's ref is unknown (a local action); building it with Go\n",
			Output: "build=true\n",
		}},
		{"windows runner", good, map[string]string{"RUNNER_OS": "Windows"}, installResult{
			Stdout: "tiergate: no release binary for RUNNER_OS 'Windows'; building it with Go\n",
			Output: "build=true\n",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var requests []string
			srv := releaseServer(t, tc.files, &requests)
			got := runInstall(t, srv, &requests, tc.env)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("install (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReleaseBuild builds this machine's release asset with scripts/release-build.sh (as
// .github/workflows/release.yml does), serves it as a release and installs it with
// scripts/action-install.sh: the checksums file matches and the installed binary runs.
// It compiles everything with -trimpath (minutes), so -short skips it.
func TestReleaseBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the bot with -trimpath")
	}
	runnerOS := map[string]string{"linux": "Linux", "darwin": "macOS"}[runtime.GOOS]
	runnerArch := map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH]
	if runnerOS == "" || runnerArch == "" {
		t.Skipf("no release asset for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	dist := t.TempDir()
	cmd := exec.Command("bash", filepath.Join("..", "..", "scripts", "release-build.sh"))
	cmd.Env = append(os.Environ(), "VERSION=v1.2.3", "DIST="+dist, "TARGETS="+runtime.GOOS+"/"+runtime.GOARCH)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("release-build.sh: %v\n%s", err, out)
	}
	asset := "bot_" + runtime.GOOS + "_" + runtime.GOARCH
	files := map[string]string{}
	for _, name := range []string{"checksums.txt", asset} {
		data, err := os.ReadFile(filepath.Join(dist, name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = string(data)
	}
	if want := sha256Hex(files[asset]) + "  " + asset + "\n"; files["checksums.txt"] != want {
		t.Errorf("checksums.txt = %q, want %q", files["checksums.txt"], want)
	}
	var requests []string
	srv := releaseServer(t, files, &requests)
	got := runInstall(t, srv, &requests, map[string]string{"RUNNER_OS": runnerOS, "RUNNER_ARCH": runnerArch})
	if got.Exit != 0 || got.Output != "build=false\n" || got.Binary != files[asset] {
		t.Fatalf("install: exit %d, output %q, stderr %q", got.Exit, got.Output, got.Stderr)
	}
	bin := filepath.Join(t.TempDir(), "bot")
	if err := os.WriteFile(bin, []byte(got.Binary), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil || string(out) != "tiergate v1.2.3\n" {
		t.Errorf("bot version = %q, %v; want \"tiergate v1.2.3\\n\"", out, err)
	}
}
