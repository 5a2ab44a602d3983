package gitrepo

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Tree is a commit's tree written to disk by Checkout.
type Tree struct {
	Dir     string        // the temporary directory holding the tree; removed by Close
	Commit  plumbing.Hash // the commit whose tree this is
	Skipped []SkippedPath // entries not written, in tree order
}

// SkippedPath is a tree entry Checkout did not write, and why.
type SkippedPath struct {
	Path   string // slash-separated, relative to the tree root
	Reason string
}

// Close removes the tree's directory.
func (t *Tree) Close() error {
	return os.RemoveAll(t.Dir)
}

// Limits bounds a checkout. A zero field takes its default: 16 MiB per file, 512 MiB in
// total, 200000 files (regular files and symlinks), a depth of 64 path elements (a/b.yaml
// has depth 2, as render.Limits.MaxDepth counts it).
type Limits struct {
	MaxFileBytes  int64
	MaxTotalBytes int64
	MaxFiles      int
	MaxDepth      int
}

// ErrLimitExceeded is wrapped by the error Checkout returns when a Limits bound is hit.
var ErrLimitExceeded = errors.New("limit exceeded")

// CheckoutOption configures Checkout.
type CheckoutOption func(*Limits)

// WithLimits replaces the default limits by the non-zero fields of l.
func WithLimits(l Limits) CheckoutOption {
	return func(d *Limits) {
		if l.MaxFileBytes > 0 {
			d.MaxFileBytes = l.MaxFileBytes
		}
		if l.MaxTotalBytes > 0 {
			d.MaxTotalBytes = l.MaxTotalBytes
		}
		if l.MaxFiles > 0 {
			d.MaxFiles = l.MaxFiles
		}
		if l.MaxDepth > 0 {
			d.MaxDepth = l.MaxDepth
		}
	}
}

// maxSymlinkTarget is PATH_MAX on Linux; a longer target cannot be a usable path.
const maxSymlinkTarget = 4096

// Checkout writes the tree of commit h (tracked files only) into a new temporary
// directory under parentDir ("" means os.TempDir()). Regular files get mode 0644, or
// 0755 when executable. A symlink is written only if its target is relative and stays
// inside the tree; such symlinks, submodules, unsafe names (".", "..", names holding a
// slash, ".git") and entries below a symlink are recorded in Tree.Skipped instead.
// When a limit is exceeded the error wraps ErrLimitExceeded, names the limit and the
// path, and the partial directory is removed.
func (r *Repo) Checkout(h plumbing.Hash, parentDir string, opts ...CheckoutOption) (*Tree, error) {
	limits := Limits{MaxFileBytes: 16 << 20, MaxTotalBytes: 512 << 20, MaxFiles: 200000, MaxDepth: 64}
	for _, o := range opts {
		o(&limits)
	}
	commit, err := r.repo.CommitObject(h)
	if err != nil {
		return nil, fmt.Errorf("checkout %s: %w", h, err)
	}
	root, err := commit.Tree()
	if err != nil {
		return nil, fmt.Errorf("checkout %s: %w", h, err)
	}
	if parentDir == "" {
		parentDir = os.TempDir()
	}
	dir, err := os.MkdirTemp(parentDir, "tiergate-"+h.String()[:12]+"-")
	if err != nil {
		return nil, fmt.Errorf("checkout %s: %w", h, err)
	}
	w := &writer{
		repo:   r,
		limits: limits,
		tree:   &Tree{Dir: dir, Commit: h},
		dirs:   map[string]bool{"": true},
	}
	if err := w.walk(root, ""); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("checkout %s: %w", h, err)
	}
	return w.tree, nil
}

// writer holds the state of one Checkout.
type writer struct {
	repo   *Repo
	limits Limits
	tree   *Tree
	dirs   map[string]bool // directories known to be real directories, not symlinks
	files  int
	bytes  int64
}

func (w *writer) skip(rel, reason string) {
	w.tree.Skipped = append(w.tree.Skipped, SkippedPath{Path: rel, Reason: reason})
}

func (w *writer) walk(t *object.Tree, dir string) error {
	for _, e := range t.Entries {
		rel := e.Name // not path.Join: it would clean away the names refused below
		if dir != "" {
			rel = dir + "/" + e.Name
		}
		switch {
		case e.Name == "." || e.Name == ".." || strings.ContainsRune(e.Name, '/'):
			w.skip(rel, "unsafe path element")
			continue
		case strings.EqualFold(e.Name, ".git"):
			// A .git in the written tree would be read as repository metadata (hooks, config).
			w.skip(rel, "git metadata path")
			continue
		}
		var err error
		switch e.Mode {
		case filemode.Dir:
			var sub *object.Tree
			if sub, err = w.repo.repo.TreeObject(e.Hash); err != nil {
				return fmt.Errorf("%s: %w", rel, err)
			}
			err = w.walk(sub, rel)
		case filemode.Regular, filemode.Executable:
			err = w.writeFile(rel, e)
		case filemode.Symlink:
			err = w.writeSymlink(rel, e)
		case filemode.Submodule:
			w.skip(rel, "submodule")
		default:
			w.skip(rel, fmt.Sprintf("unsupported file mode %s", e.Mode))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// mkdir creates the directory rel and its parents without following symlinks. It
// returns a skip reason when a component exists and is not a directory.
func (w *writer) mkdir(rel string) (string, error) {
	if w.dirs[rel] {
		return "", nil
	}
	if reason, err := w.mkdir(parentOf(rel)); reason != "" || err != nil {
		return reason, err
	}
	p := filepath.Join(w.tree.Dir, filepath.FromSlash(rel))
	fi, err := os.Lstat(p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := os.Mkdir(p, 0o755); err != nil {
			return "", err
		}
	case err != nil:
		return "", err
	case fi.Mode()&os.ModeSymlink != 0:
		return fmt.Sprintf("parent %s is a symlink", rel), nil
	case !fi.IsDir():
		return fmt.Sprintf("parent %s is not a directory", rel), nil
	}
	w.dirs[rel] = true
	return "", nil
}

func parentOf(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return ""
}

// count checks the file count, depth and byte limits before rel is written.
func (w *writer) count(rel string, size int64) error {
	w.files++
	w.bytes += size
	switch {
	case w.files > w.limits.MaxFiles:
		return fmt.Errorf("%w: MaxFiles is %d, reached at %s", ErrLimitExceeded, w.limits.MaxFiles, rel)
	case strings.Count(rel, "/")+1 > w.limits.MaxDepth:
		return fmt.Errorf("%w: MaxDepth is %d, %s is %d deep", ErrLimitExceeded, w.limits.MaxDepth, rel, strings.Count(rel, "/")+1)
	case size > w.limits.MaxFileBytes:
		return fmt.Errorf("%w: MaxFileBytes is %d, %s has %d bytes", ErrLimitExceeded, w.limits.MaxFileBytes, rel, size)
	case w.bytes > w.limits.MaxTotalBytes:
		return fmt.Errorf("%w: MaxTotalBytes is %d, reached at %s", ErrLimitExceeded, w.limits.MaxTotalBytes, rel)
	}
	return nil
}

func (w *writer) writeFile(rel string, e object.TreeEntry) error {
	if reason, err := w.mkdir(parentOf(rel)); reason != "" || err != nil {
		if err == nil {
			w.skip(rel, reason)
		}
		return err
	}
	// Counted from the object header first: a large blob over MaxFileBytes is never inflated.
	blob, err := w.repo.blob(e.Hash)
	if err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}
	if err := w.count(rel, blob.Size()); err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if e.Mode == filemode.Executable {
		mode = 0o755
	}
	if err := writeBlob(filepath.Join(w.tree.Dir, filepath.FromSlash(rel)), mode, blob); err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}
	return nil
}

// writeBlob creates p exclusively, so an existing file or symlink is never written through.
func writeBlob(p string, mode os.FileMode, blob plumbing.EncodedObject) error {
	rd, err := blob.Reader()
	if err != nil {
		return err
	}
	defer rd.Close()
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, io.LimitReader(rd, blob.Size()))
	if err == nil {
		err = f.Chmod(mode) // the umask may have narrowed the mode
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (w *writer) writeSymlink(rel string, e object.TreeEntry) error {
	blob, err := w.repo.blob(e.Hash)
	if err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}
	if size := blob.Size(); size == 0 || size > maxSymlinkTarget {
		w.skip(rel, "invalid symlink target")
		return nil
	}
	rd, err := blob.Reader()
	if err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}
	defer rd.Close()
	b, err := io.ReadAll(rd)
	if err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}
	target := string(b)
	if reason := symlinkRefusal(rel, target); reason != "" {
		w.skip(rel, reason)
		return nil
	}
	if reason, err := w.mkdir(parentOf(rel)); reason != "" || err != nil {
		if err == nil {
			w.skip(rel, reason)
		}
		return err
	}
	if err := w.count(rel, 0); err != nil {
		return err
	}
	if err := os.Symlink(target, filepath.Join(w.tree.Dir, filepath.FromSlash(rel))); err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}
	return nil
}

// symlinkRefusal returns why the symlink at rel must not point at target, or "".
// The target is resolved lexically from the link's directory. A ".." after a name is
// refused too: the name may itself be a symlink, and the kernel resolves ".." after
// following it, so "l/.." can leave the tree even though it cleans to ".".
func symlinkRefusal(rel, target string) string {
	switch {
	case strings.ContainsRune(target, 0):
		return "invalid symlink target"
	case strings.HasPrefix(target, "/"):
		return "absolute symlink target"
	}
	depth := strings.Count(rel, "/") // directories between the root and the link
	named := false
	for _, elem := range strings.Split(target, "/") {
		switch {
		case elem == "" || elem == ".":
		case elem == "..":
			if named {
				return "symlink target has .. after a name"
			}
			depth--
			if depth < 0 {
				return "symlink target outside the tree"
			}
		default:
			named = true
		}
	}
	return ""
}
