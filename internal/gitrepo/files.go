package gitrepo

import (
	"fmt"
	"io"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// File is one regular file or symlink of a commit's tree, as Files visits it. Files reads
// no blob: Open looks the blob up, once, when the caller needs its size or content.
type File struct {
	Path    string        // slash-separated, relative to the tree root
	Symlink bool          // a symlink: its Blob holds the target
	Hash    plumbing.Hash // the blob's hash: equal hashes, equal contents
	repo    *Repo
}

// Blob is one looked-up blob: its size from the object header, its content on Read.
type Blob struct {
	Size int64 // bytes of the content
	path string
	obj  plumbing.EncodedObject
}

// Open looks up f's blob once. A blob over largeObjectThreshold is not inflated by Open,
// so a caller that refuses it for its Size (render's MaxFileBytes) never holds it in memory
// (a 500 MB blob cost 1.67 GB when Files loaded it); a smaller one is inflated here and Read
// returns that content, where sizing it first and reading it after inflated it twice (half
// the CPU of reading a tree). The error names the path.
func (f File) Open() (Blob, error) {
	if f.repo == nil {
		return Blob{}, fmt.Errorf("%s: no blob", f.Path)
	}
	obj, err := f.repo.blob(f.Hash)
	if err != nil {
		return Blob{}, fmt.Errorf("%s: %w", f.Path, err)
	}
	return Blob{Size: obj.Size(), path: f.Path, obj: obj}, nil
}

// Read returns the content of a regular file, or the target of a symlink: Size bytes.
func (b Blob) Read() ([]byte, error) {
	if b.obj == nil {
		return nil, fmt.Errorf("%s: no blob", b.path)
	}
	rd, err := b.obj.Reader()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.path, err)
	}
	defer rd.Close()
	data := make([]byte, b.Size)
	if _, err := io.ReadFull(rd, data); err != nil {
		return nil, fmt.Errorf("%s: blob %s: %w", b.path, b.obj.Hash(), err)
	}
	return data, nil
}

// Files calls visit for each regular file and symlink of commit h's tree, in tree order,
// leaving out what Checkout leaves out: unsafe names (".", "..", names holding a slash),
// .git entries, submodules, and a name repeated in a folder (which git fsck refuses; a file
// below a symlink of the same name) after its first entry. Nothing is written. An error of visit ends the walk and
// is returned; other errors name the commit and path.
func (r *Repo) Files(h plumbing.Hash, visit func(File) error) error {
	commit, err := r.repo.CommitObject(h)
	if err != nil {
		return fmt.Errorf("read tree of %s: %w", h, err)
	}
	root, err := commit.Tree()
	if err != nil {
		return fmt.Errorf("read tree of %s: %w", h, err)
	}
	return r.files(root, "", visit)
}

func (r *Repo) files(t *object.Tree, dir string, visit func(File) error) error {
	seen := map[string]bool{}
	for _, e := range t.Entries {
		if e.Name == "." || e.Name == ".." || strings.ContainsRune(e.Name, '/') || strings.EqualFold(e.Name, ".git") || seen[e.Name] {
			continue
		}
		seen[e.Name] = true
		rel := e.Name
		if dir != "" {
			rel = dir + "/" + e.Name
		}
		switch e.Mode {
		case filemode.Dir:
			sub, err := r.repo.TreeObject(e.Hash)
			if err != nil {
				return fmt.Errorf("%s: %w", rel, err)
			}
			if err := r.files(sub, rel, visit); err != nil {
				return err
			}
		case filemode.Regular, filemode.Executable, filemode.Symlink:
			if err := visit(File{Path: rel, Symlink: e.Mode == filemode.Symlink, Hash: e.Hash, repo: r}); err != nil {
				return err
			}
		}
	}
	return nil
}

// blob looks up blob h (loose or packed) once: its header is read, and its content too
// unless it is over largeObjectThreshold (then it is read on Reader).
func (r *Repo) blob(h plumbing.Hash) (plumbing.EncodedObject, error) {
	obj, err := r.repo.Storer.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", h, err)
	}
	return obj, nil
}

// TreeHash returns the hash of commit h's tree: commits with equal tree hashes have equal
// files.
func (r *Repo) TreeHash(h plumbing.Hash) (plumbing.Hash, error) {
	commit, err := r.repo.CommitObject(h)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read commit %s: %w", h, err)
	}
	return commit.TreeHash, nil
}
