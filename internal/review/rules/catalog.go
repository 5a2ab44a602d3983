package rules

import (
	"strings"

	"github.com/tiergate/tiergate/internal/config"
)

// RuntimeKind is a kind whose CRD a controller creates at runtime, once an object of
// Trigger ("group/Kind") reconciles; no build in the graph contains that CRD.
type RuntimeKind struct {
	Group, Kind string
	Namespaced  bool
	Trigger     string
}

// Catalog indexes runtime kinds by "group/Kind".
type Catalog struct {
	kinds map[string]RuntimeKind
}

// Lookup returns the runtime kind of "group/Kind".
func (c *Catalog) Lookup(groupKind string) (RuntimeKind, bool) {
	if c == nil {
		return RuntimeKind{}, false
	}
	k, ok := c.kinds[groupKind]
	return k, ok
}

// defaultCatalog: CDI creates its CRDs when the CDI resource reconciles (cdi-operator);
// KubeVirt's virt-operator creates its CRDs when the KubeVirt resource reconciles.
var defaultCatalog = []config.RuntimeCRDs{
	{CreatedWhen: "cdi.kubevirt.io/CDI", Kinds: []config.RuntimeKind{
		{Group: "cdi.kubevirt.io", Kind: "StorageProfile", Scope: "Cluster"},
		{Group: "cdi.kubevirt.io", Kind: "CDIConfig", Scope: "Cluster"},
		{Group: "cdi.kubevirt.io", Kind: "ObjectTransfer", Scope: "Cluster"},
		{Group: "cdi.kubevirt.io", Kind: "DataVolume", Scope: "Namespaced"},
		{Group: "cdi.kubevirt.io", Kind: "DataSource", Scope: "Namespaced"},
		{Group: "cdi.kubevirt.io", Kind: "DataImportCron", Scope: "Namespaced"},
		{Group: "cdi.kubevirt.io", Kind: "VolumeImportSource", Scope: "Namespaced"},
		{Group: "cdi.kubevirt.io", Kind: "VolumeUploadSource", Scope: "Namespaced"},
		{Group: "cdi.kubevirt.io", Kind: "VolumeCloneSource", Scope: "Namespaced"},
	}},
	{CreatedWhen: "kubevirt.io/KubeVirt", Kinds: []config.RuntimeKind{
		{Group: "kubevirt.io", Kind: "VirtualMachine", Scope: "Namespaced"},
		{Group: "kubevirt.io", Kind: "VirtualMachineInstance", Scope: "Namespaced"},
		{Group: "kubevirt.io", Kind: "VirtualMachineInstanceReplicaSet", Scope: "Namespaced"},
		{Group: "kubevirt.io", Kind: "VirtualMachineInstancePreset", Scope: "Namespaced"},
		{Group: "kubevirt.io", Kind: "VirtualMachineInstanceMigration", Scope: "Namespaced"},
		{Group: "instancetype.kubevirt.io", Kind: "VirtualMachineInstancetype", Scope: "Namespaced"},
		{Group: "instancetype.kubevirt.io", Kind: "VirtualMachineClusterInstancetype", Scope: "Cluster"},
		{Group: "instancetype.kubevirt.io", Kind: "VirtualMachinePreference", Scope: "Namespaced"},
		{Group: "instancetype.kubevirt.io", Kind: "VirtualMachineClusterPreference", Scope: "Cluster"},
		{Group: "snapshot.kubevirt.io", Kind: "VirtualMachineSnapshot", Scope: "Namespaced"},
		{Group: "snapshot.kubevirt.io", Kind: "VirtualMachineRestore", Scope: "Namespaced"},
		{Group: "export.kubevirt.io", Kind: "VirtualMachineExport", Scope: "Namespaced"},
		{Group: "clone.kubevirt.io", Kind: "VirtualMachineClone", Scope: "Namespaced"},
		{Group: "pool.kubevirt.io", Kind: "VirtualMachinePool", Scope: "Namespaced"},
		{Group: "migrations.kubevirt.io", Kind: "MigrationPolicy", Scope: "Cluster"},
	}},
}

// NewCatalog returns the shipped catalog extended (or overridden, kind by kind) by the
// runtimeCRDs of .tiergate.yaml.
func NewCatalog(extra []config.RuntimeCRDs) *Catalog {
	c := &Catalog{kinds: map[string]RuntimeKind{}}
	for _, set := range append(append([]config.RuntimeCRDs(nil), defaultCatalog...), extra...) {
		for _, k := range set.Kinds {
			c.kinds[k.Group+"/"+k.Kind] = RuntimeKind{Group: k.Group, Kind: k.Kind, Namespaced: k.Scope == "Namespaced", Trigger: set.CreatedWhen}
		}
	}
	return c
}

// triggerID splits "group/Kind".
func triggerID(t string) (group, kind string) {
	i := strings.LastIndex(t, "/")
	return t[:i], t[i+1:]
}
