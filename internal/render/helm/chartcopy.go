package helm

import (
	chart "helm.sh/helm/v4/pkg/chart/v2"
)

// cloneChart copies what Helm's dependency processing changes (chart/v2/util
// ProcessDependencies: the subchart list, Metadata.Dependencies' Enabled and ImportValues,
// Values by import-values), so one loaded chart can be rendered again with other values;
// files are shared, as nothing writes them.
func cloneChart(c *chart.Chart) *chart.Chart {
	cp := *c
	if c.Metadata != nil {
		md := *c.Metadata
		md.Dependencies = nil
		for _, d := range c.Metadata.Dependencies {
			if d != nil {
				dc := *d
				dc.ImportValues = append([]any(nil), d.ImportValues...)
				d = &dc
			}
			md.Dependencies = append(md.Dependencies, d)
		}
		cp.Metadata = &md
	}
	cp.Values = copyMap(c.Values)
	var subs []*chart.Chart
	for _, sub := range c.Dependencies() {
		subs = append(subs, cloneChart(sub))
	}
	cp.SetDependencies(subs...)
	return &cp
}

func copyMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = copyValue(v)
	}
	return out
}

func copyValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		return copyMap(t)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = copyValue(e)
		}
		return out
	}
	return v
}
