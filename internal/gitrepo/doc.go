// Package gitrepo reads a local git repository with go-git: it opens the repository,
// resolves revisions to commits, finds merge bases and writes a commit's tree to a
// temporary directory for rendering. The tree it writes is untrusted input: nothing is
// written outside the directory, no symlink is followed while writing, symlinks that
// lead out of the tree, submodules and unsafe paths are skipped and reported, and the
// size of a checkout is bounded by Limits.
//
// Mirrors keeps a bare mirror per remote for the webhook server and fetches a pull
// request's refs into it over http(s), with credentials passed per fetch and never
// stored. Fetches of one mirror are serialised; the *Repo a fetch returns holds a
// snapshot of the mirror's references, so later fetches do not move them.
package gitrepo
