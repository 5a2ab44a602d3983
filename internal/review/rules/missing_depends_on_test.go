package rules

import (
	"strings"
	"testing"
)

func TestMissingDependsOn(t *testing.T) {
	infraNS := map[string]string{
		tierFile("infra"): tier("infra", "./infra", true),
		"infra/ns.yaml":   namespaceObj("demo"),
	}
	appsInDemo := map[string]string{
		tierFile("apps"): tier("apps", "./apps", true),
		"apps/cm.yaml":   configMap("demo", "cm"),
	}
	onApps := func(object, file string, sev Severity, provider string, msg ...string) want {
		return want{
			Rule: "missing-depends-on", Severity: sev, Kustomization: "flux-system/apps",
			Object: object, File: file, Line: 2, Msg: msg,
			Sugg: []string{"Set in Kustomization flux-system/apps (clusters/dev/apps.yaml:6):\n  dependsOn:\n    - name: " + provider},
		}
	}
	varsTier := map[string]string{
		tierFile("vars"): tier("vars", "./vars", true),
		"vars/cm.yaml":   configMap("flux-system", "cluster-vars", "data:", "  CLUSTER: dev"),
		"apps/cm.yaml":   configMap("default", "cm", "data:", "  cluster: ${CLUSTER}"),
	}
	cases := []struct {
		name  string
		files map[string]string
		want  []want
	}{
		{
			name:  "Namespace from another tier without edge",
			files: merge(infraNS, appsInDemo),
			want: []want{onApps("ConfigMap/demo/cm", "apps/cm.yaml", Error, "infra",
				"ConfigMap/demo/cm in flux-system/apps needs Namespace demo from flux-system/infra",
				"flux-system/apps has no dependsOn path to flux-system/infra")},
		},
		{
			name: "existing dependsOn entries are kept in the suggested list",
			files: merge(infraNS, appsInDemo, map[string]string{
				tierFile("mid"):  tier("mid", "./mid", true),
				"mid/cm.yaml":    configMap("default", "mid"),
				tierFile("apps"): tier("apps", "./apps", true, dependsOn("mid")...),
			}),
			want: []want{{
				Rule: "missing-depends-on", Severity: Error, Kustomization: "flux-system/apps",
				Object: "ConfigMap/demo/cm", File: "apps/cm.yaml", Line: 2,
				Sugg: []string{"Set in Kustomization flux-system/apps (clusters/dev/apps.yaml:13):\n  dependsOn:\n    - name: mid\n    - name: infra"},
			}},
		},
		{
			name: "an edge back would be a cycle: suggest moving instead",
			files: merge(infraNS, appsInDemo, map[string]string{
				tierFile("infra"): tier("infra", "./infra", true, dependsOn("apps")...),
			}),
			want: []want{{
				Rule: "missing-depends-on", Severity: Error, Kustomization: "flux-system/apps",
				Object: "ConfigMap/demo/cm", File: "apps/cm.yaml", Line: 2,
				Msg:  []string{"flux-system/infra already depends on flux-system/apps, so a dependsOn edge back would be a cycle."},
				Sugg: []string{"Move ConfigMap/demo/cm into flux-system/infra (or a tier after it), or move Namespace demo into flux-system/apps or a tier before it."},
			}},
		},
		{
			// The PR closes a cycle apps -> infra -> apps: depends-on-cycle reports it;
			// apps does have its dependsOn edge to infra, so nothing is missing.
			name: "provider in one dependsOn cycle with the holder",
			files: merge(infraNS, appsInDemo, map[string]string{
				tierFile("apps"):  tier("apps", "./apps", true, dependsOn("infra")...),
				tierFile("infra"): tier("infra", "./infra", true, dependsOn("apps")...),
			}),
		},
		{
			name: "dependsOn present",
			files: merge(infraNS, appsInDemo, map[string]string{
				tierFile("apps"): tier("apps", "./apps", true, dependsOn("infra")...),
			}),
		},
		{
			name: "provider in another namespace",
			files: merge(appsInDemo, map[string]string{
				tierFile("infra"): `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: infra
  namespace: platform
spec:
  interval: 10m0s
  path: ./infra
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
    namespace: flux-system
`,
				"infra/ns.yaml": namespaceObj("demo"),
			}),
			want: []want{{
				Rule: "missing-depends-on", Severity: Error, Kustomization: "flux-system/apps",
				Object: "ConfigMap/demo/cm", File: "apps/cm.yaml", Line: 2,
				Msg:  []string{"needs Namespace demo from platform/infra"},
				Sugg: []string{"  dependsOn:\n    - name: infra\n      namespace: platform"},
			}},
		},
		{
			name: "CRD from another tier without edge",
			files: map[string]string{
				tierFile("crds"): tier("crds", "./crds", true),
				"crds/crd.yaml":  crd("example.com", "Widget", "widgets", "Namespaced"),
				tierFile("apps"): tier("apps", "./apps", true),
				"apps/w.yaml":    obj("example.com/v1", "Widget", "default", "w1", "spec: {}"),
			},
			want: []want{onApps("Widget.example.com/default/w1", "apps/w.yaml", Error, "crds",
				"needs the CRD of Widget.example.com from flux-system/crds")},
		},
		{
			name: "reached transitively through a third tier",
			files: merge(infraNS, appsInDemo, map[string]string{
				tierFile("mid"):  tier("mid", "./mid", true, dependsOn("infra")...),
				"mid/cm.yaml":    configMap("default", "mid"),
				tierFile("apps"): tier("apps", "./apps", true, dependsOn("mid")...),
			}),
		},
		{
			name: "ExternalArtifact of an ArtifactGenerator in another tier without edge",
			files: map[string]string{
				tierFile("sources"): tier("sources", "./sources", true),
				"sources/gen.yaml": `apiVersion: source.extensions.fluxcd.io/v1beta1
kind: ArtifactGenerator
metadata:
  name: gen
  namespace: flux-system
spec:
  sources:
    - alias: repo
      kind: GitRepository
      name: flux-system
  artifacts:
    - name: apps
      copy:
        - from: "@repo/apps/**"
          to: "@artifact/"
`,
				tierFile("apps"): strings.Replace(tier("apps", "./", true), "kind: GitRepository\n    name: flux-system", "kind: ExternalArtifact\n    name: apps", 1),
				"apps/cm.yaml":   configMap("default", "cm"),
			},
			want: []want{{
				Rule: "missing-depends-on", Severity: Warning, Kustomization: "flux-system/apps", File: "clusters/dev/apps.yaml", Line: 2,
				Msg:  []string{"needs its source ExternalArtifact/flux-system/apps from flux-system/sources"},
				Sugg: []string{"Set in Kustomization flux-system/apps (clusters/dev/apps.yaml:6):\n  dependsOn:\n    - name: sources"},
			}},
		},
		{
			name: "provider is an ancestor",
			files: map[string]string{
				tierFile("platform"): tier("platform", "./platform", true),
				"platform/ns.yaml":   namespaceObj("demo"),
				"platform/apps.yaml": tier("apps", "./apps", true),
				"apps/cm.yaml":       configMap("demo", "cm"),
			},
		},
		{
			name: "same tier",
			files: map[string]string{
				tierFile("apps"): tier("apps", "./apps", true),
				"apps/ns.yaml":   namespaceObj("demo"),
				"apps/cm.yaml":   configMap("demo", "cm"),
			},
		},
		{
			name: "substituteFrom ConfigMap from a sibling tier without edge",
			files: merge(varsTier, map[string]string{
				tierFile("apps"): tier("apps", "./apps", true,
					"postBuild:", "  substituteFrom:", "    - kind: ConfigMap", "      name: cluster-vars"),
			}),
			want: []want{{
				Rule: "missing-depends-on", Severity: Error, Kustomization: "flux-system/apps",
				File: tierFile("apps"), Line: 2,
				Msg:  []string{"needs substituteFrom ConfigMap flux-system/cluster-vars from flux-system/vars"},
				Sugg: []string{"  dependsOn:\n    - name: vars"},
			}},
		},
		{
			name: "substituteFrom Secret made by an ExternalSecret of a sibling tier",
			files: map[string]string{
				tierFile("secrets"): tier("secrets", "./secrets", true),
				"secrets/es.yaml": obj("external-secrets.io/v1beta1", "ExternalSecret", "flux-system", "cluster-secrets-es",
					"spec:", "  secretStoreRef: {kind: ClusterSecretStore, name: vault}", "  target:", "    name: cluster-secrets"),
				tierFile("apps"): tier("apps", "./apps", true,
					"postBuild:", "  substituteFrom:", "    - kind: Secret", "      name: cluster-secrets"),
				"apps/cm.yaml": configMap("default", "cm"),
			},
			want: []want{{
				Rule: "missing-depends-on", Severity: Error, Kustomization: "flux-system/apps",
				File: tierFile("apps"), Line: 2,
				Msg:  []string{"needs substituteFrom Secret flux-system/cluster-secrets", "from flux-system/secrets"},
				Sugg: []string{"  dependsOn:\n    - name: secrets"},
			}},
		},
		{
			name: "the Flux namespace exists before any tier",
			files: map[string]string{
				tierFile("infra"): tier("infra", "./infra", true),
				"infra/ns.yaml":   namespaceObj("flux-system"),
				tierFile("apps"):  tier("apps", "./apps", true),
				"apps/cm.yaml":    configMap("flux-system", "cm"),
			},
		},
		{
			name: "optional substituteFrom",
			files: merge(varsTier, map[string]string{
				tierFile("apps"): tier("apps", "./apps", true,
					"postBuild:", "  substituteFrom:", "    - kind: ConfigMap", "      name: cluster-vars", "      optional: true"),
			}),
		},
		{
			name: "substituteFrom ConfigMap only the tier itself creates (nu9 F4)",
			files: map[string]string{
				tierFile("apps"): tier("apps", "./apps", true,
					"postBuild:", "  substituteFrom:", "    - kind: ConfigMap", "      name: cluster-vars"),
				"apps/vars.yaml": configMap("flux-system", "cluster-vars"),
			},
			want: []want{{
				Rule: "missing-depends-on", Severity: Error, Kustomization: "flux-system/apps",
				File: tierFile("apps"), Line: 2,
				Msg: []string{"Kustomization flux-system/apps needs substituteFrom ConfigMap flux-system/cluster-vars, which only flux-system/apps itself creates: " +
					"kustomize-controller loads the variables before it builds or applies anything, so on a cold cluster, or once the existing one is pruned or deleted, " +
					"flux-system/apps fails with \"substitute from ... not found\" and can never apply it, nor anything that dependsOn flux-system/apps; no dependsOn can order it first."},
				Sugg: []string{"Move substituteFrom ConfigMap flux-system/cluster-vars into a Kustomization that flux-system/apps dependsOn (or an ancestor of it), " +
					"or mark the substituteFrom entry `optional: true` if every variable it gives has a default."},
			}},
		},
		{
			name: "negative: the tier creates its substituteFrom ConfigMap, optional",
			files: map[string]string{
				tierFile("apps"): tier("apps", "./apps", true,
					"postBuild:", "  substituteFrom:", "    - kind: ConfigMap", "      name: cluster-vars", "      optional: true"),
				"apps/vars.yaml": configMap("flux-system", "cluster-vars"),
			},
		},
		{
			name: "negative: the tier creates its substituteFrom ConfigMap, a tier it dependsOn too",
			files: merge(varsTier, map[string]string{
				tierFile("apps"): tier("apps", "./apps", true, "dependsOn:", "  - name: vars",
					"postBuild:", "  substituteFrom:", "    - kind: ConfigMap", "      name: cluster-vars"),
				"apps/vars.yaml": configMap("flux-system", "cluster-vars"),
			}),
		},
		{
			name: "PVC storageClassName from another tier",
			files: map[string]string{
				tierFile("storage"): tier("storage", "./storage", true),
				"storage/sc.yaml": obj("storage.k8s.io/v1", "StorageClass", "", "fast",
					"provisioner: rancher.io/local-path"),
				tierFile("apps"): tier("apps", "./apps", true),
				"apps/pvc.yaml":  pvc("default", "data", "fast"),
			},
			want: []want{onApps("PersistentVolumeClaim/default/data", "apps/pvc.yaml", Warning, "storage",
				"needs StorageClass fast from flux-system/storage", "it stays unhealthy")},
		},
		{
			name: "Certificate issuerRef ClusterIssuer from another tier",
			files: map[string]string{
				tierFile("issuers"): tier("issuers", "./issuers", true),
				"issuers/ci.yaml":   obj("cert-manager.io/v1", "ClusterIssuer", "", "letsencrypt", "spec:", "  selfSigned: {}"),
				tierFile("apps"):    tier("apps", "./apps", true),
				"apps/cert.yaml": obj("cert-manager.io/v1", "Certificate", "default", "web",
					"spec:", "  secretName: web-tls", "  dnsNames: [web.example.com]",
					"  issuerRef:", "    kind: ClusterIssuer", "    name: letsencrypt"),
			},
			want: []want{onApps("Certificate.cert-manager.io/default/web", "apps/cert.yaml", Warning, "issuers",
				"needs ClusterIssuer letsencrypt from flux-system/issuers")},
		},
		{
			name: "HelmRelease chart sourceRef HelmRepository in another tier",
			files: map[string]string{
				tierFile("sources"): tier("sources", "./sources", true),
				"sources/repo.yaml": obj("source.toolkit.fluxcd.io/v1", "HelmRepository", "flux-system", "bitnami",
					"spec:", "  interval: 1h", "  url: https://charts.bitnami.com/bitnami"),
				tierFile("apps"): tier("apps", "./apps", true),
				"apps/hr.yaml": obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "default", "redis",
					"spec:", "  interval: 1h", "  chart:", "    spec:", "      chart: redis",
					"      sourceRef:", "        kind: HelmRepository", "        name: bitnami", "        namespace: flux-system"),
			},
			want: []want{onApps("HelmRelease.helm.toolkit.fluxcd.io/default/redis", "apps/hr.yaml", Warning, "sources",
				"needs HelmRepository flux-system/bitnami from flux-system/sources")},
		},
		{
			name: "DataVolume whose runtime CRD comes from the CDI resource of another tier",
			files: map[string]string{
				tierFile("cdi"):  tier("cdi", "./cdi", true),
				"cdi/cdi.yaml":   cdiObj(),
				tierFile("apps"): tier("apps", "./apps", true),
				"apps/dv.yaml": obj("cdi.kubevirt.io/v1beta1", "DataVolume", "default", "disk",
					"spec:", "  source:", "    blank: {}", "  storage:", "    resources:", "      requests:", "        storage: 1Gi"),
			},
			want: []want{onApps("DataVolume.cdi.kubevirt.io/default/disk", "apps/dv.yaml", Error, "cdi",
				"needs the CRD of DataVolume.cdi.kubevirt.io (created at runtime by the cdi.kubevirt.io/CDI) from flux-system/cdi")},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := renderTree(t, tc.files)
			checkBuilt(t, c)
			checkFindings(t, stateRule(t, "missing-depends-on")(c, nil, testEnv()), tc.want)
		})
	}
}

// A tier renamed at head (same path) while apps still dependsOn its old name: the suggested
// list replaces the old name, which depends-on-not-found reports, instead of keeping it.
func TestMissingDependsOnReplacesRenamedDependency(t *testing.T) {
	apps := map[string]string{
		tierFile("apps"): tier("apps", "./apps", true, dependsOn("infra")...),
		"apps/cm.yaml":   configMap("demo", "cm"),
		"infra/ns.yaml":  namespaceObj("demo"),
	}
	base := renderTree(t, merge(apps, map[string]string{tierFile("infra"): tier("infra", "./infra", true)}))
	head := renderTree(t, merge(apps, map[string]string{tierFile("infra-new"): tier("infra-new", "./infra", true)}))
	checkFindings(t, stateRule(t, "missing-depends-on")(head, base, testEnv()), []want{{
		Rule: "missing-depends-on", Severity: Error, Kustomization: "flux-system/apps",
		Object: "ConfigMap/demo/cm", File: "apps/cm.yaml", Line: 2,
		Sugg: []string{"Set in Kustomization flux-system/apps (clusters/dev/apps.yaml:13):\n  dependsOn:\n    - name: infra-new"},
	}})
}
