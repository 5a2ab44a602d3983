package gitrepo

import (
	"fmt"
	"io"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// File is one regular file or symlink of a commit's tree, as Files visits it.
type File struct {
	Path    string        // slash-separated, relative to the tree root
	Symlink bool          // a symlink: Read returns its target
	Size    int64         // bytes of the blob
	Hash    plumbing.Hash // the blob's hash: equal hashes, equal contents
	repo    *Repo
}

// Read returns the content of a regular file, or the target of a symlink, reading the
// blob only now: Files sized it from the object header, so a caller that refuses a file
// for its Size never holds it in memory (a 500 MB blob cost 1.67 GB when Files loaded it).
func (f File) Read() ([]byte, error) {
	if f.repo == nil {
		return nil, fmt.Errorf("%s: no blob", f.Path)
	}
	blob, err := f.repo.repo.BlobObject(f.Hash)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Path, err)
	}
	rd, err := blob.Reader()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Path, err)
	}
	defer rd.Close()
	data, err := io.ReadAll(io.LimitReader(rd, f.Size))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Path, err)
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
			size, err := r.blobSize(e.Hash)
			if err != nil {
				return fmt.Errorf("%s: %w", rel, err)
			}
			if err := visit(File{Path: rel, Symlink: e.Mode == filemode.Symlink, Size: size, Hash: e.Hash, repo: r}); err != nil {
				return err
			}
		}
	}
	return nil
}

// blobSize returns the size of blob h from its object header (loose or packed), without
// inflating the content.
func (r *Repo) blobSize(h plumbing.Hash) (int64, error) {
	size, err := r.repo.Storer.EncodedObjectSize(h)
	if err != nil {
		return 0, fmt.Errorf("blob %s: %w", h, err)
	}
	return size, nil
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
