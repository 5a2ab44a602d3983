package fleet

import (
	"fmt"
	"strings"
)

// tree is a commit's content: slash-separated path → file content.
type tree map[string]string

// files renders the fleet as it is at the base commit (shape "") or at the head of shape.
//
// Layout, per cluster c and tier t:
//
//	clusters/c/flux-system/{gotk-sync.yaml,kustomization.yaml}  GitRepository + root Kustomization (path ./clusters/c)
//	clusters/c/tiers/t.yaml                                     the Flux Kustomization of t (no kustomization.yaml: generator)
//	infra/c/cluster-config/cluster-vars.yaml                    ConfigMap flux-system/cluster-vars (no kustomization.yaml)
//	apps/t/base/ + apps/t/overlays/c/                           an overlay app: the base includes components/common
//	apps/t/*.yaml                                               a plain app (every fourth), no kustomization.yaml
//	components/common/kustomization.yaml                        a kustomize Component adding one annotation
func (p *plan) files(shape Shape) tree {
	t := tree{}
	edit := p.edits[shape]
	policy := "v1"
	if shape == SharedBase {
		policy = "v2"
	}
	t["components/common/kustomization.yaml"] = fmt.Sprintf(componentYAML, policy)
	if p.spec.HelmReleases > 0 {
		p.chartFiles(t, shape == ChartBump)
	}
	for _, c := range p.clusters {
		t["clusters/"+c+"/flux-system/gotk-sync.yaml"] = fmt.Sprintf(gotkSyncYAML, c)
		t["clusters/"+c+"/flux-system/kustomization.yaml"] = rootKustomizationYAML
		t["infra/"+c+"/cluster-config/cluster-vars.yaml"] = fmt.Sprintf(clusterVarsYAML, c, p.regions[c])
		for _, tr := range p.tiers {
			name := tr.name
			if shape == RenameTier && name == edit.App {
				name = edit.To
			}
			t["clusters/"+c+"/tiers/"+name+".yaml"] = p.fluxKustomization(c, tr, name, shape)
		}
	}
	for _, tr := range p.tiers[1:] {
		objs := p.objects(tr, shape)
		if tr.plain {
			for _, o := range objs {
				t["apps/"+tr.name+"/"+o.file] = o.body
			}
			continue
		}
		resources := make([]string, 0, len(objs))
		for _, o := range objs {
			t["apps/"+tr.name+"/base/"+o.file] = o.body
			resources = append(resources, o.file)
		}
		t["apps/"+tr.name+"/base/kustomization.yaml"] = baseKustomization(resources)
		for _, c := range p.clusters {
			dir := "apps/" + tr.name + "/overlays/" + c + "/"
			t[dir+"kustomization.yaml"] = overlayKustomizationYAML
			t[dir+"config-patch.yaml"] = fmt.Sprintf(configPatchYAML, tr.name, c)
		}
	}
	return t
}

// fluxKustomization is tier tr's Kustomization object in cluster c, named name.
func (p *plan) fluxKustomization(c string, tr *tier, name string, shape Shape) string {
	var b strings.Builder
	path := "./apps/" + tr.name + "/overlays/" + c
	switch {
	case tr.name == configTier:
		path = "./infra/" + c + "/cluster-config"
	case tr.plain:
		path = "./apps/" + tr.name
	}
	fmt.Fprintf(&b, fluxKustomizationYAML, name, path)
	if len(tr.dependsOn) > 0 {
		b.WriteString("  dependsOn:\n")
		for _, d := range tr.dependsOn {
			if shape == RenameTier && d == p.edits[RenameTier].App {
				d = p.edits[RenameTier].To
			}
			fmt.Fprintf(&b, "    - name: %s\n", d)
		}
	}
	if tr.name != configTier {
		fmt.Fprintf(&b, postBuildYAML, c, tr.name)
	}
	return b.String()
}

// manifest is one object's file in an app.
type manifest struct{ file, body string }

// objects lists the manifests of app tier tr at the given shape.
func (p *plan) objects(tr *tier, shape Shape) []manifest {
	app := tr.name
	edited := shape == OneFile && p.edits[OneFile].App == app
	out := []manifest{
		{"namespace.yaml", fmt.Sprintf(namespaceYAML, app)},
		{"configmap-config.yaml", fmt.Sprintf(configYAML, app)},
	}
	move := p.edits[MoveObject]
	if !(shape == MoveObject && move.App == app) {
		out = append(out, manifest{"clusterrole-reader.yaml", fmt.Sprintf(clusterRoleYAML, app)})
	}
	for i := 3; i < p.spec.Objects; i++ {
		name := fmt.Sprintf("%s-%d", app, i)
		switch (i - 3) % 3 {
		case 0:
			image := tr.image
			if edited && i == 3 {
				image += "-patched" // the one file OneFile edits
			}
			out = append(out, manifest{"deployment-" + name + ".yaml", fmt.Sprintf(deploymentYAML, name, app, image)})
		case 1:
			out = append(out, manifest{"service-" + name + ".yaml", fmt.Sprintf(serviceYAML, name, app, fmt.Sprintf("%s-%d", app, i-1))})
		default:
			out = append(out, manifest{"configmap-" + name + ".yaml", fmt.Sprintf(configMapYAML, name, app, i)})
		}
	}
	if p.hasRelease(tr) {
		out = append(out, manifest{"helmrelease.yaml", fmt.Sprintf(helmReleaseYAML, app, tr.image)})
	}
	if shape == MoveObject && move.To == app {
		out = append(out, manifest{"clusterrole-" + move.App + "-reader.yaml", fmt.Sprintf(clusterRoleYAML, move.App)})
	}
	return out
}

func baseKustomization(resources []string) string {
	var b strings.Builder
	b.WriteString("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n")
	for _, r := range resources {
		fmt.Fprintf(&b, "  - %s\n", r)
	}
	b.WriteString("components:\n  - ../../../components/common\n")
	return b.String()
}

const gotkSyncYAML = `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 1m0s
  ref:
    branch: main
  url: https://git.example.invalid/fleet.git
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 10m0s
  path: ./clusters/%s
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
`

const rootKustomizationYAML = `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - gotk-sync.yaml
`

const clusterVarsYAML = `apiVersion: v1
kind: ConfigMap
metadata:
  name: cluster-vars
  namespace: flux-system
data:
  cluster_name: %s
  region: %s
`

const fluxKustomizationYAML = `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: %s
  namespace: flux-system
spec:
  interval: 10m
  path: %s
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
`

const postBuildYAML = `  postBuild:
    substitute:
      cluster: %s
      app: %s
    substituteFrom:
      - kind: ConfigMap
        name: cluster-vars
`

const componentYAML = `apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
commonAnnotations:
  fleet.example/policy: %s
`

const overlayKustomizationYAML = `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - ../../base
patches:
  - path: config-patch.yaml
`

const configPatchYAML = `apiVersion: v1
kind: ConfigMap
metadata:
  name: %[1]s-config
  namespace: %[1]s
data:
  overlay: %[2]s
`

const namespaceYAML = `apiVersion: v1
kind: Namespace
metadata:
  name: %s
  labels:
    fleet.example/cluster: ${cluster}
`

const configYAML = `apiVersion: v1
kind: ConfigMap
metadata:
  name: %[1]s-config
  namespace: %[1]s
data:
  app: ${app}
  cluster: ${cluster}
  region: ${region}
  log_level: ${log_level:=info}
`

const clusterRoleYAML = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: %s-reader
rules:
  - apiGroups: [""]
    resources: [configmaps]
    verbs: [get, list, watch]
`

const deploymentYAML = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[1]s
  namespace: %[2]s
spec:
  replicas: 2
  selector:
    matchLabels:
      app.kubernetes.io/name: %[1]s
  template:
    metadata:
      labels:
        app.kubernetes.io/name: %[1]s
    spec:
      containers:
        - name: app
          image: registry.example.invalid/%[2]s:%[3]s
          envFrom:
            - configMapRef:
                name: %[2]s-config
          env:
            - name: CLUSTER
              value: ${cluster}
`

const serviceYAML = `apiVersion: v1
kind: Service
metadata:
  name: %[1]s
  namespace: %[2]s
spec:
  selector:
    app.kubernetes.io/name: %[3]s
  ports:
    - port: 80
      targetPort: 8080
`

const configMapYAML = `apiVersion: v1
kind: ConfigMap
metadata:
  name: %[1]s
  namespace: %[2]s
data:
  index: "%[3]d"
  cluster: ${cluster}
`
