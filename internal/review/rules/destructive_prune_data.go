package rules

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// dataBearingKinds are custom resources ("group/Kind") that hold a database or a storage
// cluster: their operators delete what they run with them (the volumes carry the resource's
// ownerReferences, so Kubernetes' garbage collector follows), so a prune of one is data
// loss. Kept small and to well-known operators: CloudNativePG, Crunchy PGO, Zalando
// postgres-operator, MongoDB Community, MySQL Operator (InnoDBCluster), Rook Ceph,
// ECK Elasticsearch and Strimzi Kafka.
var dataBearingKinds = map[string]bool{
	"postgresql.cnpg.io/Cluster":                        true,
	"postgres-operator.crunchydata.com/PostgresCluster": true,
	"acid.zalan.do/postgresql":                          true,
	"mongodbcommunity.mongodb.com/MongoDBCommunity":     true,
	"mysql.oracle.com/InnoDBCluster":                    true,
	"ceph.rook.io/CephCluster":                          true,
	"elasticsearch.k8s.elastic.co/Elasticsearch":        true,
	"kafka.strimzi.io/Kafka":                            true,
}

// retainedBy says why deleting o loses no data, or "": a PersistentVolume whose
// persistentVolumeReclaimPolicy is Retain, or a PersistentVolumeClaim bound (volumeName)
// to such a volume of the graph or of a StorageClass of the graph whose reclaimPolicy is
// Retain: the volume's data stays on its backing storage (Kubernetes "Reclaiming",
// persistent-volumes docs).
func retainedBy(o *graph.Object, c *graph.Cluster) string {
	if o.ID.Group != "" {
		return ""
	}
	switch o.ID.Kind {
	case "PersistentVolume":
		if bodyString(o.Body, "spec", "persistentVolumeReclaimPolicy") == "Retain" {
			return "its reclaim policy is Retain, so the data stays on the backing volume"
		}
	case "PersistentVolumeClaim":
		if pv := bodyString(o.Body, "spec", "volumeName"); pv != "" {
			for _, v := range c.Owners[graph.ObjectID{Kind: "PersistentVolume", Name: pv}] {
				if bodyString(v.Body, "spec", "persistentVolumeReclaimPolicy") == "Retain" {
					return fmt.Sprintf("its volume %s has reclaim policy Retain, so the data stays (the volume is released, not deleted)", pv)
				}
			}
		}
		if sc := bodyString(o.Body, "spec", "storageClassName"); sc != "" {
			for _, s := range c.Owners[graph.ObjectID{Group: "storage.k8s.io", Kind: "StorageClass", Name: sc}] {
				if bodyString(s.Body, "reclaimPolicy") == "Retain" {
					return fmt.Sprintf("its StorageClass %s has reclaimPolicy Retain, so the data stays (the volume is released, not deleted)", sc)
				}
			}
		}
	}
	return ""
}

func bodyString(u *unstructured.Unstructured, path ...string) string {
	s, _, _ := unstructured.NestedString(u.Object, path...)
	return s
}
