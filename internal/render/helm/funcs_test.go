package helm

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// funcsChart calls the functions whose output depends on time, chance or the cluster.
func funcsChart(body string) map[string]string {
	return map[string]string{
		"Chart.yaml":          "apiVersion: v2\nname: funcs\nversion: 0.1.0\n",
		"templates/data.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: data\ndata:\n" + body,
	}
}

func renderData(t *testing.T, body string) (map[string]any, []string) {
	t.Helper()
	res, err := Render(context.Background(), Request{Chart: loadChart(t, funcsChart(body)), HelmRelease: hrObj(t, "  chart: {}\n")})
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	if len(res.Docs) != 1 {
		t.Fatalf("%d docs, want 1", len(res.Docs))
	}
	data, _ := res.Docs[0].Object["data"].(map[string]any)
	return data, res.Approximate
}

func TestRenderLookupAndClock(t *testing.T) {
	data, approx := renderData(t, `  lookup: {{ lookup "v1" "Secret" "apps" "db" | toJson | quote }}
  missing: {{ (lookup "v1" "Secret" "apps" "db").data | default "none" | quote }}
  now: {{ now | date "2006-01-02T15:04:05Z07:00" | quote }}
  epoch: {{ date "2006-01-02" 0 | quote }}
  ago: {{ ago (toDate "2006-01-02" "2025-12-31") | quote }}
  host: {{ getHostByName "example.com" | quote }}
  round: {{ durationRound (toDate "2006-01-02" "2025-11-01") | quote }}
  roundString: {{ durationRound "2h10m" | quote }}
`)
	want := map[string]any{"lookup": "{}", "missing": "none", "now": "2026-01-01T00:00:00Z", "epoch": "1970-01-01",
		"ago": "24h0m0s", "host": "", "round": "2mo", "roundString": "2h"}
	if diff := cmp.Diff(want, data); diff != "" {
		t.Errorf("data (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"ago", "durationRound", "lookup", "now"}, approx); diff != "" {
		t.Errorf("Approximate (-want +got):\n%s", diff)
	}
}

// TestRenderSeeded: the random functions give the same output on every render, and what
// they give has the shape sprig's does.
func TestRenderSeeded(t *testing.T) {
	const body = `  alnum: {{ randAlphaNum 16 | quote }}
  num: {{ randNumeric 6 | quote }}
  int: {{ randInt 10 20 | quote }}
  uuid: {{ uuidv4 | quote }}
  shuffle: {{ shuffle "abcdef" | quote }}
  bytes: {{ randBytes 8 | quote }}
  bcrypt: {{ bcrypt "pw" | quote }}
  aes: {{ encryptAES "key" "text" | quote }}
  ec: {{ genPrivateKey "ecdsa" | quote }}
  rsa: {{ genPrivateKey "rsa" | quote }}
{{- $ca := genCA "ca" 365 }}
{{- $cert := genSignedCert "web" (list "10.0.0.1") (list "web.apps.svc") 30 $ca }}
  ca: {{ $ca.Cert | quote }}
  cert: {{ $cert.Cert | quote }}
  key: {{ $cert.Key | quote }}
  decrypted: {{ encryptAES "key" "text" | decryptAES "key" | quote }}
`
	first, approx := renderData(t, body)
	second, _ := renderData(t, body)
	if diff := cmp.Diff(first, second); diff != "" {
		t.Errorf("second render differs (-first +second):\n%s", diff)
	}
	want := []string{"bcrypt", "encryptAES", "genCA", "genPrivateKey", "genSignedCert", "randAlphaNum", "randBytes", "randInt", "randNumeric", "shuffle", "uuidv4"}
	if diff := cmp.Diff(want, approx); diff != "" {
		t.Errorf("Approximate (-want +got):\n%s", diff)
	}
	str := func(k string) string { s, _ := first[k].(string); return s }
	// The stream is ChaCha8 with a fixed seed, so these are stable across Go releases; a
	// change here changes every review's output.
	stream := map[string]string{"alnum": "D4nu7F64PHtPThPR", "num": "616471", "int": "16",
		"uuid": "35c3bf6a-3895-4ed8-aaee-a5dd210dd583", "shuffle": "adbfec", "bytes": "rxa6ysrF6zU="}
	for k, want := range stream {
		if str(k) != want {
			t.Errorf("%s = %q, want %q", k, str(k), want)
		}
	}
	if len(str("alnum")) != 16 || len(str("num")) != 6 || len(str("bcrypt")) != 60 || !strings.HasPrefix(str("bcrypt"), "$2a$10$") {
		t.Errorf("shapes: alnum %q num %q bcrypt %q", str("alnum"), str("num"), str("bcrypt"))
	}
	if str("decrypted") != "text" || strings.Count(str("uuid"), "-") != 4 || str("uuid")[14] != '4' {
		t.Errorf("decrypted %q uuid %q", str("decrypted"), str("uuid"))
	}
	if s := []rune(str("shuffle")); len(s) != 6 || string(slices.Sorted(slices.Values(s))) != "abcdef" {
		t.Errorf("shuffle %q is not a permutation of abcdef", string(s))
	}
	if !strings.HasPrefix(str("ec"), "-----BEGIN EC PRIVATE KEY-----") || str("rsa") != fixedRSA4096Key {
		t.Errorf("keys: %.40q %.40q", str("ec"), str("rsa"))
	}
	// The signed certificate chains to the CA and carries the SANs, valid from Clock.
	parse := func(s string) *x509.Certificate {
		block, _ := pem.Decode([]byte(s))
		if block == nil {
			t.Fatalf("no PEM in %.40q", s)
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	ca, cert := parse(str("ca")), parse(str("cert"))
	if err := cert.CheckSignatureFrom(ca); err != nil {
		t.Errorf("cert not signed by the CA: %v", err)
	}
	got := []string{ca.Subject.CommonName, cert.Subject.CommonName, cert.DNSNames[0], cert.IPAddresses[0].String(), cert.NotBefore.String(), cert.NotAfter.String()}
	if diff := cmp.Diff([]string{"ca", "web", "web.apps.svc", "10.0.0.1", "2026-01-01 00:00:00 +0000 UTC", "2026-01-31 00:00:00 +0000 UTC"}, got); diff != "" {
		t.Errorf("certificate (-want +got):\n%s", diff)
	}
}

// TestRenderCaps: functions that allocate on demand fail past their limits.
func TestRenderCaps(t *testing.T) {
	for body, want := range map[string]string{
		`  x: {{ repeat 2000000 "a" | quote }}`:     "error calling repeat: repeat: 2000000 × 1 bytes is over the 1048576-byte limit",
		`  x: {{ until 100000 | len | quote }}`:     "error calling until: sequence of 100000 items is over the 65536-item limit",
		`  x: {{ seq 1 1000000 | quote }}`:          "error calling seq: sequence of 1000000 items is over the 65536-item limit",
		`  x: {{ "a" | indent 100000000 | quote }}`: "error calling indent: indent of 100000000 spaces is over the 1024 limit",
		`  x: {{ "a" | nindent 5000 | quote }}`:     "error calling nindent: nindent of 5000 spaces is over the 1024 limit",
		`  x: {{ until -100000 | len | quote }}`:    "error calling until: sequence of 100000 items is over the 65536-item limit",
		`  x: {{ seq 100000 1 | quote }}`:           "error calling seq: sequence of 100000 items is over the 65536-item limit",
		`  x: {{ untilStep 0 1000000 10 | len }}`:   "error calling untilStep: sequence of 100000 items is over the 65536-item limit",
		`  x: {{ randAlphaNum 100000 | quote }}`:    "error calling randAlphaNum: randAlphaNum: 100000 characters is over the 65536 limit",
	} {
		_, err := Render(context.Background(), Request{Chart: loadChart(t, funcsChart(body)), HelmRelease: hrObj(t, "  chart: {}\n")})
		if err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("%s: error %v, want suffix %q", body, err, want)
		}
	}
	data, _ := renderData(t, `  x: {{ until 3 | toJson | quote }}
  y: {{ seq 3 | quote }}
  z: {{ repeat 3 "ab" | quote }}
  down: {{ seq 3 1 | quote }}
  stepped: {{ seq 0 5 20 | quote }}
  away: {{ untilStep 0 -1000000 1 | toJson | quote }}
  neg: {{ until -2 | toJson | quote }}
  indented: {{ "a\nb" | nindent 2 | quote }}
`)
	want := map[string]any{"x": "[0,1,2]", "y": "1 2 3", "z": "ababab", "down": "3 2 1", "stepped": "0 5 10 15 20", "away": "[]", "neg": "[0,-1]", "indented": "\n  a\n  b"}
	if diff := cmp.Diff(want, data); diff != "" {
		t.Errorf("data (-want +got):\n%s", diff)
	}
}

// TestRenderKeysAndZones: the remaining key types, certificate forms and time zones.
func TestRenderKeysAndZones(t *testing.T) {
	const body = `  zone: {{ dateInZone "2006-01-02 15:04 MST" (toDate "2006-01-02" "2026-06-01") "Europe/Paris" | quote }}
  badZone: {{ dateInZone "15:04 MST" 0 "Nowhere/City" | quote }}
  htmlDate: {{ htmlDateInZone now "UTC" | quote }}
  htpasswd: {{ htpasswd "admin" "pw" | quote }}
  badUser: {{ htpasswd "a:b" "pw" | quote }}
  dsa: {{ genPrivateKey "dsa" | quote }}
  unknown: {{ genPrivateKey "rsa3" | quote }}
{{- $ed := genPrivateKey "ed25519" }}
  ed: {{ $ed | quote }}
{{- $ca := genCAWithKey "ca" 1 $ed }}
  caKey: {{ eq $ca.Key $ed | quote }}
{{- $self := genSelfSignedCertWithKey "self" nil (list "a.example") 1 (genPrivateKey "ecdsa") }}
  self: {{ $self.Cert | quote }}
{{- $signed := genSignedCertWithKey "leaf" nil nil 1 $ca (genPrivateKey "ecdsa") }}
  signed: {{ $signed.Cert | quote }}
`
	data, approx := renderData(t, body)
	// ECDSA and Ed25519 signatures made without a rand source are deterministic too.
	if again, _ := renderData(t, body); !cmp.Equal(data, again) {
		t.Errorf("second render differs: %s", cmp.Diff(data, again))
	}
	str := func(k string) string { s, _ := data[k].(string); return s }
	want := map[string]string{"zone": "2026-06-01 02:00 CEST", "badZone": "00:00 UTC", "htmlDate": "2026-01-01",
		"htpasswd": "admin:" + fakeBcrypt("pw"), "badUser": "invalid username: a:b", "dsa": fixedDSAKey, "unknown": "Unknown type rsa3", "caKey": "true"}
	for k, v := range want {
		if str(k) != v {
			t.Errorf("%s = %q, want %q", k, str(k), v)
		}
	}
	for k, prefix := range map[string]string{"ed": "-----BEGIN PRIVATE KEY-----", "self": "-----BEGIN CERTIFICATE-----", "signed": "-----BEGIN CERTIFICATE-----"} {
		if !strings.HasPrefix(str(k), prefix) {
			t.Errorf("%s = %.40q, want a %s", k, str(k), prefix)
		}
	}
	wantApprox := []string{"genCAWithKey", "genPrivateKey", "genSelfSignedCertWithKey", "genSignedCertWithKey", "htpasswd", "now"}
	if diff := cmp.Diff(wantApprox, approx); diff != "" {
		t.Errorf("Approximate (-want +got):\n%s", diff)
	}
}
