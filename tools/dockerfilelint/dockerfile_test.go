package dockerfilelint

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const repoRoot = "../.."

func readRepoDockerfile(t *testing.T) *File {
	t.Helper()
	r, err := os.Open(filepath.Join(repoRoot, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	f, err := Parse(r)
	if err != nil {
		t.Fatalf("Dockerfile: %v", err)
	}
	return f
}

const base = "gcr.io/distroless/static-debian12:nonroot"

func TestProblems(t *testing.T) {
	rules := Rules{GoVersion: "1.26.8", FinalBase: base, Command: []string{"serve"}, ListenPort: "8080",
		EnvPrefix: "TIERGATE_", EnvNames: map[string]bool{"TIERGATE_DATA_DIR": true}}
	const build = "FROM golang:1.26.8 AS build\nARG VERSION=dev\nRUN CGO_ENABLED=0 go build -o /out/bot ./cmd/bot\n"
	const good = build + "FROM " + base + "\nCOPY --from=build /out/bot /bot\nUSER 65532:65532\nENV TIERGATE_DATA_DIR=/data\n" +
		"EXPOSE 8080\nENTRYPOINT [\"/bot\"]\nCMD [\"serve\"]\n"
	cases := []struct {
		name, dockerfile string
		want             []string
	}{
		{"good", good, nil},
		{"digest pin", strings.Replace(good, "golang:1.26.8 AS", "golang:1.26.8@sha256:0123 AS", 1), nil},
		{"variant tag", strings.Replace(good, "golang:1.26.8 AS", "golang:1.26.8-trixie AS", 1), nil},
		{"one stage", "FROM golang:1.26.8\n", []string{"want a build stage and a final stage"}},
		{"everything wrong",
			"FROM golang AS build\nRUN go build -o /out/bot ./cmd/bot\nFROM golang:1.25.0 AS other\nFROM alpine:latest\n" +
				"ADD https://example.invalid/x /x\nHEALTHCHECK CMD [\"/bot\", \"version\"]\nUSER root\nENV TIERGATE_NOPE=1\nEXPOSE 9090\nCMD /bot serve\n",
			[]string{
				"line 1: FROM golang: pin a tag (hadolint DL3006)",
				"line 4: FROM alpine:latest: pin a tag other than latest (hadolint DL3007)",
				"line 5: ADD: use COPY, and no remote URLs (hadolint DL3020)",
				"line 6: HEALTHCHECK: Kubernetes probes the server instead",
				"line 10: CMD: use the JSON (exec) form (hadolint DL3025)",
				"line 1: build stage FROM golang: want golang:1.26.8, the Go of go.mod",
				"line 4: final stage FROM alpine:latest: want " + base,
				`line 8: ENV TIERGATE_NOPE is not an environment variable of ["serve"]`,
				"line 7: USER root: want a numeric UID other than 0, so that Kubernetes can verify runAsNonRoot (hadolint DL3002)",
				"line 4: final stage does not COPY --from=build /out/bot",
				`line 4: ENTRYPOINT and CMD run ["/bot serve"], want ["" "serve"]`,
				"line 4: EXPOSE [9090], want [8080]",
			}},
		{"no USER", strings.Replace(good, "USER 65532:65532\n", "", 1),
			[]string{"line 4: final stage has no USER (hadolint DL3002)"}},
		{"USER 0", strings.Replace(good, "USER 65532:65532", "USER 0", 1),
			[]string{"line 6: USER 0: want a numeric UID other than 0, so that Kubernetes can verify runAsNonRoot (hadolint DL3002)"}},
		{"shell list in the build line", strings.Replace(good, "./cmd/bot", "./cmd/bot && strip /out/bot", 1),
			[]string{"line 3: the go build RUN must be one simple command"}},
		{"undefined variable", strings.Replace(good, "./cmd/bot", "-ldflags=-X=main.version=$VERSON ./cmd/bot", 1),
			[]string{"line 3: undefined variables [VERSON]"}},
		{"exec form build line", strings.Replace(good, "RUN CGO_ENABLED=0 go build -o /out/bot ./cmd/bot", `RUN ["go", "build", "-o", "/out/bot"]`, 1),
			[]string{"line 3: the go build RUN must use the shell form"}},
		{"no go build", strings.Replace(good, "go build", "go vet", 1),
			[]string{`stage "build" runs no go build`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse(strings.NewReader(tc.dockerfile))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, f.Problems(rules)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ name, dockerfile, want string }{
		{"empty continuation line", "FROM scratch\nRUN a \\\n\n  b\n", "line 4: Empty continuation line found in: RUN a   b"},
		{"no instructions", "# nothing\n", "file with no instructions"},
		{"no FROM", "ARG X=1\n", "no FROM"},
		{"unknown instruction", "FROM scratch\nFETCH x\n", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tc.dockerfile))
			if tc.want == "" {
				if err != nil {
					t.Fatalf("error %v, want none (BuildKit rejects unknown instructions when it builds)", err)
				}
				return
			}
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestGoBuildOfRepoDockerfile(t *testing.T) {
	f := readRepoDockerfile(t)
	got, err := f.GoBuild(f.Stages[0], map[string]string{"TARGETOS": "linux", "TARGETARCH": "arm64", "VERSION": "v1.2.3"})
	if err != nil {
		t.Fatal(err)
	}
	want := GoBuild{
		Env:  []string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm64"},
		Args: []string{"build", "-trimpath", "-ldflags=-s -w -X main.version=v1.2.3", "-o", "/out/bot", "./cmd/bot"},
		Out:  "/out/bot",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("go build (-want +got):\n%s", diff)
	}
}

func TestCopyContextOfRepo(t *testing.T) {
	dir := t.TempDir()
	if err := CopyContext(repoRoot, dir); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var top []string
	for _, e := range entries {
		top = append(top, e.Name())
	}
	if diff := cmp.Diff([]string{"cmd", "go.mod", "go.sum", "internal"}, top); diff != "" {
		t.Errorf("build context (-want +got):\n%s", diff)
	}
	var tests []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, _ error) error {
		if strings.HasSuffix(p, "_test.go") || d.Name() == "testdata" {
			tests = append(tests, p)
		}
		return nil
	})
	if len(tests) > 0 {
		t.Errorf("build context holds test files: %v", tests)
	}
}
