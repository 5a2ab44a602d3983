package render

import (
	"fmt"
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
		for _, m := range prevName.FindAllStringSubmatch(msg, -1) {
			names = append(names, m[1])
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
