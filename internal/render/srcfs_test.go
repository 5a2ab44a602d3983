package render

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
)

// TestSrcFSAnswersAsOnDisk: kustomize reads a Source through srcFS where
// kustomize-controller reads a folder on disk; every call kustomize makes must answer the
// same, error texts included, as kyaml's on-disk filesystem over the same tree.
func TestSrcFSAnswersAsOnDisk(t *testing.T) {
	dir := tree(t, map[string]string{
		"apps/kustomization.yaml": "resources: [a.yaml]\n",
		"apps/a.yaml":             "a: 1\n",
		"apps/sub/b.yml":          "b: 2\n",
		"apps/.hidden.yaml":       "h: 3\n",
		"apps/notes.txt":          "n",
		"base/c.yaml":             "c: 4\n",
		"odd, name é/d.yaml":      "d: 5\n", // a folder kyaml's in-memory filesystem refuses
	})
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := fsys.ReadSource(dir, graph.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	disk := filesys.MakeFsOnDisk()
	at := func(p string) string { return filepath.Join(dir, filepath.FromSlash(p)) }
	compareWithDisk(t, fsys.SrcFS{Snap: src.Snapshot}, disk, at)

	// Writes, as the generated kustomization file and fetched remote files are written: the
	// snapshot is not changed, and the written files answer as files written to disk.
	wfs := fsys.SrcFS{Snap: src.Snapshot, Written: &fsys.Written{}}
	for _, p := range []string{"apps/kustomization.yaml", "apps/0-first.yaml", "odd, name é/kustomization.yaml",
		"missing/x.yaml", "apps/sub", ""} {
		werr, derr := wfs.WriteFile(at(p), []byte("w: "+p+"\n")), disk.WriteFile(at(p), []byte("w: "+p+"\n"))
		if fmt.Sprint(werr) != fmt.Sprint(derr) {
			t.Errorf("WriteFile(%q): %v, on disk %v", p, werr, derr)
		}
	}
	if data, _ := (fsys.SrcFS{Snap: src.Snapshot}).ReadFile(at("apps/kustomization.yaml")); string(data) != "resources: [a.yaml]\n" {
		t.Errorf("the snapshot changed: %q", data)
	}
	compareWithDisk(t, wfs, disk, at)
}

// compareWithDisk makes every read kustomize does through mem and disk and reports where
// they differ.
func compareWithDisk(t *testing.T, mem, disk filesys.FileSystem, at func(string) string) {
	t.Helper()
	errText := func(err error) string {
		if err == nil {
			return ""
		}
		return err.Error()
	}
	paths := []string{"", "apps", "apps/a.yaml", "apps/sub", "apps/missing.yaml", "missing/x.yaml",
		"apps/a.yaml/x", "empty", "apps/notes.txt", "apps/.hidden.yaml", "apps/kustomization.yaml",
		"apps/0-first.yaml", "odd, name é", "odd, name é/kustomization.yaml"}
	for _, p := range paths {
		for name, call := range map[string]func(filesys.FileSystem) string{
			"Exists": func(fs filesys.FileSystem) string { return fmt.Sprint(fs.Exists(at(p))) },
			"IsDir":  func(fs filesys.FileSystem) string { return fmt.Sprint(fs.IsDir(at(p))) },
			"ReadFile": func(fs filesys.FileSystem) string {
				data, err := fs.ReadFile(at(p))
				return string(data) + "|" + errText(err)
			},
			"ReadDir": func(fs filesys.FileSystem) string {
				names, err := fs.ReadDir(at(p))
				return fmt.Sprint(names) + "|" + errText(err)
			},
			"Open": func(fs filesys.FileSystem) string {
				f, err := fs.Open(at(p))
				if err != nil {
					return "|" + errText(err)
				}
				defer f.Close()
				data, rerr := io.ReadAll(f)
				st, _ := f.Stat()
				return fmt.Sprintf("%s|%s|%s %v", data, errText(rerr), st.Name(), st.IsDir())
			},
			"CleanedAbs": func(fs filesys.FileSystem) string {
				d, f, err := fs.CleanedAbs(at(p))
				return string(d) + "|" + f + "|" + errText(err)
			},
		} {
			if want, got := call(disk), call(mem); got != want {
				t.Errorf("%s(%q): got %q, on disk %q", name, p, got, want)
			}
		}
	}
	for _, pattern := range []string{"apps/*.yaml", "apps/*", "*/*.y*ml", "apps/.h*", "missing/*", "apps/[ab].yaml", "odd*/*"} {
		want, werr := disk.Glob(at(pattern))
		got, gerr := mem.Glob(at(pattern))
		if d := cmp.Diff(want, got); d != "" || errText(werr) != errText(gerr) {
			t.Errorf("Glob(%q) (-disk +src):\n%s %v %v", pattern, d, werr, gerr)
		}
	}
	walk := func(fs filesys.FileSystem, root string) []string {
		var out []string
		err := fs.Walk(root, func(p string, info os.FileInfo, err error) error {
			if err != nil {
				out = append(out, "error "+err.Error())
				return nil
			}
			out = append(out, fmt.Sprintf("%s %v %d", p, info.IsDir(), map[bool]int64{true: 0, false: info.Size()}[info.IsDir()]))
			if info.Name() == "sub" {
				return filepath.SkipDir
			}
			return nil
		})
		return append(out, errText(err))
	}
	for _, root := range []string{"", "apps", "apps/a.yaml", "missing"} {
		if d := cmp.Diff(walk(disk, at(root)), walk(mem, at(root))); d != "" {
			t.Errorf("Walk(%q) (-disk +src):\n%s", root, d)
		}
	}
}

// TestFolderNamesGitAccepts: a Kustomization's folder may have any name git and the disk
// accept; kyaml's in-memory filesystem, which tiergate no longer writes to, refuses all but
// [a-zA-Z0-9-_.:] and "..".
func TestFolderNamesGitAccepts(t *testing.T) {
	for _, folder := range []string{"mon,itoring", "my apps", "données", "apps+extra", "v1..2", "team@x"} {
		for _, withFile := range []bool{false, true} {
			files := map[string]string{
				"clusters/dev/apps.yaml": ks("apps", "./"+folder, "targetNamespace: web"),
				folder + "/sub/cm.yaml":  cm("", "a"),
			}
			if withFile {
				files[folder+"/kustomization.yaml"] = "resources: [sub/cm.yaml]\n"
			}
			c := render(t, tree(t, merge(bootstrap("dev"), files)), nil).Cluster("dev")
			apps := c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}]
			var got []string
			for _, o := range apps.Objects {
				got = append(got, o.ID.String()+" "+o.File)
			}
			want := []string{"ConfigMap/web/a " + folder + "/sub/cm.yaml"}
			if apps.Err != nil || !cmp.Equal(want, got) {
				t.Errorf("%q (kustomization.yaml %v): objects %v, error %v; want %v", folder, withFile, got, apps.Err, want)
			}
		}
	}
}
