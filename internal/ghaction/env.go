package ghaction

import (
	"fmt"
	"os"
	"strings"
)

// Env is what the Actions runner tells a step through its environment. Paths are files on
// the runner; an empty Output or StepSummary means the step runs outside Actions and
// nothing is written there.
type Env struct {
	EventName   string // GITHUB_EVENT_NAME: pull_request or pull_request_target
	EventPath   string // GITHUB_EVENT_PATH: the webhook payload of the event
	APIURL      string // GITHUB_API_URL: https://api.github.com, or https://HOST/api/v3
	Workspace   string // GITHUB_WORKSPACE: where actions/checkout put the repository
	Output      string // GITHUB_OUTPUT: step outputs, name=value lines
	StepSummary string // GITHUB_STEP_SUMMARY: Markdown shown on the run's summary page
}

// EnvFromOS reads Env from the process environment.
func EnvFromOS() Env {
	return Env{
		EventName:   os.Getenv("GITHUB_EVENT_NAME"),
		EventPath:   os.Getenv("GITHUB_EVENT_PATH"),
		APIURL:      os.Getenv("GITHUB_API_URL"),
		Workspace:   os.Getenv("GITHUB_WORKSPACE"),
		Output:      os.Getenv("GITHUB_OUTPUT"),
		StepSummary: os.Getenv("GITHUB_STEP_SUMMARY"),
	}
}

// output is one step output; values are single lines.
type output struct{ name, value string }

// writeOutputs appends outputs to the GITHUB_OUTPUT file in its name=value form.
func writeOutputs(path string, outs []output) error {
	var b strings.Builder
	for _, o := range outs {
		if strings.ContainsAny(o.value, "\r\n") {
			return fmt.Errorf("step output %s: the value has a line break", o.name)
		}
		fmt.Fprintf(&b, "%s=%s\n", o.name, o.value)
	}
	return appendFile(path, "GITHUB_OUTPUT", b.String())
}

// appendFile appends text to a file that the runner created for the step; what names the
// variable in errors. An empty path writes nothing.
func appendFile(path, what, text string) error {
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: write %s: %w", what, path, err)
	}
	return nil
}

// escapeCommand escapes a workflow command's message (% CR LF), as the runner's
// toolkit does in @actions/core command.ts.
func escapeCommand(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value (also : and ,).
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
