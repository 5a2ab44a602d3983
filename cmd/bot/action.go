package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/tiergate/tiergate/internal/ghaction"
	"github.com/tiergate/tiergate/internal/render/helm/sandbox"
	"github.com/tiergate/tiergate/internal/review/rules"
)

func actionCmd() *cobra.Command {
	var o ghaction.Options
	var cache cacheFlags
	cmd := &cobra.Command{
		Use:   "action",
		Short: "Review the pull request of a GitHub Actions run and post the review to it",
		Long: `Runs inside a GitHub Actions job on a pull_request event (see action.yml and
docs/github-action.md): reviews the merge-base and the head of the PR in the checkout, posts
or updates the summary comment, the line comments and the commit status "tiergate" with the
token, and writes the step summary and the step outputs result, new-findings, description
and published. The token is read from $TIERGATE_TOKEN.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.FailOn != "" {
				if _, err := rules.ParseSeverity(o.FailOn); err != nil {
					return usageErr("--fail-on: %v", err)
				}
			}
			if err := checkAllowRemote(o.AllowRemote); err != nil {
				return err
			}
			o.Token, o.Version, o.Log = os.Getenv("TIERGATE_TOKEN"), version, cmd.ErrOrStderr()
			pool := sandbox.NewPool(sandbox.Options{}) // the PR's charts are untrusted
			defer pool.Close()
			o.Helm = pool
			var done func()
			o.Cache, o.ChartCacheDir, done = cache.openCache(cmd.ErrOrStderr())
			defer done()
			res, err := ghaction.Run(cmd.Context(), ghaction.EnvFromOS(), o)
			switch {
			case err != nil:
				return &exitError{code: 2, err: err}
			case res.Failed:
				return &exitError{code: 1, err: errFindings}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Repo, "repo", "", "git checkout to review (default $GITHUB_WORKSPACE)")
	fl.StringVar(&o.FailOn, "fail-on", "", "exit 1 on a new finding at or above: error, warning, notice or never (default error)")
	fl.BoolVar(&o.FailOnUnreviewed, "fail-on-unreviewed", false, "exit 1 when a head Kustomization was not built in full (default: failOnUnreviewed of .tiergate.yaml)")
	fl.StringVar(&o.ConfigPath, "config", "", "configuration file (default: .tiergate.yaml of the head tree)")
	fl.StringSliceVar(&o.Clusters, "cluster", nil, "review only this cluster (repeatable)")
	fl.StringSliceVar(&o.AllowRemote, "allow-remote", nil, "hosts remote resources and charts may be fetched from, as review's (never for a PR from a fork)")
	fl.BoolVar(&o.Comment, "comment", true, "post or update the summary comment and post line comments")
	fl.BoolVar(&o.Status, "status", true, `set the commit status "tiergate"`)
	fl.StringVar(&o.JSONPath, "json-report", "", "also write the JSON report to this file")
	fl.StringVar(&o.SARIFPath, "sarif-report", "", "also write the SARIF report to this file")
	cache.register(fl)
	return cmd
}
