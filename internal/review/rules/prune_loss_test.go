package rules

import (
	"testing"
)

// statefulSet is StatefulSet ns/name with one volumeClaimTemplate "data"; whenDeleted sets
// spec.persistentVolumeClaimRetentionPolicy.whenDeleted ("" leaves the default, Retain).
func statefulSet(ns, name, whenDeleted string) string {
	spec := []string{"spec:", "  serviceName: " + name, "  selector:", "    matchLabels: {app: " + name + "}",
		"  template:", "    metadata:", "      labels: {app: " + name + "}", "    spec:", "      containers:", "        - name: db", "          image: postgres:16",
		"  volumeClaimTemplates:", "    - metadata: {name: data}", "      spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}"}
	if whenDeleted != "" {
		spec = append(spec, "  persistentVolumeClaimRetentionPolicy:", "    whenDeleted: "+whenDeleted)
	}
	return obj("apps/v1", "StatefulSet", ns, name, spec...)
}

// TestPruneTransientSaysWhatIsLost: an object deleted and re-created is re-created with its
// git content, so the message says what only the cluster had and is lost, per kind: a
// claim's volume, a Service's cluster IP, a workload's pods; a StatefulSet's claims stay
// (persistentVolumeClaimRetentionPolicy whenDeleted: Retain, the default) unless whenDeleted
// is Delete, and one whose name or namespace changes gets new, empty claims.
func TestPruneTransientSaysWhatIsLost(t *testing.T) {
	objects := map[string]string{
		"a/deploy.yaml": deployment("", "web"),
		"a/secret.yaml": obj("v1", "Secret", "", "auth", "stringData: {token: x}"),
		"a/svc.yaml":    obj("v1", "Service", "", "web", "spec: {ports: [{port: 80}], selector: {app: web}}"),
		"a/pvc.yaml":    pvc("", "backup", ""),
		"a/db.yaml":     statefulSet("", "db", ""),
		"a/cache.yaml":  statefulSet("", "cache", "Delete"),
	}
	side := func(target string) map[string]string {
		return merge(objects, map[string]string{tierFile("a"): tier("a", "./a", true, "targetNamespace: "+target)})
	}
	renamed := func(kind, name, sev, file, loss string) want {
		s := Warning
		if sev == "error" {
			s = Error
		}
		return want{Rule: "prune-transient", Severity: s, Kustomization: "flux-system/a", Object: kind + "/two/" + name, File: tierFile("a"), Line: 13, // the changed targetNamespace: line
			Msg: []string{kind + "/one/" + name + " (" + file + ":2) becomes " + kind + "/two/" + name + " because spec.targetNamespace of flux-system/a changes (one → two): Flux creates " +
				kind + "/two/" + name + " from git and prunes " + kind + "/one/" + name + ": " + loss + "."}}
	}
	const kept = "it comes back with its git content; lost is only what the cluster alone had: its status, changes made in the cluster, and objects that name it as their owner (Kubernetes' garbage collector deletes them)"
	base, head := renderTree(t, side("one")), renderTree(t, side("two"))
	checkBuilt(t, base)
	checkBuilt(t, head)
	checkFindings(t, changeRule(t, "prune-transient")(base, head, testEnv()), []want{
		renamed("StatefulSet.apps", "cache", "error", "a/cache.yaml", "its pods are deleted and re-created, and with persistentVolumeClaimRetentionPolicy whenDeleted: Delete "+
			"the PersistentVolumeClaims of its volumeClaimTemplates are deleted with it, and their data"),
		renamed("StatefulSet.apps", "db", "error", "a/db.yaml", "its pods are deleted and re-created, and the new pods claim new, empty PersistentVolumeClaims "+
			"(a claim's name is made of the template's, the StatefulSet's and the ordinal, in the StatefulSet's namespace); "+
			"the old claims and their data are kept (persistentVolumeClaimRetentionPolicy whenDeleted: Retain, the default) until deleted by hand"),
		renamed("Deployment.apps", "web", "warning", "a/deploy.yaml", "its ReplicaSets and pods are deleted with it and re-created, the workload down until the new pods are ready"),
		renamed("PersistentVolumeClaim", "backup", "error", "a/pvc.yaml", "the new claim binds a new, empty volume, and under the usual Delete reclaim policy the old volume and its data are deleted"),
		renamed("Secret", "auth", "warning", "a/secret.yaml", kept),
		renamed("Service", "web", "warning", "a/svc.yaml", "its cluster IP (and any node ports or load-balancer address) is allocated anew; the rest comes back from git"),
	})
}

// TestPruneTransientMoveKeepsClaims: a StatefulSet that keeps its identity and moves to a
// Kustomization that dependsOn its old one is deleted and re-created, but its claims stay and
// its new pods bind them again: nothing of their data is lost.
func TestPruneTransientMoveKeepsClaims(t *testing.T) {
	tiers := map[string]string{tierFile("a"): tier("a", "./a", true), "a/keep.yaml": configMap("default", "keep-a"),
		tierFile("b"): tier("b", "./b", true, dependsOn("a")...), "b/keep.yaml": configMap("default", "keep-b")}
	base := renderTree(t, merge(tiers, map[string]string{"a/db.yaml": statefulSet("default", "db", "")}))
	head := renderTree(t, merge(tiers, map[string]string{"b/db.yaml": statefulSet("default", "db", "")}))
	checkFindings(t, changeRule(t, "prune-transient")(base, head, testEnv()), []want{{
		Rule: "prune-transient", Severity: Error, Kustomization: "flux-system/a", Object: "StatefulSet.apps/default/db", File: "b/db.yaml", Line: 2,
		Msg: []string{"StatefulSet.apps/default/db leaves flux-system/a, which has prune enabled: flux-system/b has a dependsOn path to flux-system/a, so flux-system/a always prunes first (certain). " +
			"Flux deletes the object and re-creates it from git (new UID): its pods are deleted and re-created; the PersistentVolumeClaims of its volumeClaimTemplates are kept " +
			"(persistentVolumeClaimRetentionPolicy whenDeleted: Retain, the default) and the new pods bind them again, so their data is kept."},
	}})
}

// TestPruneTransientRenamedStatefulSetNamespacePruned: the claims a StatefulSet renamed into
// another namespace leaves behind would be kept, but the change prunes their Namespace too.
func TestPruneTransientRenamedStatefulSetNamespacePruned(t *testing.T) {
	side := func(target string) map[string]string {
		return map[string]string{tierFile("a"): tier("a", "./a", true, "targetNamespace: "+target),
			"a/ns.yaml": namespaceObj("one"), "a/db.yaml": statefulSet("", "db", "")}
	}
	base, head := renderTree(t, side("one")), renderTree(t, side("two"))
	checkFindings(t, changeRule(t, "prune-transient")(base, head, testEnv()), []want{
		{Rule: "prune-transient", Severity: Error, Kustomization: "flux-system/a", Object: "StatefulSet.apps/two/db", File: tierFile("a"), Line: 13,
			Msg: []string{"StatefulSet.apps/one/db (a/db.yaml:2) becomes StatefulSet.apps/two/db because spec.targetNamespace of flux-system/a changes (one → two): Flux creates StatefulSet.apps/two/db from git and prunes StatefulSet.apps/one/db: " +
				"its pods are deleted and re-created, and the new pods claim new, empty PersistentVolumeClaims (a claim's name is made of the template's, the StatefulSet's and the ordinal, in the StatefulSet's namespace); " +
				"the old claims would be kept (persistentVolumeClaimRetentionPolicy whenDeleted: Retain, the default), but this change also prunes Namespace one, which deletes them and their data."}},
		{Rule: "prune-transient", Severity: Error, Kustomization: "flux-system/a", Object: "Namespace/two", File: tierFile("a"), Line: 13,
			Msg: []string{"Namespace/one (a/ns.yaml:2) becomes Namespace/two because spec.targetNamespace of flux-system/a changes (one → two): Flux creates Namespace/two from git and prunes Namespace/one: " +
				"every object in Namespace one is deleted with it, whoever owns it; only what Flux applies comes back."}},
	})
}
