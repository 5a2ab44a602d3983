package dockerfilelint

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/moby/buildkit/frontend/dockerfile/parser"
)

// Rules is what the Dockerfile must agree with: the repository's Go, its runtime image and
// the command it runs.
type Rules struct {
	GoVersion  string   // go.mod's go directive: the first stage is FROM golang:<GoVersion>[-variant]
	FinalBase  string   // the last stage's image
	Command    []string // CMD after the binary, e.g. ["serve"]
	ListenPort string   // the one port to EXPOSE, e.g. "8080"
	// EnvPrefix and EnvNames: an ENV of the last stage whose name has the prefix must be
	// one of the names (the environment that the command reads).
	EnvPrefix string
	EnvNames  map[string]bool
}

// Problems lists where f breaks r and the fixed rules below, each "line N: what", in file
// order per rule; none is nil. hadolint's rule ids are cited where one exists; docs/deploy.md
// ("Dockerfile checks") lists them all:
//   - every FROM of an image pins a tag other than latest, or a digest (DL3006, DL3007);
//   - no ADD: COPY for local files, no remote URLs (DL3020);
//   - no HEALTHCHECK: Kubernetes probes the server instead;
//   - CMD and ENTRYPOINT in JSON form (DL3025);
//   - the last stage's USER is a numeric UID other than 0 (DL3002; the kubelet can verify
//     runAsNonRoot only for a numeric UID);
//   - the last stage COPYs the first stage's `go build -o` output and runs it with r.Command.
func (f *File) Problems(r Rules) []string {
	if len(f.Stages) < 2 {
		return []string{"want a build stage and a final stage"}
	}
	var p problems
	stages := map[string]bool{}
	for _, st := range f.Stages {
		if !stages[st.Image] {
			switch tag := imageTag(st.Image); {
			case strings.Contains(st.Image, "@sha256:"):
			case tag == "":
				p.add(st.Line, "FROM %s: pin a tag (hadolint DL3006)", st.Image)
			case tag == "latest":
				p.add(st.Line, "FROM %s: pin a tag other than latest (hadolint DL3007)", st.Image)
			}
		}
		stages[st.Name] = true
		for _, n := range st.nodes {
			switch {
			case is(n, "add"):
				p.add(n.StartLine, "ADD: use COPY, and no remote URLs (hadolint DL3020)")
			case is(n, "healthcheck"):
				p.add(n.StartLine, "HEALTHCHECK: Kubernetes probes the server instead")
			case (is(n, "cmd") || is(n, "entrypoint")) && !n.Attributes["json"]:
				p.add(n.StartLine, "%s: use the JSON (exec) form (hadolint DL3025)", strings.ToUpper(n.Value))
			}
		}
	}
	build, final := f.Stages[0], f.Stages[len(f.Stages)-1]
	image, _, _ := strings.Cut(build.Image, "@")
	if want := "golang:" + r.GoVersion; image != want && !strings.HasPrefix(image, want+"-") {
		p.add(build.Line, "build stage FROM %s: want %s, the Go of go.mod", build.Image, want)
	}
	if final.Image != r.FinalBase {
		p.add(final.Line, "final stage FROM %s: want %s", final.Image, r.FinalBase)
	}
	gb, err := f.GoBuild(build, map[string]string{"TARGETOS": "linux", "TARGETARCH": "amd64"})
	if err != nil {
		return append(p, err.Error())
	}
	return append(p, f.finalStage(final, build.Name, gb.Out, r)...)
}

type problems []string

func (p *problems) add(line int, format string, a ...any) {
	*p = append(*p, fmt.Sprintf("line %d: ", line)+fmt.Sprintf(format, a...))
}

// finalStage checks the runtime stage: its USER, the binary it runs, its port and environment.
func (f *File) finalStage(final Stage, build, built string, r Rules) problems {
	var p problems
	var user *parser.Node
	var binary string
	var command, exposed []string
	for _, n := range final.nodes {
		args := words(n)
		switch {
		case is(n, "user"):
			user = n
		case is(n, "copy"):
			if slices.Contains(n.Flags, "--from="+build) && len(args) == 2 && args[0] == built {
				binary = args[1]
			}
		case is(n, "entrypoint"):
			command = append(args, command...)
		case is(n, "cmd"):
			command = append(command, args...)
		case is(n, "expose"):
			exposed = append(exposed, args...)
		case is(n, "env"):
			for i := 0; i < len(args); i += 3 {
				if strings.HasPrefix(args[i], r.EnvPrefix) && !r.EnvNames[args[i]] {
					p.add(n.StartLine, "ENV %s is not an environment variable of %q", args[i], r.Command)
				}
			}
		}
	}
	if user == nil {
		p.add(final.Line, "final stage has no USER (hadolint DL3002)")
	} else if uid, _, _ := strings.Cut(words(user)[0], ":"); !nonRootUID(uid) {
		p.add(user.StartLine, "USER %s: want a numeric UID other than 0, so that Kubernetes can verify runAsNonRoot (hadolint DL3002)", uid)
	}
	if binary == "" {
		p.add(final.Line, "final stage does not COPY --from=%s %s", build, built)
	}
	if want := append([]string{binary}, r.Command...); !slices.Equal(command, want) {
		p.add(final.Line, "ENTRYPOINT and CMD run %q, want %q", command, want)
	}
	if want := []string{r.ListenPort}; !slices.Equal(exposed, want) {
		p.add(final.Line, "EXPOSE %v, want %v", exposed, want)
	}
	return p
}

func nonRootUID(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n > 0
}

// imageTag returns the tag of an image reference, "" when it has none.
func imageTag(ref string) string {
	ref, _, _ = strings.Cut(ref, "@")
	last := ref[strings.LastIndex(ref, "/")+1:]
	_, tag, _ := strings.Cut(last, ":")
	return tag
}
