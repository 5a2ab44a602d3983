package review

import (
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/review/rules"
)

// maskByObject masks, in each finding's message, suggestion and details, the
// Secret-derived parts of the object it is about and of the Kustomization it names
// (their SecretFields, in either commit), whatever their length, where they stand as a
// token or a quoted value (graph.MaskSecretParts): a rule that quotes a field's value
// (`spec.timeout: "3q"`) quotes what the report-wide redaction by value does not reach
// under 4 bytes. The base's objects count under the head's cluster name only when the
// names agree (a renamed cluster's resolved findings are left to the report-wide rules).
func maskByObject(fs []rules.Finding, graphs ...*graph.Graph) { objectMasker(graphs...)(fs) }

// objectMasker is maskByObject with the graphs' fields indexed once, for several lists.
func objectMasker(graphs ...*graph.Graph) func([]rules.Finding) {
	type key struct{ cluster, what string }
	fields := map[key][]graph.SecretField{}
	for _, g := range graphs {
		if g == nil {
			continue
		}
		for _, c := range g.Clusters {
			for ref, ks := range c.Kustomizations {
				if len(ks.SecretFields) > 0 {
					k := key{c.Name, "ks " + ref.String()}
					fields[k] = append(fields[k], ks.SecretFields...)
				}
				for _, o := range ks.Objects {
					if len(o.SecretFields) > 0 { // most objects have none
						k := key{c.Name, "obj " + o.ID.String()}
						fields[k] = append(fields[k], o.SecretFields...)
					}
				}
			}
		}
	}
	return func(fs []rules.Finding) {
		for i := range fs {
			f := &fs[i]
			var mine []graph.SecretField
			if f.Object != nil {
				mine = append(mine, fields[key{f.Cluster, "obj " + f.Object.String()}]...)
			}
			if f.Kustomization != "" {
				mine = append(mine, fields[key{f.Cluster, "ks " + f.Kustomization}]...)
			}
			if len(mine) == 0 {
				continue
			}
			f.Message = graph.MaskSecretParts(f.Message, mine)
			f.Suggestion = graph.MaskSecretParts(f.Suggestion, mine)
			f.Details = graph.MaskSecretParts(f.Details, mine)
		}
	}
}
