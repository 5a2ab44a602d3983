#!/bin/bash
# run.sh rebuilds the minimal example of every rule in docs/rules.md (base, head, and the
# fix applied as fixbase/fixed) under OUTDIR, and runs bot review on both pairs:
#   tools/rule-examples/run.sh [OUTDIR]     (default /tmp/tiergate-rule-examples)
# Each line: the example, then the new findings at head, then those after the fix. Needs jq.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
R=${1:-/tmp/tiergate-rule-examples}
CDI=$root/testdata/scenarios/runtime-crd-deadlock/head
mkdir -p "$R"
(cd "$root" && go build -o "$R/bot" ./cmd/bot)
boot() { # $1 = tree dir
  mkdir -p $1/clusters/dev/flux-system
  cat > $1/clusters/dev/flux-system/gotk-sync.yaml <<'Y'
apiVersion: source.toolkit.fluxcd.io/v1
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
  path: ./clusters/dev
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
Y
  printf 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - gotk-sync.yaml\n' > $1/clusters/dev/flux-system/kustomization.yaml
}
# ks NAME PATH [extra spec lines...] -> one Flux Kustomization document on stdout
ks() {
  local name=$1 path=$2; shift 2
  printf -- '---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: %s\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: %s\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n' "$name" "$path"
  for l in "$@"; do printf '  %s\n' "$l"; done
}
cm() { # NAMESPACE NAME [data line]
  printf -- '---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n' "$2"
  [ -n "$1" ] && printf '  namespace: %s\n' "$1"
  printf 'data:\n  %s\n' "${3:-key: value}"
}
ns() { printf -- '---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n' "$1"; }
new() { rm -rf $R/$1; mkdir -p $R/$1; boot $R/$1/base; boot $R/$1/head; }
T=clusters/dev/tiers.yaml

# tier-move + prune-transient: ConfigMap default/settings moves from apps to config; no dependsOn either way.
new move
for s in base head; do { ks apps ./apps; ks config ./config; } > $R/move/$s/$T; done
mkdir -p $R/move/base/apps $R/move/head/apps $R/move/head/config
cm default settings > $R/move/base/apps/settings.yaml
cm default other > $R/move/base/apps/other.yaml; cp $R/move/base/apps/other.yaml $R/move/head/apps/
cm default settings > $R/move/head/config/settings.yaml
mkdir -p $R/move/base/config; cm default placeholder > $R/move/base/config/placeholder.yaml; cp $R/move/base/config/placeholder.yaml $R/move/head/config/

# destructive-prune: Namespace web removed from git under prune: true.
new destructive
for s in base head; do ks infra ./infra > $R/destructive/$s/$T; mkdir -p $R/destructive/$s/infra; done
{ ns web; } > $R/destructive/base/infra/namespaces.yaml
{ ns tools; } > $R/destructive/base/infra/tools.yaml; cp $R/destructive/base/infra/tools.yaml $R/destructive/head/infra/

# missing-depends-on: apps puts a ConfigMap in namespace web, which infra creates; no dependsOn.
new missing
for s in base head; do { ks infra ./infra; ks apps ./apps; } > $R/missing/$s/$T; mkdir -p $R/missing/$s/infra $R/missing/$s/apps; ns web > $R/missing/$s/infra/web.yaml; done
cm default placeholder > $R/missing/base/apps/settings.yaml
cm web settings > $R/missing/head/apps/settings.yaml

# runtime-crd-same-pass: the CDI resource and a StorageProfile in one Kustomization.
new samepass
for s in base head; do
  { ks platform ./platform 'wait: true'; ks platform-config ./platform-config 'dependsOn:' '  - name: platform'; } > $R/samepass/$s/$T
  mkdir -p $R/samepass/$s/platform $R/samepass/$s/platform-config
  cp $CDI/platform/cdi.yaml $R/samepass/$s/platform/
  cp $CDI/platform-config/cdi-cr.yaml $R/samepass/$s/platform-config/
done
cp $CDI/platform-config/storageprofile.yaml $R/samepass/head/platform-config/

# missing-wait: storage-profiles dependsOn platform-config (the CDI resource) which has no wait.
new wait
for s in base head; do
  { ks platform ./platform 'wait: true'; ks platform-config ./platform-config 'dependsOn:' '  - name: platform'; } > $R/wait/$s/$T
  mkdir -p $R/wait/$s/platform $R/wait/$s/platform-config
  cp $CDI/platform/cdi.yaml $R/wait/$s/platform/
  cp $CDI/platform-config/cdi-cr.yaml $R/wait/$s/platform-config/
done
ks storage-profiles ./storage-profiles 'dependsOn:' '  - name: platform-config' >> $R/wait/head/$T
mkdir -p $R/wait/head/storage-profiles
cp $CDI/platform-config/storageprofile.yaml $R/wait/head/storage-profiles/

# depends-on-not-found
new notfound
for s in base head; do mkdir -p $R/notfound/$s/apps; cm default settings > $R/notfound/$s/apps/settings.yaml; done
ks apps ./apps > $R/notfound/base/$T
ks apps ./apps 'dependsOn:' '  - name: infra' > $R/notfound/head/$T

# depends-on-cycle
new cycle
for s in base head; do mkdir -p $R/cycle/$s/a $R/cycle/$s/b; cm default a > $R/cycle/$s/a/a.yaml; cm default b > $R/cycle/$s/b/b.yaml; done
{ ks a ./a; ks b ./b 'dependsOn:' '  - name: a'; } > $R/cycle/base/$T
{ ks a ./a 'dependsOn:' '  - name: b'; ks b ./b 'dependsOn:' '  - name: a'; } > $R/cycle/head/$T

# duplicate-owner
new duplicate
for s in base head; do { ks apps ./apps; ks tools ./tools; } > $R/duplicate/$s/$T; mkdir -p $R/duplicate/$s/apps $R/duplicate/$s/tools; cm default settings > $R/duplicate/$s/apps/settings.yaml; cm default tools > $R/duplicate/$s/tools/tools.yaml; done
cm default settings > $R/duplicate/head/tools/settings.yaml

# render-error
new rendererr
for s in base head; do ks apps ./apps > $R/rendererr/$s/$T; mkdir -p $R/rendererr/$s/apps; cm default settings > $R/rendererr/$s/apps/settings.yaml; done
printf 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - settings.yaml\n' > $R/rendererr/base/apps/kustomization.yaml
printf 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - settings.yaml\n  - policies.yaml\n' > $R/rendererr/head/apps/kustomization.yaml

# undefined-variable
new undefined
for s in base head; do ks apps ./apps 'postBuild:' '  substitute:' '    cluster_name: dev' > $R/undefined/$s/$T; mkdir -p $R/undefined/$s/apps; done
cm default settings 'cluster: ${cluster_name}' > $R/undefined/base/apps/settings.yaml
printf -- '---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: default\ndata:\n  cluster: ${cluster_name}\n  region: ${cluster_region}\n' > $R/undefined/head/apps/settings.yaml

# unsubstituted-variable
new unsubst
for s in base head; do ks apps ./apps > $R/unsubst/$s/$T; mkdir -p $R/unsubst/$s/apps; done
cm default settings 'url: https://example.org' > $R/unsubst/base/apps/settings.yaml
cm default settings 'url: https://${domain}' > $R/unsubst/head/apps/settings.yaml

# namespace-not-set
new nsnotset
for s in base head; do ks apps ./apps > $R/nsnotset/$s/$T; mkdir -p $R/nsnotset/$s/apps; done
cm default settings > $R/nsnotset/base/apps/settings.yaml
cm "" settings > $R/nsnotset/head/apps/settings.yaml

# health-check-not-found: apps health-checks Deployment web/web, which infra renames at head.
dep() { printf -- '---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: %s\n  namespace: web\nspec:\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n        - name: web\n          image: nginx:1.27\n' "$1"; }
new healthcheck
for s in base head; do { ks infra ./infra; ks apps ./apps 'healthChecks:' '  - apiVersion: apps/v1' '    kind: Deployment' '    name: web' '    namespace: web'; } > $R/healthcheck/$s/$T; mkdir -p $R/healthcheck/$s/infra $R/healthcheck/$s/apps; cm web settings > $R/healthcheck/$s/apps/settings.yaml; done
{ ns web; dep web; } > $R/healthcheck/base/infra/web.yaml
{ ns web; dep web-server; } > $R/healthcheck/head/infra/web.yaml

# missing-crd: apps gets an ExternalSecret; nothing in the cluster installs external-secrets.
new missingcrd
for s in base head; do ks apps ./apps > $R/missingcrd/$s/$T; mkdir -p $R/missingcrd/$s/apps; cm default settings > $R/missingcrd/$s/apps/settings.yaml; done
printf 'apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata:\n  name: db\n  namespace: default\nspec:\n  secretStoreRef: {kind: ClusterSecretStore, name: vault}\n  dataFrom:\n    - extract: {key: db}\n' > $R/missingcrd/head/apps/db.yaml

# missing-crd (unserved Flux version): the apps Kustomization's apiVersion becomes kustomize.toolkit.fluxcd.io/g.
new fluxversion
for s in base head; do ks apps ./apps > $R/fluxversion/$s/$T; mkdir -p $R/fluxversion/$s/apps; cm default settings > $R/fluxversion/$s/apps/settings.yaml; done
sed -i 's#^apiVersion: kustomize.toolkit.fluxcd.io/v1$#apiVersion: kustomize.toolkit.fluxcd.io/g#' $R/fluxversion/head/$T

# target-namespace-renames-namespace: apps gets targetNamespace web; its folder holds Namespace podinfo.
new renamens
ks apps ./apps > $R/renamens/base/$T; ks apps ./apps 'targetNamespace: web' > $R/renamens/head/$T
for s in base head; do mkdir -p $R/renamens/$s/apps; ns podinfo > $R/renamens/$s/apps/namespace.yaml; done
cm podinfo settings > $R/renamens/base/apps/settings.yaml; cm "" settings > $R/renamens/head/apps/settings.yaml

# source-not-found: apps' sourceRef names GitRepository apps-repo, which nothing creates.
new sourcenotfound
for s in base head; do ks apps ./apps > $R/sourcenotfound/$s/$T; mkdir -p $R/sourcenotfound/$s/apps; cm default settings > $R/sourcenotfound/$s/apps/settings.yaml; done
sed -i 's/^    name: flux-system$/    name: apps-repo/' $R/sourcenotfound/head/$T

# substitution-type-change: a quoted "${PORT}" in ConfigMap data becomes the integer 8080.
new typechange
for s in base head; do ks apps ./apps 'postBuild:' '  substitute:' '    PORT: "8080"' > $R/typechange/$s/$T; mkdir -p $R/typechange/$s/apps; done
cm default settings 'url: http://web:${PORT}' > $R/typechange/base/apps/settings.yaml
cm default settings 'port: "${PORT}"' > $R/typechange/head/apps/settings.yaml

# root-path-changed: cluster prod's FluxInstance points its sync.path at clusters/dev, dev's root folder.
new rootpath
inst() { printf 'apiVersion: fluxcd.controlplane.io/v1\nkind: FluxInstance\nmetadata:\n  name: flux\n  namespace: flux-system\nspec:\n  sync:\n    kind: GitRepository\n    url: https://git.example.invalid/fleet.git\n    ref: refs/heads/main\n    path: %s\n' "$1"; }
for s in base head; do mkdir -p $R/rootpath/$s/clusters/prod/flux-system; ks apps ./apps > $R/rootpath/$s/$T; mkdir -p $R/rootpath/$s/apps; cm default settings > $R/rootpath/$s/apps/settings.yaml; done
inst clusters/prod > $R/rootpath/base/clusters/prod/flux-system/flux-instance.yaml; inst clusters/dev > $R/rootpath/head/clusters/prod/flux-system/flux-instance.yaml
# flux-component-removed: cluster prod's FluxInstance drops helm-controller; its apps still have HelmRelease web.
new compremoved
comps() { printf 'apiVersion: fluxcd.controlplane.io/v1\nkind: FluxInstance\nmetadata:\n  name: flux\n  namespace: flux-system\nspec:\n  components:\n'; for c in "$@"; do printf '    - %s\n' "$c"; done
  printf '  sync:\n    kind: GitRepository\n    url: https://git.example.invalid/fleet.git\n    ref: refs/heads/main\n    path: clusters/prod\n'; }
for s in base head; do mkdir -p $R/compremoved/$s/clusters/prod/flux-system $R/compremoved/$s/apps/prod; sed 's|\./apps$|./apps/prod|' <(ks apps ./apps) > $R/compremoved/$s/clusters/prod/apps.yaml
  printf 'apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: web\n  namespace: default\nspec:\n  interval: 10m\n  chart:\n    spec:\n      chart: podinfo\n      sourceRef: {kind: HelmRepository, name: podinfo}\n' > $R/compremoved/$s/apps/prod/web.yaml; done
comps source-controller kustomize-controller helm-controller notification-controller > $R/compremoved/base/clusters/prod/flux-system/flux-instance.yaml
comps source-controller kustomize-controller notification-controller > $R/compremoved/head/clusters/prod/flux-system/flux-instance.yaml
# substitute-from-not-found: ConfigMap flux-system/vars, which apps substitutes from, is renamed vars2.
new substfrom
for s in base head; do { ks config ./config; ks apps ./apps 'postBuild:' '  substituteFrom:' '    - kind: ConfigMap' '      name: vars'; } > $R/substfrom/$s/$T; mkdir -p $R/substfrom/$s/apps $R/substfrom/$s/config; cm default settings 'name: ${name}' > $R/substfrom/$s/apps/settings.yaml; done
cm flux-system vars 'name: web' > $R/substfrom/base/config/vars.yaml; cm flux-system vars2 'name: web' > $R/substfrom/head/config/vars.yaml
# root-path-changed (renamed folder): clusters/dev becomes clusters/stage with its root's path; clusters/dev is gone.
new rootrename
for s in base head; do ks apps ./apps > $R/rootrename/$s/$T; mkdir -p $R/rootrename/$s/apps; cm default settings > $R/rootrename/$s/apps/settings.yaml; done
mv $R/rootrename/head/clusters/dev $R/rootrename/head/clusters/stage; sed -i 's#path: ./clusters/dev#path: ./clusters/stage#' $R/rootrename/head/clusters/stage/flux-system/gotk-sync.yaml
# patch-target-lost: the production overlay patches Deployment web, which head renames to web-v2.
new patchlost
for s in base head; do
  ks apps ./apps/prod > $R/patchlost/$s/$T; mkdir -p $R/patchlost/$s/apps/base $R/patchlost/$s/apps/prod
  printf 'resources:\n  - deploy.yaml\n' > $R/patchlost/$s/apps/base/kustomization.yaml
  printf 'resources:\n  - ../base\npatches:\n  - target:\n      kind: Deployment\n      name: web\n    patch: |\n      - op: replace\n        path: /spec/replicas\n        value: 3\n' > $R/patchlost/$s/apps/prod/kustomization.yaml
done
deploy() { printf 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: %s\n  namespace: default\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: nginx:1.27}]}\n' "$1"; }
deploy web > $R/patchlost/base/apps/base/deploy.yaml; deploy web-v2 > $R/patchlost/head/apps/base/deploy.yaml

fix() { rm -rf $R/$1/fixed $R/$1/fixbase; cp -r $R/$1/head $R/$1/fixed; cp -r $R/$1/base $R/$1/fixbase; }
ann() { # file: add prune disabled annotation after "  name:" line
  sed -i '0,/^  name: .*/s//&\n  annotations:\n    kustomize.toolkit.fluxcd.io\/prune: disabled/' $1; }
fix move; ann $R/move/fixbase/apps/settings.yaml
fix destructive; ann $R/destructive/fixbase/infra/namespaces.yaml
fix missing; { ks infra ./infra; ks apps ./apps 'dependsOn:' '  - name: infra'; } > $R/missing/fixed/$T
fix samepass; mkdir -p $R/samepass/fixed/storage-profiles; mv $R/samepass/fixed/platform-config/storageprofile.yaml $R/samepass/fixed/storage-profiles/
{ ks platform ./platform 'wait: true'; ks platform-config ./platform-config 'wait: true' 'dependsOn:' '  - name: platform'; ks storage-profiles ./storage-profiles 'wait: true' 'dependsOn:' '  - name: platform-config'; } > $R/samepass/fixed/$T
fix wait
{ ks platform ./platform 'wait: true'; ks platform-config ./platform-config 'wait: true' 'dependsOn:' '  - name: platform'; ks storage-profiles ./storage-profiles 'dependsOn:' '  - name: platform-config'; } > $R/wait/fixed/$T
fix notfound; ks apps ./apps > $R/notfound/fixed/$T
fix cycle; cp $R/cycle/base/$T $R/cycle/fixed/$T
fix duplicate; rm $R/duplicate/fixed/tools/settings.yaml
fix rendererr; cm default policies > $R/rendererr/fixed/apps/policies.yaml
fix undefined; sed -i 's/\${cluster_region}/${cluster_region:=eu-west-1}/' $R/undefined/fixed/apps/settings.yaml
fix unsubst; ks apps ./apps 'postBuild:' '  substitute:' '    domain: example.org' > $R/unsubst/fixed/$T
fix nsnotset; cm default settings > $R/nsnotset/fixed/apps/settings.yaml
fix healthcheck; sed -i 's/    name: web$/    name: web-server/' $R/healthcheck/fixed/$T
fix missingcrd; mkdir -p $R/missingcrd/fixed/infra; ks infra ./infra 'wait: true' > $R/missingcrd/fixed/$T; ks apps ./apps 'dependsOn:' '  - name: infra' >> $R/missingcrd/fixed/$T
printf 'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: externalsecrets.external-secrets.io\nspec:\n  group: external-secrets.io\n  names: {kind: ExternalSecret, plural: externalsecrets}\n  scope: Namespaced\n  versions:\n    - name: v1\n      served: true\n      storage: true\n      schema:\n        openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}\n' > $R/missingcrd/fixed/infra/crd.yaml
fix renamens; ns web > $R/renamens/fixed/apps/namespace.yaml
fix fluxversion; ks apps ./apps > $R/fluxversion/fixed/$T
fix sourcenotfound; ks apps ./apps > $R/sourcenotfound/fixed/$T
fix rootpath; inst clusters/prod > $R/rootpath/fixed/clusters/prod/flux-system/flux-instance.yaml

fix compremoved; cp $R/compremoved/base/clusters/prod/flux-system/flux-instance.yaml $R/compremoved/fixed/clusters/prod/flux-system/
fix substfrom; sed -i 's/      name: vars$/      name: vars2/' $R/substfrom/fixed/$T
fix rootrename; mkdir -p $R/rootrename/fixed/clusters/dev; printf 'resources:\n  - ../stage\n' > $R/rootrename/fixed/clusters/dev/kustomization.yaml
printf 'resources:\n  - flux-system\n  - tiers.yaml\n' > $R/rootrename/fixed/clusters/stage/kustomization.yaml
fix patchlost; sed -i 's/      name: web$/      name: web-v2/' $R/patchlost/fixed/apps/prod/kustomization.yaml

fix typechange; ks apps ./apps 'postBuild:' '  substitute:' '    PORT: "8080"' "    quote: '\"'" > $R/typechange/fixed/$T
cm default settings 'port: ${quote}${PORT}${quote}' > $R/typechange/fixed/apps/settings.yaml

for c in move destructive missing samepass wait notfound cycle duplicate rendererr undefined unsubst nsnotset healthcheck missingcrd fluxversion renamens sourcenotfound typechange substfrom rootpath rootrename compremoved patchlost; do
  findings() { (cd "$R/$c" && "$R/bot" review --base-dir "$1" --head-dir "$2" --format json --fail-on never |
    jq -c '[.findings[] | select(.status == "new") | "\(.severity) \(.rule) \(.file):\(.line)"]'); }
  echo "$c: head $(findings base head) fixed $(findings fixbase fixed)"
done
