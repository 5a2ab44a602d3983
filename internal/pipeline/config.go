package pipeline

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/tiergate/tiergate/internal/config"

	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/review/rules"
)

// reviewConfig returns the configuration a review runs with. path (--config, the
// operator's file) is used when given, and any error in it stops the review. Otherwise the
// head's .tiergate.yaml is, when present; one that cannot be used (a YAML error, an alias
// bomb, a file over the size limits, an unknown key) does not stop the review of the pull
// request that broke it: each of its errors is a config-error finding at its own line, and
// the review runs with the base's .tiergate.yaml, or the defaults when that cannot be used
// either. A finding is existing when the base's file has the same error, new otherwise.
func reviewConfig(path string, head, base *Tree) (*config.Config, []rules.Finding, error) {
	hs, err := head.source()
	if err != nil {
		return nil, nil, err
	}
	cfg, err := loadConfig(path, hs)
	if err == nil || path != "" {
		return cfg, nil, err
	}
	fs := configErrors(err)
	cfg = &config.Config{}
	if bs, berr := base.source(); berr == nil {
		if bc, err := loadConfig("", bs); err != nil {
			atBase := map[string]bool{}
			for _, b := range configErrors(err) {
				atBase[b.Message] = true
			}
			for i := range fs {
				if atBase[fs[i].Message] {
					fs[i].Status = rules.StatusExisting
				}
			}
		} else if checkClusterPaths(bc, hs) == nil {
			cfg = bc // its cluster paths must be folders of the head, which it renders too
		}
	}
	return cfg, fs, nil
}

// configErrors are the config-error findings of an error loading .tiergate.yaml, one per
// error it lists (config.All): each at the line it names (1 for the file as a whole), with
// what was used instead.
func configErrors(err error) []rules.Finding {
	var out []rules.Finding
	for _, e := range config.All(err) {
		f := rules.Finding{Rule: "config-error", Severity: rules.Error, Status: rules.StatusNew, File: config.FileName, Line: 1,
			Message: e.Error()}
		var ce *config.Error
		if errors.As(e, &ce) {
			f.File = ce.File
			if ce.Line > 0 {
				f.Line = ce.Line
			}
		}
		f.Message = fmt.Sprintf("%s cannot be used, so this review ran with the base's %s (or the defaults when that cannot be used either): %s", config.FileName, config.FileName, f.Message)
		f.Suggestion = fmt.Sprintf("Fix %s at the line named; see docs/config.md for its keys.", config.FileName)
		out = append(out, f)
	}
	return out
}

// readHeadConfig returns the tree's .tiergate.yaml; ok is false when it has none. A file
// the source refused (over MaxFileBytes, an alias bomb, a symlink), and an entry that is no
// regular file (a folder, a named pipe), is a *config.Error.
func readHeadConfig(src *fsys.Source) (data []byte, ok bool, err error) {
	if why, refused := src.Refused(config.FileName); refused {
		// why starts with the path ("x has 9437184 bytes, over ..."), which Error repeats.
		return nil, true, &config.Error{File: config.FileName, Message: "it" + strings.TrimPrefix(why, config.FileName)}
	}
	if what := notAFile(src); what != "" {
		return nil, true, &config.Error{File: config.FileName, Message: what}
	}
	data, ok = src.ReadFile(config.FileName)
	return data, ok, nil
}

// notAFile says what the tree's .tiergate.yaml is when it is neither absent nor a regular
// file, from the mode the tree recorded (Lstat, or the git tree entry): nothing opens it,
// since opening a named pipe waits for a writer. Empty for a file or no entry.
func notAFile(src *fsys.Source) string {
	switch src.Snapshot.State(config.FileName) {
	case "dir":
		return "it is a folder, not a file"
	case "other":
		t := src.Snapshot.Types[config.FileName]
		what := "a special file"
		switch {
		case t&fs.ModeNamedPipe != 0:
			what = "a named pipe"
		case t&fs.ModeSocket != 0:
			what = "a socket"
		case t&fs.ModeDevice != 0:
			what = "a device"
		}
		return "it is " + what + ", not a regular file"
	}
	return ""
}
