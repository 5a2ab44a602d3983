package render

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// Kustomize reports a failure as the chain of every step it was in ("accumulating
// resources: accumulation err='accumulating resources from 'apps': …': must build at
// directory: …"). These patterns recognise the innermost cause of the chains a Flux
// repository usually hits (sigs.k8s.io/kustomize/api internal/target kusttarget.go
// accumulateResources, api/resource factory.go, kyaml's yaml.v3 errors).
var (
	missingEntry = regexp.MustCompile(`accumulating resources from '([^']+)': (?:open|lstat|evalsymlink failure on) [^:]*: no such file or directory`)
	dupKey       = regexp.MustCompile(`mapping key "([^"]*)" already defined`)
	yamlSyntax   = regexp.MustCompile(`yaml: line \d+: (.+)$`)
	// api/builtins NamespaceTransformer.go: two objects the namespace made one identity.
	nsConflict = regexp.MustCompile(`namespace transformation produces ID conflict`)
	prevName   = regexp.MustCompile(`"internal.config.kubernetes.io/previousNames":"([^"]+)"`)
	conflictID = regexp.MustCompile(`"kind":"([^"]+)".*?"name":"([^"]+)"\}`)
)

// missingPath is the repo-relative path a kustomize chain could not open.
var missingPath = regexp.MustCompile(`(?:open|lstat) ([^\s':]+): no such file or directory`)

// leftOut says, in be, that the path the build misses is (or lies below) a symlink that
// source-controller left out of the artifact: its Storage.Archive walks the tree with
// filepath.Walk and skips every entry that is neither a regular file nor a folder, symlinks
// included, whatever they point at (source-controller internal/storage/storage.go Archive,
// "Ignore anything that is not a file or directories e.g. symlinks"), so in the cluster the
// entry is missing too and only "no such file" would say so.
func leftOut(be *graph.BuildError, snap *graph.Snapshot) *graph.BuildError {
	if be == nil || snap == nil || len(snap.LeftOut) == 0 {
		return be
	}
	m := lastMatch(missingPath, be.Details+" "+be.Message)
	if m == nil {
		return be
	}
	if why := leftOutWhy(snap, m[1]); why != "" {
		if msg, ok := strings.CutSuffix(be.Message, ", which does not exist"); ok {
			be.Message = msg + ": " + why
		} else {
			be.Message += ": " + why
		}
	}
	return be
}

// leftOutWhy says why the repo-relative rel is not in the artifact when it is, or lies
// below, a symlink Snapshot.Without left out (where it points, and whether that is outside
// the repository); "" when it is not.
func leftOutWhy(snap *graph.Snapshot, rel string) string {
	for p := path.Clean(rel); p != "." && p != "/" && p != ""; p = path.Dir(p) {
		target, ok := snap.LeftOut[p]
		if !ok {
			continue
		}
		why := p + " is a symlink"
		switch {
		case target == "":
		case path.IsAbs(target) || strings.HasPrefix(path.Join(path.Dir(p), target)+"/", "../"):
			why += " (to " + target + ", outside the repository)"
		default:
			why += " (to " + target + ")"
		}
		return why + ", which source-controller leaves out of the artifact it packs (only regular files and folders), so kustomize-controller does not find it"
	}
	return ""
}

// summarize shortens be's message to one sentence naming the file and line of the cause,
// keeping the whole chain in Details; be is returned as it is when no pattern knows the
// chain, or when the chain is one sentence already.
func summarize(be *graph.BuildError) *graph.BuildError {
	if be == nil || be.Details != "" {
		return be
	}
	msg, at := be.Message, fmt.Sprintf("%s:%d", be.File, be.Line)
	var short string
	if m := lastMatch(missingEntry, msg); m != nil {
		short = fmt.Sprintf("%s lists '%s', which does not exist", at, m[1])
	} else if m := lastMatch(missingName, msg); m != nil {
		short = fmt.Sprintf("the %s at %s has no metadata.name", m[1], at)
	} else if m := lastMatch(dupKey, msg); m != nil {
		short = fmt.Sprintf("key %q is defined twice in one object, at %s", m[1], at)
	} else if nsConflict.MatchString(msg) {
		var names []string
		// previousNames lists every name the object had, oldest first, one per
		// transformation that changed its ID (kustomize api/resource resource.go
		// StorePreviousId): the first is the name as written in its file.
		for _, m := range prevName.FindAllStringSubmatch(msg, -1) {
			first, _, _ := strings.Cut(m[1], ",")
			names = append(names, first)
		}
		if id := conflictID.FindStringSubmatch(msg); id != nil && len(names) > 1 {
			short = fmt.Sprintf("the namespace transformer (targetNamespace, or a kustomization's namespace:) makes %s %s one object named %s", id[1], strings.Join(names, " and "), id[2])
		}
	} else if m := lastMatch(yamlSyntax, msg); m != nil {
		short = fmt.Sprintf("%s is not valid YAML: %s", at, m[1])
	}
	if short == "" || short == msg {
		return be
	}
	be.Details, be.Message = msg, short
	return be
}

// lastMatch is the submatches of the last match of re in s (the innermost step of a
// chain); nil when none.
func lastMatch(re *regexp.Regexp, s string) []string {
	all := re.FindAllStringSubmatch(strings.ReplaceAll(s, "\n", " "), -1)
	if len(all) == 0 {
		return nil
	}
	return all[len(all)-1]
}
