package render

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// TestPeakRSS renders, in a child process, a repository holding every exhaustion attack
// at once under the default limits, and reports the child's peak resident set size.
func TestPeakRSS(t *testing.T) {
	if os.Getenv("TIERGATE_RSS_CHILD") != "" {
		renderExhaustion(t)
		return
	}
	if testing.Short() {
		t.Skip("renders large hostile trees in a child process")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPeakRSS$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "TIERGATE_RSS_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	maxrss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB on Linux
	t.Logf("child:\n%s", out)
	t.Logf("peak RSS of the hostile render: %d MiB", maxrss>>10)
	// A bound far above the figure measured (docs/reliability.md), so it cannot flake, and
	// far below the 1 GiB budget a reviewer process is given.
	if maxrss > 1<<20 {
		t.Errorf("peak RSS %d MiB, over the 1 GiB budget", maxrss>>10)
	}
}

// renderExhaustion builds one tree with an alias bomb, bases included 2^16 times, 1,200
// documents in one build, four 7 MiB manifests (under MaxFileBytes) and a 20 MiB one.
func renderExhaustion(t *testing.T) {
	files := map[string]string{}
	var bomb strings.Builder
	bomb.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lol\ndata:\n  a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	prev := "a"
	for _, c := range "bcdefghi" {
		bomb.WriteString("  " + string(c) + ": &" + string(c) + " [" + strings.Repeat("*"+prev+",", 8) + "*" + prev + "]\n")
		prev = string(c)
	}
	files["bomb/bomb.yaml"] = bomb.String()
	files["doubling/kustomization.yaml"] = "resources: [l0]\n"
	files["doubling/l16/kustomization.yaml"] = "resources: [cm.yaml]\n"
	files["doubling/l16/cm.yaml"] = cm("default", "a")
	for i := range 16 {
		files["doubling/l"+itoa(i)+"/kustomization.yaml"] = "resources: [a, b]\n"
		for _, side := range []string{"a", "b"} {
			files["doubling/l"+itoa(i)+"/"+side+"/kustomization.yaml"] = "namePrefix: " + side + "-\nresources: [../../l" + itoa(i+1) + "]\n"
		}
	}
	var many strings.Builder
	for i := range 1200 {
		many.WriteString(cm("default", "c"+itoa(i)) + "---\n")
	}
	files["many/many.yaml"] = many.String()
	var kss strings.Builder
	for _, d := range []string{"bomb", "doubling", "many", "big0", "big1", "big2", "big3", "huge"} {
		kss.WriteString(ks(d, "./"+d) + "---\n")
	}
	for i := range 4 {
		files["big"+itoa(i)+"/cm.yaml"] = cm("default", "big", "pad: "+strings.Repeat("x", 7<<20))
	}
	files["clusters/dev/all.yaml"] = kss.String()
	dir := tree(t, merge(bootstrap("dev"), files))
	sparse(t, dir+"/huge/huge.yaml", 20<<20)
	g, err := Render(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range g.Cluster("dev").Kustomizations {
		msg := "ok"
		if k.Err != nil {
			msg = k.Err.Message
			if len(msg) > 120 {
				msg = msg[:120]
			}
		}
		t.Logf("%s: %d objects, %s", k.Ref, len(k.Objects), msg)
	}
}
