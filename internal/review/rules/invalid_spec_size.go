package rules

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// Size limits of the Kubernetes API that no schema states.
const (
	// maxDataBytes is what a ConfigMap's data and binaryData, or a Secret's data, may hold
	// in all: k8s.io/api core/v1 MaxSecretSize (1 MiB), checked by pkg/apis/core/validation
	// ValidateConfigMap and ValidateSecret (field.TooLong "may not be more than 1048576 bytes").
	maxDataBytes = 1 << 20
	// maxEtcdRequest is etcd's default --max-request-bytes (1.5 MiB, etcd's "System limits"
	// guide): an object over it is refused with "etcdserver: request is too large".
	maxEtcdRequest = 3 << 19
	// maxRequestBody is the API server's limit on a write request's body
	// (k8s.io/apiserver pkg/server/config.go NewConfig, MaxRequestBodyBytes 3 MiB): over it
	// the request fails with 413 "Request entity too large".
	maxRequestBody = 3 << 20
)

// tooLarge returns the field at fault ("data", or "" for the object as a whole), what is
// wrong and the limit that says so, msg "" for an object within the limits. The object's
// size is its JSON encoding, as the apply sends it; values are never quoted, only counted
// (a Secret's data is its own). A first pass counts the strings without encoding, so that
// only an object near the limits is encoded.
func tooLarge(o *graph.Object) (field, msg, limit string) {
	if o.ID.Group == "" && (o.ID.Kind == "ConfigMap" || o.ID.Kind == "Secret") {
		if n := dataBytes(o.ID.Kind, o.Body.Object); n > maxDataBytes {
			what := "data and binaryData hold"
			if o.ID.Kind == "Secret" {
				what = "data and stringData hold"
			}
			return "data", fmt.Sprintf("its %s %d bytes, over the %d a %s may hold ('Too long: may not be more than %d bytes')", what, n, maxDataBytes, o.ID.Kind, maxDataBytes),
				"k8s pkg/apis/core/validation Validate" + o.ID.Kind + ", MaxSecretSize"
		}
	}
	if roughBytes(o.Body.Object) <= maxEtcdRequest {
		return "", "", ""
	}
	data, err := json.Marshal(o.Body.Object)
	switch {
	case err != nil || len(data) <= maxEtcdRequest:
		return "", "", ""
	case len(data) > maxRequestBody:
		return "", fmt.Sprintf("the object is %d bytes of JSON, over the %d bytes the API server accepts in one write request (413 Request entity too large)", len(data), maxRequestBody),
			"k8s.io/apiserver MaxRequestBodyBytes"
	}
	return "", fmt.Sprintf("the object is %d bytes of JSON, over etcd's default limit of %d bytes for one request (etcdserver: request is too large), unless the cluster's etcd runs with a larger --max-request-bytes", len(data), maxEtcdRequest),
		"etcd --max-request-bytes"
}

// dataBytes is the size validation counts for a ConfigMap (the values of data, the decoded
// bytes of binaryData) or a Secret (the decoded values of data, and stringData, which the
// API server merges into data before it validates).
func dataBytes(kind string, obj map[string]any) int {
	n := 0
	count := func(field string, decode bool) {
		m, _ := obj[field].(map[string]any)
		for _, v := range m {
			s, _ := v.(string)
			if b, err := base64.StdEncoding.DecodeString(s); decode && err == nil {
				n += len(b)
			} else {
				n += len(s)
			}
		}
	}
	if kind == "ConfigMap" {
		count("data", false)
		count("binaryData", true)
	} else {
		count("data", true)
		count("stringData", false)
	}
	return n
}

// roughBytes is a lower bound of v's JSON size: its strings and keys; a JSON encoding
// adds quotes, separators and numbers.
func roughBytes(v any) int {
	switch x := v.(type) {
	case string:
		return len(x)
	case map[string]any:
		n := 0
		for k, e := range x {
			n += len(k) + roughBytes(e)
		}
		return n
	case []any:
		n := 0
		for _, e := range x {
			n += roughBytes(e)
		}
		return n
	}
	return 0
}
