package main

import (
	"io/fs"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// sameInode reports whether fi has the change time, device and inode that the index
// entry e recorded, as git's ie_match_stat (read-cache.c) compares them: a write that
// keeps the size and puts the modification time back still moves the change time.
func sameInode(e *index.Entry, fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	ctime := time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec))
	return ctime.Equal(e.CreatedAt) && uint32(st.Ino) == e.Inode && uint32(st.Dev) == e.Dev
}
