package review

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/review/rules"
)

// TestLimitIsNotReviewed: a build that one of tiergate's own bounds stopped (the
// --max-build-documents or --max-file-bytes refusal) is no render-error, since Flux would
// build it: the Kustomization is listed as not reviewed, naming the limit and its flag.
// A build that fails for Flux too stays a render-error and is reviewed.
func TestLimitIsNotReviewed(t *testing.T) {
	withErr := func(be graph.BuildError) *graph.Cluster {
		c := cluster()
		c.Kustomizations[ref].Err = &be
		c.Kustomizations[ref].Spec.SourceRef.Kind = "GitRepository"
		return c
	}
	docs := `refused "many.yaml": the build has read more than tiergate's limit of 5000 YAML documents (--max-build-documents); kustomize's time grows with their square`
	size := `refused "worker.yaml": apps/worker.yaml has 8509275 bytes, over tiergate's per-file limit of 8388608 (--max-file-bytes)`
	small := `refused "worker.yaml": apps/worker.yaml has 2000000 bytes, over tiergate's per-file limit of 1048576 (--max-file-bytes)`
	const stopped = "stopped by tiergate's own limit, not by Flux (raise the flag it names to review this Kustomization): "
	cases := []struct {
		name       string
		err        graph.BuildError
		findings   []string
		unreviewed []Unreviewed
	}{
		{"documents", graph.BuildError{Message: docs, File: "apps/kustomization.yaml", Line: 8, Limit: true}, nil,
			[]Unreviewed{{Cluster: "dev", Kind: "Kustomization", Name: "flux-system/apps", Kustomization: "flux-system/apps", Reason: stopped + docs, File: "clusters/dev/apps.yaml", Line: 1}}},
		// Over the API server's 3 MiB request limit: as one object, Flux's apply fails too.
		{"file size", graph.BuildError{Message: size, File: "apps/kustomization.yaml", Line: 6, Limit: true}, nil,
			[]Unreviewed{{Cluster: "dev", Kind: "Kustomization", Name: "flux-system/apps", Kustomization: "flux-system/apps", Reason: stopped + size +
				"; Flux reads that file, but one object of that size is over the 3145728 bytes the API server accepts in one write request (k8s.io/apiserver MaxRequestBodyBytes): if the file is one object, its apply fails on every reconcile",
				File: "clusters/dev/apps.yaml", Line: 1}}},
		// Negative: a file refused under a lower --max-file-bytes, within the API's limit.
		{"file size under the request limit", graph.BuildError{Message: small, File: "apps/kustomization.yaml", Line: 6, Limit: true}, nil,
			[]Unreviewed{{Cluster: "dev", Kind: "Kustomization", Name: "flux-system/apps", Kustomization: "flux-system/apps", Reason: stopped + small, File: "clusters/dev/apps.yaml", Line: 1}}},
		{"negative: a Flux build failure", graph.BuildError{Message: "accumulating resources", File: "apps/kustomization.yaml", Line: 4},
			[]string{"new error render-error apps/kustomization.yaml:4 Kustomization flux-system/apps fails to build, so Flux applies none of it: accumulating resources"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := Review(&graph.Graph{Clusters: []*graph.Cluster{cluster()}}, &graph.Graph{Clusters: []*graph.Cluster{withErr(tc.err)}},
				Options{Env: rules.Env{Catalog: rules.NewCatalog(nil), Strict: true}})
			var got []string
			for _, f := range r.Findings {
				got = append(got, string(f.Status)+" "+f.Severity.String()+" "+f.Rule+" "+f.File+":"+strconv.Itoa(f.Line)+" "+f.Message)
			}
			if d := cmp.Diff(tc.findings, got); d != "" {
				t.Errorf("findings (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.unreviewed, r.Unreviewed); d != "" {
				t.Errorf("unreviewed (-want +got):\n%s", d)
			}
		})
	}
}
