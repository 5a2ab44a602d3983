package main

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tiergate/tiergate/internal/leaktest"
	"github.com/tiergate/tiergate/internal/render/helmrelease"
)

// TestSecretChartFieldLeaks sweeps every output of each case of
// testdata/scenarios/secret-chart-fields (hostile6 items 1 and 2: a chart reading the
// repository's Secret file through .Files; release name, namespace and targetPath written
// from a Secret by substitution or a replacement) for the values its leak-values.txt lists,
// and pins what the chart renders instead: the placeholders of the test run's key. A
// literal release name and namespace (r22 default/lit) reach the chart as written. The h7
// cases (hostile7) read chart files holding a Secret in a List, a Secret's values copied
// into its own metadata, and a secretGenerator's sources: the chart sees placeholders
// there, and a ConfigMap's values beside them as written. The h12 cases (secrets12) read
// files by names computed at render time, and none.
func TestSecretChartFieldLeaks(t *testing.T) {
	key, err := hex.DecodeString(testPlaceholderKey)
	if err != nil {
		t.Fatal(err)
	}
	ph := helmrelease.NewPlaceholders(key).Text
	up := strings.ToUpper
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	tok := ph("Tkhdlongv4l")
	approx := "so its objects may differ in the cluster: "
	rsTok, rsPin := ph("Rshdlongv4l"), helmrelease.NewPlaceholders(key).Number("48213")
	reverse := func(s string) string { r := []rune(s); slices.Reverse(r); return string(r) }
	sha := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	for _, c := range []struct {
		name      string
		want, not map[string][]string // output name -> texts it holds / must not hold
	}{
		{"r9", map[string][]string{
			"build head yaml": {"  tok: " + tok + "\n", "  sh: 'SH: " + ph("xhd") + "'\n",
				"    stringData:\n      SH: " + ph("xhd") + "\n      TOK: " + tok + "\n"},
			"build base yaml": {"  tok: " + ph("Tkbslongv4l") + "\n"},
			"review markdown": {approx + helmrelease.SecretFilesNote + " (tiergate never shows"},
		}, map[string][]string{"review markdown": {helmrelease.ReleaseFieldsNote}}},
		{"r14", map[string][]string{
			"build head yaml": {"  rn: " + up(ph("rnfixname9")) + "\n", "  rns: " + up(ph("nsfixspace9")) + "\n",
				"  keys: " + up(tok) + ",TP" + up(tok) + "\n"},
			"review markdown": {helmrelease.ReleaseFieldsNote},
		}, map[string][]string{"review markdown": {helmrelease.SecretFilesNote}}},
		{"r15", map[string][]string{
			// The origin labels are the HelmRelease's own, masked as any field from a Secret.
			"build head yaml": {"  rn: H-" + up(ph("rnfixname9")) + "\n", "  rns: " + up(ph("nsfixspace9")) + "\n",
				"    helm.toolkit.fluxcd.io/name: h-<redacted>\n    helm.toolkit.fluxcd.io/namespace: <redacted>\n"},
		}, nil},
		{"r19", map[string][]string{
			"review markdown": {"execution error at (f/templates/x.yaml:1:3): bad " + up(ph("rnhdname9")) + " |"},
			"graph head json": {"bad " + up(ph("rnhdname9"))},
			"graph base json": {"bad " + up(ph("rnbsname9"))},
		}, nil},
		{"r22", map[string][]string{
			"build head yaml": {"  rn: " + up(ph("rrhdname9")) + "\n  rnb:", "  rn: LITERAL-REL\n", "  rns: LIT-NS\n"},
			"build base yaml": {"  rn: " + up(ph("rrbsname9")) + "\n  rnb:", "  rn: LITERAL-REL\n"},
			"review markdown": {"HelmRelease default/hr is rendered offline with assumptions, " + approx + helmrelease.ReleaseFieldsNote},
		}, map[string][]string{"review markdown": {"HelmRelease default/lit is rendered offline"}}},
		// hostile7: the chart's own files, whatever document holds the value.
		// A Secret in a List's items: placeholders at its positions; the List's ConfigMap
		// keeps its value.
		{"h7-list", map[string][]string{
			"build head yaml": {"  tok: " + ph("Lihdlongv4l") + "\n",
				"    - apiVersion: v1\n      data:\n        B64: " + b64(ph("Lbhdbinary9")) + "\n      kind: Secret\n" +
					"      metadata:\n        name: listed\n        namespace: default\n      stringData:\n        TOK: " + ph("Lihdlongv4l") + "\n" +
					"    - apiVersion: v1\n      data:\n        note: Cmhdplain9\n",
				"      stringData:\n        KEY: " + ph("V1hdfirstline9\nV1hdsecondline9\n") + "\n    kind: List\n"},
			"build base yaml": {"  tok: " + ph("Libslongv4l") + "\n"},
			"review markdown": {approx + helmrelease.SecretFilesNote + " (tiergate never shows"},
		}, map[string][]string{"review markdown": {helmrelease.UnmaskedFilesNote}}},
		// A Secret's values in its labels, an anchored annotation and last-applied JSON.
		{"h7-meta", map[string][]string{
			"build head yaml": {"  applied: '\"J\":\"" + up(ph(`Mjhd"quoted\9`)) + "\"'\n",
				"      labels:\n        copy: " + ph("Mlhdlabel9") + "\n",
				"        note: " + ph("Mahdanchor9") + "\n",
				`"stringData":{"J":"` + ph(`Mjhd"quoted\9`) + `","L":"` + ph("Mlhdlabel9") + `","P":"` + ph("Mahdanchor9") + `"}}`},
			"review markdown": {approx + helmrelease.SecretFilesNote + " (tiergate never shows"},
		}, map[string][]string{"review markdown": {helmrelease.UnmaskedFilesNote}}},
		// A chart-local secretGenerator: literals (a 2-byte one too), env values, a file.
		{"h7-gen", map[string][]string{
			"build head yaml": {"      - LIT=" + ph("Glhdliteral9") + "\n      - SHORT=" + ph("q7") + "\n",
				"      - NOTE=Gchdplain9\n", "  env: |\n    ENVK=" + up(ph("Gehdenvval9")) + "\n",
				"  x.env: |\n    ENVK=" + ph("Gehdenvval9") + "\n"},
			"build base yaml": {"      - LIT=" + ph("Glbsliteral9") + "\n"},
			"review markdown": {approx + helmrelease.SecretFilesNote + " (tiergate never shows"},
		}, map[string][]string{"review markdown": {helmrelease.UnmaskedFilesNote}}},
		// secrets12: file names computed at render time (printf, print, a variable) may
		// name any file, so every file is rewritten, and the generator's value "true"
		// standing in the README read that way is said.
		{"h12-dyn", map[string][]string{
			"build head yaml": {"  creds: |\n    " + ph("Gfhdfilecreds9\n") + "\n", "  env: |\n    ENVK=" + up(ph("Gehdenvval9")) + "\n",
				"  kust: " + b64("configMapGenerator:\n- literals:\n  - NOTE=Gchdplain9\n  name: plain\n  namespace: default\n"+
					"generatorOptions:\n  disableNameSuffixHash: true\nsecretGenerator:\n- envs:\n  - x.env\n  files:\n  - creds.txt\n"+
					"  literals:\n  - LIT="+ph("Glhdliteral9")+"\n  - SHORT="+ph("q7")+"\n  - ENABLED="+ph("true")+"\n  name: gen\n  namespace: default\n") + "\n",
				"  readme: |\n    # config\n\n    Set enabled to true in the values.\n"},
			"review markdown": {approx + helmrelease.SecretFilesNote + " (tiergate never shows Secret values, nor lets a chart transform one); " +
				helmrelease.UnmaskedFilesNote},
		}, nil},
		// secrets12: a chart that reads none of its files: nothing rewritten, no notice,
		// though its README holds the generator's value "true".
		{"h12-unread", map[string][]string{"build head yaml": {"data:\n  release: files\n"}},
			map[string][]string{"review markdown": {helmrelease.SecretFilesNote, helmrelease.SecretTemplatesNote, helmrelease.UnmaskedFilesNote, "is rendered offline"}}},
		// secrets12: a crds/ file reaches the output as written, whatever the templates read:
		// the CRD is in the graph and its copy of a generator value is redacted there.
		{"h12-crd", map[string][]string{"build head yaml": {"  name: widgets.example.com\n", "default token is <redacted>\n"}}, nil},
		// secrets15 (hostile8 c13): a ResourceSet's inputs and a Static provider's
		// defaultValues substituted from a Secret: the templates transform placeholders, in
		// data, a name and a label; the literal input keeps its value. The name made of a
		// placeholder is not judged by invalid-name.
		{"h15-rs", map[string][]string{
			"build head yaml": {"  b64: " + b64(rsTok) + "\n", "  pin: \"" + strconv.FormatInt(rsPin+1, 10) + "\"\n",
				"  plain: RSPLAINLITERAL\n", "  rev: " + reverse(rsTok) + "\n", "  sha: " + sha(rsTok) + "\n",
				"  up: " + up(rsTok) + "\n  whole: " + rsTok + "\n", "  up: PRE-" + up(rsTok) + "\n",
				"    tok: pre-" + rsTok + "\n  name: rs2-pre-tiergate-\n"},
			"build base yaml": {"  whole: " + ph("Rsbslongv4l") + "\n"},
			// trunc of a placeholder may end in '-': invalid-name does not judge the name.
			"review markdown": {"ConfigMap/default/rs2-pre-tiergate- · flux-system/apps"},
		}, map[string][]string{"review markdown": {"invalid-name"}}},
		// secrets15 (hostile8 c16): valuesFrom Secret values, one base64 with line breaks
		// under a targetPath, transformed by the chart: every output is made of placeholders.
		{"h15-vf", map[string][]string{
			"build head yaml": {"  hex: " + hex.EncodeToString([]byte(ph("Vfhdlongv4l"))) + "\n",
				"  l0: " + up(ph("Vfhdlongv4l")) + "\n", "  sub: " + ph("Vfhdlongv4l")[2:9] + "\n",
				"    PW: " + up(ph("Vfhdother9")) + "\n"},
			"build base yaml": {"  up: " + up(ph("Vfbslongv4l")) + "\n"},
			"review markdown": {approx + "valuesFrom Secret values replaced by placeholders"},
		}, nil},
		// secrets14: a chart folder that is also a Kustomization's path: a template whose
		// define captures a Secret's stringData, one whose Secret value is template syntax
		// (Helm's parse error quoted it), values.yaml a Secret read as .Values: each holds
		// the placeholder, the template note is said, and names that are no value stay.
		{"s14-parts", map[string][]string{
			"build head yaml": {"  defined: " + up(ph("Sdhddefine9x")) + "\n", "  name: valued\n  valued: " + b64(ph("Svhdvalues9x")) + "\n"},
			"build base yaml": {"  defined: " + up(ph("Sdbsdefine9x")) + "\n", "  valued: " + b64(ph("Svbsvalues9x")) + "\n"},
			"review markdown": {helmrelease.SecretFilesNote + ", " + helmrelease.SecretTemplatesNote + " (tiergate never shows"},
		}, map[string][]string{"graph head text": {"render error"}, "graph base text": {"render error"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := "../../testdata/scenarios/secret-chart-fields/" + c.name
			values := leaktest.Values(t, dir)
			outputs := everyOutput(t, dir)
			noLeaks(t, outputs, values)
			for name, texts := range c.want {
				for _, s := range texts {
					if !strings.Contains(outputs[name], s) {
						t.Errorf("%s lacks %q", name, s)
					}
				}
			}
			for name, texts := range c.not {
				for _, s := range texts {
					if strings.Contains(outputs[name], s) {
						t.Errorf("%s holds %q", name, s)
					}
				}
			}
		})
	}
}
