package cachestore

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
)

// Version names the build of this process for Open: tiergate's version (as set at build
// time), its VCS revision, and the path@version of every module it is built with
// (kustomize, fluxcd/pkg, Helm, … all change what a render gives), with the Go version.
// A build without VCS information, or from a modified work tree, adds its executable's
// size and modification time: a development build does not read another's entries.
func Version(tiergate string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "tiergate %s %s\n", tiergate, runtime.Version())
	info, ok := debug.ReadBuildInfo()
	clean := false
	if ok {
		fmt.Fprintf(&b, "main %s %s\n", info.Main.Path, info.Main.Version)
		var deps []string
		for _, d := range info.Deps {
			m := d
			if d.Replace != nil {
				m = d.Replace
			}
			deps = append(deps, d.Path+" "+m.Path+"@"+m.Version+" "+m.Sum)
		}
		sort.Strings(deps)
		b.WriteString(strings.Join(deps, "\n"))
		rev, modified := "", true
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		fmt.Fprintf(&b, "\nvcs %s %t\n", rev, modified)
		clean = rev != "" && !modified
	}
	if !clean {
		if exe, err := os.Executable(); err == nil {
			if st, err := os.Stat(exe); err == nil {
				fmt.Fprintf(&b, "exe %s %d %d\n", exe, st.Size(), st.ModTime().UnixNano())
			}
		}
	}
	return b.String()
}
