package main

import (
	"encoding/json"
	"github.com/spf13/cobra"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/tiergate/tiergate/internal/forge/forgetest"
	"github.com/tiergate/tiergate/internal/gitrepo"
)

// actionYAML is the part of action.yml that the tests read.
type actionYAML struct {
	Name, Description, Author string
	Branding                  struct{ Icon, Color string }
	Inputs                    map[string]struct{ Description, Default string }
	Outputs                   map[string]struct{ Description, Value string }
	Runs                      struct {
		Using string
		Steps []struct {
			ID, Name, Uses, Shell, Run, If string
			WorkingDirectory               string `json:"working-directory"`
			With, Env                      map[string]string
		}
	}
}

func readAction(t *testing.T) actionYAML {
	t.Helper()
	data, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a actionYAML
	if err := yaml.UnmarshalStrict(data, &a, yaml.DisallowUnknownFields); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return a
}

var actionOutputs = []string{"description", "new-findings", "published", "result"}

func TestActionYAMLStructure(t *testing.T) {
	a := readAction(t)
	if a.Name != "tiergate" || a.Description == "" || a.Runs.Using != "composite" || len(a.Runs.Steps) != 6 {
		t.Fatalf("name %q, runs.using %q, %d steps", a.Name, a.Runs.Using, len(a.Runs.Steps))
	}
	var inputs, outputs []string
	for name, in := range a.Inputs {
		inputs = append(inputs, name)
		if in.Description == "" {
			t.Errorf("input %s has no description", name)
		}
	}
	for name, out := range a.Outputs {
		outputs = append(outputs, name)
		if want := "${{ steps.review.outputs." + name + " }}"; out.Value != want {
			t.Errorf("output %s = %q, want %q", name, out.Value, want)
		}
	}
	sort.Strings(inputs)
	sort.Strings(outputs)
	wantInputs := []string{"allow-remote", "cache", "cache-max-mib", "clusters", "comment", "config", "fail-on", "fail-on-unreviewed", "json-report", "path", "sarif-report", "status", "token"}
	if diff := cmp.Diff(wantInputs, inputs); diff != "" {
		t.Errorf("inputs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(actionOutputs, outputs); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
	install, setup, build, restore, review, save := a.Runs.Steps[0], a.Runs.Steps[1], a.Runs.Steps[2], a.Runs.Steps[3], a.Runs.Steps[4], a.Runs.Steps[5]
	// The build cache: restored before the review by this run's key's prefixes (this ref,
	// then the repository at this tiergate), saved after it under this run's own key.
	const cachePath = "${{ runner.temp }}/tiergate-cache"
	const prefix = "tiergate-${{ runner.os }}-${{ github.repository }}-${{ github.action_ref }}-"
	const key = prefix + "${{ github.ref }}-${{ github.sha }}-${{ github.run_id }}-${{ github.run_attempt }}"
	wantRestore := map[string]string{"path": cachePath, "key": key, "restore-keys": prefix + "${{ github.ref }}-\n" + prefix + "\n"}
	if restore.Uses != "actions/cache/restore@v4" || restore.If != "inputs.cache == 'true'" || !cmp.Equal(wantRestore, restore.With) {
		t.Errorf("restore step uses %s if %q with (-want +got):\n%s", restore.Uses, restore.If, cmp.Diff(wantRestore, restore.With))
	}
	wantSave := map[string]string{"path": cachePath, "key": key}
	if save.Uses != "actions/cache/save@v4" || save.If != "${{ !cancelled() && inputs.cache == 'true' }}" || !cmp.Equal(wantSave, save.With) {
		t.Errorf("save step uses %s if %q with (-want +got):\n%s", save.Uses, save.If, cmp.Diff(wantSave, save.With))
	}
	wantInstallEnv := map[string]string{"TG_REPO": "${{ github.action_repository }}", "TG_REF": "${{ github.action_ref }}",
		"TG_DEST": "${{ runner.temp }}/tiergate-bot"}
	if install.ID != "install" || install.Shell != "bash" || install.Run != `bash "$GITHUB_ACTION_PATH/scripts/action-install.sh"` ||
		!cmp.Equal(wantInstallEnv, install.Env) {
		t.Errorf("install step: id %q, run %q, env %v", install.ID, install.Run, install.Env)
	}
	// Go is set up and the bot built only for a ref without a release.
	const noRelease = "steps.install.outputs.build == 'true'"
	wantSetup := map[string]string{"go-version-file": "${{ github.action_path }}/go.mod", "cache-dependency-path": "${{ github.action_path }}/go.sum"}
	if setup.Uses != "actions/setup-go@v5" || !cmp.Equal(wantSetup, setup.With) || setup.If != noRelease {
		t.Errorf("setup step uses %s with %v if %q", setup.Uses, setup.With, setup.If)
	}
	if build.WorkingDirectory != "${{ github.action_path }}" || build.Shell != "bash" || build.If != noRelease ||
		build.Run != `CGO_ENABLED=0 go build -trimpath -o "$RUNNER_TEMP/tiergate-bot" ./cmd/bot` {
		t.Errorf("build step: working-directory %q, run %q, if %q", build.WorkingDirectory, build.Run, build.If)
	}
	if review.ID != "review" || review.Shell != "bash" {
		t.Errorf("review step id %q shell %q", review.ID, review.Shell)
	}
	// Every input reaches the review step through its environment, once.
	used := map[string]string{}
	for k, v := range review.Env {
		m := regexp.MustCompile(`^\$\{\{ inputs\.([a-z-]+) \}\}$`).FindStringSubmatch(v)
		if m == nil {
			t.Errorf("review step env %s=%q is not an input", k, v)
			continue
		}
		used[m[1]] = k
	}
	if len(used) != len(a.Inputs) || used["token"] != "TIERGATE_TOKEN" {
		t.Errorf("inputs passed to the review step: %v", used)
	}
	if strings.Contains(review.Run, "${{") {
		t.Errorf("the review script splices expressions into bash:\n%s", review.Run)
	}
	// Every flag the script names is a flag of the command it goes to: `bot graph` for
	// gargs (a push), `bot action` for args, both for the cache flags.
	for _, line := range strings.Split(review.Run, "\n") {
		cmds := []*cobra.Command{actionCmd()}
		switch t := strings.TrimSpace(line); {
		case strings.HasPrefix(t, "gargs"):
			cmds = []*cobra.Command{graphCmd()}
		case strings.Contains(t, "cache=("):
			cmds = append(cmds, graphCmd())
		}
		for _, m := range regexp.MustCompile(`--([a-z-]+)`).FindAllStringSubmatch(line, -1) {
			for _, c := range cmds {
				if c.Flags().Lookup(m[1]) == nil {
					t.Errorf("the review script passes --%s, which `bot %s` does not have", m[1], c.Name())
				}
			}
		}
	}
}

// TestActionScriptArgs runs the review step's script in bash, with a stand-in for the
// binary that records its arguments, and parses them as `bot action` would.
func TestActionScriptArgs(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	a := readAction(t)
	review := a.Runs.Steps[4]
	tmp := t.TempDir()
	argsFile := filepath.Join(tmp, "args")
	stub := "#!" + bash + "\nprintf '%s\\n' \"$@\" > " + argsFile + "\n"
	if err := os.WriteFile(filepath.Join(tmp, "tiergate-bot"), []byte(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	inputs := func(set map[string]string) []string {
		env := []string{"RUNNER_TEMP=" + tmp, "PATH=" + os.Getenv("PATH"), "GITHUB_EVENT_NAME=" + set["event"]}
		for k, v := range review.Env {
			name := strings.TrimSuffix(strings.TrimPrefix(v, "${{ inputs."), " }}")
			val, ok := set[name]
			if !ok {
				val = a.Inputs[name].Default
			}
			env = append(env, k+"="+val)
		}
		return env
	}
	cache := filepath.Join(tmp, "tiergate-cache")
	cases := []struct {
		name string
		set  map[string]string
		want []string
	}{
		{"defaults", map[string]string{"path": "/ws", "token": "t", "event": "pull_request"},
			[]string{"action", "--repo", "/ws", "--comment=true", "--status=true", "--cache-dir", cache, "--cache-max-mib", "256"}},
		{"every input", map[string]string{"path": "/ws dir", "token": "t", "fail-on": "warning", "config": "ci/tiergate.yaml",
			"clusters": "dev,prod", "comment": "false", "status": "false", "json-report": "out/r.json", "sarif-report": "r.sarif", "cache": "false"},
			[]string{"action", "--repo", "/ws dir", "--comment=false", "--status=false", "--no-cache", "--fail-on", "warning",
				"--config", "ci/tiergate.yaml", "--cluster", "dev,prod", "--json-report", "out/r.json", "--sarif-report", "r.sarif"}},
		// A push fills the cache with the pushed commit's builds and reviews nothing.
		{"push", map[string]string{"path": "/ws", "token": "t", "event": "push", "config": "c.yaml", "allow-remote": "ghcr.io", "cache-max-mib": "64"},
			[]string{"graph", "--repo", "/ws", "--rev", "HEAD", "--format", "json", "--cache-dir", cache, "--cache-max-mib", "64",
				"--config", "c.yaml", "--allow-remote", "ghcr.io"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bash, "-e", "-c", review.Run)
			cmd.Env = inputs(tc.set)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("script: %v\n%s", err, out)
			}
			data, err := os.ReadFile(argsFile)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("arguments (-want +got):\n%s", diff)
			}
			bot := actionCmd()
			if got[0] == "graph" {
				bot = graphCmd()
			}
			if err := bot.ParseFlags(got[1:]); err != nil {
				t.Fatalf("bot %s refuses the arguments: %v", got[0], err)
			}
		})
	}
}

// TestActionExitStatus runs `bot action` as the composite step does, against the fake
// GitHub, and checks the exit status and the outputs that action.yml maps.
func TestActionExitStatus(t *testing.T) {
	repo := commitScenario(t, demo)
	r, err := gitrepo.Open(repo)
	if err != nil {
		t.Fatal(err)
	}
	base, _ := r.Resolve("HEAD~1")
	head, _ := r.Resolve("HEAD")
	data, err := os.ReadFile(filepath.Join(forgetest.FixturesDir(t), "github", "webhooks", "pull_request.synchronize.json"))
	if err != nil {
		t.Fatal(err)
	}
	var payload map[string]any
	if err := json.Unmarshal(data, &payload); err != nil {
		t.Fatal(err)
	}
	pr := payload["pull_request"].(map[string]any)
	pr["base"].(map[string]any)["sha"] = base.String()
	pr["head"].(map[string]any)["sha"] = head.String()
	data, _ = json.Marshal(payload)
	tmp := t.TempDir()
	event := filepath.Join(tmp, "event.json")
	if err := os.WriteFile(event, data, 0o644); err != nil {
		t.Fatal(err)
	}
	gh := forgetest.NewGitHub(t)
	output := filepath.Join(tmp, "output")
	for k, v := range map[string]string{"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": event,
		"GITHUB_API_URL": gh.URL, "GITHUB_WORKSPACE": repo, "GITHUB_OUTPUT": output,
		"GITHUB_STEP_SUMMARY": filepath.Join(tmp, "summary"), "TIERGATE_TOKEN": forgetest.Token} {
		t.Setenv(k, v)
	}
	cases := []struct {
		name    string
		args    []string
		code    int
		errText string
	}{
		{"new errors fail", []string{"action"}, 1, "new findings at or above --fail-on"},
		{"fail-on never", []string{"action", "--fail-on", "never", "--comment=false"}, 0, ""},
		{"bad fail-on", []string{"action", "--fail-on", "sometimes"}, 2, `--fail-on: unknown severity "sometimes" (want error, warning, notice or never)`},
		{"bad comment", []string{"action", "--comment=maybe"}, 2, `invalid argument "maybe" for "--comment" flag: strconv.ParseBool: parsing "maybe": invalid syntax`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(output)
			_, code, err := run(t, tc.args...)
			if code != tc.code || (err == nil) != (tc.errText == "") || (err != nil && err.Error() != tc.errText) {
				t.Fatalf("exit %d, error %v; want %d, %q", code, err, tc.code, tc.errText)
			}
			if tc.code == 2 {
				return
			}
			data, _ := os.ReadFile(output)
			var names []string
			for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
				name, _, _ := strings.Cut(line, "=")
				names = append(names, name)
			}
			sort.Strings(names)
			if diff := cmp.Diff(actionOutputs, names); diff != "" {
				t.Fatalf("GITHUB_OUTPUT names (-want +got):\n%s", diff)
			}
		})
	}
	t.Setenv("GITHUB_EVENT_NAME", "push")
	_, code, err := run(t, "action")
	if want := event + ": GitHub push event: not a pull request event (want pull_request or pull_request_target)"; code != 2 || err == nil || err.Error() != want {
		t.Fatalf("push event: exit %d, error %v", code, err)
	}
}

// TestActionDocsWorkflows checks the copy-paste workflows of the docs: valid YAML, and each
// use of the action sets only inputs that action.yml has.
func TestActionDocsWorkflows(t *testing.T) {
	a := readAction(t)
	block := regexp.MustCompile("(?s)```yaml\n(.*?)```")
	uses := 0
	for _, doc := range []string{"../../docs/github-action.md", "../../README.md"} {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range block.FindAllStringSubmatch(string(data), -1) {
			var wf struct {
				Jobs map[string]struct {
					Steps []struct {
						Uses string
						With map[string]any
					}
				}
			}
			var steps []struct {
				Uses string
				With map[string]any
			}
			if err := yaml.Unmarshal([]byte(m[1]), &wf); err != nil || len(wf.Jobs) == 0 {
				// A fragment: a list of steps.
				if err := yaml.Unmarshal([]byte(m[1]), &steps); err != nil {
					continue // not a workflow (.tiergate.yaml examples)
				}
			}
			for _, j := range wf.Jobs {
				steps = append(steps, j.Steps...)
			}
			for _, s := range steps {
				if !strings.HasPrefix(s.Uses, "tiergate/tiergate@") {
					continue
				}
				uses++
				for k := range s.With {
					if _, ok := a.Inputs[k]; !ok {
						t.Errorf("%s: the action has no input %q", doc, k)
					}
				}
			}
		}
	}
	if uses < 3 {
		t.Fatalf("found %d uses of the action in the docs, want at least 3", uses)
	}
}
