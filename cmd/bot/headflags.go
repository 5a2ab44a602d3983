package main

import (
	"github.com/spf13/pflag"
)

// checkHeadFlags refuses the flags that do not go together. The head is one of: --head (a
// revision), --worktree, --head-dir with a git --base (--repo defaults to the head
// folder), or --head-dir with --base-dir (two plain folders, no git).
func checkHeadFlags(fl *pflag.FlagSet, f *reviewFlags) error {
	if f.worktree {
		for _, name := range []string{"head", "head-dir", "base-dir"} {
			if fl.Changed(name) {
				return usageErr("--%s does not apply to --worktree", name)
			}
		}
		return nil
	}
	if f.headDir != "" && f.baseDir == "" && f.base != "" {
		if fl.Changed("head") {
			return usageErr("--head does not apply to --head-dir")
		}
		if !fl.Changed("repo") {
			f.repo = f.headDir
		}
		return nil
	}
	if f.baseDir != "" || f.headDir != "" {
		for _, name := range []string{"repo", "base", "head", "no-merge-base"} {
			if fl.Changed(name) {
				return usageErr("--%s does not apply to --base-dir/--head-dir", name)
			}
		}
	}
	return nil
}
