package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/tiergate/tiergate/internal/render/helm"
	"github.com/tiergate/tiergate/internal/render/helm/sandbox"
)

// helmWorkerCmd is the child process sandbox.Pool runs: it renders charts sent on stdin
// and answers on stdout. Hidden: only the bot itself starts it.
func helmWorkerCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "helm-worker",
		Short:  "Render Helm charts for the parent bot process (internal)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			// The protocol owns stdout; anything else printing there would corrupt a frame.
			out := os.Stdout
			os.Stdout = os.Stderr
			return sandbox.Serve(os.Stdin, out, helm.Render)
		},
	}
}
