package review

import (
	"reflect"
	"slices"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
	"github.com/sourcegraph/conc/iter"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/review/rules"
)

// diffObjects lists objects added, removed and changed between base and head of one
// cluster. Objects of Kustomizations that did not render completely at head are not
// reported as removed: their absence is unknown, not a change.
//
// redactText is the review's redaction of text (textRedactor.Replace), applied to each
// object's strings before they are marshalled (redactTree); nil for none.
func (r *Report) diffObjects(b, h *graph.Cluster, common Common, redactText func(string) string) {
	name := ""
	if h != nil {
		name = h.Name
	} else {
		name = b.Name
	}
	if h != nil {
		var pairs [][2]*graph.Object
		for _, ref := range h.Order {
			for _, o := range h.Kustomizations[ref].Objects {
				if h.Owners[o.ID][0] != o {
					continue
				}
				var prev *graph.Object
				if b != nil && len(b.Owners[o.ID]) > 0 {
					prev = b.Owners[o.ID][0]
				}
				switch {
				case prev == nil:
					r.Added = append(r.Added, change(name, o, ""))
				case prev == o: // one build reused by both sides: nothing to compare
				case sameBody(prev, o):
				default:
					pairs = append(pairs, [2]*graph.Object{prev, o})
				}
			}
		}
		// Rendering objects to YAML is most of a review of a widely edited base: on all cores.
		diffs := iter.Map(pairs, func(p *[2]*graph.Object) string { return unifiedRedacted(p[0], p[1], common, redactText) })
		for i, d := range diffs {
			if d != "" {
				r.Changed = append(r.Changed, change(name, pairs[i][1], d))
			}
		}
	}
	if b == nil || h == nil {
		return
	}
	for _, ref := range b.Order {
		for _, o := range b.Kustomizations[ref].Objects {
			if len(h.Owners[o.ID]) > 0 || b.Owners[o.ID][0] != o {
				continue
			}
			if !rules.KnownGone(ref, b, h) {
				continue
			}
			if why := rules.HelmLeaves(o, b, h); why != "" {
				c := change(name, o, "")
				c.Reason = why
				r.Orphaned = append(r.Orphaned, c)
				continue
			}
			r.Removed = append(r.Removed, change(name, o, ""))
		}
	}
}

// diffKustomizations lists Flux Kustomizations added, removed, or whose object changed.
func (r *Report) diffKustomizations(b, h *graph.Cluster, common Common) {
	if b == nil || h == nil {
		return
	}
	add := func(c *graph.Cluster, ks *graph.Kustomization, ch Change, diff string) {
		r.KustomizationChanges = append(r.KustomizationChanges, KustomizationChange{
			Cluster: c.Name, Kustomization: ks.Ref.String(), Change: ch, File: ks.File, Line: ks.Line, Diff: diff})
	}
	for _, ref := range h.Order {
		hk, bk := h.Kustomizations[ref], b.Kustomizations[ref]
		if bk == nil {
			add(h, hk, Added, "")
			continue
		}
		if reflect.DeepEqual(bk.Body.Object, hk.Body.Object) {
			continue
		}
		// The fields its parent substituted from a Secret are masked at their positions,
		// whatever their length, as in object diffs.
		if d := unified(ksObject(bk), ksObject(hk), common); d != "" {
			add(h, hk, Changed, d)
		}
	}
	for _, ref := range b.Order {
		if h.Kustomizations[ref] == nil && rules.KnownGone(ref, b, h) {
			add(b, b.Kustomizations[ref], Removed, "")
		}
	}
}

// ksObject is ks's body as an object to diff, with the fields its parent's substitution
// wrote from a Secret (Kustomization.SecretFields).
func ksObject(ks *graph.Kustomization) *graph.Object {
	return &graph.Object{Body: ks.Body, SecretFields: ks.SecretFields}
}

func change(cluster string, o *graph.Object, diff string) ObjectChange {
	return ObjectChange{Cluster: cluster, Object: o.ID, Kustomization: o.Owner.String(), HelmRelease: o.HelmRelease, Template: o.Template,
		File: o.File, Line: o.Line, Diff: diff}
}

// sameBody reports, without rendering them, that two objects show no difference: equal
// bodies and no substituted Secret values (whose redaction depends on the other side).
func sameBody(a, b *graph.Object) bool {
	return len(a.SecretValues) == 0 && len(b.SecretValues) == 0 && reflect.DeepEqual(a.Body.Object, b.Body.Object)
}

// unified returns the unified diff of two objects' YAML, "" when equal.
func unified(a, b *graph.Object, common Common) string { return unifiedRedacted(a, b, common, nil) }

// unifiedRedacted is unified with redactText (nil: none) applied to every string and key
// of both objects before they are marshalled (redactTree).
func unifiedRedacted(a, b *graph.Object, common Common, redactText func(string) string) string {
	x, y := yamlOf(a, b, false, common, redactText), yamlOf(b, a, true, common, redactText)
	if x == y {
		return ""
	}
	d, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(x), B: difflib.SplitLines(y),
		FromFile: "base", ToFile: "head", Context: 3,
	})
	return d
}

// yamlOf renders an object; a Secret's values are replaced by "<redacted>", and on the
// head side by "<redacted, changed>" where the base value differs, so a diff shows which
// keys changed and never a value. Then redactText (nil: none) replaces, in every string
// and key, what the review redacts in every text (redactTree), before the YAML encoder
// folds or splits a string.
//
// Each redaction that marks a value changed compares o's value as rendered with other's
// as rendered, never a value an earlier redaction has already replaced: a Secret's data
// and the SOPS values first, on the bodies as built, then the substituted fields that are
// left (maskFields leaves what they replaced alone). Masking first made every substituted
// Secret value "<redacted, changed>" whenever the two sides were built apart (--no-reuse,
// a warm cache): the head's mask against the base's value.
func yamlOf(o, other *graph.Object, head bool, common Common, redactText func(string) string) string {
	u := o.Body
	if o.ID.Group == "" && o.ID.Kind == "Secret" {
		u = redact(u, other.Body, head)
	}
	u = redactSOPS(u, o.Body, other.Body, head)
	u = maskFields(u, o.Body, o.SecretFields, other.SecretFields, head)
	// A Secret's own values too: they reappear in its metadata (last-applied-configuration).
	u = redactSubstituted(u, bodySecrets(o, common), bodySecrets(other, common), head)
	u = redactOwnMetadata(u, o, other, head)
	u = redactTree(u, redactText)
	data, err := yaml.Marshal(u.Object)
	if err != nil {
		return ""
	}
	return string(data)
}

func redact(u, other *unstructured.Unstructured, head bool) *unstructured.Unstructured {
	c := u.DeepCopy()
	for _, f := range []string{"data", "stringData"} {
		v, ok := c.Object[f]
		if !ok || v == nil {
			continue
		}
		tv, tok := other.Object[f]
		m, isMap := v.(map[string]any)
		if !isMap { // malformed (a scalar, a list): the API server refuses it; never shown
			c.Object[f] = redactedMarker(head && (!tok || !reflect.DeepEqual(tv, v)))
			continue
		}
		theirs, _ := tv.(map[string]any)
		for k, val := range m {
			theirVal, ok := theirs[k]
			m[k] = redactedMarker(head && (!ok || !reflect.DeepEqual(theirVal, val)))
		}
	}
	return c
}

// redactedMarker is what a redacted Secret value shows: "<redacted, changed>" where the
// head's differs from the base's.
func redactedMarker(changed bool) string {
	if changed {
		return "<redacted, changed>"
	}
	return "<redacted>"
}

// redactSubstituted replaces, in every string of u, each value of secrets (postBuild
// variables read from a Secret, longest first) by "<redacted>", or by "<redacted, changed>"
// on the head side when the other side's object did not hold that value.
func redactSubstituted(u *unstructured.Unstructured, secrets, theirs []string, head bool) *unstructured.Unstructured {
	if len(secrets) == 0 {
		return u
	}
	c := u.DeepCopy()
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, val := range x {
				x[k] = walk(val)
			}
		case []any:
			for i, val := range x {
				x[i] = walk(val)
			}
		case string:
			for _, s := range secrets {
				marker := "<redacted>"
				if head && !slices.Contains(theirs, s) {
					marker = "<redacted, changed>"
				}
				x = strings.ReplaceAll(x, s, marker)
			}
			return x
		}
		return v
	}
	c.Object = walk(c.Object).(map[string]any)
	return c
}

// redactSOPS replaces, in any kind of object, the SOPS metadata block (wrapped data keys,
// recipients, MAC) and every SOPS-encrypted value ("ENC[AES256_GCM,…]") by "<redacted>",
// or "<redacted, changed>" on the head side where the base differs: kustomize-controller
// decrypts them at apply time, and ciphertext is no business of a PR comment.
//
// orig is the object as rendered (u may already hold other redactions, at the same keys):
// whether a value changed is decided on orig's value and other's.
func redactSOPS(u, orig, other *unstructured.Unstructured, head bool) *unstructured.Unstructured {
	if !hasSOPS(u.Object) {
		return u
	}
	c := u.DeepCopy()
	c.Object = redactValue(c.Object, orig.Object, other.Object, head).(map[string]any)
	return c
}

func hasSOPS(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if sopsKey(k) || hasSOPS(x) {
				return true
			}
		}
	case []any:
		for _, x := range v {
			if hasSOPS(x) {
				return true
			}
		}
	case string:
		return sopsText(v)
	}
	return false
}

// redactValue walks v beside mine, the same value as rendered (before other redactions
// of v), and its counterpart theirs (nil when absent).
func redactValue(v, mine, theirs any, head bool) any {
	// The marker compares the redacted value as rendered with its counterpart, not v's
	// (which an earlier redaction may have replaced: a Secret's stringData "sops" key).
	marker := func(mine, theirs any) string {
		if head && !reflect.DeepEqual(mine, theirs) {
			return "<redacted, changed>"
		}
		return "<redacted>"
	}
	switch x := v.(type) {
	case map[string]any:
		m, _ := mine.(map[string]any)
		t, _ := theirs.(map[string]any)
		for k, val := range x {
			if sopsKey(k) {
				x[k] = marker(m[k], t[k])
				continue
			}
			x[k] = redactValue(val, m[k], t[k], head)
		}
	case []any:
		m, _ := mine.([]any)
		t, _ := theirs.([]any)
		for i, val := range x {
			var mi, ti any
			if i < len(m) {
				mi = m[i]
			}
			if i < len(t) {
				ti = t[i]
			}
			x[i] = redactValue(val, mi, ti, head)
		}
	case string:
		if sopsText(x) {
			return marker(mine, theirs)
		}
	}
	return v
}

// sopsKey reports whether a map key holds SOPS metadata: the "sops" block of an encrypted
// YAML or JSON document, or one "sops_" entry of an encrypted dotenv file, which is how a
// configMapGenerator's envs: brings it into data (getsops/sops stores/dotenv/store.go,
// LoadEncryptedFile: every key with SopsPrefix "sops_" is metadata: recipients, wrapped
// data keys, MAC).
func sopsKey(k string) bool { return k == "sops" || strings.HasPrefix(k, "sops_") }

// sopsText reports whether a string is, or holds, SOPS ciphertext or a wrapped data key:
// an "ENC[…]" value, or a whole encrypted file that a generator's files: read into one
// value (YAML, JSON, INI with its [sops] section, dotenv), which always holds its MAC
// encrypted as "ENC[AES256_GCM,data:…" (getsops/sops aes/cipher.go, Cipher.Encrypt) or
// an age-wrapped key ("-----BEGIN AGE ENCRYPTED FILE-----", filippo.io/age armor).
func sopsText(s string) bool {
	return strings.HasPrefix(s, "ENC[") || strings.Contains(s, "ENC[AES256_GCM,data:") ||
		strings.Contains(s, "-----BEGIN AGE ENCRYPTED FILE-----")
}
