package graph

// RunningRoot is what a cluster's root does at the merge when this commit moves its path:
// the root object in the cluster still has the spec it had at the prior commit
// (render.Options.Prior), so kustomize-controller reconciles this commit's revision from
// the prior spec.path (internal/controller/kustomization_controller.go reconcile: the
// build of SecureJoin(artifact, spec.path) of the object as it is in the cluster), and the
// root only takes the new path once that build applies the root's edited manifest.
type RunningRoot struct {
	// Path is the prior root's spec.path as written; Dir is its clean repo-relative folder.
	Path, Dir string
	// Missing says this commit has no folder Dir ("kustomization path not found").
	Missing bool
	// Err is why the build of Dir at this commit fails; "" when it builds.
	Err string
	// Objects are the objects that build emits, sorted by their String.
	Objects []ObjectID
	// Holds says the build emits the root's own manifest (the Kustomization of the root's
	// Ref for a bootstrap root, the FluxInstance for flux-operator's), at File:Line, whose
	// path is NextDir (clean, repo-relative).
	Holds   bool
	File    string
	Line    int
	NextDir string
}
