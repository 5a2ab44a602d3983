package rules

import (
	"fmt"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/tiergate/tiergate/internal/render/graph"
	"k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/util/validation"
)

// invalidName reports an object whose metadata.name the API server refuses, most often
// after postBuild substitution (`name: ${APP}-x` with APP empty, uppercase or too long).
// The name is validated as the API server validates the object's kind
// (k8s.io/kubernetes pkg/apis/core/validation and apiextensions-apiserver's custom resource
// validator, over k8s.io/apimachinery/pkg/util/validation): see nameRule. kustomize-controller
// dry-runs every object of a stage before it applies any (fluxcd/pkg ssa
// ResourceManager.ApplyAllStaged), so the refused name fails the whole Kustomization's apply;
// a chart object fails helm-controller's install or upgrade of its HelmRelease, a ResourceSet's
// object flux-operator's apply of the ResourceSet. The finding
// is at the line of metadata.name in the source file and names the variables used there.
// An empty name with metadata.generateName set is left alone, and so is the name of a
// ResourceSet object rendered from placeholders (graph.Object.Placeholders).
func invalidName(c, _ *graph.Cluster, _ *Env) []Finding {
	var out []Finding
	each(c, func(ks *graph.Kustomization, o *graph.Object) {
		name := o.Body.GetName()
		if name == "" && o.Body.GetGenerateName() != "" || o.Placeholders {
			// A ResourceSet object rendered from placeholders: its name is not the
			// cluster's (trunc of a placeholder may end in '-'), so it is not judged.
			return
		}
		rule, errs := nameRule(o.ID)(name)
		if len(errs) == 0 {
			return
		}
		f := objectFinding("invalid-name", Error, c.Name, o, ks.Ref)
		f.key = name
		// The whole name, never a prefix: the report redacts Secret-derived values by value,
		// which a cut value would escape.
		shown := fmt.Sprintf("%q", name)
		if len(name) > 63 {
			shown += fmt.Sprintf(" (%d characters)", len(name))
		}
		var source string
		var vars []string
		if o.HelmRelease == "" {
			var line int
			source, line = nameAt(c, o.File, o.Line)
			if line > 0 {
				f.Line = line
			}
			vars = variablesIn(source)
		}
		from := ""
		if len(vars) > 0 {
			from = fmt.Sprintf(" (metadata.name %q after postBuild substitution of %s)", source, joinAnd(dollar(vars)))
		}
		applier := fmt.Sprintf("kustomize-controller's dry-run of %s fails and applies nothing", ks.Ref)
		if o.ResourceSet != "" {
			applier = fmt.Sprintf("flux-operator's apply of ResourceSet %s fails", o.ResourceSet)
		}
		if o.HelmRelease != "" {
			applier = fmt.Sprintf("helm-controller's install or upgrade of HelmRelease %s fails (chart template %s)", o.HelmRelease, o.Template)
		}
		f.Message = fmt.Sprintf("%s is named %s%s, which the API server refuses for a %s (%s): %s; %s on every reconcile.",
			o.ID, shown, from, o.ID.Kind, rule, strings.Join(errs, "; "), applier)
		switch {
		case len(vars) > 0:
			f.Suggestion = fmt.Sprintf("Give %s a value that makes a valid name (in postBuild.substitute or the substituteFrom source of %s), or change metadata.name at %s:%d.",
				joinAnd(vars), ks.Ref, o.File, f.Line)
		case o.HelmRelease != "":
			f.Suggestion = fmt.Sprintf("Change the name the chart template %s renders (its values in HelmRelease %s, or the release name it derives from).", o.Template, o.HelmRelease)
		default:
			f.Suggestion = fmt.Sprintf("Change metadata.name at %s:%d (or the namePrefix/nameSuffix of %s) to a valid name.", o.File, f.Line, ks.Ref)
		}
		out = append(out, f)
	})
	return out
}

// nameRule returns how the API server validates the name of id's kind and a phrase naming
// the rule: Namespace a DNS-1123 label (ValidateNamespaceName = NameIsDNSLabel), Service a
// DNS-1035 label (ValidateServiceName = NameIsDNS1035Label), the RBAC kinds a path segment
// (pkg/apis/rbac/validation ValidateRBACName = path.IsValidPathSegmentName), every other
// kind, custom resources included, a DNS-1123 subdomain (NameIsDNSSubdomain; apiextensions
// customResourceValidator.Validate). Every rule refuses an empty name (ValidateObjectMeta:
// "name or generateName is required").
func nameRule(id graph.ObjectID) func(string) (string, []string) {
	var rule string
	var check func(string) []string
	switch {
	case id.Group == "" && id.Kind == "Namespace":
		rule, check = "a DNS-1123 label", validation.IsDNS1123Label
	case id.Group == "" && id.Kind == "Service":
		rule, check = "a DNS-1035 label", validation.IsDNS1035Label
	case id.Group == "rbac.authorization.k8s.io":
		rule, check = "a path segment", path.IsValidPathSegmentName
	default:
		rule, check = "a DNS-1123 subdomain", validation.IsDNS1123Subdomain
	}
	return func(name string) (string, []string) {
		if name == "" {
			return rule, []string{"the name is empty"}
		}
		return rule, check(name)
	}
}

var varUse = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)`)

// variablesIn lists, in order and once each, the variables ${VAR...} used in s; $${VAR}
// is an escape, not a use.
func variablesIn(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range varUse.FindAllStringSubmatchIndex(s, -1) {
		if m[0] > 0 && s[m[0]-1] == '$' {
			continue
		}
		v := s[m[2]:m[3]]
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

func dollar(vars []string) []string {
	out := make([]string, len(vars))
	for i, v := range vars {
		out[i] = "${" + v + "}"
	}
	return out
}

// nameAt returns metadata.name as written in the document of file whose `kind:` key is on
// line, and its line; "", 0 when there is none.
func nameAt(c *graph.Cluster, file string, line int) (string, int) {
	m := docMapAt(c, file, line)
	if m == nil {
		return "", 0
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value != "metadata" {
			continue
		}
		md := m.Content[i+1]
		for j := 0; j+1 < len(md.Content); j += 2 {
			if md.Content[j].Value == "name" {
				return md.Content[j+1].Value, md.Content[j+1].Line
			}
		}
	}
	return "", 0
}

// docMapAt returns the top-level mapping of the document of file whose `kind:` key is on
// line; nil when there is none or the file does not parse before it.
func docMapAt(c *graph.Cluster, file string, line int) *yaml.Node {
	return docsOf(c, file).byAnyKind[line]
}
