package forge

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDiffLines(t *testing.T) {
	diff := `diff --git a/old.yaml b/new.yaml
similarity index 90%
rename from old.yaml
rename to new.yaml
index 1111111..2222222 100644
--- a/old.yaml
+++ b/new.yaml
@@ -1,2 +1,2 @@
 a: 1
-b: 2
+b: 3
diff --git a/gone.yaml b/gone.yaml
deleted file mode 100644
--- a/gone.yaml
+++ /dev/null
@@ -1 +0,0 @@
-x
diff --git a/logo.png b/logo.png
Binary files a/logo.png and b/logo.png differ
diff --git "a/sp ace.yaml" "b/sp ace.yaml"
--- "a/sp ace.yaml"
+++ "b/sp ace.yaml"
@@ -10,0 +11 @@ kind: x
+--- not a header
diff --git a/added.yaml b/added.yaml
new file mode 100644
--- /dev/null
+++ b/added.yaml
@@ -0,0 +1,2 @@
+a
+
`
	got, err := diffLines(diff)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[int]bool{
		"new.yaml":    {1: true, 2: true},
		"sp ace.yaml": {11: true},
		"added.yaml":  {1: true, 2: true},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if _, err := diffLines("+++ b/a\n@@ -1,x +1 @@\n"); err == nil {
		t.Error("bad hunk header: no error")
	}
}
