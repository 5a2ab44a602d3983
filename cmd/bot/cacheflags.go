package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/tiergate/tiergate/internal/cachestore"
	"github.com/tiergate/tiergate/internal/render"
)

// cacheFlags are the persistent cache's flags of review, graph, build and action.
type cacheFlags struct {
	dir    string
	off    bool
	maxMiB int64
}

func (c *cacheFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&c.dir, "cache-dir", "", "folder of the persistent cache of builds and charts, shared by runs (default $XDG_CACHE_HOME/tiergate, else ~/.cache/tiergate)")
	fl.BoolVar(&c.off, "no-cache", false, "use no persistent cache: build everything, keep nothing")
	fl.Int64Var(&c.maxMiB, "cache-max-mib", 512, "bound of the persistent cache folder in MiB; the least recently used entries go first")
}

// openCache is the persistent cache of one command: a render.Cache whose builds persist
// in the Store (nil with --no-cache), the folder for pulled charts ("" : in memory only),
// and a function to call at the end (it trims the folder to its bound). A folder that
// cannot be opened is a warning on warn (nil: none) and the run goes on without it:
// the cache only saves time.
func (c *cacheFlags) openCache(warn io.Writer) (*render.Cache, string, func()) {
	noop := func() {}
	if c.off {
		return nil, "", noop
	}
	if c.maxMiB <= 0 {
		c.maxMiB = 512
	}
	dir := c.dir
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			warnf(warn, "no persistent cache: %v (set --cache-dir, or --no-cache)\n", err)
			return nil, "", noop
		}
		dir = filepath.Join(base, "tiergate")
	}
	st, err := cachestore.Open(dir, cachestore.Version(version), c.maxMiB<<20)
	if err != nil {
		warnf(warn, "no persistent cache: %v\n", err)
		return nil, "", noop
	}
	rc := render.NewCache(0)
	rc.Persist(st)
	return rc, filepath.Join(dir, "charts"), func() {
		if err := st.Close(); err != nil {
			warnf(warn, "persistent cache: %v\n", err)
		}
	}
}

func warnf(w io.Writer, format string, a ...any) {
	if w != nil {
		fmt.Fprintf(w, format, a...)
	}
}
