package helm

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	chart "helm.sh/helm/v4/pkg/chart/v2"
)

// schemaURL is where Helm compiles a chart's schema (chart/common/util/jsonschema.go
// ValidateAgainstSingleSchema), so relative $refs resolve as they do in Helm.
const schemaURL = "file:///values.schema.json"

// validateSchema checks values against c's values.schema.json and each enabled subchart's
// against its section of values, as Helm's ValidateAgainstSchema does, but a $ref is served
// only from the chart's own files: Helm's loader reads any host file (file://) and fetches
// http(s). Another $ref is taken as the schema `true` and returned in approx.
func validateSchema(c *chart.Chart, values map[string]any) (approx []string, err error) {
	var msgs strings.Builder
	var walk func(c *chart.Chart, values map[string]any)
	walk = func(c *chart.Chart, values map[string]any) {
		if len(c.Schema) > 0 {
			refused, err := validateOne(c, values)
			approx = append(approx, refused...)
			if err != nil {
				fmt.Fprintf(&msgs, "%s:\n%s\n", c.Name(), err)
			}
		}
		for _, sub := range c.Dependencies() {
			raw, ok := values[sub.Name()]
			if !ok || raw == nil {
				continue
			}
			sv, ok := raw.(map[string]any)
			if !ok {
				fmt.Fprintf(&msgs, "%s:\ninvalid type for values: expected object (map), got %T\n", sub.Name(), raw)
				continue
			}
			walk(sub, sv)
		}
	}
	walk(c, values)
	if msgs.Len() > 0 {
		return approx, errors.New(msgs.String())
	}
	return approx, nil
}

func validateOne(c *chart.Chart, values map[string]any) ([]string, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(c.Schema))
	if err != nil {
		return nil, fmt.Errorf("values.schema.json: %w", err)
	}
	l := &chartLoader{chart: c}
	comp := jsonschema.NewCompiler()
	comp.UseLoader(l)
	if err := comp.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	sch, err := comp.Compile(schemaURL)
	if err != nil {
		return l.refused, err
	}
	if err := sch.Validate(values); err != nil {
		msg := strings.TrimPrefix(err.Error(), "jsonschema validation failed with '"+schemaURL+"#'\n")
		return l.refused, errors.New(sortedCauses(msg))
	}
	return l.refused, nil
}

// chartLoader serves file:///<path> from the chart's files and nothing else; it never
// touches the disk or the network.
type chartLoader struct {
	chart   *chart.Chart
	refused []string
}

func (l *chartLoader) Load(ref string) (any, error) {
	if u, err := url.Parse(ref); err == nil && u.Scheme == "file" && u.Host == "" {
		name := strings.TrimPrefix(u.Path, "/")
		for _, f := range append(l.chart.Raw, l.chart.Files...) {
			if f.Name == name {
				return jsonschema.UnmarshalJSON(bytes.NewReader(f.Data))
			}
		}
	}
	l.refused = append(l.refused, "schema $ref "+ref)
	return true, nil
}

// sortedCauses orders the "- at ..." blocks of a validation message: the library lists the
// causes in map order, and a finding's text must not change between runs.
func sortedCauses(msg string) string {
	var blocks []string
	for _, line := range strings.Split(strings.TrimRight(msg, "\n"), "\n") {
		if strings.HasPrefix(line, "- ") || len(blocks) == 0 {
			blocks = append(blocks, line)
			continue
		}
		blocks[len(blocks)-1] += "\n" + line
	}
	slices.Sort(blocks)
	return strings.Join(blocks, "\n")
}
