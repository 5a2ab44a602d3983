package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCorpusHelmOffline reviews the head commit of each corpus repository offline (no host
// allowed, the default): every HelmRelease of the graph installs a remote chart, so each is
// listed not reviewed with its chart reference and the host to allow. onedr0p has 67
// HelmReleases (HELM.md §7); xunholy has 63 (HELM.md counts 62: 48 OCI + 14 http; here 50 +
// 13), three of which two Kustomizations emit (the root flux-system and their own), so 66
// entries.
func TestCorpusHelmOffline(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus reviews take seconds each")
	}
	corpus := "../../../shared/corpus"
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is needed to clone the corpus bundles")
	}
	type counts struct{ Entries, HelmReleases, OCI, HTTP, GHCR int }
	for repo, want := range map[string]counts{
		"onedr0p-home-ops":   {Entries: 67, HelmReleases: 67, OCI: 67, HTTP: 0, GHCR: 58},
		"xunholy-k8s-gitops": {Entries: 66, HelmReleases: 63, OCI: 50, HTTP: 13, GHCR: 46},
	} {
		t.Run(repo, func(t *testing.T) {
			bundle := filepath.Join(corpus, repo+".bundle")
			if !fileExists(bundle) {
				t.Skip("no shared corpus")
			}
			dir := filepath.Join(t.TempDir(), repo)
			if out, err := exec.Command("git", "clone", "-q", "-b", "main", bundle, dir).CombinedOutput(); err != nil {
				t.Fatalf("clone %s: %v: %s", repo, err, out)
			}
			f := reviewFlags{repo: dir, base: "HEAD~1", head: "HEAD", format: "json", config: filepath.Join("../../docs/corpus", repo+".tiergate.yaml")}
			out, _ := corpusReview(t, f)
			var rep struct {
				Unreviewed []struct {
					Cluster, Kind, Name, Reason, Chart, Host string
					AlsoAllow                                []string
				}
			}
			if err := json.Unmarshal(out, &rep); err != nil {
				t.Fatal(err)
			}
			got := counts{}
			distinct := map[string]bool{}
			for _, u := range rep.Unreviewed {
				if u.Kind != "HelmRelease" {
					continue
				}
				got.Entries++
				if !distinct[u.Cluster+" "+u.Name] {
					distinct[u.Cluster+" "+u.Name] = true
					switch {
					case strings.HasPrefix(u.Chart, "oci://"):
						got.OCI++
					case strings.HasPrefix(u.Chart, "https://"), strings.HasPrefix(u.Chart, "http://"):
						got.HTTP++
					}
					if u.Host == "ghcr.io" {
						got.GHCR++
					}
				}
				hint := strings.Join(append([]string{u.Host}, u.AlsoAllow...), " and ")
				if u.Host == "" || !strings.HasSuffix(u.Reason, "chart "+u.Chart+" is remote (allow "+hint+" to render it)") {
					t.Errorf("%s: reason %q does not name chart %q and host %q", u.Name, u.Reason, u.Chart, u.Host)
				}
			}
			got.HelmReleases = len(distinct)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("HelmReleases not reviewed (-want +got):\n%s", d)
			}
		})
	}
}
