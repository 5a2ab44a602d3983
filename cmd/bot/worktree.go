package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/tiergate/tiergate/internal/gitrepo"
	"github.com/tiergate/tiergate/internal/pipeline"

	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
)

// workTree is the work tree of a git repository as `git add --all` would stage it: the
// tracked files as they are on disk (deleted ones left out) and the untracked files its
// .gitignore files and .git/info/exclude do not ignore. The user's global excludes
// (core.excludesFile) are not read: they are outside the checkout.
type workTree struct {
	Root  string            // absolute path of the work tree
	Files map[string]string // slash path → blob hash, regular files only
	Links map[string]string // slash path → target, symlinks
}

// openWorkTree finds the work tree holding dir and lists it, at most maxFiles entries (0:
// graph.DefaultLimits.MaxFiles). Files are hashed as they are read, not kept.
func openWorkTree(dir string, maxFiles int) (*workTree, error) {
	return listWorkTree(dir, maxFiles, false)
}

// openFluxWorkTree is openWorkTree for uncommitted: Files holds only the Flux files
// (fluxFile), and a tracked one whose stat is the git index's (statHash), and not racy, has the index's hash without being read, as `git status` decides that a file is
// unchanged (git's read-cache.c ie_match_stat and is_racy_timestamp).
func openFluxWorkTree(dir string, maxFiles int) (*workTree, error) {
	return listWorkTree(dir, maxFiles, true)
}

// statHash is the index's hash of the tracked file rel when its stat says it is unchanged
// since the index recorded it: the same size and modification time, that time before the
// index was written (else a change within the same tick could go unseen: racy git), and
// the same change time, device and inode (sameInode).
func statHash(entries map[string]*index.Entry, indexTime time.Time, rel string, d fs.DirEntry) (string, bool) {
	e := entries[rel]
	if e == nil || indexTime.IsZero() || !e.ModifiedAt.Before(indexTime) {
		return "", false
	}
	fi, err := d.Info()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != int64(e.Size) || !fi.ModTime().Equal(e.ModifiedAt) || !sameInode(e, fi) {
		return "", false
	}
	return e.Hash.String(), true
}

// indexModTime is when the git index of r was written; zero when unknown.
func indexModTime(r *git.Repository) time.Time {
	s, ok := r.Storer.(interface{ Filesystem() billy.Filesystem })
	if !ok {
		return time.Time{}
	}
	fi, err := s.Filesystem().Stat("index")
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime()
}

func listWorkTree(dir string, maxFiles int, fluxOnly bool) (*workTree, error) {
	if maxFiles <= 0 {
		maxFiles = graph.DefaultLimits.MaxFiles
	}
	r, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		return nil, fmt.Errorf("open git repository %s: %w", dir, err)
	}
	wt, err := r.Worktree()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	idx, err := r.Storer.Index()
	if err != nil {
		return nil, fmt.Errorf("%s: read the git index: %w", dir, err)
	}
	tracked, trackedDirs := map[string]bool{}, map[string]bool{}
	entries := map[string]*index.Entry{}
	var indexTime time.Time
	if fluxOnly {
		indexTime = indexModTime(r)
	}
	for _, e := range idx.Entries {
		tracked[e.Name] = true
		// Stage 0 on disk is a merged entry (go-git names 1 Merged, but decodes the bits as they are).
		if fluxOnly && e.Stage == 0 && !e.SkipWorktree && !e.IntentToAdd && e.Mode.IsRegular() {
			entries[e.Name] = e
		}
		for d := filepath.ToSlash(filepath.Dir(e.Name)); d != "."; d = filepath.ToSlash(filepath.Dir(d)) {
			trackedDirs[d] = true
		}
	}
	root := wt.Filesystem.Root()
	// BoundOS: a .gitignore that is a symlink out of the work tree is not read.
	patterns, err := gitignore.ReadPatterns(osfs.New(root, osfs.WithBoundOS()), nil)
	if err != nil {
		return nil, fmt.Errorf("%s: read .gitignore: %w", root, err)
	}
	ignored := gitignore.NewMatcher(patterns)
	w := &workTree{Root: root, Files: map[string]string{}, Links: map[string]string{}}
	listed := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		if listed++; listed > maxFiles {
			return fmt.Errorf("more than %d files and folders (--max-files)", maxFiles)
		}
		rel := filepath.ToSlash(p[len(root)+1:])
		parts := strings.Split(rel, "/")
		switch {
		case d.IsDir():
			if strings.EqualFold(d.Name(), ".git") {
				return filepath.SkipDir
			}
			if _, err := os.Lstat(filepath.Join(p, ".git")); err == nil {
				return filepath.SkipDir // a nested repository or submodule: not this tree's files
			}
			if !trackedDirs[rel] && ignored.Match(parts, true) {
				return filepath.SkipDir
			}
		case !tracked[rel] && ignored.Match(parts, false):
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			w.Links[rel] = target
		case d.Type().IsRegular() && fluxOnly && !fluxFile(rel):
		case d.Type().IsRegular():
			if h, ok := statHash(entries, indexTime, rel, d); ok {
				w.Files[rel] = h
				return nil
			}
			h, err := blobHash(p)
			if err != nil {
				return err
			}
			w.Files[rel] = h
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read work tree %s: %w", root, err)
	}
	return w, nil
}

// blobHash is the git blob hash of the file p, read in a stream.
func blobHash(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	h := plumbing.NewHasher(plumbing.BlobObject, fi.Size())
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return h.Sum().String(), nil
}

// tree reads the listed files into a review side within l. Rev names it in the report.
func (w *workTree) tree(l graph.Limits) (*pipeline.Tree, error) {
	b := fsys.NewSourceBuilder(l)
	paths := slices.Sorted(func(yield func(string) bool) {
		for p := range w.Files {
			if !yield(p) {
				return
			}
		}
		for p := range w.Links {
			if !yield(p) {
				return
			}
		}
	})
	for _, rel := range paths {
		if target, ok := w.Links[rel]; ok {
			if err := b.AddSymlink(rel, target); err != nil {
				return nil, err
			}
			continue
		}
		p := filepath.Join(w.Root, filepath.FromSlash(rel))
		fi, err := os.Lstat(p)
		if err != nil {
			return nil, fmt.Errorf("read work tree: %w", err)
		}
		if err := b.AddFile(rel, fi.Size(), "", func() ([]byte, error) { return fsys.ReadFileSized(p, fi.Size()) }); err != nil {
			return nil, err
		}
	}
	return &pipeline.Tree{Source: b.Source(""), Rev: "work tree " + w.Root}, nil
}

// fluxFile reports whether a path can change what Flux renders: the YAML and JSON that
// kustomize reads, and the ignore files that decide what a source packs.
func fluxFile(rel string) bool {
	switch strings.ToLower(filepath.Ext(rel)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	base := filepath.Base(rel)
	return base == ".sourceignore" || base == "Kustomization"
}

// uncommitted lists, sorted, the Flux files (fluxFile) whose work tree content is not
// commit h's: changed, added or deleted.
func (w *workTree) uncommitted(repo *gitrepo.Repo, h plumbing.Hash) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	err := repo.Files(h, func(f gitrepo.File) error {
		seen[f.Path] = true
		if !fluxFile(f.Path) {
			return nil
		}
		if f.Symlink {
			if _, ok := w.Links[f.Path]; !ok {
				out = append(out, f.Path)
			}
			return nil
		}
		if w.Files[f.Path] != f.Hash.String() {
			out = append(out, f.Path)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for p := range w.Files {
		if !seen[p] && fluxFile(p) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out, nil
}

// worktreeTrees reads the base commit of f.repo (the merge-base of --base and HEAD unless
// --no-merge-base) and the head: the work tree (--worktree, or --head-dir naming the work
// tree's root), or --head-dir as a plain folder.
func worktreeTrees(f reviewFlags) (*pipeline.Tree, *pipeline.Tree, error) {
	if f.base == "" {
		return nil, nil, fmt.Errorf("--base is required with --worktree")
	}
	repo, err := gitrepo.Open(f.repo)
	if err != nil {
		return nil, nil, err
	}
	defer repo.Close()
	hh, err := repo.Resolve("HEAD")
	if err != nil {
		return nil, nil, err
	}
	bh, err := baseCommit(repo, f, hh)
	if err != nil {
		return nil, nil, err
	}
	w, err := openWorkTree(f.repo, f.limits.MaxFiles)
	if err != nil {
		return nil, nil, err
	}
	var head *pipeline.Tree
	if f.headDir != "" && !sameDir(f.headDir, w.Root) {
		head, err = pipeline.ReadDir(f.headDir, f.limits)
	} else {
		head, err = w.tree(f.limits)
	}
	if err != nil {
		return nil, nil, err
	}
	base, err := pipeline.Load(repo, bh, f.limits)
	if err != nil {
		return nil, nil, err
	}
	return base, head, nil
}

// sameDir reports whether a and b are the same folder.
func sameDir(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// maxListed is how many uncommitted files the warning names.
const maxListed = 5

// warnUncommitted warns, on f.stderr, when the head is the commit checked out and the work
// tree has Flux files that differ from it: they are not reviewed. A bare repository has
// nothing to warn about.
func warnUncommitted(f reviewFlags, repo *gitrepo.Repo, head plumbing.Hash) {
	if f.stderr == nil {
		return
	}
	if h, err := repo.Resolve("HEAD"); err != nil || h != head {
		return
	}
	w, err := openFluxWorkTree(f.repo, f.limits.MaxFiles)
	if errors.Is(err, git.ErrIsBareRepository) {
		return
	}
	var files []string
	if err == nil {
		files, err = w.uncommitted(repo, head)
	}
	if err != nil {
		fmt.Fprintf(f.stderr, "warning: could not compare the work tree with HEAD: %v\n", err)
		return
	}
	if len(files) == 0 {
		return
	}
	listed := strings.Join(files[:min(len(files), maxListed)], ", ")
	if len(files) > maxListed {
		listed += fmt.Sprintf(" and %d more", len(files)-maxListed)
	}
	fmt.Fprintf(f.stderr, "warning: not reviewed: %d Flux file(s) differ from HEAD in the work tree (%s); commit them, or review the work tree with --worktree\n",
		len(files), listed)
}
