// Command bot is tiergate: it reviews Flux CD pull requests. `bot review` compares two
// commits of a local checkout, `bot graph` prints one commit's Kustomization graph.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// exitError carries the process exit status: 1 findings at or above --fail-on, 2 the
// review could not run.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func usageErr(format string, a ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, a...)}
}

func main() {
	root := &cobra.Command{
		Use:           "bot",
		Short:         "tiergate reviews Flux CD GitOps pull requests",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(reviewCmd(), graphCmd(), &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Run:   func(cmd *cobra.Command, _ []string) { fmt.Fprintln(cmd.OutOrStdout(), "tiergate", version) },
	})
	if err := root.Execute(); err != nil {
		code := 2
		var ee *exitError
		if errors.As(err, &ee) {
			code = ee.code
		}
		if code != 1 || ee == nil || ee.err != errFindings {
			fmt.Fprintln(os.Stderr, "error:", err)
		}
		os.Exit(code)
	}
}

var errFindings = errors.New("new findings at or above --fail-on")
