// Command bot is tiergate: it reviews Flux CD pull requests. `bot review` compares two
// commits of a local checkout, `bot graph` prints one commit's Kustomization graph.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/tiergate/tiergate/internal/liblog"
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

func (e *exitError) Unwrap() error { return e.err }

func usageErr(format string, a ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, a...)}
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "bot",
		Short:         "tiergate reviews Flux CD GitOps pull requests",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(reviewCmd(), graphCmd(), buildCmd(), serveCmd(), actionCmd(), helmWorkerCmd(), &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Run:   func(cmd *cobra.Command, _ []string) { fmt.Fprintln(cmd.OutOrStdout(), "tiergate", version) },
	})
	profileFlag(root)
	withholdLibraryLogs(root)
	return root
}

// withholdLibraryLogs wraps each subcommand so that what libraries write to the standard
// log or klog while it runs is dropped and only counted (liblog): kustomize and kyaml log
// the values they handle, Secret values included, past the review's redaction.
func withholdLibraryLogs(root *cobra.Command) {
	for _, c := range root.Commands() {
		run := c.RunE
		if run == nil {
			continue
		}
		c.RunE = func(cmd *cobra.Command, args []string) error {
			w := liblog.Capture()
			defer w.Release(cmd.ErrOrStderr())
			return run(cmd, args)
		}
	}
}

// exitCode maps a command error to the process exit status.
func exitCode(err error) int {
	var ee *exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.code
	}
	return 2
}

func main() {
	if code := mustPlaceholderKey(); code != 0 {
		os.Exit(code)
	}
	// Interrupted reviews return through their defers, which remove the scratch trees.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := newRoot().ExecuteContext(ctx)
	stop()
	for _, f := range stopProfiles {
		f()
	}
	if ctx.Err() != nil && err != nil && errors.Is(err, context.Canceled) {
		err = &exitError{code: 2, err: errors.New("interrupted")}
	}
	if err != nil && !errors.Is(err, errFindings) {
		fmt.Fprintln(os.Stderr, "error:", err)
	}
	os.Exit(exitCode(err))
}

var errFindings = errors.New("new findings at or above --fail-on")
