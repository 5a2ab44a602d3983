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
	blob    *object.Blob
}

// Read returns the content of a regular file, or the target of a symlink.
func (f File) Read() ([]byte, error) {
	if f.blob == nil {
		return nil, fmt.Errorf("%s: no blob", f.Path)
	}
	rd, err := f.blob.Reader()
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
		case filemode.Regular, filemode.Executable:
			blob, err := r.repo.BlobObject(e.Hash)
			if err != nil {
				return fmt.Errorf("%s: %w", rel, err)
			}
			if err := visit(File{Path: rel, Size: blob.Size, Hash: e.Hash, blob: blob}); err != nil {
				return err
			}
		case filemode.Symlink:
			blob, err := r.repo.BlobObject(e.Hash)
			if err != nil {
				return fmt.Errorf("%s: %w", rel, err)
			}
			if err := visit(File{Path: rel, Symlink: true, Size: blob.Size, Hash: e.Hash, blob: blob}); err != nil {
				return err
			}
		}
	}
	return nil
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
