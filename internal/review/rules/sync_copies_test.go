package rules

import "testing"

// TestSyncCopies: production's FluxInstance syncs clusters/staging, whose gotk-sync.yaml
// also holds the GitRepository and Kustomization flux-system/flux-system that
// flux-operator creates from the sync: two duplicate-owner errors at head, on the two
// objects; staging (a bootstrap root applying its own gotk-sync.yaml) and production at
// base (its folder holds no copy) have none.
func TestSyncCopies(t *testing.T) {
	var got []Finding
	for _, p := range scenarioPairs(t, "flux-instance-other-cluster-path") {
		if f := syncCopies(p.Base); len(f) != 0 {
			t.Errorf("base %s: %s", p.Base.Name, dump(f))
		}
		got = append(got, syncCopies(p.Head)...)
	}
	want := []struct {
		object, file string
		line         int
	}{
		{"GitRepository.source.toolkit.fluxcd.io/flux-system/flux-system", "clusters/staging/flux-system/gotk-sync.yaml", 2},
		{"Kustomization.kustomize.toolkit.fluxcd.io/flux-system/flux-system", "clusters/staging/flux-system/gotk-sync.yaml", 13},
	}
	if len(got) != len(want) {
		t.Fatalf("findings %s, want %d", dump(got), len(want))
	}
	for i, w := range want {
		f := got[i]
		if f.Rule != "duplicate-owner" || f.Severity != Error || f.Cluster != "production" || f.Object.String() != w.object || f.File != w.file || f.Line != w.line || f.Kustomization != "flux-system/flux-system" {
			t.Errorf("finding %d: %+v, want %s at %s:%d", i, f, w.object, w.file, w.line)
		}
	}
	msg := "Kustomization.kustomize.toolkit.fluxcd.io/flux-system/flux-system is created by flux-operator from the sync of FluxInstance clusters/production/flux-system/flux-instance.yaml:2 " +
		"and also applied by flux-system/flux-system from clusters/staging/flux-system/gotk-sync.yaml:13: flux-operator and kustomize-controller each apply their own spec with server-side apply " +
		"and take the object from the other on every reconcile (flux-operator strips the kustomize.toolkit.fluxcd.io labels, kustomize-controller sets them again), and flux-system/flux-system's garbage collection may delete it."
	if got[1].Message != msg {
		t.Errorf("message:\n%s\nwant:\n%s", got[1].Message, msg)
	}
	fix := "Delete clusters/staging/flux-system/gotk-sync.yaml:13: the FluxInstance owns Kustomization.kustomize.toolkit.fluxcd.io/flux-system/flux-system (flux-operator's migration guide removes the bootstrap flux-system folder once the FluxInstance syncs)."
	if got[1].Suggestion != fix {
		t.Errorf("suggestion:\n%s\nwant:\n%s", got[1].Suggestion, fix)
	}
}
