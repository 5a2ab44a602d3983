package main

import "testing"

// TestGraphReviewFlags checks that graph takes review's --allow-remote and limit flags,
// validated and applied the same way.
func TestGraphReviewFlags(t *testing.T) {
	const limited = "cluster demo (root clusters/demo, 1 Kustomization, 0 objects)\n" +
		"  flux-system/flux-system  path=./clusters/demo prune=true dependsOn=[]  build error: clusters/demo/flux-system/gotk-sync.yaml:13: " +
		"not rendered: the cluster renders more than tiergate's limit of 2 objects (--max-objects)\n"
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		out, err string
	}{
		{"allow-remote any host", []string{"graph", "--dir", demo + "head", "--allow-remote", "*"}, 2, "",
			`--allow-remote: want a lower-case host name such as github.com or *.example.com (fetched over https only), got "*"`},
		{"max-files", []string{"graph", "--dir", demo + "head", "--max-files", "3"}, 2, "", "render limit exceeded: MaxFiles is 3, reached at clusters"},
		{"max-objects", []string{"graph", "--dir", demo + "head", "--max-objects", "2"}, 0, limited, ""},
		{"allow-remote a host", []string{"graph", "--dir", demo + "head", "--allow-remote", "github.com", "--cluster", "demo"}, 0,
			"cluster demo (root clusters/demo, 4 Kustomizations, 9 objects)\n" +
				"  flux-system/flux-system  path=./clusters/demo prune=true dependsOn=[]  5 objects\n" +
				"  flux-system/apps  path=./apps prune=true dependsOn=[flux-system/infra]  1 object\n" +
				"  flux-system/databases  path=./databases prune=true dependsOn=[]  1 object\n" +
				"  flux-system/infra  path=./infra prune=true dependsOn=[]  2 objects\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, code, err := run(t, tc.args...)
			errText := ""
			if err != nil {
				errText = err.Error()
			}
			if code != tc.code || out != tc.out || errText != tc.err {
				t.Errorf("exit %d, stdout %q, error %q; want exit %d, stdout %q, error %q", code, out, errText, tc.code, tc.out, tc.err)
			}
		})
	}
}
