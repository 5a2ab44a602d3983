package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// corpusPair is one "Interesting commit pairs" row of shared/corpus/README.md.
type corpusPair struct{ repo, head, base, subject string }

var pairRow = regexp.MustCompile(`^\| ([0-9a-f]{40}) \| ([0-9a-f]{40}) \| [0-9a-f]{40} \| [0-9a-f]{40} \| ([^|]*)\|`)

func corpusPairs(t *testing.T, readme string) []corpusPair {
	data, err := os.ReadFile(readme)
	if err != nil {
		t.Skip("no shared corpus")
	}
	var out []corpusPair
	repo := ""
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "### ") {
			repo = strings.ReplaceAll(strings.TrimPrefix(l, "### "), "/", "-")
		}
		if m := pairRow.FindStringSubmatch(l); m != nil {
			out = append(out, corpusPair{repo: repo, head: m[1], base: m[2], subject: strings.TrimSpace(m[3])})
		}
	}
	return out
}

// TestCorpus reviews every listed commit pair of the real repositories in shared/corpus:
// each review must complete (exit 0 or 1) with a JSON report. With TIERGATE_CORPUS_TABLE
// set, it writes the per-pair counts recorded in docs/corpus.md to that file.
func TestCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus reviews take minutes")
	}
	corpus := "../../../shared/corpus"
	pairs := corpusPairs(t, filepath.Join(corpus, "README.md"))
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is needed to clone the corpus bundles")
	}
	clones := map[string]string{}
	checked := map[string]bool{}
	var table strings.Builder
	table.WriteString("| repository | head | subject | clusters | Kustomizations | objects | moves | findings (new/existing/resolved) | new by rule |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, p := range pairs {
		dir, ok := clones[p.repo]
		if !ok {
			dir = filepath.Join(t.TempDir(), p.repo)
			if out, err := exec.Command("git", "clone", "-q", "-b", "main", filepath.Join(corpus, p.repo+".bundle"), dir).CombinedOutput(); err != nil {
				t.Fatalf("clone %s: %v: %s", p.repo, err, out)
			}
			clones[p.repo] = dir
		}
		t.Run(p.repo+"/"+p.head[:8], func(t *testing.T) {
			f := reviewFlags{repo: dir, base: p.base, head: p.head, format: "json"}
			if cfg := filepath.Join("../../docs/corpus", p.repo+".tiergate.yaml"); fileExists(cfg) {
				f.config = cfg
			}
			var out bytes.Buffer
			err := runReview(context.Background(), &out, f)
			var ee *exitError
			if err != nil && !(errors.As(err, &ee) && ee.code == 1) {
				t.Fatalf("review %s..%s: %v", p.base, p.head, err)
			}
			if !checked[p.repo] { // once per repository: a full rebuild takes ten times longer
				checked[p.repo] = true
				f.noReuse = true
				var full bytes.Buffer
				_ = runReview(context.Background(), &full, f)
				if d := cmp.Diff(withoutTimings(t, full.Bytes()), withoutTimings(t, out.Bytes())); d != "" {
					t.Errorf("reuse changes the report (-full rebuild +reuse):\n%s", d)
				}
			}
			var rep struct {
				Clusters []struct{ Kustomizations, Objects int }
				Moves    []json.RawMessage
				Findings []struct{ Rule, Status string }
			}
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
				t.Fatal(err)
			}
			ks, objs := 0, 0
			for _, c := range rep.Clusters {
				ks += c.Kustomizations
				objs += c.Objects
			}
			count := map[string]int{}
			byRule := map[string]int{}
			for _, f := range rep.Findings {
				count[f.Status]++
				if f.Status == "new" {
					byRule[f.Rule]++
				}
			}
			fmt.Fprintf(&table, "| %s | %s | %s | %d | %d | %d | %d | %d/%d/%d | %s |\n", p.repo, p.head[:8], strings.ReplaceAll(p.subject, "|", "\\|"),
				len(rep.Clusters), ks, objs, len(rep.Moves), count["new"], count["existing"], count["resolved"], ruleCounts(byRule))
		})
	}
	if path := os.Getenv("TIERGATE_CORPUS_TABLE"); path != "" {
		if err := os.WriteFile(path, []byte(table.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func ruleCounts(m map[string]int) string {
	var parts []string
	for _, r := range []string{"prune-transient", "destructive-prune", "tier-move", "missing-depends-on", "runtime-crd-same-pass",
		"depends-on-not-found", "depends-on-cycle", "duplicate-owner", "render-error", "undefined-variable",
		"unsubstituted-variable", "missing-wait", "namespace-not-set"} {
		if m[r] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", r, m[r]))
		}
	}
	return strings.Join(parts, ", ")
}

// withoutTimings decodes a JSON report and drops its timings, which differ run to run.
func withoutTimings(t *testing.T, data []byte) map[string]any {
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("report is not JSON: %v", err)
	}
	delete(m, "timings")
	return m
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
