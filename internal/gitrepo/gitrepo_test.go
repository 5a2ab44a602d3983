package gitrepo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/gittest"
)

// file is one tree entry for buildTree: its mode and its blob content (the target for
// a symlink, ignored for a submodule).
type file struct {
	mode filemode.FileMode
	data string
}

func regular(data string) file { return file{filemode.Regular, data} }
func symlink(to string) file   { return file{filemode.Symlink, to} }

// store writes o to r's object database.
func store(t *testing.T, r *git.Repository, o interface {
	Encode(plumbing.EncodedObject) error
}) plumbing.Hash {
	t.Helper()
	enc := r.Storer.NewEncodedObject()
	if err := o.Encode(enc); err != nil {
		t.Fatal(err)
	}
	h, err := r.Storer.SetEncodedObject(enc)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func storeBlob(t *testing.T, r *git.Repository, data string) plumbing.Hash {
	t.Helper()
	enc := r.Storer.NewEncodedObject()
	enc.SetType(plumbing.BlobObject)
	wr, err := enc.Writer()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wr.Write([]byte(data)); err != nil {
		t.Fatal(err)
	}
	if err := wr.Close(); err != nil {
		t.Fatal(err)
	}
	h, err := r.Storer.SetEncodedObject(enc)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// storeTree writes entries as one tree object, sorted as git sorts them.
func storeTree(t *testing.T, r *git.Repository, entries []object.TreeEntry) plumbing.Hash {
	t.Helper()
	sort.Sort(object.TreeEntrySorter(entries))
	return store(t, r, &object.Tree{Entries: entries})
}

// buildTree writes files, keyed by slash-separated path, as nested trees. The same
// name may be both a file and a directory, as in a hostile tree.
func buildTree(t *testing.T, r *git.Repository, files map[string]file) plumbing.Hash {
	t.Helper()
	var entries []object.TreeEntry
	subdirs := map[string]map[string]file{}
	for p, f := range files {
		if name, rest, ok := strings.Cut(p, "/"); ok {
			if subdirs[name] == nil {
				subdirs[name] = map[string]file{}
			}
			subdirs[name][rest] = f
			continue
		}
		h := plumbing.NewHash("6b0c1b5d0e6a1c2a3b4c5d6e7f8091a2b3c4d5e6") // a submodule's commit
		if f.mode != filemode.Submodule {
			h = storeBlob(t, r, f.data)
		}
		entries = append(entries, object.TreeEntry{Name: p, Mode: f.mode, Hash: h})
	}
	for name, sub := range subdirs {
		entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: buildTree(t, r, sub)})
	}
	return storeTree(t, r, entries)
}

// commit writes a commit of tree with a fixed author, so hashes are reproducible.
func commit(t *testing.T, r *git.Repository, tree plumbing.Hash, minute int, parents ...plumbing.Hash) plumbing.Hash {
	t.Helper()
	sig := object.Signature{Name: "Test", Email: "test@example.com", When: time.Date(2025, 1, 1, 0, minute, 0, 0, time.UTC)}
	return store(t, r, &object.Commit{Author: sig, Committer: sig, Message: "commit\n", TreeHash: tree, ParentHashes: parents})
}

func setRef(t *testing.T, r *git.Repository, name string, h plumbing.Hash) {
	t.Helper()
	if err := r.Storer.SetReference(plumbing.NewHashReference(plumbing.ReferenceName(name), h)); err != nil {
		t.Fatal(err)
	}
}

// history is a repository with main and feature diverging at c2 and main merging f1:
//
//	c1 - c2 - c3 - m    (main, HEAD)
//	       \       /
//	        f1 --- f2   (feature)
//	o1                  (orphan, no common ancestor)
type history struct {
	dir                       string
	repo                      *git.Repository
	c1, c2, c3, m, f1, f2, o1 plumbing.Hash
}

func newHistory(t *testing.T) history {
	t.Helper()
	dir := t.TempDir()
	r, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{InitOptions: git.InitOptions{DefaultBranch: plumbing.Main}})
	if err != nil {
		t.Fatal(err)
	}
	tree := func(n string) plumbing.Hash { return buildTree(t, r, map[string]file{"n.txt": regular(n)}) }
	h := history{dir: dir, repo: r}
	h.c1 = commit(t, r, tree("1"), 1)
	h.c2 = commit(t, r, tree("2"), 2, h.c1)
	h.c3 = commit(t, r, tree("3"), 3, h.c2)
	h.f1 = commit(t, r, tree("f1"), 4, h.c2)
	h.m = commit(t, r, tree("m"), 5, h.c3, h.f1)
	h.f2 = commit(t, r, tree("f2"), 6, h.f1)
	h.o1 = commit(t, r, tree("o"), 7)
	setRef(t, r, "refs/heads/main", h.m)
	setRef(t, r, "refs/heads/feature", h.f2)
	setRef(t, r, "refs/heads/orphan", h.o1)
	setRef(t, r, "refs/tags/v0-light", h.c1)
	sig := &object.Signature{Name: "Test", Email: "test@example.com", When: time.Date(2025, 1, 1, 1, 0, 0, 0, time.UTC)}
	if _, err := r.CreateTag("v1", h.c2, &git.CreateTagOptions{Tagger: sig, Message: "v1"}); err != nil {
		t.Fatal(err)
	}
	return h
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestOpen(t *testing.T) {
	h := newHistory(t)
	sub := filepath.Join(h.dir, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	bare := t.TempDir()
	if _, err := git.PlainClone(bare, true, &git.CloneOptions{URL: h.dir}); err != nil {
		t.Fatal(err)
	}
	notRepo := t.TempDir()

	tests := []struct {
		name    string
		dir     string
		wantErr string
	}{
		{name: "work tree", dir: h.dir},
		{name: "subdirectory", dir: sub},
		{name: "bare", dir: bare},
		{name: "not a repository", dir: notRepo, wantErr: "open git repository " + notRepo + ": repository does not exist"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Open(tc.dir)
			if diff := cmp.Diff(tc.wantErr, errString(err)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if err != nil {
				return
			}
			got, err := r.Resolve("main")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(h.m, got); diff != "" {
				t.Errorf("main (-want +got):\n%s", diff)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	h := newHistory(t)
	r, err := Open(h.dir)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		rev     string
		want    plumbing.Hash
		wantErr string
	}{
		{rev: "HEAD", want: h.m},
		{rev: "HEAD~1", want: h.c3},
		{rev: "HEAD~2", want: h.c2},
		{rev: "main^", want: h.c3},
		{rev: "main^2", want: h.f1},
		{rev: "feature", want: h.f2},
		{rev: "refs/heads/feature", want: h.f2},
		{rev: "v1", want: h.c2},
		{rev: "v0-light", want: h.c1},
		{rev: h.f1.String(), want: h.f1},
		{rev: h.f1.String()[:7], want: h.f1},
		{rev: "nope", wantErr: `unknown revision "nope": reference not found`},
		{rev: "", wantErr: `unknown revision "": reference not found`},
		{rev: "HEAD~9", wantErr: `unknown revision "HEAD~9": no such ancestor`},
		{rev: "main@{1}", wantErr: `unknown revision "main@{1}": ` + errUnsupportedRevision.Error()},
		{rev: "main:n.txt", wantErr: `unknown revision "main:n.txt": ` + errUnsupportedRevision.Error()},
		{rev: "main^{tree}", wantErr: `unknown revision "main^{tree}": ` + errUnsupportedRevision.Error()},
		{rev: "v1^{}", want: h.c2},
	}
	for _, tc := range tests {
		t.Run(tc.rev, func(t *testing.T) {
			got, err := r.Resolve(tc.rev)
			if diff := cmp.Diff(tc.wantErr, errString(err)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("hash (-want +got):\n%s", diff)
			}
		})
	}
}

func TestIsAncestor(t *testing.T) {
	h := newHistory(t)
	r, err := Open(h.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		a, b plumbing.Hash
		want bool
	}{
		{"second parent of a merge", h.f1, h.m, true},
		{"root of main", h.c1, h.m, true},
		{"itself", h.c3, h.c3, true},
		{"descendant", h.m, h.f2, false},
		{"diverged", h.c3, h.f2, false},
		{"unrelated", h.o1, h.m, false},
		{"not a commit", plumbing.ZeroHash, h.m, false},
	} {
		if got := r.IsAncestor(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: IsAncestor = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestMergeBase(t *testing.T) {
	h := newHistory(t)
	r, err := Open(h.dir)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		a, b    plumbing.Hash
		want    plumbing.Hash
		wantErr string
	}{
		{name: "diverged", a: h.c3, b: h.f2, want: h.c2},
		{name: "diverged reversed", a: h.f2, b: h.c3, want: h.c2},
		{name: "after merge", a: h.m, b: h.f2, want: h.f1},
		{name: "ancestor", a: h.c1, b: h.m, want: h.c1},
		{name: "same", a: h.c3, b: h.c3, want: h.c3},
		{name: "unrelated", a: h.m, b: h.o1,
			wantErr: "merge base of " + h.m.String() + " and " + h.o1.String() + ": no common ancestor"},
		{name: "not a commit", a: h.m, b: plumbing.ZeroHash,
			wantErr: "merge base of " + h.m.String() + " and " + plumbing.ZeroHash.String() +
				": commit " + plumbing.ZeroHash.String() + ": object not found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := r.MergeBase(tc.a, tc.b)
			if diff := cmp.Diff(tc.wantErr, errString(err)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("hash (-want +got):\n%s", diff)
			}
		})
	}
}

// checkoutRepo commits files as the only commit of a new repository.
func checkoutRepo(t *testing.T, files map[string]file) (*Repo, plumbing.Hash) {
	t.Helper()
	dir := t.TempDir()
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	c := commit(t, r, buildTree(t, r, files), 0)
	return &Repo{repo: r}, c
}

// listDir describes every file and symlink under dir by slash-separated path:
// "0644 <content>" for a file, "-> <target>" for a symlink.
func listDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			got[rel] = "-> " + target
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		got[rel] = fi.Mode().Perm().String() + " " + string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestCheckout(t *testing.T) {
	files := map[string]file{
		"README.md":                    regular("hello\n"),
		"bin/run.sh":                   {filemode.Executable, "#!/bin/sh\n"},
		"apps/base/kustomization.yaml": regular("resources: []\n"),
		"apps/current":                 symlink("base"),
		"apps/readme":                  symlink("../README.md"),
		"apps/base/self":               symlink("./../base/kustomization.yaml"),
		"passwd":                       symlink("../../etc/passwd"),
		"apps/passwd":                  symlink("../../etc/passwd"),
		"etc":                          symlink("/etc"),
		"etc/hosts":                    regular("in the tree\n"), // etc is refused as a link, so it is a real directory
		"apps/climb":                   symlink("current/../../.."),
		"vendor/lib":                   {mode: filemode.Submodule},
		"cfg":                          symlink("apps"),
		"cfg/x":                        regular("through a symlink\n"),
	}
	r, c := checkoutRepo(t, files)
	tree, err := r.Checkout(c, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}

	wantFiles := map[string]string{
		"README.md":                    "-rw-r--r-- hello\n",
		"bin/run.sh":                   "-rwxr-xr-x #!/bin/sh\n",
		"apps/base/kustomization.yaml": "-rw-r--r-- resources: []\n",
		"apps/current":                 "-> base",
		"apps/readme":                  "-> ../README.md",
		"apps/base/self":               "-> ./../base/kustomization.yaml",
		"cfg":                          "-> apps",
		"etc/hosts":                    "-rw-r--r-- in the tree\n",
	}
	if diff := cmp.Diff(wantFiles, listDir(t, tree.Dir)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	wantSkipped := []SkippedPath{
		{Path: "apps/climb", Reason: "symlink target has .. after a name"},
		{Path: "apps/passwd", Reason: "symlink target outside the tree"},
		{Path: "cfg/x", Reason: "parent cfg is a symlink"},
		{Path: "etc", Reason: "absolute symlink target"},
		{Path: "passwd", Reason: "symlink target outside the tree"},
		{Path: "vendor/lib", Reason: "submodule"},
	}
	if diff := cmp.Diff(wantSkipped, tree.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(c, tree.Commit); diff != "" {
		t.Errorf("commit (-want +got):\n%s", diff)
	}

	co, err := r.repo.CommitObject(c)
	if err != nil {
		t.Fatal(err)
	}
	// Files visits the same commit's files, with their blob hashes, without writing them.
	visited := map[string]File{}
	if err := r.Files(c, func(f File) error { visited[f.Path] = f; return nil }); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"README.md", "bin/run.sh", "apps/base/kustomization.yaml", "apps/current", "cfg/x", "missing"} {
		t.Run("Files "+p, func(t *testing.T) {
			want, wantOK, wantLink := plumbing.ZeroHash, false, false
			if f, err := co.File(p); err == nil {
				want, wantOK, wantLink = f.Hash, true, f.Mode == filemode.Symlink
			}
			got, ok := visited[p]
			if diff := cmp.Diff(want, got.Hash); diff != "" || ok != wantOK || got.Symlink != wantLink {
				t.Errorf("Files: %q = %s, %v, symlink %v; want %s, %v, symlink %v", p, got.Hash, ok, got.Symlink, want, wantOK, wantLink)
			}
		})
	}

	if err := tree.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(tree.Dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after Close, Lstat(%s) error = %v; want not exist", tree.Dir, err)
	}
}

func TestCheckoutUnsafeNames(t *testing.T) {
	tests := []struct {
		name string
		want []SkippedPath
	}{
		{name: "..", want: []SkippedPath{{Path: "..", Reason: "unsafe path element"}}},
		{name: ".", want: []SkippedPath{{Path: ".", Reason: "unsafe path element"}}},
		{name: "/etc/cron.d/x", want: []SkippedPath{{Path: "/etc/cron.d/x", Reason: "unsafe path element"}}},
		{name: "a/../../x", want: []SkippedPath{{Path: "a/../../x", Reason: "unsafe path element"}}},
		{name: ".git", want: []SkippedPath{{Path: ".git", Reason: "git metadata path"}}},
		{name: ".GIT", want: []SkippedPath{{Path: ".GIT", Reason: "git metadata path"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := checkoutRepo(t, nil)
			blob := storeBlob(t, r.repo, "x\n")
			dir := storeTree(t, r.repo, []object.TreeEntry{{Name: "config", Mode: filemode.Regular, Hash: blob}})
			// The same name as a file and as a directory: neither may be written.
			root := storeTree(t, r.repo, []object.TreeEntry{
				{Name: "ok", Mode: filemode.Regular, Hash: blob},
				{Name: tc.name, Mode: filemode.Dir, Hash: dir},
			})
			tree, err := r.Checkout(commit(t, r.repo, root, 1), t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer tree.Close()
			if diff := cmp.Diff(tc.want, tree.Skipped); diff != "" {
				t.Errorf("skipped (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(map[string]string{"ok": "-rw-r--r-- x\n"}, listDir(t, tree.Dir)); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckoutLimits(t *testing.T) {
	r, c := checkoutRepo(t, map[string]file{
		"a.txt":   regular("12345"),
		"b/c.txt": regular("1234567890"),
		"d":       symlink("a.txt"),
	})
	tests := []struct {
		name    string
		limits  Limits
		wantErr string
	}{
		{name: "defaults"},
		{name: "at the limits", limits: Limits{MaxFileBytes: 10, MaxTotalBytes: 15, MaxFiles: 3, MaxDepth: 2}},
		{name: "depth", limits: Limits{MaxDepth: 1},
			wantErr: "limit exceeded: MaxDepth is 1, b/c.txt is 2 deep"},
		{name: "file bytes", limits: Limits{MaxFileBytes: 9},
			wantErr: "limit exceeded: MaxFileBytes is 9, b/c.txt has 10 bytes"},
		{name: "total bytes", limits: Limits{MaxTotalBytes: 14},
			wantErr: "limit exceeded: MaxTotalBytes is 14, reached at b/c.txt"},
		{name: "files", limits: Limits{MaxFiles: 2},
			wantErr: "limit exceeded: MaxFiles is 2, reached at d"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			parent := t.TempDir()
			tree, err := r.Checkout(c, parent, WithLimits(tc.limits))
			if tc.wantErr != "" {
				tc.wantErr = "checkout " + c.String() + ": " + tc.wantErr
				if !errors.Is(err, ErrLimitExceeded) {
					t.Errorf("error %v does not wrap ErrLimitExceeded", err)
				}
			}
			if diff := cmp.Diff(tc.wantErr, errString(err)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if err == nil {
				tree.Close()
			}
			left, err := os.ReadDir(parent)
			if err != nil {
				t.Fatal(err)
			}
			if len(left) != 0 {
				t.Errorf("%s holds %d entries after Close or a failed checkout; want none", parent, len(left))
			}
		})
	}
}

func TestCheckoutDefaultTempDir(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	r, c := checkoutRepo(t, map[string]file{"a.txt": regular("a")})
	tree, err := r.Checkout(c, "")
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	if diff := cmp.Diff(tmp, filepath.Dir(tree.Dir)); diff != "" {
		t.Errorf("parent of Dir (-want +got):\n%s", diff)
	}
}

// In a shallow clone a commit outside the fetched depth is an unknown revision; the error
// says why. A full clone's error has no hint.
func TestResolveShallowHint(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is needed to make a shallow clone")
	}
	full := t.TempDir()
	gittest.Run(t, full, "init", "-q", "-b", "main")
	gittest.Run(t, full, "commit", "-q", "--allow-empty", "-m", "one")
	first := strings.TrimSpace(gittest.Run(t, full, "rev-parse", "HEAD"))
	gittest.Run(t, full, "commit", "-q", "--allow-empty", "-m", "two")
	shallow := filepath.Join(t.TempDir(), "shallow")
	gittest.Run(t, full, "clone", "-q", "--depth", "1", "file://"+full, shallow)

	r, err := Open(shallow)
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Resolve(first)
	want := fmt.Sprintf("unknown revision %q: reference not found (the repository is a shallow clone: fetch the full history, e.g. git fetch --unshallow, or actions/checkout with fetch-depth: 0)", first)
	if err == nil || err.Error() != want {
		t.Errorf("shallow: error %v\nwant %s", err, want)
	}
	r, err = Open(full)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Resolve("nope"); err == nil || err.Error() != `unknown revision "nope": reference not found` {
		t.Errorf("full clone: error %v", err)
	}
}
