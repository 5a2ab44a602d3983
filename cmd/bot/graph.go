package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tiergate/tiergate/internal/gitrepo"
	"github.com/tiergate/tiergate/internal/pipeline"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/helmfile"
	"github.com/tiergate/tiergate/internal/review"
	"github.com/tiergate/tiergate/internal/review/format"
)

func graphCmd() *cobra.Command {
	var repoDir, rev, dir, formatName, configPath string
	var clusters, allowRemote []string
	var limits graph.Limits
	var cache cacheFlags
	cmd := &cobra.Command{
		Use:   "graph",
		Short: "Print the Flux Kustomization graph of one commit (text, json or mermaid)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			if dir != "" && (cmd.Flags().Changed("rev") || cmd.Flags().Changed("repo")) {
				return usageErr("--rev and --repo do not apply to --dir")
			}
			if formatName != "text" && formatName != "json" && formatName != "mermaid" {
				return usageErr("--format: want text, json or mermaid, got %q", formatName)
			}
			if err := checkAllowRemote(allowRemote); err != nil {
				return err
			}
			t, err := graphTree(repoDir, rev, dir, limits)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			cfg, err := pipeline.LoadConfig(configPath, t.Source)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			// Errors and warnings name Kustomizations a Secret may have named.
			stderr := &redactedOutput{stderr: cmd.ErrOrStderr()}
			g, err := renderTree(cmd.Context(), t.Source, cfg, clusters, allowRemote, limits, &cache, &stderr.warn)
			stderr.rendered(g)
			defer func() { err = stderr.flush(err) }()
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			if err := pipeline.CheckClusters(g, g, clusters); err != nil {
				return &exitError{code: 2, err: err}
			}
			pre, notes := pipeline.Preinstalled(cfg, configPath, t.Source, g)
			var out bytes.Buffer
			if err := printGraph(cmd.Context(), &out, formatName, g, preinstalled{Groups: pre, Notes: notes}); err != nil {
				return err
			}
			// A Kustomization or HelmRelease named after a Secret-derived value.
			_, err = io.WriteString(cmd.OutOrStdout(), stderr.text(out.String()))
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&repoDir, "repo", ".", "git repository")
	fl.StringVar(&rev, "rev", "HEAD", "revision to render")
	fl.StringVar(&dir, "dir", "", "render a plain directory instead of a git revision")
	fl.StringVar(&formatName, "format", "text", "output: text, json or mermaid")
	fl.StringVar(&configPath, "config", "", "configuration file (default: .tiergate.yaml of the tree)")
	fl.StringSliceVar(&clusters, "cluster", nil, "only this cluster (repeatable)")
	fl.StringSliceVar(&allowRemote, "allow-remote", nil, "hosts whose remote resources may be fetched over https, as for review")
	limitFlags(fl, &limits)
	cache.register(fl)
	return cmd
}

func graphTree(repoDir, rev, dir string, l graph.Limits) (*pipeline.Tree, error) {
	if dir != "" {
		return pipeline.ReadDir(dir, l)
	}
	repo, err := gitrepo.Open(repoDir)
	if err != nil {
		return nil, err
	}
	defer repo.Close()
	h, err := repo.Resolve(rev)
	if err != nil {
		return nil, err
	}
	return pipeline.Load(repo, h, l)
}

// preinstalled is what exists before Flux runs, printed with the graph of every cluster.
type preinstalled struct {
	Groups []pipeline.PreinstalledGroup `json:"preinstalled,omitempty"`
	Notes  []helmfile.Note              `json:"helmfileNotes,omitempty"`
}

// clusterGraphJSON is one element of `graph --format json`.
type clusterGraphJSON struct {
	review.ClusterGraph
	preinstalled
}

func printGraph(_ context.Context, w io.Writer, f string, g *graph.Graph, pre preinstalled) error {
	var graphs []review.ClusterGraph
	empty := &graph.Graph{}
	rep := review.Review(empty, g, review.Options{})
	graphs = rep.Graphs
	switch f {
	case "json":
		out := make([]clusterGraphJSON, 0, len(graphs))
		for _, cg := range graphs {
			out = append(out, clusterGraphJSON{cg, pre})
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	case "mermaid":
		for _, cg := range graphs {
			fmt.Fprintf(w, "%%%% cluster %s\n%s", cg.Cluster, format.Mermaid(cg))
		}
		return nil
	}
	for _, c := range g.Clusters {
		fmt.Fprintf(w, "cluster %s (root %s, %s, %s)\n", c.Name, cmp.Or(c.RootDir, "."),
			count(len(c.Kustomizations), "Kustomization"), count(c.ObjectCount(), "object"))
		for _, ref := range c.Order {
			ks := c.Kustomizations[ref]
			var deps []string
			for _, d := range ks.Spec.DependsOn {
				deps = append(deps, d.String())
			}
			state := count(len(ks.Objects), "object")
			switch {
			case ks.Err != nil:
				state = "build error: " + ks.Err.Error()
			case ks.Skipped != "":
				state = "not built: " + ks.Skipped
			}
			fmt.Fprintf(w, "  %s  path=%s prune=%v dependsOn=[%s]  %s\n", ref, ks.Spec.Path, ks.Spec.Prune, strings.Join(deps, ", "), state)
			printReleases(w, graphs, c.Name, ref.String())
		}
	}
	printPreinstalled(w, pre)
	return nil
}

// printReleases writes the HelmReleases of Kustomization ks, each with its chart and the
// objects it renders, or why it renders none.
func printReleases(w io.Writer, graphs []review.ClusterGraph, cluster, ks string) {
	for _, g := range graphs {
		if g.Cluster != cluster {
			continue
		}
		for _, n := range g.Nodes {
			if n.Kustomization != ks {
				continue
			}
			for _, hr := range n.HelmReleases {
				switch {
				case hr.NotRendered != "":
					fmt.Fprintf(w, "    %s\n", hr.NotRendered) // it names the HelmRelease
				case hr.Error != "":
					fmt.Fprintf(w, "    HelmRelease %s  render error: %s\n", hr.HelmRelease, hr.Error)
				default:
					fmt.Fprintf(w, "    HelmRelease %s  chart %s %s, %s\n", hr.HelmRelease, hr.Chart, hr.Version, count(len(hr.Objects), "object"))
					for _, id := range hr.Objects {
						fmt.Fprintf(w, "      %s\n", id)
					}
					for _, n := range hr.Notes {
						fmt.Fprintf(w, "      note: %s\n", n)
					}
				}
			}
		}
	}
}

// printPreinstalled is the text form: "preinstalled: cert-manager.io (helmfile
// bootstrap/helmfile.d/01-apps.yaml:12, chart cert-manager), …", then one line per note.
func printPreinstalled(w io.Writer, pre preinstalled) {
	if len(pre.Groups) > 0 {
		parts := make([]string, 0, len(pre.Groups))
		for _, p := range pre.Groups {
			parts = append(parts, p.String())
		}
		fmt.Fprintf(w, "preinstalled: %s\n", strings.Join(parts, ", "))
	}
	for _, n := range pre.Notes {
		fmt.Fprintf(w, "helmfile %s\n", n)
	}
}

// count is "1 thing" or "n things".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
