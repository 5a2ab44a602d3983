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
//
// The gate's state is read per cluster (clusterFluxVersion) unless .tiergate.yaml sets
// strictSubstitution; unknown, it is the default of today's Flux.
func undefinedVariable(c, _ *graph.Cluster, env *Env) []Finding {
	strict, why := env.Strict, "strict substitution (Flux ≥ 2.9) fails the reconcile; older Flux substitutes an empty string."
	var once bool
	verdict := func() {
		if once || env.StrictConfigured {
			return
		}
		once = true
		if v, ok := clusterFluxVersion(c); ok {
			strict, why = v.Strict, v.describe(c.Name)+", where strict substitution (on by default since Flux 2.9) fails the reconcile."
			if !v.Strict {
				why = v.describe(c.Name) + ", before Flux 2.9 made strict substitution the default: the reconcile goes on and the variable becomes an empty string."
			}
		}
	}
	var out []Finding
	each(c, func(ks *graph.Kustomization, o *graph.Object) {
		for _, name := range o.Undefined {
			verdict()
			sev := Error
			if !strict {
				sev = Warning
			}
			f := objectFinding("undefined-variable", sev, c.Name, o, ks.Ref)
			f.key = name
			f.Line = varLine(c, o, name)
			f.Message = fmt.Sprintf("${%s} in %s is defined by neither postBuild.substitute nor substituteFrom of %s: %s", name, o.ID, ks.Ref, why)
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
