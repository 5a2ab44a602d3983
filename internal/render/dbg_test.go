package render

import (
	"context"
	"fmt"
	"os"
	"testing"
)

func TestDebugRender(t *testing.T) {
	dir := os.Getenv("DBG_DIR")
	if dir == "" {
		t.Skip()
	}
	g, err := Render(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range g.Clusters {
		fmt.Printf("cluster %s root=%s dir=%s ks=%d objs=%d\n", c.Name, c.Root, c.RootDir, len(c.Kustomizations), c.ObjectCount())
		for _, ref := range c.Order {
			ks := c.Kustomizations[ref]
			fmt.Printf("  ks %s path=%s prune=%v deps=%v err=%v skipped=%q remote=%v vars=%v\n", ref, ks.Spec.Path, ks.Spec.Prune, ks.Spec.DependsOn, ks.Err, ks.Skipped, ks.Remote, ks.Vars)
			if os.Getenv("DBG_OBJ") != "" {
				for _, o := range ks.Objects {
					fmt.Printf("    %s %s:%d undef=%v lit=%v\n", o.ID, o.File, o.Line, o.Undefined, o.Literal)
				}
			}
		}
	}
}
