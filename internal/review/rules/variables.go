package rules

import (
	"fmt"
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// undefinedVariable reports ${VAR} without a default operator that neither substitute nor
// substituteFrom defines, in a Kustomization whose substitution runs. Since Flux 2.9
// (kustomize-controller v1.9.0, StrictPostBuildSubstitutions on by default) the reconcile
// fails with 'variable not set (strict mode)'; before, the text became empty
// (flux-semantics.md §2).
func undefinedVariable(c, _ *graph.Cluster, env *Env) []Finding {
	sev := Error
	if !env.Strict {
		sev = Warning
	}
	var out []Finding
	each(c, func(ks *graph.Kustomization, o *graph.Object) {
		for _, name := range o.Undefined {
			f := objectFinding("undefined-variable", sev, c.Name, o, ks.Ref)
			f.key = name
			f.Line = varLine(c, o, name)
			f.Message = fmt.Sprintf("${%s} in %s is defined by neither postBuild.substitute nor substituteFrom of %s: strict substitution (Flux ≥ 2.9) fails the reconcile; older Flux substitutes an empty string.",
				name, o.ID, ks.Ref)
			f.Suggestion = fmt.Sprintf("Define %s in postBuild.substitute or a substituteFrom ConfigMap of %s, give it a default (`${%s:=value}`), or, if the text is not meant for Flux, escape it as `$${%s}` or annotate the object `kustomize.toolkit.fluxcd.io/substitute: disabled`.",
				name, ks.Ref, name, name)
			out = append(out, f)
		}
	})
	return out
}

// unsubstitutedVariable reports ${VAR} expressions that ship literally because substitution
// never runs for the Kustomization: it has no postBuild, or its postBuild resolves no
// variable and substituteStrategy is not Always (KC v1.9.0, kustomize-controller#1011).
// Expressions only in documentation text (literalOutsideDocs) are not reported.
func unsubstitutedVariable(c, _ *graph.Cluster, _ *Env) []Finding {
	var out []Finding
	each(c, func(ks *graph.Kustomization, o *graph.Object) {
		literal := literalOutsideDocs(o)
		if len(literal) == 0 {
			return
		}
		f := objectFinding("unsubstituted-variable", Warning, c.Name, o, ks.Ref)
		f.key = strings.Join(literal, ",")
		f.Line = textLine(c, o, literal[0])
		why := "has no postBuild"
		if ks.Spec.PostBuild != nil {
			why = "resolves no postBuild variable"
		}
		f.Message = fmt.Sprintf("%s contains %s, but %s %s, so the text is applied literally.", o.ID, strings.Join(literal, ", "), ks.Ref, why)
		f.Suggestion = fmt.Sprintf("Add spec.postBuild.substitute (or substituteFrom) to %s defining the variables, or escape the text as `$${...}` / annotate the object `kustomize.toolkit.fluxcd.io/substitute: disabled` if it is meant literally.", ks.Ref)
		out = append(out, f)
	})
	return out
}
