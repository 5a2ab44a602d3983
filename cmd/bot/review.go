package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/tiergate/tiergate/internal/config"
	"github.com/tiergate/tiergate/internal/gitrepo"
	"github.com/tiergate/tiergate/internal/render"
	"github.com/tiergate/tiergate/internal/review"
	"github.com/tiergate/tiergate/internal/review/format"
	"github.com/tiergate/tiergate/internal/review/rules"
)

type reviewFlags struct {
	repo, base, head       string
	baseDir, headDir       string
	format, failOn, config string
	clusters               []string
	noMergeBase            bool
}

func reviewCmd() *cobra.Command {
	var f reviewFlags
	cmd := &cobra.Command{
		Use:   "review",
		Short: "Review the change from --base to --head of a Flux repository",
		Example: `  bot review --repo . --base main --head HEAD
  bot review --base-dir old/ --head-dir new/ --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runReview(cmd.Context(), cmd.OutOrStdout(), f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.repo, "repo", ".", "git repository (work tree or any folder in it)")
	fl.StringVar(&f.base, "base", "", "base revision (branch, tag, sha, HEAD~1...)")
	fl.StringVar(&f.head, "head", "HEAD", "head revision")
	fl.StringVar(&f.baseDir, "base-dir", "", "compare plain directories: the base tree")
	fl.StringVar(&f.headDir, "head-dir", "", "compare plain directories: the head tree")
	fl.StringVar(&f.format, "format", "markdown", "output: markdown, json or sarif")
	fl.StringVar(&f.failOn, "fail-on", "", "exit 1 on a new finding at or above: error, warning, notice or never (default error)")
	fl.StringVar(&f.config, "config", "", "configuration file (default: .tiergate.yaml of the head tree)")
	fl.StringSliceVar(&f.clusters, "cluster", nil, "review only this cluster (repeatable)")
	fl.BoolVar(&f.noMergeBase, "no-merge-base", false, "compare --base itself, not the merge-base of --base and --head")
	return cmd
}

func runReview(ctx context.Context, out io.Writer, f reviewFlags) error {
	if f.format != "markdown" && f.format != "json" && f.format != "sarif" {
		return usageErr("--format: want markdown, json or sarif, got %q", f.format)
	}
	base, head, err := trees(f)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	defer base.cleanup()
	defer head.cleanup()
	cfg, err := loadConfig(f.config, head.dir)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	failOn := f.failOn
	if failOn == "" {
		failOn = cfg.FailOn
	}
	if failOn == "" {
		failOn = "error"
	}
	threshold, err := rules.ParseSeverity(failOn)
	if err != nil {
		return usageErr("--fail-on: %v", err)
	}
	opts := render.Options{Config: cfg, Clusters: f.clusters}
	bg, err := render.Render(ctx, base.dir, opts)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	hg, err := render.Render(ctx, head.dir, opts)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	rep := review.Review(bg, hg, review.Options{
		BaseRev: base.rev, HeadRev: head.rev,
		Env: rules.Env{Catalog: rules.NewCatalog(cfg.RuntimeCRDs), Strict: cfg.Strict()},
	})
	if err := write(out, f.format, rep); err != nil {
		return &exitError{code: 2, err: err}
	}
	if rep.Fails(threshold) {
		return &exitError{code: 1, err: errFindings}
	}
	return nil
}

// trees checks out (or copies) both sides; the base is the merge-base unless told not.
func trees(f reviewFlags) (*tree, *tree, error) {
	if f.baseDir != "" || f.headDir != "" {
		if f.baseDir == "" || f.headDir == "" {
			return nil, nil, fmt.Errorf("--base-dir and --head-dir go together")
		}
		b, err := copyDir(f.baseDir)
		if err != nil {
			return nil, nil, err
		}
		h, err := copyDir(f.headDir)
		if err != nil {
			b.cleanup()
			return nil, nil, err
		}
		return b, h, nil
	}
	if f.base == "" {
		return nil, nil, fmt.Errorf("--base is required (or --base-dir and --head-dir)")
	}
	repo, err := gitrepo.Open(f.repo)
	if err != nil {
		return nil, nil, err
	}
	bh, err := repo.Resolve(f.base)
	if err != nil {
		return nil, nil, err
	}
	hh, err := repo.Resolve(f.head)
	if err != nil {
		return nil, nil, err
	}
	if !f.noMergeBase {
		if bh, err = repo.MergeBase(bh, hh); err != nil {
			return nil, nil, err
		}
	}
	b, err := checkoutHash(repo, bh.String())
	if err != nil {
		return nil, nil, err
	}
	h, err := checkoutHash(repo, hh.String())
	if err != nil {
		b.cleanup()
		return nil, nil, err
	}
	return b, h, nil
}

// loadConfig reads --config, else the head tree's .tiergate.yaml when present: the PR
// may change the configuration it is reviewed with, as it changes the manifests.
func loadConfig(path, headDir string) (*config.Config, error) {
	if path != "" {
		return config.Load(path, false)
	}
	return config.Load(filepath.Join(headDir, config.FileName), true)
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

var _ = os.Stdout
