//go:build !linux

package main

import (
	"io/fs"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// sameInode is false where the change time is not read: every file is then hashed.
func sameInode(*index.Entry, fs.FileInfo) bool { return false }
