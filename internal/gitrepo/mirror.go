package gitrepo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/memory"
)

// Mirrors keeps one bare repository per remote under dir, named after the remote's URL
// (host_owner_name-<16 hex digits of sha256>), so that a pull request's commits are
// fetched incrementally rather than cloned per review. A Mirrors serialises fetches of
// one remote and lets fetches of different remotes run in parallel. Only one Mirrors
// (one process) may use a dir at a time. Mirrors are never evicted.
type Mirrors struct {
	dir string

	mu    sync.Mutex
	locks map[string]chan struct{} // mirror directory name -> one-slot semaphore
}

// initPrefix starts the name of a mirror being created; it is renamed into place when
// complete, so a crash never leaves a half-initialised mirror under its final name.
const initPrefix = ".init-"

// NewMirrors returns the mirror cache kept in dir, creating dir (mode 0700) if needed
// and removing mirrors whose creation was interrupted. The error names dir.
func NewMirrors(dir string) (*Mirrors, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("mirror directory %s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("mirror directory %s: %w", abs, err)
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return nil, fmt.Errorf("mirror directory %s: %w", abs, err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), initPrefix) {
			if err := os.RemoveAll(filepath.Join(abs, e.Name())); err != nil {
				return nil, fmt.Errorf("mirror directory %s: %w", abs, err)
			}
		}
	}
	return &Mirrors{dir: abs, locks: map[string]chan struct{}{}}, nil
}

// Auth is HTTP basic auth for a fetch (empty User and Password: anonymous). For a
// GitHub App installation token User is "x-access-token"; for Gitea and Forgejo User
// is the token's owner and Password the token. It is sent with each request and never
// stored. String and LogValue hide Password.
type Auth struct{ User, Password string }

// String returns User and a mask in place of a non-empty Password.
func (a Auth) String() string {
	if a.Password == "" {
		return a.User
	}
	return a.User + ":***"
}

// LogValue keeps Password out of slog output.
func (a Auth) LogValue() slog.Value { return slog.StringValue(a.String()) }

func (a Auth) method() transport.AuthMethod {
	if a.User == "" && a.Password == "" {
		return nil
	}
	return &githttp.BasicAuth{Username: a.User, Password: a.Password}
}

// Fetch updates the bare mirror of cloneURL with refspecs (e.g.
// "+refs/pull/7/head:refs/tiergate/pull/7/head", "+refs/heads/main:refs/tiergate/heads/main";
// "+" allows a forced update, as after a force-push) and returns it opened as a *Repo.
// The *Repo sees the mirror's references as they were when Fetch returned, so a later
// fetch of the same remote does not move them under the caller; its objects are
// immutable. Every sha in want (40 hex digits) must name a commit present after the
// fetch, else the error names the missing shas. A fetch with nothing new is not an error.
//
// cloneURL must be an http or https URL without credentials, query or fragment; other
// URLs (file, ssh, git, scp-like) are refused before any I/O. A fetch waits for any
// other fetch of the same mirror; ctx bounds both the wait and the fetch, and the error
// then wraps ctx.Err(). A failed fetch leaves the mirror's references unchanged; a
// mirror that cannot be opened is deleted and created again. An HTTP 401 or 403 error
// wraps transport.ErrAuthenticationRequired or transport.ErrAuthorizationFailed.
func (m *Mirrors) Fetch(ctx context.Context, cloneURL string, auth Auth, refspecs []string, want ...string) (*Repo, error) {
	name, key, err := mirrorName(cloneURL)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*Repo, error) {
		return nil, fmt.Errorf("fetch %s: %w", cloneURL, err)
	}
	specs, err := parseRefSpecs(refspecs)
	if err != nil {
		return fail(err)
	}
	wantHashes := make([]plumbing.Hash, len(want))
	for i, w := range want {
		if !plumbing.IsHash(w) {
			return fail(fmt.Errorf("wanted commit %q is not a 40-digit sha", w))
		}
		wantHashes[i] = plumbing.NewHash(w)
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	unlock, err := m.lock(ctx, name)
	if err != nil {
		return fail(err)
	}
	defer unlock()

	path := filepath.Join(m.dir, name)
	fetch := func() (*Repo, error) {
		r, err := m.openOrCreate(path, key)
		if err != nil {
			return nil, err
		}
		// An interrupted fetch may leave its temporary pack behind; nothing reads it.
		tmps, _ := filepath.Glob(filepath.Join(path, "objects", "pack", "tmp_pack_*"))
		for _, p := range tmps {
			os.Remove(p)
		}
		if err := dropBrokenRefs(filepath.Join(path, "refs")); err != nil {
			return nil, err
		}
		err = r.FetchContext(ctx, &git.FetchOptions{
			RemoteName: "origin",
			RemoteURL:  cloneURL,
			RefSpecs:   specs,
			Auth:       auth.method(),
			Tags:       git.NoTags,
		})
		if ctx.Err() != nil {
			// go-git reports a cancelled request as an unexpected error that does not wrap it.
			return nil, ctx.Err()
		}
		if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
			return nil, err
		}
		return snapshot(path)
	}
	repo, err := fetch()
	var broken *brokenMirrorError
	if errors.As(err, &broken) {
		// A process killed while a fetch wrote the mirror can leave a file cut short (a pack
		// index): the mirror is a cache, so it is fetched again from nothing.
		if rmErr := os.RemoveAll(path); rmErr != nil {
			return fail(fmt.Errorf("remove unusable mirror %s: %w", path, rmErr))
		}
		repo, err = fetch()
	}
	if err != nil {
		return fail(err)
	}
	var missing []string
	for _, h := range wantHashes {
		if _, err := repo.repo.CommitObject(h); err != nil {
			missing = append(missing, h.String())
		}
	}
	if len(missing) > 0 {
		return fail(&MissingCommitsError{Commits: missing, RefSpecs: refspecs})
	}
	return repo, nil
}

// MissingCommitsError is Fetch's error when the fetch succeeded but wanted commits are not
// in the mirror: no fetched reference reaches them (a force push left them behind).
type MissingCommitsError struct {
	Commits  []string // the missing commits' 40-digit shas, in the order wanted
	RefSpecs []string // the refspecs fetched
}

func (e *MissingCommitsError) Error() string {
	return fmt.Sprintf("commit %s not found after fetching %s", strings.Join(e.Commits, ", "), strings.Join(e.RefSpecs, " "))
}

// dropBrokenRefs removes the loose references under dir that hold no object id: go-git
// rewrites a reference file in place, so a process killed in the middle leaves it empty,
// and every later fetch of the mirror fails ("ref file is empty"). The mirror's references
// are all fetched ones, so the next fetch sets them again.
func dropBrokenRefs(dir string) error {
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		line := strings.TrimSpace(string(b))
		if plumbing.IsHash(line) || strings.HasPrefix(line, "ref: ") {
			return nil
		}
		return os.Remove(p)
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("repair references in %s: %w", dir, err)
	}
	return nil
}

// lock waits until no other fetch holds the mirror name, or ctx is done.
func (m *Mirrors) lock(ctx context.Context, name string) (unlock func(), err error) {
	m.mu.Lock()
	sem, ok := m.locks[name]
	if !ok {
		sem = make(chan struct{}, 1)
		m.locks[name] = sem
	}
	m.mu.Unlock()
	select {
	case sem <- struct{}{}:
		return func() { <-sem }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// openOrCreate opens the bare mirror at path, replacing it with a new empty one when it
// is missing or cannot be opened. Open is not used: its search of parent directories
// could find an unrelated repository above the data directory.
func (m *Mirrors) openOrCreate(path, key string) (*git.Repository, error) {
	r, err := git.PlainOpen(path)
	if err == nil {
		_, err = r.Config()
	}
	if err == nil {
		return r, nil
	}
	if err := os.RemoveAll(path); err != nil {
		return nil, fmt.Errorf("remove unusable mirror %s: %w", path, err)
	}
	tmp, err := os.MkdirTemp(m.dir, initPrefix+filepath.Base(path)+"-")
	if err != nil {
		return nil, fmt.Errorf("create mirror %s: %w", path, err)
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	r, err = git.PlainInitWithOptions(tmp, &git.PlainInitOptions{
		Bare:        true,
		InitOptions: git.InitOptions{DefaultBranch: plumbing.Main},
	})
	if err == nil {
		// The remote records where the mirror comes from; credentials are never part of it.
		_, err = r.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{key}})
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		return nil, fmt.Errorf("create mirror %s: %w", path, err)
	}
	return git.PlainOpen(path)
}

// mirrorName returns the directory name of cloneURL's mirror and the URL in the
// normalized form it is derived from: lower-case scheme and host, no default port, no
// trailing slash or ".git". Equivalent spellings of one URL share a mirror.
func mirrorName(cloneURL string) (name, key string, err error) {
	u, err := url.Parse(cloneURL)
	if err != nil {
		// url.Error quotes the whole URL, which may hold a token.
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return "", "", fmt.Errorf("mirror URL: %w", err)
	}
	scheme := strings.ToLower(u.Scheme)
	hasUser := u.User != nil
	u.User = nil // never echoed, even in an error
	switch {
	case scheme != "http" && scheme != "https":
		return "", "", fmt.Errorf("mirror URL %s: scheme %q is not supported, only http and https", u, u.Scheme)
	case u.Host == "":
		return "", "", fmt.Errorf("mirror URL %s: no host", u)
	}
	if hasUser {
		return "", "", fmt.Errorf("mirror URL %s: credentials in the URL are refused, pass them as Auth", u)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return "", "", fmt.Errorf("mirror URL %s: query and fragment are not supported", u)
	}
	host := strings.ToLower(u.Hostname())
	if p := u.Port(); p != "" && !(scheme == "http" && p == "80") && !(scheme == "https" && p == "443") {
		host += ":" + p
	}
	p := strings.TrimSuffix(strings.TrimRight(u.EscapedPath(), "/"), ".git")
	key = scheme + "://" + host + p

	readable := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-':
			return r
		}
		return '_'
	}, host+p)
	readable = strings.TrimLeft(readable, ".") // never hidden, never taken for a mirror being created
	if len(readable) > 80 {
		readable = readable[:80]
	}
	sum := sha256.Sum256([]byte(key))
	return readable + "-" + hex.EncodeToString(sum[:8]), key, nil
}

// parseRefSpecs checks that each refspec fetches a source into a local reference.
func parseRefSpecs(refspecs []string) ([]config.RefSpec, error) {
	if len(refspecs) == 0 {
		return nil, errors.New("no refspec to fetch")
	}
	specs := make([]config.RefSpec, len(refspecs))
	for i, s := range refspecs {
		spec := config.RefSpec(s)
		if err := spec.Validate(); err != nil {
			return nil, fmt.Errorf("refspec %q: %w", s, err)
		}
		src, dst, _ := strings.Cut(strings.TrimPrefix(s, "+"), ":")
		if src == "" {
			return nil, fmt.Errorf("refspec %q: no source", s)
		}
		if !strings.HasPrefix(dst, "refs/") {
			return nil, fmt.Errorf("refspec %q: destination must be under refs/", s)
		}
		specs[i] = spec
	}
	return specs, nil
}

// brokenMirrorError is a mirror that a fetch completed on but that cannot be read.
type brokenMirrorError struct {
	path string
	err  error
}

func (e *brokenMirrorError) Error() string { return fmt.Sprintf("open mirror %s: %v", e.path, e.err) }
func (e *brokenMirrorError) Unwrap() error { return e.err }

// snapshot opens the bare repository at path with its references copied into memory,
// and loads its pack indexes now, while the caller holds the mirror's lock.
func snapshot(path string) (*Repo, error) {
	fs := openStorage(osfs.New(path))
	refs := memory.ReferenceStorage{}
	head, err := fs.Reference(plumbing.HEAD)
	if err != nil {
		return nil, &brokenMirrorError{path, err}
	}
	refs[head.Name()] = head
	iter, err := fs.IterReferences()
	if err != nil {
		return nil, &brokenMirrorError{path, err}
	}
	err = iter.ForEach(func(ref *plumbing.Reference) error {
		refs[ref.Name()] = ref
		return nil
	})
	if err != nil {
		return nil, &brokenMirrorError{path, err}
	}
	// Any lookup of a missing object reads the pack indexes; later packs stay unseen.
	if err := fs.HasEncodedObject(plumbing.ZeroHash); err != nil && !errors.Is(err, plumbing.ErrObjectNotFound) {
		return nil, &brokenMirrorError{path, err}
	}
	r, err := git.Open(&snapshotStorage{Storage: fs, refs: refs}, nil)
	if err != nil {
		return nil, &brokenMirrorError{path, err}
	}
	return &Repo{repo: r}, nil
}

// snapshotStorage is a mirror's storage whose references live in memory: writes by a
// later fetch are not seen, and changes made through it are not written.
type snapshotStorage struct {
	*filesystem.Storage
	refs memory.ReferenceStorage
}

func (s *snapshotStorage) SetReference(r *plumbing.Reference) error { return s.refs.SetReference(r) }
func (s *snapshotStorage) CheckAndSetReference(r, old *plumbing.Reference) error {
	return s.refs.CheckAndSetReference(r, old)
}
func (s *snapshotStorage) Reference(n plumbing.ReferenceName) (*plumbing.Reference, error) {
	return s.refs.Reference(n)
}
func (s *snapshotStorage) IterReferences() (storer.ReferenceIter, error) {
	return s.refs.IterReferences()
}
func (s *snapshotStorage) RemoveReference(n plumbing.ReferenceName) error {
	return s.refs.RemoveReference(n)
}
func (s *snapshotStorage) CountLooseRefs() (int, error) { return s.refs.CountLooseRefs() }
func (s *snapshotStorage) PackRefs() error              { return s.refs.PackRefs() }
