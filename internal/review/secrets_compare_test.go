package review

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// substituted is an object of kind built from body, with fields: its SecretFields (the
// parts substitution wrote from a Secret), as a build that did not share the other
// side's gives it (distinct maps, equal values).
func substituted(kind string, body func() map[string]any, fields ...graph.SecretField) *graph.Object {
	o := &graph.Object{ID: graph.ObjectID{Kind: kind, Namespace: "redis", Name: "x"}, SecretFields: fields}
	o.Body = unstructuredOf(body())
	for _, f := range fields {
		if f.HasSecret() {
			for _, p := range f.Parts {
				if p.Secret {
					o.SecretValues = append(o.SecretValues, p.Text)
				}
			}
		}
	}
	return o
}

func secretPart(text string) graph.TextPart { return graph.TextPart{Text: text, Secret: true} }

// TestRedactComparesRenderedValues: every redaction that marks a value changed compares
// the two sides' values as rendered, never a value an earlier redaction replaced on one
// side only (the base's rendered value against the head's mask was F1: each substituted
// Secret value "<redacted, changed>" when base and head were built apart). Equal objects
// built apart show no diff, for each kind of field; a rotated value is still changed, and
// only where it is.
func TestRedactComparesRenderedValues(t *testing.T) {
	pw := func(v string) graph.SecretField {
		return graph.SecretField{Path: []string{"stringData", "password"}, Parts: []graph.TextPart{secretPart(v)}}
	}
	url := func(v string) graph.SecretField {
		return graph.SecretField{Path: []string{"stringData", "url"}, Parts: []graph.TextPart{{Text: "postgres://app:"}, secretPart(v), {Text: "@db/app"}}}
	}
	key := graph.SecretField{Path: []string{"stringData", "api-k3y-name"}, Key: true, Parts: []graph.TextPart{secretPart("api-k3y-name")}}
	secret := func(password string) func() map[string]any {
		return func() map[string]any {
			return map[string]any{"apiVersion": "v1", "kind": "Secret", "stringData": map[string]any{
				"password": password, "url": "postgres://app:db-s3cr3t@db/app", "api-k3y-name": "static-api-value",
				"sops": "not-a-sops-block"}}
		}
	}
	enc := func(v string) func() map[string]any {
		return func() map[string]any {
			return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{
				"token": "ENC[AES256_GCM,data:" + v + ",type:str]", "dsn": "redis://:" + v + "@redis"}}
		}
	}
	encField := func(v string) []graph.SecretField {
		return []graph.SecretField{
			{Path: []string{"data", "token"}, Parts: []graph.TextPart{{Text: "ENC[AES256_GCM,data:"}, secretPart(v), {Text: ",type:str]"}}},
			{Path: []string{"data", "dsn"}, Parts: []graph.TextPart{{Text: "redis://:"}, secretPart(v), {Text: "@redis"}}},
		}
	}
	for name, c := range map[string]struct {
		base, head *graph.Object
		want       string
	}{
		"Secret, equal": {
			substituted("Secret", secret("r3dis-pw-0ld"), pw("r3dis-pw-0ld"), url("db-s3cr3t"), key),
			substituted("Secret", secret("r3dis-pw-0ld"), pw("r3dis-pw-0ld"), url("db-s3cr3t"), key), ""},
		"Secret, password rotated": {
			substituted("Secret", secret("r3dis-pw-0ld"), pw("r3dis-pw-0ld"), url("db-s3cr3t"), key),
			substituted("Secret", secret("r3dis-pw-n3w"), pw("r3dis-pw-n3w"), url("db-s3cr3t"), key),
			"--- base\n+++ head\n@@ -2,7 +2,7 @@\n kind: Secret\n stringData:\n" +
				"   <redacted>: <redacted>\n-  password: <redacted>\n+  password: <redacted, changed>\n" +
				"   sops: <redacted>\n   url: <redacted>\n \n"},
		"ConfigMap with SOPS text, equal": {
			substituted("ConfigMap", enc("c1pher-0ld"), encField("c1pher-0ld")...),
			substituted("ConfigMap", enc("c1pher-0ld"), encField("c1pher-0ld")...), ""},
		"ConfigMap with SOPS text, rotated": {
			substituted("ConfigMap", enc("c1pher-0ld"), encField("c1pher-0ld")...),
			substituted("ConfigMap", enc("c1pher-n3w"), encField("c1pher-n3w")...),
			"--- base\n+++ head\n@@ -1,6 +1,6 @@\n apiVersion: v1\n data:\n" +
				"-  dsn: redis://:<redacted>@redis\n-  token: <redacted>\n" +
				"+  dsn: redis://:<redacted, changed>@redis\n+  token: <redacted, changed>\n kind: ConfigMap\n \n"},
	} {
		t.Run(name, func(t *testing.T) {
			if d := cmp.Diff(c.want, unified(c.base, c.head, Common{})); d != "" {
				t.Errorf("diff (-want +got):\n%s", d)
			}
		})
	}
}
