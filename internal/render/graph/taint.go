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

// SecretCopies is implemented by a client of a cluster's rendered ConfigMaps and Secrets
// (render/kustomize Store.Client) that knows the cluster's Secret values: a text written
// by hand equal to one (a ConfigMap key, a HelmRelease's inline value) is a copy of it,
// and what it feeds is Secret-derived.
type SecretCopies interface {
	// IsSecretValue reports whether s equals a value of a Secret of the cluster (data
	// decoded or as written, stringData), of 4 bytes or more and not word-shaped (the
	// bound and shape of render/kustomize MarkBuildSecrets: a word equal to a Secret value
	// is taken for the word).
	IsSecretValue(s string) bool
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
