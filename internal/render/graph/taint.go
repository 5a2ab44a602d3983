package graph

// SecretKeys is implemented by a client of a cluster's rendered ConfigMaps and Secrets
// (render/kustomize Store.Client) that knows which keys of a ConfigMap hold text postBuild
// substitution wrote from a Secret: substituteFrom and valuesFrom read them as Secret
// values, so a Secret value relayed through a ConfigMap stays Secret-derived.
type SecretKeys interface {
	// SecretKeys returns the data keys of ConfigMap namespace/name whose value is, in part
	// or whole, Secret-derived; nil when none is or the ConfigMap is unknown.
	SecretKeys(namespace, name string) map[string]bool
}

// SecretKeysOf returns the data keys of o (a ConfigMap) whose value its SecretFields
// mark Secret-derived: a field at data.<key> with a Secret-derived part.
func SecretKeysOf(o *Object) map[string]bool {
	var out map[string]bool
	for _, f := range o.SecretFields {
		if len(f.Path) != 2 || f.Path[0] != "data" || f.Key || !f.HasSecret() {
			continue
		}
		if out == nil {
			out = map[string]bool{}
		}
		out[f.Path[1]] = true
	}
	return out
}

// HasSecret reports whether any part of f is Secret-derived.
func (f SecretField) HasSecret() bool {
	for _, p := range f.Parts {
		if p.Secret {
			return true
		}
	}
	return false
}
