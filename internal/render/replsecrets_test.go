package render

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/config"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/helmrelease"
)

// replChild is what the replacement relay children build: transforms of R, and an
// object named from it.
const replChild = `apiVersion: v1
kind: ConfigMap
metadata:
  name: c-${R,,}
  namespace: default
data:
  rlow: ${R,,}
  r06: ${R:0:6}
  rup: ${R^^}
  lit: kept
`

// TestReplacementSecretTaint: a value a kustomize replacement copies out of a Secret of
// the same build is a Secret field of the object it lands in (hostile3 h3-repl, h3-repl2,
// h3-repl3 short, h3-common2), so a child that substitutes it, directly or through a
// ConfigMap, records its transforms as Secret-derived; a 2-byte one in a child's
// namePrefix reaches the child's objects; a literal Namespace named like a word-shaped
// Secret value is not marked.
func TestReplacementSecretTaint(t *testing.T) {
	kz := "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n" +
		"resources: [secret.yaml, copy.yaml, children.yaml, ns.yaml]\nreplacements:\n" +
		"  - source: {kind: Secret, name: app-secret, fieldPath: stringData.P}\n    targets:\n" +
		"      - {select: {kind: ConfigMap, name: copy}, fieldPaths: [data.c]}\n" +
		"      - {select: {kind: Kustomization, name: inline}, fieldPaths: [spec.postBuild.substitute.R]}\n" +
		"  - source: {kind: Secret, name: app-secret, fieldPath: stringData.S}\n    targets:\n" +
		"      - {select: {kind: Kustomization, name: short}, fieldPaths: [spec.namePrefix]}\n" +
		"  - source: {kind: Secret, name: app-secret, fieldPath: stringData.W}\n    targets:\n" +
		"      - {select: {kind: ConfigMap, name: copy}, fieldPaths: [data.w]}\n"
	dir := tree(t, merge(bootstrap("dev"), map[string]string{
		"clusters/dev/tiers.yaml": ks("apps", "./apps"),
		"apps/kustomization.yaml": kz,
		"apps/secret.yaml":        "apiVersion: v1\nkind: Secret\nmetadata: {name: app-secret, namespace: flux-system}\nstringData: {P: Rp3vXk7Wq2, S: ux, W: monitoring}\n",
		"apps/copy.yaml":          "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: copy, namespace: flux-system}\ndata: {c: placeholder, w: placeholder, v: \"1\"}\n",
		"apps/ns.yaml":            "apiVersion: v1\nkind: Namespace\nmetadata: {name: monitoring}\n",
		"apps/children.yaml": ks("inline", "./child", "postBuild:", "  substitute: {R: placeholder}") + "---\n" +
			ks("fromcm", "./child2", "postBuild:", "  substituteFrom:", "    - {kind: ConfigMap, name: copy}") + "---\n" +
			ks("short", "./child3", "namePrefix: placeholder"),
		"child/cm.yaml":  replChild,
		"child2/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: relay, namespace: default}\ndata:\n  clow: ${c,,}\n  cup: ${c^^}\n  c3: ${c:3}\n  wup: ${w^^}\n",
		"child3/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: default}\ndata: {a: b}\n",
	}))
	c := render(t, dir, nil).Cluster("dev")
	sec := func(s string) graph.TextPart { return graph.TextPart{Text: s, Secret: true} }
	lit := func(s string) graph.TextPart { return graph.TextPart{Text: s} }
	objs := func(name string, n int) []*graph.Object {
		k := c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: name}]
		if k == nil || k.Err != nil || len(k.Objects) != n {
			t.Fatalf("%s: %+v", name, k)
		}
		return k.Objects
	}
	check := func(o *graph.Object, want []graph.SecretField) {
		t.Helper()
		if d := cmp.Diff(want, o.SecretFields); d != "" {
			t.Errorf("%s SecretFields (-want +got):\n%s", o.ID, d)
		}
	}
	for _, o := range objs("apps", 6) {
		switch o.ID.Kind + "/" + o.ID.Name {
		case "ConfigMap/copy":
			check(o, []graph.SecretField{
				{Path: []string{"data", "c"}, Parts: []graph.TextPart{sec("Rp3vXk7Wq2")}},
				{Path: []string{"data", "w"}, Parts: []graph.TextPart{sec("monitoring")}},
			})
		case "Kustomization/inline":
			check(o, []graph.SecretField{{Path: []string{"spec", "postBuild", "substitute", "R"}, Parts: []graph.TextPart{sec("Rp3vXk7Wq2")}}})
		case "Kustomization/short":
			check(o, []graph.SecretField{{Path: []string{"spec", "namePrefix"}, Parts: []graph.TextPart{sec("ux")}}})
		default: // the Secret itself, the fromcm child, and the Namespace named "monitoring"
			check(o, nil)
		}
	}
	check(objs("inline", 1)[0], []graph.SecretField{
		{Path: []string{"data", "r06"}, Parts: []graph.TextPart{sec("Rp3vXk")}},
		{Path: []string{"data", "rlow"}, Parts: []graph.TextPart{sec("rp3vxk7wq2")}},
		{Path: []string{"data", "rup"}, Parts: []graph.TextPart{sec("RP3VXK7WQ2")}},
		{Path: []string{"metadata", "name"}, Parts: []graph.TextPart{lit("c-"), sec("rp3vxk7wq2")}},
	})
	check(objs("fromcm", 1)[0], []graph.SecretField{
		{Path: []string{"data", "c3"}, Parts: []graph.TextPart{sec("vXk7Wq2")}},
		{Path: []string{"data", "clow"}, Parts: []graph.TextPart{sec("rp3vxk7wq2")}},
		{Path: []string{"data", "cup"}, Parts: []graph.TextPart{sec("RP3VXK7WQ2")}},
		{Path: []string{"data", "wup"}, Parts: []graph.TextPart{sec("MONITORING")}},
	})
	short := objs("short", 1)[0]
	if short.ID.Name != "uxcm" {
		t.Fatalf("short built %s", short.ID)
	}
	check(short, []graph.SecretField{{Path: []string{"metadata", "name"}, Parts: []graph.TextPart{sec("ux"), lit("cm")}}})
}

// TestReplacementSecretReachesChart: a Secret value a replacement copies into a
// HelmRelease's spec.values, or into a ConfigMap key its valuesFrom reads, reaches the
// chart as a placeholder (hostile3 h3-repl3), so upper, trunc and b64enc of it show no
// part of it.
func TestReplacementSecretReachesChart(t *testing.T) {
	files := merge(bootstrap("dev"), webChart(), map[string]string{
		"clusters/dev/apps.yaml": ks("apps", "./apps"),
		"apps/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n" +
			"resources: [secret.yaml, cm.yaml, web.yaml]\nreplacements:\n" +
			"  - source: {kind: Secret, name: app-secret, fieldPath: stringData.P}\n    targets:\n" +
			"      - {select: {kind: HelmRelease, name: web}, fieldPaths: [spec.values.tok]}\n" +
			"      - {select: {kind: ConfigMap, name: web-vals}, fieldPaths: [data.tok]}\n",
		"apps/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: app-secret, namespace: apps}\nstringData: {P: Kc8mWv2nQs}\n",
		"apps/cm.yaml":     "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web-vals, namespace: apps}\ndata: {tok: placeholder}\n",
		"apps/web.yaml": hr("web", gitChart, "valuesFrom:",
			"    - {kind: ConfigMap, name: web-vals, valuesKey: tok, targetPath: t}",
			"values: {tok: placeholder}"),
	})
	g, err := Render(context.Background(), tree(t, files), Options{Config: &config.Config{}})
	if err != nil {
		t.Fatal(err)
	}
	k := g.Clusters[0].Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}]
	if k == nil || k.Err != nil || len(k.Releases) != 1 {
		t.Fatalf("apps: %+v", k)
	}
	ph := helmrelease.SecretPlaceholder("Kc8mWv2nQs")
	if got, want := k.Releases[0].Values["tok"], any(ph); got != want {
		t.Errorf("values tok = %v, want %v", got, want)
	}
	if got, want := k.Releases[0].Values["t"], any(ph); got != want {
		t.Errorf("values t = %v, want %v", got, want)
	}
	// Negative: the literal placeholder text of the source is gone, not kept beside it.
	if got := k.Releases[0].Values["tok"]; got == "placeholder" || got == "Kc8mWv2nQs" {
		t.Errorf("values tok = %v", got)
	}
}

// replPositionFiles is a build whose replacements copy Secret values of every length and
// shape into name fields (a Namespace's name, a namespace, serviceAccountName, a child's
// targetNamespace, a HelmRelease's releaseName), one as a delimiter piece, and one from a
// ConfigMap; a literal Namespace "monitoring" stands beside a copy of the same word.
func replPositionFiles() map[string]string {
	return merge(bootstrap("dev"), map[string]string{
		"clusters/dev/tiers.yaml": ks("apps", "./apps"),
		"apps/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n" +
			"resources: [secret.yaml, plain.yaml, ns.yaml, mon.yaml, cm.yaml, deploy.yaml, child.yaml, hr.yaml]\nreplacements:\n" +
			"  - path: team.yaml\n" +
			"  - source: {kind: Secret, name: app-secret, fieldPath: stringData.NS}\n    targets:\n" +
			"      - {select: {kind: ConfigMap, name: cfg}, fieldPaths: [metadata.namespace]}\n" +
			"      - {select: {kind: Kustomization}, reject: [{name: apps}], fieldPaths: [spec.targetNamespace]}\n" +
			"      - {select: {kind: HelmRelease, name: web}, fieldPaths: [spec.releaseName]}\n" +
			"  - source: {kind: Secret, name: app-secret, fieldPath: stringData.PIECE}\n    targets:\n" +
			"      - {select: {kind: ConfigMap, name: cfg}, fieldPaths: [data.host], options: {delimiter: '.', index: 1}}\n" +
			"  - source: {kind: Secret, name: app-secret, fieldPath: stringData.MON}\n    targets:\n" +
			"      - {select: {kind: ConfigMap, name: cfg}, fieldPaths: [data.team]}\n" +
			"  - source: {kind: ConfigMap, name: plain, fieldPath: data.p}\n    targets:\n" +
			"      - {select: {kind: ConfigMap, name: cfg}, fieldPaths: [data.fromcm]}\n",
		"apps/team.yaml": "- source: {kind: Secret, name: app-secret, fieldPath: stringData.TEAM}\n  targets:\n" +
			"    - {select: {kind: Namespace, name: ns-placeholder}, fieldPaths: [metadata.name]}\n" +
			"    - {select: {kind: Deployment}, fieldPaths: [spec.template.spec.serviceAccountName]}\n",
		"apps/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: app-secret, namespace: flux-system}\nstringData: {NS: jw, TEAM: platform, PIECE: alpha, MON: monitoring}\n",
		"apps/plain.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain, namespace: flux-system}\ndata: {p: public}\n",
		"apps/ns.yaml":     "apiVersion: v1\nkind: Namespace\nmetadata: {name: ns-placeholder}\n",
		"apps/mon.yaml":    "apiVersion: v1\nkind: Namespace\nmetadata: {name: monitoring}\n",
		"apps/cm.yaml":     "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: default}\ndata: {host: x.placeholder.example.com, team: placeholder, fromcm: placeholder}\n",
		"apps/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec:\n  template:\n    spec:\n      serviceAccountName: placeholder\n      containers: [{name: web, image: nginx}]\n",
		"apps/child.yaml":  ks("child", "./child", "targetNamespace: placeholder"),
		"apps/hr.yaml":     hr("web", "releaseName: placeholder", "chart: {spec: {chart: web, sourceRef: {kind: HelmRepository, name: none}}}"),
		"child/cm.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kid}\ndata: {a: b}\n",
	})
}

// TestReplacementSecretPositions: a replacement whose source is a Secret of the build
// marks exactly its target fields, whatever the value's length or shape (issue 15 item 6,
// gaps a and b): "jw" and "platform" in name fields, "alpha" as one delimiter piece; the
// child's objects get the Secret-derived namespace too. Negatives: the replacement from a
// ConfigMap marks nothing, nor does the literal Namespace "monitoring" beside a copy of
// the same word in data.
func TestReplacementSecretPositions(t *testing.T) {
	c := render(t, tree(t, replPositionFiles()), nil).Cluster("dev")
	sec := func(s string) graph.TextPart { return graph.TextPart{Text: s, Secret: true} }
	lit := func(s string) graph.TextPart { return graph.TextPart{Text: s} }
	field := func(parts ...graph.TextPart) func(...string) graph.SecretField {
		return func(p ...string) graph.SecretField { return graph.SecretField{Path: p, Parts: parts} }
	}
	want := map[string][]graph.SecretField{
		"apps Namespace//platform": {field(sec("platform"))("metadata", "name")},
		"apps ConfigMap/jw/cfg": {
			field(lit("x."), sec("alpha"), lit(".example.com"))("data", "host"),
			field(sec("monitoring"))("data", "team"),
			field(sec("jw"))("metadata", "namespace"),
		},
		"apps Deployment/default/web":          {field(sec("platform"))("spec", "template", "spec", "serviceAccountName")},
		"apps Kustomization/flux-system/child": {field(sec("jw"))("spec", "targetNamespace")},
		"apps HelmRelease/apps/web":            {field(sec("jw"))("spec", "releaseName")},
		"child ConfigMap/jw/kid":               {field(sec("jw"))("metadata", "namespace")},
	}
	got := map[string][]graph.SecretField{}
	seen := 0
	for _, name := range []string{"apps", "child"} {
		k := c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: name}]
		if k == nil || k.Err != nil {
			t.Fatalf("%s: %+v", name, k)
		}
		for _, o := range k.Objects {
			seen++
			if o.SecretFields != nil {
				got[name+" "+o.ID.Kind+"/"+o.ID.Namespace+"/"+o.ID.Name] = o.SecretFields
			}
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("SecretFields (-want +got):\n%s", d)
	}
	// Every object built: the Secret, plain, the two Namespaces, cfg, web, child, the
	// HelmRelease; the child's ConfigMap. The unmarked ones (plain, monitoring) are the
	// negatives.
	if seen != 9 {
		t.Errorf("%d objects, want 9", seen)
	}
}

// TestVarSecretPositions: a legacy kustomize var ($(NAME)) whose objref is a Secret of the
// build marks exactly where kustomize's expansion wrote the value (issue 15 item 6), a
// 2-byte value and a word alike: a container's env value and args. Negatives: a var from a
// ConfigMap marks nothing; $(NS) in a ConfigMap's data, which kustomize does not expand
// (not a varReference field), stays as written and unmarked.
func TestVarSecretPositions(t *testing.T) {
	files := merge(bootstrap("dev"), map[string]string{
		"clusters/dev/tiers.yaml": ks("apps", "./apps"),
		"apps/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n" +
			"resources: [secret.yaml, plain.yaml, deploy.yaml]\nvars:\n" +
			"  - {name: NS, objref: {apiVersion: v1, kind: Secret, name: app-secret}, fieldref: {fieldPath: stringData.NS}}\n" +
			"  - {name: TEAM, objref: {apiVersion: v1, kind: Secret, name: app-secret}, fieldref: {fieldPath: stringData.TEAM}}\n" +
			"  - {name: PUB, objref: {apiVersion: v1, kind: ConfigMap, name: plain}, fieldref: {fieldPath: data.p}}\n",
		"apps/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: app-secret, namespace: flux-system}\nstringData: {NS: jw, TEAM: platform}\n",
		"apps/plain.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain, namespace: flux-system}\ndata: {p: public, raw: $(NS)}\n",
		"apps/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec:\n  template:\n    spec:\n      containers:\n" +
			"        - name: web\n          image: nginx\n          args: [--team=$(TEAM), --pub=$(PUB)]\n          env:\n            - {name: DB, value: $(NS)-db.$(TEAM)}\n            - {name: P, value: $(PUB)}\n",
	})
	k := render(t, tree(t, files), nil).Cluster("dev").Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}]
	if k == nil || k.Err != nil || len(k.Objects) != 3 {
		t.Fatalf("apps: %+v", k)
	}
	sec := func(s string) graph.TextPart { return graph.TextPart{Text: s, Secret: true} }
	lit := func(s string) graph.TextPart { return graph.TextPart{Text: s} }
	c := "spec template spec containers 0 "
	path := func(s string) []string { return strings.Fields(c + s) }
	want := map[string][]graph.SecretField{
		"Deployment/web": {
			{Path: path("args 0"), Parts: []graph.TextPart{lit("--team="), sec("platform")}},
			{Path: path("env 0 value"), Parts: []graph.TextPart{sec("jw"), lit("-db."), sec("platform")}},
		},
	}
	got := map[string][]graph.SecretField{}
	for _, o := range k.Objects {
		if o.SecretFields != nil {
			got[o.ID.Kind+"/"+o.ID.Name] = o.SecretFields
		}
		if o.ID.Name == "plain" {
			if raw, _, _ := unstructured.NestedString(o.Body.Object, "data", "raw"); raw != "$(NS)" {
				t.Errorf("plain data.raw = %q, want $(NS)", raw)
			}
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("SecretFields (-want +got):\n%s", d)
	}
}

// TestBaseReplacementUnderPrefix: a base's replacement runs on the base's names; the
// overlay's namePrefix renames its objects before the output. The source and target are
// still found (by their source documents' names), so the copy of a 2-byte value into a
// name field is marked. Negative: the base's other ConfigMap, not a target, is not.
func TestBaseReplacementUnderPrefix(t *testing.T) {
	files := merge(bootstrap("dev"), map[string]string{
		"clusters/dev/tiers.yaml":    ks("apps", "./overlay"),
		"overlay/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamePrefix: p-\nresources: [../base]\n",
		"base/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [objs.yaml]\nreplacements:\n" +
			"  - source: {kind: Secret, name: s, fieldPath: stringData.NS}\n    targets: [{select: {kind: ConfigMap, name: c}, fieldPaths: [data.ns]}]\n",
		"base/objs.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: flux-system}\nstringData: {NS: jw}\n---\n" +
			"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: flux-system}\ndata: {ns: placeholder}\n---\n" +
			"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: d, namespace: flux-system}\ndata: {ns: jw}\n",
	})
	k := render(t, tree(t, files), nil).Cluster("dev").Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}]
	if k == nil || k.Err != nil || len(k.Objects) != 3 {
		t.Fatalf("apps: %+v", k)
	}
	got := map[string][]graph.SecretField{}
	for _, o := range k.Objects {
		if o.SecretFields != nil {
			got[o.ID.Name] = o.SecretFields
		}
	}
	want := map[string][]graph.SecretField{"p-c": {{Path: []string{"data", "ns"}, Parts: []graph.TextPart{{Text: "jw", Secret: true}}}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("SecretFields (-want +got):\n%s", d)
	}
}

// TestGeneratedSecretReplacement: a replacement whose source is a Secret a secretGenerator
// makes (named with a content hash in the output) is resolved by its generator name, so
// the piece of its base64 the source's delimiter cuts ("anc" of "anc=", which no
// equality with a Secret value finds) is marked. Negative: the generated Secret itself
// has no Secret field.
func TestGeneratedSecretReplacement(t *testing.T) {
	files := merge(bootstrap("dev"), map[string]string{
		"clusters/dev/tiers.yaml": ks("apps", "./apps"),
		"apps/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: flux-system\nresources: [cm.yaml]\n" +
			"secretGenerator:\n  - {name: gen, literals: [NS=jw]}\nreplacements:\n" +
			"  - source: {kind: Secret, name: gen, fieldPath: data.NS, options: {delimiter: '=', index: 0}}\n    targets: [{select: {kind: ConfigMap, name: c}, fieldPaths: [data.b64]}]\n",
		"apps/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {b64: placeholder}\n",
	})
	k := render(t, tree(t, files), nil).Cluster("dev").Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}]
	if k == nil || k.Err != nil || len(k.Objects) != 2 {
		t.Fatalf("apps: %+v", k)
	}
	got := map[string][]graph.SecretField{}
	for _, o := range k.Objects {
		if o.SecretFields != nil {
			got[o.ID.Kind] = o.SecretFields
		}
	}
	want := map[string][]graph.SecretField{"ConfigMap": {{Path: []string{"data", "b64"}, Parts: []graph.TextPart{{Text: "anc", Secret: true}}}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("SecretFields (-want +got):\n%s", d)
	}
}
