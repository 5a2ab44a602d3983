package rules

import "testing"

// TestTargetNamespaceRenamesNamespace: kustomize's namespace transformer renames every v1
// Namespace of a Kustomization with targetNamespace to the target.
func TestTargetNamespaceRenamesNamespace(t *testing.T) {
	apps := func(target string, files map[string]string) map[string]string {
		extra := []string{}
		if target != "" {
			extra = append(extra, "targetNamespace: "+target)
		}
		return merge(map[string]string{tierFile("apps"): tier("apps", "./apps", true, extra...)}, files)
	}
	cases := []struct {
		name  string
		files map[string]string
		want  []want
	}{
		{
			name:  "Namespace renamed to the target",
			files: apps("web", map[string]string{"apps/ns.yaml": namespaceObj("podinfo"), "apps/cm.yaml": configMap("", "settings")}),
			want: []want{{Rule: "target-namespace-renames-namespace", Severity: Error, Kustomization: "flux-system/apps", Object: "Namespace/web",
				File: "apps/ns.yaml", Line: 2,
				Msg: []string{"Namespace podinfo (apps/ns.yaml:2) is renamed to web by spec.targetNamespace of flux-system/apps",
					"Namespace podinfo is never created and flux-system/apps applies, owns and may prune Namespace web instead."},
				Sugg: []string{"Move Namespace podinfo out of flux-system/apps", "remove it from apps/ns.yaml:2 if Namespace web is the one meant"}}},
		},
		{
			name:  "a tier that takes flux-system",
			files: apps("flux-system", map[string]string{"apps/ns.yaml": namespaceObj("tenant")}),
			want: []want{{Rule: "target-namespace-renames-namespace", Severity: Error, Kustomization: "flux-system/apps", Object: "Namespace/flux-system",
				File: "apps/ns.yaml", Line: 2,
				Msg: []string{"renamed to flux-system", "flux-system is the namespace of Flux itself: deleting flux-system/apps, or a prune of its inventory, deletes it with everything in it."}}},
		},
		{
			name: "the target Namespace also applied elsewhere",
			files: apps("web", map[string]string{"apps/ns.yaml": namespaceObj("podinfo"),
				tierFile("infra"): tier("infra", "./infra", true), "infra/ns.yaml": namespaceObj("web")}),
			want: []want{{Rule: "target-namespace-renames-namespace", Severity: Error, Kustomization: "flux-system/apps", Object: "Namespace/web",
				File: "apps/ns.yaml", Line: 2, Msg: []string{"flux-system/infra also applies Namespace web (infra/ns.yaml:2)."}}},
		},
		{name: "Namespace named as the target", files: apps("web", map[string]string{"apps/ns.yaml": namespaceObj("web")})},
		{name: "no targetNamespace", files: apps("", map[string]string{"apps/ns.yaml": namespaceObj("podinfo")})},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := renderTree(t, tc.files)
			checkBuilt(t, c)
			checkFindings(t, stateRule(t, "target-namespace-renames-namespace")(c, nil, testEnv()), tc.want)
		})
	}
}

// TestTargetNamespaceRenamesNamespaceAtChange: when the other commit has another target, the
// change of targetNamespace renames the untouched Namespace: the finding is on the
// `targetNamespace:` line (13), the Namespace named with its file:line in the message. Not
// when the target is the same in both commits (the Namespace file is then what changed).
func TestTargetNamespaceRenamesNamespaceAtChange(t *testing.T) {
	files := func(target string) map[string]string {
		return map[string]string{tierFile("apps"): tier("apps", "./apps", true, "targetNamespace: "+target), "apps/ns.yaml": namespaceObj("podinfo")}
	}
	msg := "Namespace podinfo (apps/ns.yaml:2) is renamed to web by spec.targetNamespace of flux-system/apps: kustomize's namespace transformer sets the name of every Namespace to the target namespace, " +
		"so Namespace podinfo is never created and flux-system/apps applies, owns and may prune Namespace web instead."
	for _, tc := range []struct {
		name, otherTarget, file string
		line                    int
	}{
		{"the target changes", "podinfo", "clusters/dev/apps.yaml", 13},
		{"negative: the same target in both commits", "web", "apps/ns.yaml", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, other := renderTree(t, files("web")), renderTree(t, files(tc.otherTarget))
			checkFindings(t, stateRule(t, "target-namespace-renames-namespace")(c, other, testEnv()), []want{{Rule: "target-namespace-renames-namespace", Severity: Error,
				Kustomization: "flux-system/apps", Object: "Namespace/web", File: tc.file, Line: tc.line, Msg: []string{msg}}})
		})
	}
}

// TestTargetNamespaceRenamesSubstitutedName: kustomize-controller builds (the namespace
// transformer names the Namespace `${TENANT}` the target) and substitutes after; a name
// whose substitution is the target is what the user meant (nu9 F2). One that substitutes
// to another name, or that substitution leaves alone, is still renamed.
func TestTargetNamespaceRenamesSubstitutedName(t *testing.T) {
	files := func(nsName string, vars []string, meta ...string) map[string]string {
		extra := append([]string{"targetNamespace: web", "postBuild:", "  substitute:"}, vars...)
		return map[string]string{tierFile("apps"): tier("apps", "./apps", true, extra...), "apps/ns.yaml": namespaceObj(nsName, meta...)}
	}
	fires := func(name string) []want {
		return []want{{Rule: "target-namespace-renames-namespace", Severity: Error, Kustomization: "flux-system/apps", Object: "Namespace/web",
			File: "apps/ns.yaml", Line: 2, Msg: []string{"Namespace " + name + " (apps/ns.yaml:2) is renamed to web by spec.targetNamespace of flux-system/apps"}}}
	}
	cases := []struct {
		name  string
		files map[string]string
		want  []want
	}{
		{name: "negative: ${TENANT} substitutes to the target", files: files("${TENANT}", []string{"    TENANT: web"})},
		{name: "negative: a default that is the target", files: files("${TENANT:=web}", []string{"    OTHER: x"})},
		{name: "negative: a prefix and a variable", files: files("w${REST}", []string{"    REST: eb"})},
		{name: "${TENANT} substitutes to another name", files: files("${TENANT}", []string{"    TENANT: podinfo"}), want: fires("${TENANT}")},
		{name: "substitution disabled on the Namespace", files: files("${TENANT}", []string{"    TENANT: web"}, "  annotations:", "    kustomize.toolkit.fluxcd.io/substitute: disabled"), want: fires("${TENANT}")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := renderTree(t, tc.files)
			checkFindings(t, stateRule(t, "target-namespace-renames-namespace")(c, nil, testEnv()), tc.want)
		})
	}
}
