package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/tiergate/tiergate/internal/pipeline"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/review"
)

type buildFlags struct {
	repo, rev, dir, config, format, kustomization string
	clusters, allowRemote                         []string
	limits                                        graph.Limits
	cache                                         cacheFlags
}

func buildCmd() *cobra.Command {
	var f buildFlags
	cmd := &cobra.Command{
		Use:   "build",
		Short: "Print the objects Flux applies, per Kustomization (YAML or JSON), Secret values redacted",
		Long: `Build renders one commit (or --dir) as a review does and prints the objects each Flux
Kustomization applies, in its build order: all of them, those of --cluster, or those of one
--kustomization NAMESPACE/NAME. Secret values, SOPS ciphertext and values substituted from
Secrets read "<redacted>". When a selected Kustomization does not build, nothing is printed
and the exit status is 2 with its error.`,
		Example: `  bot build --kustomization flux-system/apps
  bot build --repo ../fleet --rev main --cluster prod --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.dir != "" && (cmd.Flags().Changed("rev") || cmd.Flags().Changed("repo")) {
				return usageErr("--rev and --repo do not apply to --dir")
			}
			return runBuild(cmd, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.repo, "repo", ".", "git repository")
	fl.StringVar(&f.rev, "rev", "HEAD", "revision to render")
	fl.StringVar(&f.dir, "dir", "", "render a plain directory instead of a git revision")
	fl.StringVar(&f.format, "format", "yaml", "output: yaml or json")
	fl.StringVar(&f.config, "config", "", "configuration file (default: .tiergate.yaml of the tree)")
	fl.StringSliceVar(&f.clusters, "cluster", nil, "only this cluster (repeatable)")
	fl.StringVar(&f.kustomization, "kustomization", "", "only this Flux Kustomization, NAMESPACE/NAME")
	fl.StringSliceVar(&f.allowRemote, "allow-remote", nil, "hosts whose remote resources may be fetched over https, as for review")
	limitFlags(fl, &f.limits)
	f.cache.register(fl)
	return cmd
}

// builtObject is one object of `build --format json`.
type builtObject struct {
	Cluster       string `json:"cluster"`
	Kustomization string `json:"kustomization"`
	File          string `json:"file"`
	Line          int    `json:"line"`
	// HelmRelease ("namespace/name") and Template (Helm's "# Source:") are set for an
	// object a chart renders; File and Line are then the HelmRelease's manifest.
	HelmRelease string         `json:"helmRelease,omitempty"`
	Template    string         `json:"template,omitempty"`
	Object      map[string]any `json:"object"`
}

func runBuild(cmd *cobra.Command, f buildFlags) (err error) {
	if f.format != "yaml" && f.format != "json" {
		return usageErr("--format: want yaml or json, got %q", f.format)
	}
	var only *graph.Ref
	if f.kustomization != "" {
		ns, name, ok := strings.Cut(f.kustomization, "/")
		if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
			return usageErr("--kustomization: want NAMESPACE/NAME, got %q", f.kustomization)
		}
		only = &graph.Ref{Namespace: ns, Name: name}
	}
	if err := checkAllowRemote(f.allowRemote); err != nil {
		return err
	}
	t, err := graphTree(f.repo, f.rev, f.dir, f.limits)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	cfg, err := pipeline.LoadConfig(f.config, t.Source)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	// Errors and warnings name Kustomizations, paths and refs a Secret may have written.
	stderr := &redactedOutput{stderr: cmd.ErrOrStderr()}
	g, err := renderTree(cmd.Context(), t.Source, cfg, f.clusters, f.allowRemote, f.limits, &f.cache, &stderr.warn)
	stderr.rendered(g)
	defer func() { err = stderr.flush(err) }()
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	if err := pipeline.CheckClusters(g, g, f.clusters); err != nil {
		return &exitError{code: 2, err: err}
	}
	objs, err := builtObjects(g, only, stderr.redact)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	var out bytes.Buffer
	if err := writeBuild(&out, f.format, objs); err != nil {
		return &exitError{code: 2, err: err}
	}
	// Names, labels and comments too may hold a Secret-derived value.
	_, err = io.WriteString(cmd.OutOrStdout(), stderr.text(out.String()))
	return err
}

// builtObjects lists the redacted objects of the selected Kustomizations (only, or all),
// cluster by cluster in the graph's order. A Kustomization that failed or was not built
// is an error naming it, its file and line; so is an only that no cluster holds.
// redactText (the graph's GraphTextRedactor, nil for none) is applied to every string of
// each object before it is marshalled (review.RedactedWith).
func builtObjects(g *graph.Graph, only *graph.Ref, redactText func(string) string) ([]builtObject, error) {
	var out []builtObject
	var errs []error
	found := false
	common := review.CommonValues(g)
	for _, c := range g.Clusters {
		for _, ref := range c.Order {
			if only != nil && ref != *only {
				continue
			}
			found = true
			ks := c.Kustomizations[ref]
			switch {
			case ks.Err != nil:
				errs = append(errs, fmt.Errorf("Kustomization %s (cluster %s): %s:%d: %s", ref, c.Name, ks.Err.File, ks.Err.Line, ks.Err.Message))
				continue
			case ks.Skipped != "":
				errs = append(errs, fmt.Errorf("Kustomization %s (cluster %s): not built: %s", ref, c.Name, ks.Skipped))
				continue
			}
			for _, o := range ks.Objects {
				out = append(out, builtObject{Cluster: c.Name, Kustomization: ref.String(), File: o.File, Line: o.Line,
					HelmRelease: o.HelmRelease, Template: o.Template, Object: review.RedactedWith(o, common, redactText).Object})
			}
		}
	}
	if only != nil && !found {
		return nil, fmt.Errorf("no Kustomization %s in the rendered clusters", only)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// writeBuild prints objs as JSON (an array) or as YAML documents, each after a comment
// naming its cluster, Kustomization and file:line (for a chart's object, its HelmRelease,
// the HelmRelease's file:line and the chart template).
func writeBuild(w io.Writer, format string, objs []builtObject) error {
	if format == "json" {
		if objs == nil {
			objs = []builtObject{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(objs)
	}
	for _, o := range objs {
		data, err := sigsyaml.Marshal(o.Object)
		if err != nil {
			return err
		}
		// A chart's objects all share the HelmRelease's file:line; the template tells them apart.
		from := fmt.Sprintf("%s:%d", o.File, o.Line)
		if o.HelmRelease != "" {
			from = fmt.Sprintf("HelmRelease %s (%s), template %s", o.HelmRelease, from, o.Template)
		}
		if _, err := fmt.Fprintf(w, "---\n# cluster %s, Kustomization %s, %s\n%s", o.Cluster, o.Kustomization, from, data); err != nil {
			return err
		}
	}
	return nil
}
