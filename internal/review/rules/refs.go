package rules

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// podSpecPath locates the pod spec of workload kinds.
var podSpecPath = map[string][]string{
	"/Pod":                   {"spec"},
	"apps/Deployment":        {"spec", "template", "spec"},
	"apps/StatefulSet":       {"spec", "template", "spec"},
	"apps/DaemonSet":         {"spec", "template", "spec"},
	"apps/ReplicaSet":        {"spec", "template", "spec"},
	"batch/Job":              {"spec", "template", "spec"},
	"batch/CronJob":          {"spec", "jobTemplate", "spec", "template", "spec"},
	"/ReplicationController": {"spec", "template", "spec"},
}

// configRefs lists the ConfigMaps and Secrets (kind, name) that an object reads and that
// must exist for it to become healthy: required references of a pod spec (envFrom, env
// valueFrom, volumes), HelmRelease valuesFrom, Gateway listener certificates and Ingress TLS.
func configRefs(o *graph.Object) [][2]string {
	u := o.Body.Object
	var out [][2]string
	add := func(kind string, m map[string]any, nameKey string) {
		if m == nil {
			return
		}
		if opt, _ := m["optional"].(bool); opt {
			return
		}
		if name, _ := m[nameKey].(string); name != "" {
			out = append(out, [2]string{kind, name})
		}
	}
	switch gk := o.ID.Group + "/" + o.ID.Kind; gk {
	case "helm.toolkit.fluxcd.io/HelmRelease":
		for _, v := range slice(u, "spec", "valuesFrom") {
			if k, _ := v["kind"].(string); k == "Secret" || k == "ConfigMap" {
				add(k, v, "name")
			}
		}
	case "gateway.networking.k8s.io/Gateway":
		for _, l := range slice(u, "spec", "listeners") {
			for _, c := range slice(l, "tls", "certificateRefs") {
				if k, _ := c["kind"].(string); (k == "" || k == "Secret") && c["namespace"] == nil {
					add("Secret", c, "name")
				}
			}
		}
	case "networking.k8s.io/Ingress":
		for _, t := range slice(u, "spec", "tls") {
			add("Secret", t, "secretName")
		}
	default:
		path, ok := podSpecPath[gk]
		if !ok {
			return nil
		}
		spec, _, _ := unstructured.NestedMap(u, path...)
		for _, field := range []string{"containers", "initContainers"} {
			for _, c := range slice(spec, field) {
				for _, e := range slice(c, "envFrom") {
					add("Secret", mapOf(e["secretRef"]), "name")
					add("ConfigMap", mapOf(e["configMapRef"]), "name")
				}
				for _, e := range slice(c, "env") {
					vf := mapOf(e["valueFrom"])
					add("Secret", mapOf(vf["secretKeyRef"]), "name")
					add("ConfigMap", mapOf(vf["configMapKeyRef"]), "name")
				}
			}
		}
		for _, v := range slice(spec, "volumes") {
			add("Secret", mapOf(v["secret"]), "secretName")
			add("ConfigMap", mapOf(v["configMap"]), "name")
			for _, src := range slice(v, "projected", "sources") {
				add("Secret", mapOf(src["secret"]), "name")
				add("ConfigMap", mapOf(src["configMap"]), "name")
			}
		}
	}
	return out
}

func slice(m map[string]any, fields ...string) []map[string]any {
	if m == nil {
		return nil
	}
	raw, _, _ := unstructured.NestedFieldNoCopy(m, fields...)
	items, _ := raw.([]any)
	var out []map[string]any
	for _, it := range items {
		if mm, ok := it.(map[string]any); ok {
			out = append(out, mm)
		}
	}
	return out
}

func mapOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// configProviders returns the Kustomizations that make the ConfigMap or Secret id: by
// emitting it, or, for Secrets, through an ExternalSecret, a cert-manager Certificate or a
// SealedSecret that writes it at runtime.
func (v *view) configProviders(id graph.ObjectID) []graph.Ref {
	if p := v.owners(id); len(p) > 0 {
		return p
	}
	if id.Kind != "Secret" {
		return nil
	}
	if v.secretWriters == nil {
		v.secretWriters = map[graph.ObjectID][]graph.Ref{}
		each(v.c, func(ks *graph.Kustomization, o *graph.Object) {
			if name := secretWritten(o); name != "" {
				sid := graph.ObjectID{Kind: "Secret", Namespace: o.ID.Namespace, Name: name}
				v.secretWriters[sid] = append(v.secretWriters[sid], ks.Ref)
			}
		})
	}
	return v.secretWriters[id]
}

// secretWritten names the Secret that o makes appear at runtime in its namespace: an
// ExternalSecret's target (its own name by default), a Certificate's secretName, a
// SealedSecret's name; "" for any other object.
func secretWritten(o *graph.Object) string {
	switch o.ID.Group + "/" + o.ID.Kind {
	case "external-secrets.io/ExternalSecret":
		if t, _, _ := unstructured.NestedString(o.Body.Object, "spec", "target", "name"); t != "" {
			return t
		}
		return o.ID.Name
	case "cert-manager.io/Certificate":
		t, _, _ := unstructured.NestedString(o.Body.Object, "spec", "secretName")
		return t
	case "bitnami.com/SealedSecret":
		return o.ID.Name
	}
	return ""
}
