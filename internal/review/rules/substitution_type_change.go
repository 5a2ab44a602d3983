package rules

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// substitutionTypeChange reports a string field of the source that postBuild substitution
// turns into a number, a boolean or null (graph.Object.TypeChanges): kustomize-controller
// marshals each object to YAML, substitutes the text and parses it again
// (fluxcd/pkg/kustomize kustomize_varsub.go SubstituteVariables: res.AsYAML; varSubstitution:
// envsubst.Eval then yaml.YAMLToJSON), and the quotes of `"${ONE}"` are gone once kustomize
// has read the manifest, so ONE=1 writes `one: 1`. Where the field is a string by its type
// (metadata name, namespace, labels and annotations, ConfigMap and Secret data, a
// container's image, env value, command and args) the server-side apply dry-run refuses the
// object and the whole Kustomization stops: an error. The API server converts an applied
// object to its typed form first (k8s.io/apimachinery managedfields/internal
// structuredmerge.go structuredMergeManager.Apply: "failed to create typed patch object"),
// and a number where the schema says string fails there (sigs.k8s.io/structured-merge-diff
// typed/validate.go validateScalar: "expected string, got …").
// Elsewhere the field's type is not known here; when the manifest quotes the expression
// (a string was meant), the API server refuses it if the schema wants a string and reads a
// number or boolean where the schema allows one (an untyped field, HelmRelease
// spec.values): a warning. An unquoted expression (`replicas: ${REPLICAS}`) is taken as
// meant, and a field whose variables are all undefined is undefined-variable's.
func substitutionTypeChange(c, _ *graph.Cluster, _ *Env) []Finding {
	var out []Finding
	each(c, func(ks *graph.Kustomization, o *graph.Object) {
		for _, tc := range o.TypeChanges {
			if allUndefined(tc.Vars, o.Undefined) {
				continue
			}
			line, quoted := typeChangeLine(c, o, tc)
			typed := stringField(o.ID, tc.Path)
			if !typed && !quoted {
				continue
			}
			sev := Warning
			why := "the API server refuses the object if the field's schema wants a string, and otherwise stores a " + tc.Type + " where the manifest meant a string"
			if typed {
				sev = Error
				why = "the field holds strings only, so the server-side apply dry-run fails with 'expected string' and Flux applies none of " + ks.Ref.String()
			}
			f := objectFinding("substitution-type-change", sev, c.Name, o, ks.Ref)
			f.key = strings.Join(tc.Path, ".")
			f.Line = line
			f.Message = fmt.Sprintf("%s of %s becomes %s after postBuild substitution of %s: Flux substitutes the object's YAML text and parses it again, so quotes around the expression do not survive; %s.",
				fieldName(tc.Path), o.ID, becomes(tc), varList(tc.Vars), why)
			f.Suggestion = fmt.Sprintf("Write the quotes through a variable, as kustomize-controller's documentation does: `${quote}%s${quote}` with `quote: '\"'` in postBuild.substitute of %s. Quoting the expression in the manifest (`\"${%s}\"`, `'${%s}'`) or a default (`${%s:=…}`) does not help: the quotes are gone before substitution.",
				exprOf(tc.Vars), ks.Ref, tc.Vars[0], tc.Vars[0], tc.Vars[0])
			out = append(out, f)
		}
	})
	return out
}

// becomes says what the field turns into: "the integer 8080", or "an integer" when a
// Secret variable wrote it (TypeChange.Value is then empty).
func becomes(tc graph.TypeChange) string {
	if tc.Type == "null" {
		return "null"
	}
	if tc.Value == "" {
		if tc.Type == "integer" {
			return "an integer"
		}
		return "a " + tc.Type
	}
	return "the " + tc.Type + " " + tc.Value
}

// varList writes the variables as expressions: "${ONE}", "${A} and ${B}".
func varList(vars []string) string {
	var out []string
	for _, v := range vars {
		out = append(out, "${"+v+"}")
	}
	return joinAnd(out)
}

// exprOf is the expression of the first variable, as the manifest would read it.
func exprOf(vars []string) string { return "${" + vars[0] + "}" }

// fieldName writes a field path as YAML reads it: data.one, spec.containers[0].image.
func fieldName(path []string) string {
	var b strings.Builder
	for i, p := range path {
		if _, err := strconv.Atoi(p); err == nil {
			b.WriteString("[" + p + "]")
			continue
		}
		if i > 0 {
			b.WriteString(".")
		}
		b.WriteString(p)
	}
	return b.String()
}

func allUndefined(vars, undefined []string) bool {
	for _, v := range vars {
		if !slices.Contains(undefined, v) {
			return false
		}
	}
	return true
}

// stringField reports whether path is a field of id's kind whose type is string: a
// metadata name, namespace, label or annotation of any object, a ConfigMap's or Secret's
// data, a container's image, env value, command or args (core/v1 types.go).
func stringField(id graph.ObjectID, path []string) bool {
	n := len(path)
	if n >= 2 && path[0] == "metadata" {
		switch {
		case n == 2 && (path[1] == "name" || path[1] == "namespace" || path[1] == "generateName"):
			return true
		case n == 3 && (path[1] == "labels" || path[1] == "annotations"):
			return true
		}
	}
	if id.Group == "" && n == 2 {
		switch {
		case id.Kind == "ConfigMap" && (path[0] == "data" || path[0] == "binaryData"):
			return true
		case id.Kind == "Secret" && (path[0] == "data" || path[0] == "stringData"):
			return true
		}
	}
	for i := 0; i+2 < n; i++ {
		if path[i] != "containers" && path[i] != "initContainers" && path[i] != "ephemeralContainers" {
			continue
		}
		rest := path[i+2:] // after the container's index
		switch {
		case len(rest) == 1 && rest[0] == "image":
			return true
		case len(rest) == 2 && (rest[0] == "command" || rest[0] == "args"):
			return true
		case len(rest) == 3 && rest[0] == "env" && rest[2] == "value":
			return true
		}
	}
	return false
}

// quotedValue matches a line whose value (after "key:" or a list's "-") opens with a quote
// before an expression.
var quotedValue = regexp.MustCompile(`(^\s*-|:)\s+["'][^"']*\$\{`)

// typeChangeLine locates the field of tc in o's manifest, the line of its key path (list
// indices skipped) and then of the first use of its first variable from there, and whether
// the manifest quotes the expression there.
func typeChangeLine(c *graph.Cluster, o *graph.Object, tc graph.TypeChange) (int, bool) {
	var keys []string
	for _, p := range tc.Path {
		if _, err := strconv.Atoi(p); err != nil {
			keys = append(keys, p)
		}
	}
	from, _ := keyLine(c, o.File, o.Line, keys...)
	line := lineAfter(c, o.File, from, usesVar(tc.Vars[0]))
	lines, ok := c.Lines(o.File)
	if !ok {
		return line, false
	}
	if line < 1 || line > len(lines) {
		return line, false
	}
	return line, quotedValue.MatchString(lines[line-1])
}
