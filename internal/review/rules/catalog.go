package rules

import (
	"sort"
	"strings"

	"github.com/tiergate/tiergate/internal/config"
)

// RuntimeKind is a kind whose CRD a controller creates at runtime, once an object of
// Trigger ("group/Kind") reconciles — for a HelmRelease, one of chart Chart; no build in
// the graph contains that CRD. Scope is unknown for kinds known only by their group.
type RuntimeKind struct {
	Group, Kind string
	Namespaced  bool
	ScopeKnown  bool
	Trigger     string
	Chart       string
	// HelmRelease ("namespace/name"), when set, is the one HelmRelease whose rendered chart
	// ships the CRD: only it triggers the kind.
	HelmRelease string
}

// TriggerName describes the trigger for messages: "cdi.kubevirt.io/CDI" or
// "HelmRelease of chart cert-manager".
func (k RuntimeKind) TriggerName() string {
	if k.HelmRelease != "" {
		return "HelmRelease " + k.HelmRelease + " (chart " + k.Chart + ")"
	}
	if k.Chart != "" {
		return "HelmRelease of chart " + k.Chart
	}
	return k.Trigger
}

// FromCatalog reports whether k is a catalog chart entry (a chart's CRDs known by name,
// not by a render): true for a HelmRelease whose chart was not rendered.
func (k RuntimeKind) FromCatalog() bool { return k.Chart != "" && k.HelmRelease == "" }

// basis is what a message says, after sep, of a finding that rests on the catalog's chart
// entry; "" for any other.
func (k RuntimeKind) basis(sep string) string {
	if k.FromCatalog() {
		return sep + "based on the chart catalog: the chart was not rendered"
	}
	return ""
}

// Catalog indexes runtime kinds by "group/Kind", and by group for chart-installed CRDs.
type Catalog struct {
	kinds  map[string]RuntimeKind
	groups map[string]RuntimeKind
	// groupCharts lists, per group, every chart of the catalog that installs its CRDs
	// (groups keeps one of them).
	groupCharts map[string][]RuntimeKind
	// preinstalled groups have their CRDs before Flux runs.
	preinstalled map[string]bool
}

// Preinstalled reports whether the CRDs of group exist before Flux reconciles anything.
func (c *Catalog) Preinstalled(group string) bool { return c != nil && c.preinstalled[group] }

// Lookup returns the runtime kind of "group/Kind".
func (c *Catalog) Lookup(groupKind string) (RuntimeKind, bool) {
	if c == nil {
		return RuntimeKind{}, false
	}
	if group, _ := triggerID(groupKind); c.preinstalled[group] {
		return RuntimeKind{}, false
	}
	if k, ok := c.kinds[groupKind]; ok {
		return k, true
	}
	group, kind := triggerID(groupKind)
	if k, ok := c.groups[group]; ok {
		k.Kind = kind
		return k, true
	}
	return RuntimeKind{}, false
}

// Providers returns every catalog entry that creates the CRD of "group/Kind" at runtime:
// its kind entry, and each chart entry of its group; none when the group is preinstalled.
func (c *Catalog) Providers(groupKind string) []RuntimeKind {
	if c == nil {
		return nil
	}
	group, kind := triggerID(groupKind)
	if c.preinstalled[group] {
		return nil
	}
	var out []RuntimeKind
	if k, ok := c.kinds[groupKind]; ok {
		out = append(out, k)
	}
	for _, k := range c.groupCharts[group] {
		k.Kind = kind
		out = append(out, k)
	}
	return out
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
// runtimeCRDs of .tiergate.yaml, less the preinstalled CRDs.
func NewCatalog(extra []config.RuntimeCRDs, pre ...config.Preinstalled) *Catalog {
	c := &Catalog{kinds: map[string]RuntimeKind{}, groups: map[string]RuntimeKind{}, groupCharts: map[string][]RuntimeKind{}, preinstalled: map[string]bool{}}
	for _, p := range pre {
		for _, g := range p.Groups {
			c.preinstalled[g] = true
		}
		for _, ch := range p.Charts {
			for _, g := range chartGroups[ch] {
				c.preinstalled[g] = true
			}
		}
	}
	all := append(append(append([]config.RuntimeCRDs(nil), defaultCatalog...), chartCatalog()...), extra...)
	for _, set := range all {
		for _, k := range set.Kinds {
			c.kinds[k.Group+"/"+k.Kind] = RuntimeKind{Group: k.Group, Kind: k.Kind, Namespaced: k.Scope == "Namespaced",
				ScopeKnown: true, Trigger: set.CreatedWhen, Chart: set.Chart}
		}
		for _, g := range set.Groups {
			c.groups[g] = RuntimeKind{Group: g, Trigger: set.CreatedWhen, Chart: set.Chart}
			c.groupCharts[g] = append(c.groupCharts[g], c.groups[g])
		}
	}
	return c
}

// chartGroups lists well-known Helm charts and the API groups of the CRDs they install
// (helm-controller applies a chart's CRDs when the HelmRelease installs: install.crds).
var chartGroups = map[string][]string{
	"cert-manager":                    {"cert-manager.io", "acme.cert-manager.io"},
	"kube-prometheus-stack":           {"monitoring.coreos.com"},
	"prometheus-operator-crds":        {"monitoring.coreos.com"},
	"external-secrets":                {"external-secrets.io", "generators.external-secrets.io"},
	"cloudnative-pg":                  {"postgresql.cnpg.io"},
	"rook-ceph":                       {"ceph.rook.io", "objectbucket.io"},
	"longhorn":                        {"longhorn.io"},
	"traefik":                         {"traefik.io", "traefik.containo.us"},
	"cilium":                          {"cilium.io"},
	"kyverno":                         {"kyverno.io"},
	"volsync":                         {"volsync.backube"},
	"snapshot-controller":             {"snapshot.storage.k8s.io", "groupsnapshot.storage.k8s.io"},
	"external-dns":                    {"externaldns.k8s.io"},
	"gateway-helm":                    {"gateway.envoyproxy.io"},
	"grafana-operator":                {"grafana.integreatly.org"},
	"victoria-metrics-operator":       {"operator.victoriametrics.com"},
	"keda":                            {"keda.sh", "eventing.keda.sh"},
	"velero":                          {"velero.io"},
	"metallb":                         {"metallb.io"},
	"node-feature-discovery":          {"nfd.k8s-sigs.io"},
	"tigera-operator":                 {"operator.tigera.io", "crd.projectcalico.org"},
	"crossplane":                      {"pkg.crossplane.io", "apiextensions.crossplane.io"},
	"gha-runner-scale-set-controller": {"actions.github.com"},
	// home-operations/kopiur deploy/helm/kopiur/crds/*.yaml: every CRD is *.kopiur.home-operations.com.
	"kopiur": {"kopiur.home-operations.com"},
}

func chartCatalog() []config.RuntimeCRDs {
	var out []config.RuntimeCRDs
	for chart, groups := range chartGroups {
		out = append(out, config.RuntimeCRDs{CreatedWhen: "helm.toolkit.fluxcd.io/HelmRelease", Chart: chart, Groups: groups})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Chart < out[j].Chart })
	return out
}

// triggerID splits "group/Kind".
func triggerID(t string) (group, kind string) {
	i := strings.LastIndex(t, "/")
	return t[:i], t[i+1:]
}

// ChartGroups returns the API groups of the CRDs the chart catalog knows chart installs;
// nil for a chart it does not know.
func ChartGroups(chart string) []string { return chartGroups[chart] }
