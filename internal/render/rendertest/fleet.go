package rendertest

// The dev-bootstrap fixtures the secret tests of render and review share: a cluster dev
// bootstrapped at clusters/dev (flux bootstrap's gotk-sync.yaml), one Kustomization
// holding Secrets and one applying ./apps that substitutes from one of them.

// DevRoot is clusters/dev/flux-system/gotk-sync.yaml: the GitRepository flux-system and
// the root Kustomization flux-system at ./clusters/dev.
const DevRoot = `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 1m, ref: {branch: main}, url: https://example.com/fleet.git}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 10m, path: ./clusters/dev, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}
`

// DevKustomization is a Kustomization flux-system/name applying ./name from the
// GitRepository flux-system: four lines.
func DevKustomization(name string) string {
	return `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: ` + name + `, namespace: flux-system}
spec: {interval: 10m, path: ./` + name + `, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}
`
}

// DevTiers is clusters/dev/tiers.yaml: DevKustomization(from), then the Kustomization
// flux-system/apps applying ./apps after it (dependsOn) with postBuild.substituteFrom the
// Secret secret; apps's document starts at line 6.
func DevTiers(from, secret string) string {
	return DevKustomization(from) + `---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: apps, namespace: flux-system}
spec:
  interval: 10m
  path: ./apps
  prune: true
  dependsOn: [{name: ` + from + `}]
  sourceRef: {kind: GitRepository, name: flux-system}
  postBuild: {substituteFrom: [{kind: Secret, name: ` + secret + `}]}
`
}

// DevFleet returns files with DevRoot at clusters/dev/flux-system/gotk-sync.yaml and
// DevTiers(from, secret) at clusters/dev/tiers.yaml added (files is changed and returned).
func DevFleet(from, secret string, files map[string]string) map[string]string {
	files["clusters/dev/flux-system/gotk-sync.yaml"] = DevRoot
	files["clusters/dev/tiers.yaml"] = DevTiers(from, secret)
	return files
}
