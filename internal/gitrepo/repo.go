package gitrepo

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// Repo is an opened local git repository.
type Repo struct {
	repo *git.Repository
}

// Open opens the repository that holds dir. dir may be the work tree, any directory
// below it, or a bare repository. The error names dir.
func Open(dir string) (*Repo, error) {
	// DetectDotGit looks only for a .git entry in dir and its parents, so dir is first
	// tried as the repository itself (a bare one) or a work tree root.
	r, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		r, err = git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	}
	if err != nil {
		return nil, fmt.Errorf("open git repository %s: %w", dir, err)
	}
	if st, ok := r.Storer.(*filesystem.Storage); ok {
		// Same repository, read through a storage that keeps its packs open (no work tree:
		// only objects and references are read).
		if r, err = git.Open(openStorage(st.Filesystem()), nil); err != nil {
			return nil, fmt.Errorf("open git repository %s: %w", dir, err)
		}
	}
	return &Repo{repo: r}, nil
}

// maxPackDescriptors bounds the pack files a Repo keeps open between object reads:
// go-git otherwise opens the pack again for every object, half the time of a checkout.
const maxPackDescriptors = 16

// largeObjectThreshold is the blob size above which go-git looks a blob up without
// inflating it, and streams it when read: its packfile reader's own small-object threshold
// (packfile.smallObjectThreshold, 16 KiB), applied to loose objects too.
const largeObjectThreshold = 16 << 10

// openStorage is go-git's filesystem storage of the repository fs with packs kept open and
// large blobs read only when asked.
func openStorage(fs billy.Filesystem) *filesystem.Storage {
	return filesystem.NewStorageWithOptions(fs, cache.NewObjectLRUDefault(),
		filesystem.Options{MaxOpenDescriptors: maxPackDescriptors, LargeObjectThreshold: largeObjectThreshold})
}

// Close releases the pack files the Repo keeps open. The Repo must not be used after.
func (r *Repo) Close() error {
	if c, ok := r.repo.Storer.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// Resolve returns the commit that rev names: a branch, a tag (annotated tags are peeled
// to their commit), a full or short sha, HEAD, and the ~ and ^ suffixes go-git supports
// (HEAD~1, main^, main^2, v1^{}). Reflog (@{...}), path (:) and ^{tree}-style suffixes
// are refused. The error reads `unknown revision "rev": cause`.
func (r *Repo) Resolve(rev string) (plumbing.Hash, error) {
	// go-git parses these forms but ignores them, which would name the wrong commit.
	if strings.Contains(rev, "@{") || strings.Contains(rev, ":") || unsupportedPeel.MatchString(rev) {
		return plumbing.ZeroHash, fmt.Errorf("unknown revision %q: %w", rev, errUnsupportedRevision)
	}
	h, err := r.repo.ResolveRevision(plumbing.Revision(rev))
	if errors.Is(err, io.EOF) { // a ~ or ^ walked past a root commit
		err = errNoAncestor
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("unknown revision %q: %w%s", rev, err, r.shallowHint())
	}
	return *h, nil
}

// shallowHint explains, in a shallow clone (CI checkouts fetch one commit by default), why
// a commit or its history may be missing; "" in a full clone.
func (r *Repo) shallowHint() string {
	if s, err := r.repo.Storer.Shallow(); err == nil && len(s) > 0 {
		return " (the repository is a shallow clone: fetch the full history, e.g. git fetch --unshallow, or actions/checkout with fetch-depth: 0)"
	}
	return ""
}

var (
	unsupportedPeel        = regexp.MustCompile(`\^\{(tree|blob|tag|object)\}`)
	errUnsupportedRevision = errors.New("reflog, upstream, path and non-commit peel suffixes are not supported")
	errNoAncestor          = errors.New("no such ancestor")
)

// HasCommit reports whether h is a commit of r.
func (r *Repo) HasCommit(h plumbing.Hash) bool {
	_, err := r.repo.CommitObject(h)
	return err == nil
}

// IsAncestor reports whether commit a is an ancestor of commit b (a commit is its own), as
// `git merge-base --is-ancestor a b` does; false when either is not a commit of r.
func (r *Repo) IsAncestor(a, b plumbing.Hash) bool {
	ca, err := r.repo.CommitObject(a)
	if err != nil {
		return false
	}
	cb, err := r.repo.CommitObject(b)
	if err != nil {
		return false
	}
	ok, err := ca.IsAncestor(cb)
	return err == nil && ok
}

// MergeBase returns the first best common ancestor of commits a and b, as
// `git merge-base a b` prints it. It is an error if a or b is not a commit or if the
// two histories share no commit.
func (r *Repo) MergeBase(a, b plumbing.Hash) (plumbing.Hash, error) {
	ca, err := r.repo.CommitObject(a)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("merge base of %s and %s: commit %s: %w", a, b, a, err)
	}
	cb, err := r.repo.CommitObject(b)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("merge base of %s and %s: commit %s: %w", a, b, b, err)
	}
	bases, err := ca.MergeBase(cb)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("merge base of %s and %s: %w", a, b, err)
	}
	if len(bases) == 0 {
		return plumbing.ZeroHash, fmt.Errorf("merge base of %s and %s: %w", a, b, errNoMergeBase)
	}
	return bases[0].Hash, nil
}

var errNoMergeBase = errors.New("no common ancestor")
