package main

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/spf13/cobra"
)

// profileFlag adds the hidden --cpu-profile flag: the command's CPU profile is written to
// that file (go tool pprof reads it), to find where a review's time goes
// (docs/performance.md). The file is created before the command runs.
func profileFlag(root *cobra.Command) {
	var path string
	var f *os.File
	root.PersistentFlags().StringVar(&path, "cpu-profile", "", "write a CPU profile of the command to this file")
	_ = root.PersistentFlags().MarkHidden("cpu-profile")
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		if path == "" {
			return nil
		}
		var err error
		if f, err = os.Create(path); err != nil {
			return usageErr("--cpu-profile: %v", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return usageErr("--cpu-profile: %v", err)
		}
		return nil
	}
	stop := func() {
		stopProfile(f)
		f = nil
	}
	root.PersistentPostRun = func(*cobra.Command, []string) { stop() }
	stopProfiles = append(stopProfiles, stop)
}

// stopProfiles end a running profile when the command fails (PersistentPostRun does not
// run then).
var stopProfiles []func()

func stopProfile(f *os.File) {
	if f == nil {
		return
	}
	pprof.StopCPUProfile()
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "cpu-profile:", err)
	}
}
