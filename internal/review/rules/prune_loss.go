package rules

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// recreateLoss says what is lost when Flux deletes o (of base) and applies it again from git,
// as the same object or, renamed, as another name or namespace: the git content comes back,
// so only what the cluster alone had is lost, and that depends on the kind.
//   - A Namespace: everything in it (the namespace controller deletes its content).
//   - A CustomResourceDefinition: every custom resource of the kind.
//   - A PersistentVolumeClaim: the volume bound to it, under the usual Delete reclaim policy
//     (retainedBy says when it is kept); the new claim gets a new, empty volume.
//   - A StatefulSet: its pods. Its volumeClaimTemplates' claims are kept unless
//     spec.persistentVolumeClaimRetentionPolicy.whenDeleted is Delete (k8s apps/v1
//     StatefulSetPersistentVolumeClaimRetentionPolicy, default Retain); the same StatefulSet
//     binds them again, a renamed one gets new claims (a claim is named
//     <template>-<statefulset>-<ordinal> in the StatefulSet's namespace).
//   - A Deployment, DaemonSet or ReplicaSet: its pods (and a Deployment's ReplicaSets),
//     through their ownerReferences; a Job runs again.
//   - A Service: its cluster IP, node ports and load-balancer address, allocated anew.
//   - A data-bearing custom resource: what its operator runs.
//
// Anything else keeps its git content; what names it as owner goes with it.
func recreateLoss(o *graph.Object, base, head *graph.Cluster, renamed bool) string {
	const kept = "it comes back with its git content; lost is only what the cluster alone had: its status, changes made in the cluster, and objects that name it as their owner (Kubernetes' garbage collector deletes them)"
	id := o.ID
	if dataBearingKinds[id.Group+"/"+id.Kind] {
		return "its operator tears down the database or storage cluster it runs, and the volumes it owns go with it"
	}
	switch id.Group + "/" + id.Kind {
	case "/Namespace":
		return "every object in Namespace " + id.Name + " is deleted with it, whoever owns it; only what Flux applies comes back"
	case "apiextensions.k8s.io/CustomResourceDefinition":
		return "every custom resource of that kind is deleted with it"
	case "/PersistentVolumeClaim":
		claim := "the re-created claim"
		if renamed {
			claim = "the new claim"
		}
		if why := retainedBy(o, base); why != "" {
			return claim + " binds a new, empty volume, while " + why
		}
		return claim + " binds a new, empty volume, and under the usual Delete reclaim policy the old volume and its data are deleted"
	case "/PersistentVolume":
		if policy := bodyString(o.Body, "spec", "persistentVolumeReclaimPolicy"); policy == "Delete" || policy == "Recycle" {
			return fmt.Sprintf("under its reclaim policy %s the data on it is deleted", policy)
		}
		return "its reclaim policy is Retain (the default for a PersistentVolume made from a manifest), so the data stays on the backing storage"
	case "apps/StatefulSet":
		return statefulSetLoss(o, base, head, renamed)
	case "apps/Deployment":
		return "its ReplicaSets and pods are deleted with it and re-created, the workload down until the new pods are ready"
	case "apps/DaemonSet", "apps/ReplicaSet":
		return "its pods are deleted with it and re-created, the workload down until the new pods are ready"
	case "batch/Job":
		return "its pods are deleted with it, and the re-created Job runs again"
	case "/Service":
		return "its cluster IP (and any node ports or load-balancer address) is allocated anew; the rest comes back from git"
	case "kustomize.toolkit.fluxcd.io/Kustomization":
		return "its finalizer garbage-collects what it applied (under its prune and deletionPolicy) before it is applied again"
	}
	return kept
}

// statefulSetLoss is recreateLoss for a StatefulSet; the claims a renamed one leaves behind
// go with their Namespace when the change prunes it too.
func statefulSetLoss(o *graph.Object, base, head *graph.Cluster, renamed bool) string {
	const pods = "its pods are deleted and re-created"
	templates, _, _ := unstructured.NestedSlice(o.Body.Object, "spec", "volumeClaimTemplates")
	switch {
	case len(templates) == 0:
		return pods
	case bodyString(o.Body, "spec", "persistentVolumeClaimRetentionPolicy", "whenDeleted") == "Delete":
		return pods + ", and with persistentVolumeClaimRetentionPolicy whenDeleted: Delete the PersistentVolumeClaims of its volumeClaimTemplates are deleted with it, and their data"
	case renamed:
		moved := pods + ", and the new pods claim new, empty PersistentVolumeClaims (a claim's name is made of the template's, the StatefulSet's and the ordinal, in the StatefulSet's namespace); "
		ns := graph.ObjectID{Kind: "Namespace", Name: o.ID.Namespace}
		if o.ID.Namespace != "" && len(base.Owners[ns]) > 0 && len(head.Owners[ns]) == 0 {
			return moved + "the old claims would be kept (persistentVolumeClaimRetentionPolicy whenDeleted: Retain, the default), but this change also prunes Namespace " +
				o.ID.Namespace + ", which deletes them and their data"
		}
		return moved + "the old claims and their data are kept (persistentVolumeClaimRetentionPolicy whenDeleted: Retain, the default) until deleted by hand"
	}
	return pods + "; the PersistentVolumeClaims of its volumeClaimTemplates are kept (persistentVolumeClaimRetentionPolicy whenDeleted: Retain, the default) and the new pods bind them again, so their data is kept"
}
