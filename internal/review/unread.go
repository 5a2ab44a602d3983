package review

import (
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// unreadFiles lists the manifests (graph.IsYAMLName) that differ between the base and head trees (added, removed or
// changed) and that no cluster reads at either commit. When every Kustomization records
// what its build read (Kustomization.Reads) that is exact (exactUnread); otherwise it is
// approximated from folders: outside every Kustomization's path,
// not the file or folder of any rendered object or Kustomization, nor of an in-repo chart,
// nor a file discovery reads (.tiergate.yaml, .sourceignore, a root's manifest), nor under
// a top folder that a kustomization.yaml the clusters read names (kustomize may read a patch
// or component there without an object coming from it). A PR made only of such files has
// no finding because nothing applies them, which "no new findings" alone does not say. It returns nil when a cluster's tree is not known (a graph from
// another process's cache), when the clusters do not share one tree (mapped sources), and
// when a Kustomization was not built (unknownReads): what it reads is unknown.
func unreadFiles(base, head *graph.Graph) []string {
	bs, ok1 := sharedSnapshot(base)
	hs, ok2 := sharedSnapshot(head)
	if !ok1 || !ok2 || (bs == nil && hs == nil) || unknownReads(base) || unknownReads(head) {
		return nil
	}
	if builds, ok := recordedReads(base, head); ok {
		return exactUnread(builds, bs, hs)
	}
	cov := coverage{files: map[string]bool{}, dirs: map[string]bool{}}
	for _, g := range []*graph.Graph{base, head} {
		for _, c := range g.Clusters {
			cov.cluster(c)
		}
	}
	refs := kustomizationTexts(cov, bs, hs)
	var out []string
	for _, f := range changedFiles(bs, hs) {
		// Only manifests: a README or a script outside the clusters is no news.
		if graph.IsYAMLName(f) && !cov.reads(f) && !referenced(refs, f) {
			out = append(out, f)
		}
	}
	return out
}

// recordedReads returns the Kustomizations of the graphs with the clusters they are in,
// and true when every one records what its build read (Kustomization.Reads): then what
// no cluster reads is known exactly, not guessed from folders.
func recordedReads(graphs ...*graph.Graph) ([]clusterBuild, bool) {
	var out []clusterBuild
	for _, g := range graphs {
		for _, c := range g.Clusters {
			for _, ks := range c.Kustomizations {
				if ks.Reads == nil {
					return nil, false
				}
				out = append(out, clusterBuild{c, ks})
			}
			if c.Contested != nil {
				if c.Contested.Reads == nil {
					return nil, false
				}
				out = append(out, clusterBuild{c, c.Contested})
			}
		}
	}
	return out, true
}

// clusterBuild is a Kustomization with its cluster.
type clusterBuild struct {
	c  *graph.Cluster
	ks *graph.Kustomization
}

// exactUnread lists the changed manifests that no build of builds looked at
// (Kustomization.ReadsPath), that no in-repo chart of theirs holds, and that discovery
// and source-controller do not read (a cluster's root file, .tiergate.yaml,
// .sourceignore).
func exactUnread(builds []clusterBuild, snaps ...*graph.Snapshot) []string {
	cov := coverage{files: map[string]bool{}, dirs: map[string]bool{}}
	for _, b := range builds {
		cov.file(b.c.RootFile)
		for _, rel := range b.ks.Releases {
			cov.chart(rel.Chart)
		}
		for _, s := range b.ks.HelmReleaseSkipped {
			cov.chart(s.Chart)
		}
	}
	var out []string
	for _, f := range changedFiles(snaps[0], snaps[1]) {
		if !graph.IsYAMLName(f) || cov.reads(f) || slices.ContainsFunc(builds, func(b clusterBuild) bool { return b.ks.ReadsPath(f) }) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// kustomizationTexts are the kustomization.yaml files the clusters read, at both commits:
// kustomize follows their resources, patches, components and generators anywhere in the
// tree, also where no rendered object comes from.
func kustomizationTexts(cov coverage, snaps ...*graph.Snapshot) []string {
	var out []string
	for _, s := range snaps {
		if s == nil {
			continue
		}
		for f, data := range s.Data {
			switch path.Base(f) {
			case "kustomization.yaml", "kustomization.yml", "Kustomization":
				if cov.reads(f) {
					out = append(out, string(data))
				}
			}
		}
	}
	return out
}

// referenced reports whether a kustomization file names f's first folder (or f itself, at
// the root) as a path element ("../../archive/x", "- archive"): kustomize may then read f,
// so it is not claimed unread. The match is loose on purpose: a claim must be certain.
func referenced(texts []string, f string) bool {
	seg, _, _ := strings.Cut(f, "/")
	for _, t := range texts {
		for i := strings.Index(t, seg); i >= 0; {
			before := i == 0 || strings.ContainsRune("/ \t\n\"'", rune(t[i-1]))
			end := i + len(seg)
			after := end == len(t) || strings.ContainsRune("/ \t\r\n\"'", rune(t[end]))
			if before && after {
				return true
			}
			next := strings.Index(t[end:], seg)
			if next < 0 {
				break
			}
			i = end + next
		}
	}
	return false
}

// unknownReads reports whether a Kustomization of g was not built, or not in full: one of
// an unmapped source (its path may be anywhere), one that fails or needs remote content.
func unknownReads(g *graph.Graph) bool {
	for _, c := range g.Clusters {
		for _, ks := range c.Kustomizations {
			if ks.Skipped != "" || ks.NeedsRemote != "" || ks.Err != nil {
				return true
			}
		}
	}
	return false
}

// sharedSnapshot returns the one tree every cluster of g was rendered from; false when a
// cluster's is unknown or two differ. A graph without clusters has none (nil, true).
func sharedSnapshot(g *graph.Graph) (*graph.Snapshot, bool) {
	var s *graph.Snapshot
	for _, c := range g.Clusters {
		switch {
		case c.Source == nil:
			return nil, false
		case s == nil:
			s = c.Source
		case s != c.Source:
			return nil, false
		}
	}
	return s, true
}

// changedFiles are the regular files whose content differs between the trees, or that
// only one has, sorted.
func changedFiles(base, head *graph.Snapshot) []string {
	seen := map[string]bool{}
	var out []string
	for _, pair := range [][2]*graph.Snapshot{{base, head}, {head, base}} {
		a, b := pair[0], pair[1]
		if a == nil {
			continue
		}
		for f := range a.Data {
			if seen[f] {
				continue
			}
			seen[f] = true
			if b == nil || !hasFile(b, f) || a.Digest(f) != b.Digest(f) {
				out = append(out, f)
			}
		}
	}
	sort.Strings(out)
	return out
}

func hasFile(s *graph.Snapshot, f string) bool {
	_, ok := s.Data[f]
	return ok
}

// coverage is what the clusters read: files, and folders read with all they hold.
type coverage struct {
	files, dirs map[string]bool
}

func (cv coverage) cluster(c *graph.Cluster) {
	cv.file(c.RootFile)
	cv.dir(c.RootDir)
	roots := []string{"."}
	for _, v := range c.Sources {
		roots = append(roots, v.Dir)
	}
	add := func(ks *graph.Kustomization) {
		cv.file(ks.File)
		for _, r := range roots { // spec.path is relative to its source's folder
			cv.dir(path.Join(r, ks.Spec.Path))
		}
		for _, o := range ks.Objects {
			cv.file(o.File)
			cv.dir(path.Dir(o.File)) // its kustomization.yaml and siblings build it
		}
		for _, rel := range ks.Releases {
			cv.chart(rel.Chart)
		}
		for _, s := range ks.HelmReleaseSkipped {
			cv.file(s.File)
			cv.chart(s.Chart)
		}
	}
	for _, ks := range c.Kustomizations {
		add(ks)
	}
	if c.Contested != nil {
		add(c.Contested)
	}
}

// chart covers an in-repo chart's folder (a remote reference has a scheme or a host).
func (cv coverage) chart(ref string) {
	if ref != "" && !strings.Contains(ref, "://") && !strings.Contains(ref, " ") {
		cv.dir(strings.TrimPrefix(ref, "./"))
	}
}

func (cv coverage) file(f string) {
	if f != "" {
		cv.files[path.Clean(f)] = true
	}
}

func (cv coverage) dir(d string) {
	if d != "" {
		cv.dirs[path.Clean(d)] = true
	}
}

// reads reports whether f is a file a cluster reads: covered itself, under a covered
// folder, or one that discovery and source-controller read wherever it is.
func (cv coverage) reads(f string) bool {
	base := path.Base(f)
	if cv.files[f] || f == ".tiergate.yaml" || base == ".sourceignore" {
		return true
	}
	if cv.dirs["."] {
		return true
	}
	for d := path.Dir(f); d != "." && d != "/"; d = path.Dir(d) {
		if cv.dirs[d] {
			return true
		}
	}
	return false
}
