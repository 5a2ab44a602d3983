package pipeline

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tiergate/tiergate/internal/config"

	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/review/rules"
)

// reviewConfig returns the configuration a review runs with. path (--config, the
// operator's file) is used when given, and any error in it stops the review. Otherwise the
// head's .tiergate.yaml is, when present; one that cannot be used (a YAML error, an alias
// bomb, a file over the size limits, an unknown key) does not stop the review of the pull
// request that broke it: it is a config-error finding, and the review runs with the base's
// .tiergate.yaml, or the defaults when that cannot be used either. The finding is
// existing when the base's file has the same error, new otherwise.
func reviewConfig(path string, head, base *Tree) (*config.Config, *rules.Finding, error) {
	hs, err := head.source()
	if err != nil {
		return nil, nil, err
	}
	cfg, err := loadConfig(path, hs)
	if err == nil || path != "" {
		return cfg, nil, err
	}
	f := configError(err)
	cfg = &config.Config{}
	if bs, berr := base.source(); berr == nil {
		if bc, err := loadConfig("", bs); err != nil {
			if configError(err).Message == f.Message {
				f.Status = rules.StatusExisting
			}
		} else if checkClusterPaths(bc, hs) == nil {
			cfg = bc // its cluster paths must be folders of the head, which it renders too
		}
	}
	return cfg, f, nil
}

// configError is the config-error finding of an error loading .tiergate.yaml: at the line
// config.Error names (1 for the file as a whole), with what was used instead.
func configError(err error) *rules.Finding {
	f := &rules.Finding{Rule: "config-error", Severity: rules.Error, Status: rules.StatusNew, File: config.FileName, Line: 1,
		Message: err.Error()}
	var ce *config.Error
	if errors.As(err, &ce) {
		f.File, f.Message = ce.File, ce.Error()
		if ce.Line > 0 {
			f.Line = ce.Line
		}
	}
	f.Message = fmt.Sprintf("%s cannot be used, so this review ran with the base's %s (or the defaults when that cannot be used either): %s", config.FileName, config.FileName, f.Message)
	f.Suggestion = fmt.Sprintf("Fix %s at the line named; see docs/config.md for its keys.", config.FileName)
	return f
}

// readHeadConfig returns the tree's .tiergate.yaml; ok is false when it has none. A file
// the source refused (over MaxFileBytes, an alias bomb, a symlink) is a *config.Error.
func readHeadConfig(src *fsys.Source) (data []byte, ok bool, err error) {
	if why, refused := src.Refused(config.FileName); refused {
		// why starts with the path ("x has 9437184 bytes, over ..."), which Error repeats.
		return nil, true, &config.Error{File: config.FileName, Message: "it" + strings.TrimPrefix(why, config.FileName)}
	}
	data, ok = src.ReadFile(config.FileName)
	return data, ok, nil
}
