package fleet

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// Repo is a generated fleet: a bare git repository with a base commit (branch main) and
// one head commit per Shape (branch named after the shape), each a child of Base.
type Repo struct {
	// Dir is the bare repository's directory (gitrepo.Open accepts it).
	Dir   string
	Base  plumbing.Hash
	Heads map[Shape]plumbing.Hash
	// Edits says what each head changed.
	Edits map[Shape]Edit
	// Clusters names the clusters, sorted.
	Clusters []string
}

// commitTime is fixed so that the same Spec gives the same commit hashes.
var commitTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Write generates the fleet s as a bare, packed git repository in dir, which must not hold one yet.
// Errors name the Spec field out of range or the git operation that failed.
func (s Spec) Write(dir string) (*Repo, error) {
	p, err := newPlan(s)
	if err != nil {
		return nil, err
	}
	r, err := git.PlainInit(dir, true)
	if err != nil {
		return nil, fmt.Errorf("init fleet repository %s: %w", dir, err)
	}
	w := &treeWriter{st: r.Storer, known: map[plumbing.Hash]bool{}}
	out := &Repo{Dir: dir, Heads: map[Shape]plumbing.Hash{}, Edits: p.edits, Clusters: p.clusters}
	if out.Base, err = w.commit(p.files(""), "base", plumbing.ZeroHash); err != nil {
		return nil, err
	}
	if err := setBranch(r, "main", out.Base); err != nil {
		return nil, err
	}
	for _, sh := range p.shapes() {
		h, err := w.commit(p.files(sh), string(sh), out.Base)
		if err != nil {
			return nil, err
		}
		out.Heads[sh] = h
		if err := setBranch(r, string(sh), h); err != nil {
			return nil, err
		}
	}
	// Packed, as a mirror fetched from a forge is: reading thousands of loose objects
	// would weigh on every checkout measured.
	if err := r.RepackObjects(&git.RepackConfig{}); err != nil {
		return nil, fmt.Errorf("pack fleet repository %s: %w", dir, err)
	}
	return out, nil
}

func setBranch(r *git.Repository, name string, h plumbing.Hash) error {
	ref := plumbing.NewHashReference(plumbing.NewBranchReferenceName(name), h)
	if err := r.Storer.SetReference(ref); err != nil {
		return fmt.Errorf("set branch %s: %w", name, err)
	}
	return nil
}

// treeWriter stores blobs, trees and commits, each object once.
type treeWriter struct {
	st    storer.EncodedObjectStorer
	known map[plumbing.Hash]bool
}

func (w *treeWriter) commit(files tree, msg string, parent plumbing.Hash) (plumbing.Hash, error) {
	root, err := w.tree(folders(files), "")
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write tree of commit %q: %w", msg, err)
	}
	sig := object.Signature{Name: "fleet", Email: "fleet@example.invalid", When: commitTime}
	c := &object.Commit{Author: sig, Committer: sig, Message: msg + "\n", TreeHash: root}
	if !parent.IsZero() {
		c.ParentHashes = []plumbing.Hash{parent}
	}
	return w.store(c)
}

// folder is one directory of a tree: its files' contents and its subfolders' names.
type folder struct {
	files   map[string]string
	subdirs map[string]bool
}

// folders indexes files by directory ("" is the root).
func folders(files tree) map[string]*folder {
	out := map[string]*folder{}
	get := func(dir string) *folder {
		f := out[dir]
		if f == nil {
			f = &folder{files: map[string]string{}, subdirs: map[string]bool{}}
			out[dir] = f
		}
		return f
	}
	for p, content := range files {
		dir, name := path.Split(p)
		dir = strings.TrimSuffix(dir, "/")
		get(dir).files[name] = content
		for dir != "" {
			parent, base := path.Split(dir)
			parent = strings.TrimSuffix(parent, "/")
			get(parent).subdirs[base] = true
			dir = parent
		}
	}
	return out
}

// tree writes the folder dir of fs and returns its hash.
func (w *treeWriter) tree(fs map[string]*folder, dir string) (plumbing.Hash, error) {
	f := fs[dir]
	entries := make([]object.TreeEntry, 0, len(f.files)+len(f.subdirs))
	for name, content := range f.files {
		h, err := w.blob(content)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: h})
	}
	for name := range f.subdirs {
		h, err := w.tree(fs, path.Join(dir, name))
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
	}
	// git orders tree entries by name, a folder compared as if it ended in "/".
	key := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(entries, func(i, j int) bool { return key(entries[i]) < key(entries[j]) })
	return w.store(&object.Tree{Entries: entries})
}

func (w *treeWriter) blob(content string) (plumbing.Hash, error) {
	obj := w.st.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	wr, err := obj.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := wr.Write([]byte(content)); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := wr.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	return w.save(obj)
}

func (w *treeWriter) store(o interface {
	Encode(plumbing.EncodedObject) error
}) (plumbing.Hash, error) {
	obj := w.st.NewEncodedObject()
	if err := o.Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return w.save(obj)
}

func (w *treeWriter) save(obj plumbing.EncodedObject) (plumbing.Hash, error) {
	h := obj.Hash()
	if w.known[h] {
		return h, nil
	}
	if _, err := w.st.SetEncodedObject(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	w.known[h] = true
	return h, nil
}
