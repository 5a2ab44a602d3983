package helmrelease

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"helm.sh/helm/v4/pkg/chart/loader/archive"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/ignore"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
)

// repoChart is a chart loaded from the repository's files, with the digest of every
// file it read (the cache key of its render).
type repoChart struct {
	Chart  *chart.Chart
	Digest string
}

// MissingChart is the error of an in-repo chart whose folder the repository does not have:
// source-controller's local chart builder cannot load its Chart.yaml
// (internal/helm/chart/builder_local.go localChartBuilder.Build, LoadChartMetadata), the
// HelmChart is not ready and helm-controller installs or upgrades nothing.
type MissingChart struct {
	// Dir is the repository folder looked for ("charts/nope").
	Dir string
	// Names is ChartSource.Names: the field and source that name it ("" when unknown).
	Names string
}

func (e *MissingChart) Error() string {
	if e.Names == "" {
		return fmt.Sprintf("chart folder %s is not in the repository", e.Dir)
	}
	return fmt.Sprintf("%s names the folder %s, which is not in the repository", e.Names, e.Dir)
}

// LoadRepoChart loads the chart in the repo folder cs.Dir from the snapshot, never from
// disk: the snapshot holds no symlinks, so nothing outside the tree is read (HELM.md §6).
// Helm's directory loader (loader.LoadDir) skips what .helmignore and its defaults name,
// and so does this. Dependencies must be vendored under charts/: one that is not would be
// downloaded by source-controller's DependencyManager, so the chart is remote. valuesFiles
// (relative to the source root) replace values.yaml as source-controller's local builder
// does (mergeFileValues, then OverwriteChartDefaultValues, internal/helm/chart).
func LoadRepoChart(snap *graph.Snapshot, cs ChartSource, maxBytes int64) (*repoChart, error) {
	return LoadRepoChartMemo(snap, cs, maxBytes, nil)
}

// ChartMemo keeps charts that LoadRepoChartMemo loaded, by a key naming the chart's folder
// and the name and digest of every file it read: a HelmRelease fleet of one in-repo chart
// loads it once per tree, not once per release. The charts are shared, so nothing may modify
// them (helm.Render clones what Helm's dependency processing changes, chartcopy.go).
type ChartMemo interface {
	// Chart returns the chart kept under key.
	Chart(key string) (*chart.Chart, bool)
	// KeepChart keeps ch under key; size estimates the bytes of the files it was loaded from.
	KeepChart(key string, ch *chart.Chart, size int64)
}

// LoadRepoChartMemo is LoadRepoChart, taking the loaded chart from memo (nil: none) when it
// has one loaded from the same files. A chart with valuesFiles is always loaded again.
func LoadRepoChartMemo(snap *graph.Snapshot, cs ChartSource, maxBytes int64, memo ChartMemo) (*repoChart, error) {
	if snap.State(cs.Dir) != "dir" {
		return nil, &MissingChart{Dir: cs.Dir, Names: cs.Names}
	}
	rules := ignore.Empty()
	if data, ok := snap.Read(path.Join(cs.Dir, ignore.HelmIgnore)); ok {
		r, err := ignore.Parse(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path.Join(cs.Dir, ignore.HelmIgnore), err)
		}
		rules = r
	}
	rules.AddDefaults()
	var files []*archive.BufferedFile
	var sum strings.Builder
	var total int64
	var walk func(rel string) error
	walk = func(rel string) error {
		for _, n := range snap.Names[path.Join(cs.Dir, rel)] {
			name := path.Join(rel, n)
			full := path.Join(cs.Dir, name)
			isDir := snap.State(full) == "dir"
			if rules.Ignore(name, fsys.FileInfo{FileName: n, FileMode: dirMode(isDir)}) {
				continue
			}
			if isDir {
				if err := walk(name); err != nil {
					return err
				}
				continue
			}
			data, ok := snap.Read(full)
			if !ok {
				if err := refusedFile(snap, full); err != nil {
					return err
				}
				continue // a symlink: source-controller's artifact has none
			}
			if total += int64(len(data)); total > maxBytes {
				return fmt.Errorf("chart %s is over tiergate's limit of %d bytes (--max-build-bytes)", cs.Dir, maxBytes)
			}
			files = append(files, &archive.BufferedFile{Name: name, Data: bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))})
			fmt.Fprintf(&sum, "%s\x00%s\x00", name, snap.Digest(full))
		}
		return nil
	}
	if err := walk("."); err != nil {
		return nil, err
	}
	memoKey := ""
	if memo != nil && len(cs.ValuesFiles) == 0 {
		memoKey = "chart\x00" + graph.Digest([]byte(cs.Dir+"\x00"+sum.String()))
		if ch, ok := memo.Chart(memoKey); ok {
			return &repoChart{Chart: ch, Digest: graph.Digest([]byte(sum.String()))}, nil
		}
	}
	ch, err := loader.LoadFiles(files)
	if err != nil {
		return nil, fmt.Errorf("load chart %s: %w", cs.Dir, err)
	}
	if err := vendored(ch, cs.Dir); err != nil {
		return nil, err
	}
	if memoKey != "" {
		memo.KeepChart(memoKey, ch, total)
	}
	if len(cs.ValuesFiles) > 0 {
		vals, err := mergeFileValues(snap, cs, &sum)
		if err != nil {
			return nil, err
		}
		ch.Values = vals
		for _, f := range ch.Raw {
			if f.Name == "values.yaml" {
				f.Data, _ = sigsyaml.Marshal(vals)
			}
		}
	}
	return &repoChart{Chart: ch, Digest: graph.Digest([]byte(sum.String()))}, nil
}

// vendored fails when a dependency of Chart.yaml is not under charts/.
func vendored(ch *chart.Chart, dir string) error {
	have := map[string]bool{}
	for _, d := range ch.Dependencies() {
		have[d.Name()] = true
	}
	for _, d := range ch.Metadata.Dependencies {
		if !have[d.Name] {
			return &RemoteDependency{fmt.Sprintf("chart %s depends on %s %s from %s, which is not vendored under charts/: source-controller downloads it",
				dir, d.Name, d.Version, d.Repository)}
		}
	}
	return nil
}

// RemoteDependency is a chart whose dependency is fetched at build time.
type RemoteDependency struct{ Msg string }

func (e *RemoteDependency) Error() string { return e.Msg }

// mergeFileValues merges cs.valuesFiles, relative to the source root, in order
// (source-controller mergeFileValues); a missing one fails unless ignoreMissing.
func mergeFileValues(snap *graph.Snapshot, cs ChartSource, sum *strings.Builder) (map[string]any, error) {
	out := map[string]any{}
	for _, p := range cs.ValuesFiles {
		rel := fsys.CleanPath(path.Join(cs.root, p))
		data, ok := snap.Read(rel)
		if !ok {
			if err := refusedFile(snap, rel); err != nil {
				return nil, err
			}
			if cs.ignoreMissing {
				continue
			}
			return nil, fmt.Errorf("no values file found at path '%s' (reference '%s')", rel, p)
		}
		var v map[string]any
		if err := sigsyaml.Unmarshal(data, &v); err != nil {
			return nil, fmt.Errorf("unmarshaling values from '%s' failed: %w", p, err)
		}
		out = loader.MergeMaps(out, v)
		fmt.Fprintf(sum, "values\x00%s\x00%s\x00", p, snap.Digest(rel))
	}
	return out, nil
}

// RefusedFileError is a chart or values file that source-controller packs into the
// artifact but that tiergate's source kept out unread (fsys.SourceBuilder): YAML aliases
// that expand without bound, or a file over --max-file-bytes. Dropping it would render the
// chart without it and pass silently, so the render fails naming the file. Limit says the
// refusal is tiergate's own bound (the size), not one Helm shares: Helm's YAML reader also
// refuses the aliases ("excessive aliasing", sigs.k8s.io/yaml/goyaml.v2 decode), so that
// is the chart's failure.
type RefusedFileError struct {
	File, Why string
	Limit     bool
}

func (e *RefusedFileError) Error() string {
	return fmt.Sprintf("chart file %s is not read: %s", e.File, e.Why)
}

// refusedFile is the RefusedFileError of regular file rel that snap refused, nil for one
// that is absent or a symlink (not in source-controller's artifact either).
func refusedFile(snap *graph.Snapshot, rel string) error {
	why, ok := snap.Refused[rel]
	if !ok || snap.State(rel) != "file" {
		return nil
	}
	return &RefusedFileError{File: rel, Why: why, Limit: !strings.Contains(why, "YAML aliases")}
}

func dirMode(dir bool) fs.FileMode {
	if dir {
		return fs.ModeDir
	}
	return 0
}
