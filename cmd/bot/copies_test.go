package main

import (
	"bufio"
	"os"
	"regexp"
	"strings"
	"testing"
)

// copyCase is one of hostile5's cases (testdata/copies/<name>/{base,head}, leaks.txt: one
// value a line that no output may show) with the build output it pins: each want is a
// regexp that one YAML document of `build --dir head` must match whole.
type copyCase struct {
	name          string
	kustomization []string // built one by one when the whole build fails (mix)
	want          []string
}

// Plain copies of Secret values (hostile5 items 4 and 5): a phrase over 80 columns
// (fold), a key file read by both a secretGenerator and a configMapGenerator (mix m3), a
// SOPS dotenv file through a configMapGenerator (mix m5), a ConfigMap key equal to a
// Secret value read by a child's substituteFrom (xb), a HelmRelease inline value equal
// to a cluster Secret value and a Secret the chart renders itself (hc). The test sweeps
// the review (Markdown, JSON, SARIF) and build (YAML, JSON) of both commits for every
// value of leaks.txt, and pins the objects that showed them. Negatives: a substituteFrom
// key equal to no Secret value shows what the child makes of it (xb PLAINVALUE9).
func TestSecretCopies(t *testing.T) {
	ph := `TIERGATE-REDACTED-[0-9A-F]{8}`
	cases := []copyCase{
		{name: "fold", want: []string{"apiVersion: v1\ndata:\n  p: <redacted>\nkind: ConfigMap\nmetadata:\n  name: phrase-copy\n  namespace: default\n"}},
		{name: "mix", kustomization: []string{"flux-system/m3", "flux-system/m5"}, want: []string{
			"apiVersion: v1\ndata:\n  cert.pem: <redacted>\nkind: ConfigMap\nmetadata:\n  name: tls-copy\n  namespace: default\n",
			"apiVersion: v1\ndata:\n  PASSWORD: <redacted>\n  sops_age__list_0__map_enc: <redacted>\n  sops_age__list_0__map_recipient: <redacted>\n" +
				"  sops_lastmodified: <redacted>\n  sops_mac: <redacted>\n  sops_version: <redacted>\nkind: ConfigMap\nmetadata:\n  name: sopsenv-[a-z0-9]{10}\n  namespace: default\n",
		}},
		{name: "xb", want: []string{"apiVersion: v1\ndata:\n  part: <redacted>\n  pub: PLAINVALUE9\n  up: <redacted>\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: default\n"}},
		{name: "hc", want: []string{"apiVersion: v1\ndata:\n  b64k: <redacted>\n  dupb64: [A-Za-z0-9+/=]{36,}\n  dupup: " + ph + "\n  note: pw is <redacted>\n  up: <redacted>\nkind: ConfigMap\n" +
			"metadata:\n  labels:\n    helm.toolkit.fluxcd.io/name: hc\n    helm.toolkit.fluxcd.io/namespace: default\n  name: chart-cm\n  namespace: default\n"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := "testdata/copies/" + c.name
			outputs := map[string]string{}
			for _, f := range []string{"markdown", "json", "sarif"} {
				outputs["review "+f] = runAll(t, "review", "--no-cache", "--base-dir", dir+"/base", "--head-dir", dir+"/head", "--format", f, "--fail-on", "never")
			}
			for _, side := range []string{"base", "head"} {
				for _, f := range []string{"yaml", "json"} {
					if c.kustomization == nil {
						outputs["build "+side+" "+f] = runAll(t, "build", "--no-cache", "--dir", dir+"/"+side, "--format", f)
					}
					for _, k := range c.kustomization {
						outputs["build "+side+" "+f+" "+k] += runAll(t, "build", "--no-cache", "--dir", dir+"/"+side, "--format", f, "--kustomization", k)
					}
				}
			}
			for name, out := range outputs {
				for _, v := range leakValues(t, dir+"/leaks.txt") {
					if strings.Contains(out, v) {
						t.Errorf("%s shows %q", name, v)
					}
				}
			}
			var docs []string
			for name, out := range outputs {
				if strings.HasPrefix(name, "build head yaml") {
					docs = append(docs, strings.Split(out, "---\n")...)
				}
			}
			for _, w := range c.want {
				re := regexp.MustCompile("^# [^\n]*\n" + w + "$")
				found := false
				for _, d := range docs {
					found = found || re.MatchString(d)
				}
				if !found {
					t.Errorf("build head yaml holds no document matching\n%s\ndocuments:\n%s", re, strings.Join(docs, "---\n"))
				}
			}
		})
	}
}

// leakValues reads a leaks.txt: one value a line, blank lines skipped.
func leakValues(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	for s := bufio.NewScanner(f); s.Scan(); {
		if l := s.Text(); l != "" {
			out = append(out, l)
		}
	}
	return out
}
