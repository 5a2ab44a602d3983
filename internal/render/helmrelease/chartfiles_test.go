package helmrelease

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"

	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"
)

// readAll is a template that reads every file of its chart.
var readAll = &common.File{Name: "templates/all.yaml", Data: []byte(`{{ (.Files.Glob "**").AsConfig }}`)}

// chartOf is a chart named c with files (name, content, ...) and a template reading them all.
func chartOf(files ...string) *chart.Chart {
	ch := &chart.Chart{Metadata: &chart.Metadata{Name: "c"}, Templates: []*common.File{readAll}}
	for i := 0; i+1 < len(files); i += 2 {
		ch.Files = append(ch.Files, &common.File{Name: files[i], Data: []byte(files[i+1])})
	}
	return ch
}

// filesOf returns the chart's files by name.
func filesOf(ch *chart.Chart) map[string]string {
	out := map[string]string{}
	for _, f := range ch.Files {
		out[f.Name] = string(f.Data)
	}
	return out
}

func checkFiles(t *testing.T, got *chart.Chart, want map[string]string) {
	t.Helper()
	have := filesOf(got)
	for name, w := range want {
		if have[name] != w {
			t.Errorf("%s:\n%s\nwant:\n%s", name, have[name], w)
		}
	}
}

// A Secret inside a List, a SecretList or a List nested in a List's items (kustomize
// expands each, resource/factory.go inlineAnyEmbeddedLists) has its values replaced at
// their positions, a short one too; the ConfigMap beside it keeps its values (hostile7).
func TestChartFilesSecretLists(t *testing.T) {
	p := NewPlaceholders(make([]byte, 32))
	list := "apiVersion: v1\nkind: List\nitems:\n- kind: Secret\n  stringData: {TOK: Lilongv4l9, S: q7}\n" +
		"  data: {B: " + base64.StdEncoding.EncodeToString([]byte("Libinary9")) + "}\n" +
		"- kind: ConfigMap\n  data: {note: Cmplain9}\n" +
		"- kind: List\n  items:\n  - kind: Secret\n    stringData: {NK: Nestedval9}\n"
	sl := "kind: SecretList\nitems:\n- kind: Secret\n  stringData: {PW: Slistpw9}\n"
	js := `{"kind":"List","items":[{"kind":"Secret","stringData":{"J":"Jsonval9"}}]}` + "\n"
	got, fs := p.ChartFiles(chartOf("list.yaml", list, "sl.yaml", sl, "notalist.yaml", "kind: Secrets\nitems: [{kind: Secret, stringData: {X: Xval99999}}]\n",
		"list.json", js), nil)
	if !fs.Replaced || fs.Unmasked {
		t.Errorf("FileSecrets = %+v; want replaced, nothing unmasked", fs)
	}
	checkFiles(t, got, map[string]string{
		"list.yaml": "apiVersion: v1\nitems:\n- data:\n    B: " + base64.StdEncoding.EncodeToString([]byte(p.Text("Libinary9"))) +
			"\n  kind: Secret\n  stringData:\n    S: " + p.Text("q7") + "\n    TOK: " + p.Text("Lilongv4l9") +
			"\n- data:\n    note: Cmplain9\n  kind: ConfigMap\n- items:\n  - kind: Secret\n    stringData:\n      NK: " + p.Text("Nestedval9") +
			"\n  kind: List\nkind: List\n",
		"sl.yaml": "items:\n- kind: Secret\n  stringData:\n    PW: " + p.Text("Slistpw9") + "\nkind: SecretList\n",
		// A JSON file stays JSON.
		"list.json": `{"items":[{"kind":"Secret","stringData":{"J":"` + p.Text("Jsonval9") + `"}}],"kind":"List"}` + "\n",
		// kind Secrets is no list: its items are not expanded, so not a Secret.
		"notalist.yaml": "kind: Secrets\nitems: [{kind: Secret, stringData: {X: Xval99999}}]\n",
	})
}

// A Secret's values copied into its own labels and annotations are replaced there, an
// annotation anchored into stringData too, and its last-applied-configuration is read as
// JSON (escapes included) and written again with placeholders (hostile7).
func TestChartFilesOwnMetadata(t *testing.T) {
	p := NewPlaceholders(make([]byte, 32))
	secret := "kind: Secret\nmetadata:\n  name: meta\n  labels: {copy: Mlabel9x, short: ab}\n  annotations:\n    note: &pw Manchor9x\n" +
		"    kubectl.kubernetes.io/last-applied-configuration: |\n" +
		`      {"kind":"Secret","metadata":{"name":"meta"},"stringData":{"J":"Mj\"quoted\\9","S":"ab"}}` + "\n" +
		"stringData:\n  J: Mj\"quoted\\9\n  L: Mlabel9x\n  P: *pw\n  S: ab\n"
	got, fs := p.ChartFiles(chartOf("secret.yaml", secret), nil)
	if !fs.Replaced || fs.Unmasked {
		t.Errorf("FileSecrets = %+v", fs)
	}
	j, l, a, s := p.Text(`Mj"quoted\9`), p.Text("Mlabel9x"), p.Text("Manchor9x"), p.Text("ab")
	checkFiles(t, got, map[string]string{"secret.yaml": "kind: Secret\nmetadata:\n  annotations:\n" +
		"    kubectl.kubernetes.io/last-applied-configuration: |\n" +
		`      {"kind":"Secret","metadata":{"name":"meta"},"stringData":{"J":"` + j + `","S":"` + s + `"}}` + "\n" +
		"    note: " + a + "\n  labels:\n    copy: " + l + "\n    short: " + s + "\n  name: meta\nstringData:\n" +
		"  J: " + j + "\n  L: " + l + "\n  P: " + a + "\n  S: " + s + "\n"})
}

// A chart-local secretGenerator's literals (quotes removed, kustomize kv.go removeQuotes),
// the files it reads whole and its env files' values are replaced at their positions; a
// configMapGenerator's literal, a file it does not name and a path leaving the chart are
// not (hostile7).
func TestChartFilesGenerator(t *testing.T) {
	p := NewPlaceholders(make([]byte, 32))
	kust := "secretGenerator:\n- name: gen\n  files: [creds.txt, key=sub/k.pem, ../out.txt]\n  envs: [x.env]\n" +
		"  literals: [LIT=Glliteral9, 'Q=\"quoted val\"', S=q7]\nconfigMapGenerator:\n- name: plain\n  literals: [NOTE=Gcplain9]\n"
	env := "# comment=Notavalue9\nENVK=Geenvval9\r\n\nEMPTY=\n"
	got, fs := p.ChartFiles(chartOf("kustomization.yaml", kust, "creds.txt", "Gfcreds9\n", "sub/k.pem", "Kpem9x", "x.env", env,
		"other.txt", "Gfcreds9 is here, Glliteral9 too\n", "out.txt", "not read\n"), nil)
	if !fs.Replaced || fs.Unmasked {
		t.Errorf("FileSecrets = %+v", fs)
	}
	checkFiles(t, got, map[string]string{
		"kustomization.yaml": "configMapGenerator:\n- literals:\n  - NOTE=Gcplain9\n  name: plain\nsecretGenerator:\n- envs:\n  - x.env\n" +
			"  files:\n  - creds.txt\n  - key=sub/k.pem\n  - ../out.txt\n  literals:\n  - LIT=" + p.Text("Glliteral9") +
			"\n  - Q=" + p.Text("quoted val") + "\n  - S=" + p.Text("q7") + "\n  name: gen\n",
		"creds.txt": p.Text("Gfcreds9\n") + "\n",
		"sub/k.pem": p.Text("Kpem9x"),
		"x.env":     "# comment=Notavalue9\nENVK=" + p.Text("Geenvval9") + "\r\n\nEMPTY=\n",
		// Elsewhere by value: the file's content trimmed stands for the whole value.
		"other.txt": p.Text("Gfcreds9\n") + " is here, " + p.Text("Glliteral9") + " too\n",
		"out.txt":   "not read\n",
	})
}

// The cluster's Secret values are replaced wherever they stand in any chart file, in every
// form (as written, base64, JSON escapes, upper and lower case, sha256), subcharts
// included. A value under 4 bytes or word-shaped is not replaced by value and FileSecrets
// says it stands in a file; a file holding no value is the same file, and a chart holding
// none is the chart itself. The digest follows the rewritten files.
func TestChartFilesClusterValues(t *testing.T) {
	p := NewPlaceholders(make([]byte, 32))
	v := `Cl<9"value`
	sum := sha256.Sum256([]byte(v))
	note := "plain " + v + " b64 " + base64.StdEncoding.EncodeToString([]byte(v)) + " json " + `Cl\u003c9\"value` +
		" up " + strings.ToUpper(v) + " low " + strings.ToLower(v) + " sha " + hex.EncodeToString(sum[:]) + "\n"
	ph := p.Text(v)
	phSum := sha256.Sum256([]byte(ph))
	cm := "kind: ConfigMap\ndata: {user: admin, pin: ab, other: Otherval9}\n"
	readme := "nothing secret here\n"
	ch := chartOf("note.txt", note, "cm.yaml", cm, "README.md", readme)
	sub := chartOf("sub.txt", "sub holds "+v+"\n")
	ch.SetDependencies(sub)

	got, fs := p.ChartFiles(ch, []string{v, "admin", "ab", ""})
	if !fs.Replaced || !fs.Unmasked || len(fs.Digest) != 32 {
		t.Errorf("FileSecrets = %+v; want replaced, unmasked, a digest", fs)
	}
	checkFiles(t, got, map[string]string{
		"note.txt": "plain " + ph + " b64 " + base64.StdEncoding.EncodeToString([]byte(ph)) + " json " + ph + " up " + strings.ToUpper(ph) +
			" low " + ph + " sha " + hex.EncodeToString(phSum[:]) + "\n",
		"cm.yaml":   cm, // admin and ab are left as written: FileSecrets.Unmasked
		"README.md": readme,
	})
	if got.Files[2] != ch.Files[2] {
		t.Error("a file without Secret values is not the loaded file")
	}
	if d := got.Dependencies(); len(d) != 1 || string(d[0].Files[0].Data) != "sub holds "+ph+"\n" {
		t.Errorf("subchart: %q", d[0].Files[0].Data)
	}
	if string(ch.Files[0].Data) != note || string(sub.Files[0].Data) != "sub holds "+v+"\n" {
		t.Error("the loaded chart changed")
	}

	// Another value rotated in: other files, another digest; the same values: the same one.
	_, again := p.ChartFiles(ch, []string{v, "admin", "ab"})
	_, other := p.ChartFiles(ch, []string{v, "Otherval9"})
	if again.Digest != fs.Digest || other.Digest == fs.Digest || other.Unmasked {
		t.Errorf("digests %s %s %s, other unmasked %v: want the first two equal, the third not, nothing unmasked", fs.Digest, again.Digest, other.Digest, other.Unmasked)
	}
	// No value in any file: the chart itself.
	if same, fs := p.ChartFiles(ch, []string{"Absent9value"}); same != ch || fs != (FileSecrets{}) {
		t.Errorf("no value stands: %v, %+v; want the chart itself, nothing", same, fs)
	}
}
