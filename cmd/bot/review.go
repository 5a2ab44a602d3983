package main

import (
	"context"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/tiergate/tiergate/internal/pipeline"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/helm/sandbox"
	"github.com/tiergate/tiergate/internal/review"
	"github.com/tiergate/tiergate/internal/review/format"
	"github.com/tiergate/tiergate/internal/review/rules"
)

type reviewFlags struct {
	repo, base, head       string
	baseDir, headDir       string
	format, failOn, config string
	clusters, allowRemote  []string
	noMergeBase, noReuse   bool
	failOnUnreviewed       bool
	limits                 graph.Limits
	worktree               bool      // the head is the work tree of repo
	stderr                 io.Writer // warnings; nil: none
	// helmSandbox renders charts in bot helm-worker child processes (the flag's default);
	// false (tests) renders them in process.
	helmSandbox bool
	helm        helmPoolFlags
	cache       cacheFlags
}

func reviewCmd() *cobra.Command {
	var f reviewFlags
	cmd := &cobra.Command{
		Use:   "review",
		Short: "Review the change from --base to --head of a Flux repository",
		Example: `  bot review --repo . --base main --head HEAD
  bot review --base-dir old/ --head-dir new/ --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkHeadFlags(cmd.Flags(), &f); err != nil {
				return err
			}
			f.stderr = cmd.ErrOrStderr()
			return runReview(cmd.Context(), cmd.OutOrStdout(), f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.repo, "repo", ".", "git repository (work tree or any folder in it)")
	fl.StringVar(&f.base, "base", "", "base revision (branch, tag, sha, HEAD~1...)")
	fl.StringVar(&f.head, "head", "HEAD", "head revision")
	fl.StringVar(&f.baseDir, "base-dir", "", "compare plain directories: the base tree")
	fl.StringVar(&f.headDir, "head-dir", "", "compare plain directories: the head tree (with --base: the head; its repository's work tree is read as git would commit it)")
	fl.BoolVar(&f.worktree, "worktree", false, "the head is the work tree of --repo as git would commit it (tracked and untracked files, ignored ones left out)")
	fl.StringVar(&f.format, "format", "markdown", "output: markdown, json or sarif")
	fl.StringVar(&f.failOn, "fail-on", "", "exit 1 on a new finding at or above: error, warning, notice or never (default error)")
	fl.BoolVar(&f.failOnUnreviewed, "fail-on-unreviewed", false, "exit 1 when a head Kustomization was not built in full (default: failOnUnreviewed of .tiergate.yaml)")
	fl.StringVar(&f.config, "config", "", "configuration file (default: .tiergate.yaml of the head tree)")
	fl.StringSliceVar(&f.clusters, "cluster", nil, "review only this cluster (repeatable)")
	fl.BoolVar(&f.noMergeBase, "no-merge-base", false, "compare --base itself, not the merge-base of --base and --head")
	fl.StringSliceVar(&f.allowRemote, "allow-remote", nil, "hosts whose remote resources may be fetched over https (*.example.com for subdomains); .tiergate.yaml remote.allow can only narrow it")
	limitFlags(fl, &f.limits)
	f.helm.register(fl)
	f.cache.register(fl)
	fl.BoolVar(&f.helmSandbox, "helm-sandbox", true, "render HelmRelease charts in child processes killed at their time and memory bound (false: in process)")
	fl.BoolVar(&f.noReuse, "no-reuse", false, "build every Kustomization of both sides with fluxcd/pkg/kustomize.Build, reusing nothing (slow; for checking tiergate)")
	return cmd
}

func runReview(ctx context.Context, out io.Writer, f reviewFlags) error {
	if f.format != "markdown" && f.format != "json" && f.format != "sarif" {
		return usageErr("--format: want markdown, json or sarif, got %q", f.format)
	}
	if f.failOn != "" {
		if _, err := rules.ParseSeverity(f.failOn); err != nil {
			return usageErr("--fail-on: %v", err)
		}
	}
	if err := checkAllowRemote(f.allowRemote); err != nil {
		return err
	}
	start := time.Now()
	base, head, err := trees(f)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	checkout := time.Since(start).Seconds()
	opts := pipeline.Options{ConfigPath: f.config, Clusters: f.clusters, FailOn: f.failOn, FailOnUnreviewed: f.failOnUnreviewed, NoReuse: f.noReuse, AllowRemote: f.allowRemote, Limits: f.limits}
	if !f.noReuse {
		var done func()
		opts.Cache, opts.ChartCacheDir, done = f.cache.openCache(f.stderr)
		defer done()
	}
	if f.helmSandbox {
		helmOpts, err := f.helm.options()
		if err != nil {
			return err
		}
		pool := sandbox.NewPool(helmOpts)
		defer pool.Close()
		opts.Helm = pool
	}
	res, err := pipeline.Trees(ctx, base, head, opts)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	res.Report.Timings["checkout"] = checkout
	if err := write(out, f.format, res.Report); err != nil {
		return &exitError{code: 2, err: err}
	}
	if res.Failed() {
		return &exitError{code: 1, err: errFindings}
	}
	return nil
}

func write(out io.Writer, f string, rep *review.Report) error {
	switch f {
	case "json":
		return format.JSON(out, rep)
	case "sarif":
		return format.SARIF(out, rep, version)
	}
	_, err := io.WriteString(out, format.Markdown(rep, format.MarkdownOptions{}))
	return err
}
