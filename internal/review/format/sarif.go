package format

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/tiergate/tiergate/internal/review"
	"github.com/tiergate/tiergate/internal/review/rules"
)

const (
	sarifSchema = "https://json.schemastore.org/sarif-2.1.0.json"
	toolURI     = "https://github.com/tiergate/tiergate"
	rulesDocURI = "https://github.com/tiergate/tiergate/blob/main/docs/rules.md#"
)

// SARIF writes r as SARIF 2.1.0 for code scanning: one run, every rule described, one result
// per new or existing finding, ignored ones suppressed. Resolved findings are left out: they
// are no longer in the code.
func SARIF(w io.Writer, r *review.Report, version string) error {
	report, err := sarif.New(sarif.Version210)
	if err != nil {
		return err
	}
	report.Schema = sarifSchema
	run := sarif.NewRunWithInformationURI("tiergate", toolURI)
	run.Tool.Driver.WithVersion(version)
	for _, id := range ruleIDs() {
		run.Tool.Driver.AddRule(descriptor(id))
	}
	for _, f := range r.Findings {
		if f.Status == rules.StatusNew || f.Status == rules.StatusExisting {
			run.Tool.Driver.AddRule(descriptor(f.Rule)) // no-op for a known rule; keeps ruleIndex valid
			run.AddResult(result(f))
		}
	}
	// Ignored findings stay visible as suppressed results, SARIF's word for a finding a
	// configuration outside the source accepted.
	for _, ig := range r.Ignored {
		if ig.Status == rules.StatusNew || ig.Status == rules.StatusExisting {
			run.Tool.Driver.AddRule(descriptor(ig.Rule))
			res := result(ig.Finding)
			why := "ignored by " + ig.IgnoredBy
			if ig.Reason != "" {
				why = ig.Reason + " (" + why + ")"
			}
			res.AddSuppression(suppression(ig, why))
			run.AddResult(res)
		}
	}
	report.AddRun(run)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(report)
}

func ruleIDs() []string {
	var ids []string
	for _, r := range rules.State {
		ids = append(ids, r.ID)
	}
	for _, r := range rules.Change {
		ids = append(ids, r.ID)
	}
	return ids
}

func descriptor(id string) *sarif.ReportingDescriptor {
	d, ok := ruleDocs[id]
	if !ok {
		d = ruleDoc{name: id, short: id, full: id, level: rules.Error}
	}
	return sarif.NewRule(id).
		WithName(d.name).
		WithShortDescription(sarif.NewMultiformatMessageString(d.short)).
		WithFullDescription(sarif.NewMultiformatMessageString(d.full)).
		WithDefaultConfiguration(sarif.NewReportingConfiguration().WithLevel(level(d.level))).
		WithHelpURI(rulesDocURI + id)
}

func result(f rules.Finding) *sarif.Result {
	text := f.Message
	if f.Suggestion != "" {
		text += "\n" + f.Suggestion
	}
	res := sarif.NewRuleResult(f.Rule).
		WithLevel(level(f.Severity)).
		WithMessage(sarif.NewTextMessage(text)).
		WithPartialFingerPrints(map[string]interface{}{"tiergate/v1": fingerprint(f)})
	// SARIF's own words for "introduced by this change" and "already at base".
	if f.Status == rules.StatusNew {
		res.WithBaselineState("new")
	} else {
		res.WithBaselineState("unchanged")
	}
	if f.File != "" {
		loc := sarif.NewPhysicalLocation().
			WithArtifactLocation(sarif.NewSimpleArtifactLocation(f.File).WithUriBaseId("%SRCROOT%")).
			WithRegion(sarif.NewRegion().WithStartLine(max(f.Line, 1)))
		res.AddLocation(sarif.NewLocationWithPhysicalLocation(loc))
	}
	object := ""
	if f.Object != nil {
		object = f.Object.String()
	}
	res.Properties = sarif.Properties{
		"status": string(f.Status), "cluster": f.Cluster, "kustomization": f.Kustomization, "object": object,
	}
	return res
}

// suppression describes an ignored finding. go-sarif v2 writes an unset location or guid as
// null, which the SARIF 2.1.0 schema refuses (code scanning validates uploads against it),
// so both are always set: the location is the ignore entry (IgnoredBy, "file:line"), the
// guid a UUID (version 5) of the finding's fingerprint and that entry, stable across runs.
func suppression(ig review.IgnoredFinding, why string) *sarif.Suppression {
	file, line := ig.IgnoredBy, 0
	if i := strings.LastIndexByte(file, ':'); i > 0 {
		if n, err := strconv.Atoi(file[i+1:]); err == nil {
			file, line = file[:i], n
		}
	}
	art := sarif.NewSimpleArtifactLocation(filepath.ToSlash(file))
	if !filepath.IsAbs(file) {
		art.WithUriBaseId("%SRCROOT%")
	}
	loc := sarif.NewPhysicalLocation().WithArtifactLocation(art)
	if line > 0 {
		loc.WithRegion(sarif.NewRegion().WithStartLine(line))
	}
	guid := uuid.NewSHA1(uuid.NameSpaceURL, []byte(toolURI+"#"+fingerprint(ig.Finding)+"@"+ig.IgnoredBy))
	return sarif.NewSuppression("external").WithStatus("accepted").WithJustifcation(why).
		WithLocation(sarif.NewLocationWithPhysicalLocation(loc)).WithGuid(guid.String())
}

// fingerprint follows the finding across commits, as its Key does between base and head.
func fingerprint(f rules.Finding) string {
	sum := sha256.Sum256([]byte(f.Key()))
	return hex.EncodeToString(sum[:])
}

func level(s rules.Severity) string {
	switch s {
	case rules.Error:
		return "error"
	case rules.Warning:
		return "warning"
	case rules.Notice:
		return "note"
	}
	return "none"
}

type ruleDoc struct {
	name, short, full string
	level             rules.Severity
}

// ruleDocs describes each rule as DESIGN.md's rule table does; level is the default severity.
var ruleDocs = map[string]ruleDoc{
	"chart-version-unchanged": {"ChartVersionUnchanged",
		"An in-repo chart changes without a version bump, so the release keeps the chart it has.",
		"A HelmRelease's Git or Bucket chart changes but Chart.yaml's version does not: under reconcileStrategy ChartVersion (the default) source-controller repackages the chart only when its version changes, so the change is not released.",
		rules.Warning},
	"helm-render-approximate": {"HelmRenderApproximate",
		"A HelmRelease renders offline with assumptions.",
		"A HelmRelease's chart calls lookup or time, random or key functions, reads valuesFrom Secrets (rendered from placeholders), has a values.schema.json $ref that is not read, or renders a kind of unknown scope (taken as namespaced): its objects may differ in the cluster.",
		rules.Notice},
	"tier-move": {"TierMove",
		"An object's owner Kustomization changes.",
		"An object moves from one Flux Kustomization to another between base and head.",
		rules.Notice},
	"prune-transient": {"PruneTransient",
		"A moved object is pruned by its old owner before its new owner applies it.",
		"An object leaves an owner with prune: true (or an owner that is itself deleted or renamed, whose finalizer garbage-collects the inventory), is not annotated kustomize.toolkit.fluxcd.io/prune: disabled at base, and the new owner is not guaranteed to apply first. Certain when the new owner has a dependsOn path to the old one or is its descendant; a race when neither reaches the other. Also when the identity changes only through targetNamespace or namePrefix (a delete and a create), and for moves into a chart (the old Kustomization's garbage collection deletes it: Helm keeps its labels) or out of one (the old release's upgrade deletes it). Error for Namespace, CustomResourceDefinition, PersistentVolumeClaim, PersistentVolume, StatefulSet, database custom resources, Kustomizations and HelmReleases.",
		rules.Warning},
	"destructive-prune": {"DestructivePrune",
		"An object removed from git is deleted by prune or by its release's upgrade.",
		"An object is removed from git under prune: true (or from a chart whose release upgrades), so Flux deletes it from the cluster. Error for Namespace, CustomResourceDefinition, PersistentVolumeClaim, PersistentVolume, StatefulSet and database custom resources (CloudNativePG Cluster, PostgresCluster, ...); a notice for a volume whose reclaim policy is Retain; no severity for other kinds.",
		rules.Error},
	"helm-uninstall": {"HelmUninstall",
		"helm-controller uninstalls a release: a HelmRelease is removed, or its release name or namespace changes.",
		"A HelmRelease is removed under garbage collection, or its release name, target namespace or storage namespace changes: helm-controller uninstalls the release and deletes every object of it not annotated helm.sh/resource-policy: keep. Error when it deletes an object the change applies from another owner, or a PersistentVolumeClaim, StatefulSet, Namespace or CRD; warning otherwise.",
		rules.Warning},
	"values-from-not-found": {"ValuesFromNotFound",
		"A HelmRelease's valuesFrom ConfigMap or Secret is removed by the change.",
		"A HelmRelease's spec.valuesFrom entry (not optional) names a ConfigMap or Secret of its namespace that the base graph has and the head graph has nowhere (removed, pruned, moved out of the cluster): helm-controller fails to compose the values (ValuesError) and never installs or upgrades the release until it exists.",
		rules.Error},
	"substitute-from-not-found": {"SubstituteFromNotFound",
		"A Kustomization's postBuild.substituteFrom ConfigMap or Secret is removed by the change.",
		"A Kustomization's spec.postBuild.substituteFrom entry (not optional) names a ConfigMap or Secret of its namespace that the base graph has and the head graph has nowhere (renamed, removed, moved out of the cluster): kustomize-controller fails loading the variables (\"substitute from 'ConfigMap/<name>' error: ... not found\") and applies nothing until it exists. Error when the object's owner prunes it; warning when none does (running clusters keep it, a new cluster fails).",
		rules.Error},
	"root-path-changed": {"RootPathChanged",
		"A cluster's root now applies another cluster's root folder, or moves to a new folder while the old one is gone.",
		"A cluster's root (its FluxInstance's spec.sync.path or its bootstrap Kustomization's spec.path) changes to a folder that holds another cluster's root, while the cluster's own definition stays outside it: the cluster keeps its identity and reconciles that folder's graph, and its root's garbage collection deletes what it applied before that the new folder does not build (its FluxInstance among them: flux-operator then uninstalls Flux). Or the root moves with its definition into a new folder and the old folder is gone: the root object in the cluster keeps the old path, fails with 'kustomization path not found' and never applies the moved root.",
		rules.Error},
	"flux-component-removed": {"FluxComponentRemoved",
		"A FluxInstance stops installing a Flux controller whose objects the cluster still has.",
		"A component (helm-controller, kustomize-controller, source-controller, ...) leaves a FluxInstance's spec.components while the cluster still has objects of the kinds it serves (HelmReleases for helm-controller): flux-operator garbage-collects the controller and its CRDs, deleting a CRD deletes all its objects, and they wait on a finalizer no controller removes any more; they are never reconciled again.",
		rules.Error},
	"crd-not-upgraded": {"CRDNotUpgraded",
		"A chart change modifies a CRD in crds/ that the upgrade does not apply.",
		"A chart change modifies a CustomResourceDefinition of the chart's crds/ while the HelmRelease's spec.upgrade.crds is Create (the default) or Skip: clusters that run the release keep the old CRD. Error at a custom resource whose apiVersion only the new CRD serves (or that a chart kept without a version bump does not bring): its Kustomization's dry-run fails on those clusters; warning otherwise.",
		rules.Warning},
	"patch-target-lost": {"PatchTargetLost",
		"A kustomize patch whose target selected objects at base selects none at head.",
		"A kustomize patches entry with a target selector (in a kustomization.yaml the build reads, or a Flux Kustomization's spec.patches) selected at least one object at the base commit and selects none at head: kustomize applies a patch whose target selects nothing to nothing, without an error (PatchTransformer over ResMap.Select), so the object it patched (often renamed by the change) ships without it.",
		rules.Warning},
	"missing-depends-on": {"MissingDependsOn",
		"A Kustomization needs what another provides but has no dependsOn path to it.",
		"An object in Kustomization B needs something that only Kustomization A provides and B has no dependsOn path to A: the CRD of its kind, its Namespace, a substituteFrom ConfigMap or Secret (not optional), a Flux sourceRef or chartRef, a StorageClass (and CDI StorageProfile) named by a PVC or DataVolume, a cert-manager issuer, a Gateway or GatewayClass, or a runtime CRD. Error when the apply fails, warning when the object stays unhealthy.",
		rules.Error},
	"runtime-crd-same-pass": {"RuntimeCRDSamePass",
		"A custom resource shares a Kustomization with what makes a controller create its CRD.",
		"A custom resource whose CRD is created at runtime by a controller (not present in any build) shares a Kustomization with the resource that makes the controller create it: the dry-run of the unknown kind aborts the whole Kustomization, forever.",
		rules.Error},
	"depends-on-not-found": {"DependsOnNotFound",
		"dependsOn names a Kustomization absent from the cluster.",
		"spec.dependsOn names a Kustomization absent from the cluster's graph: the dependent never becomes ready.",
		rules.Error},
	"health-check-not-found": {"HealthCheckNotFound",
		"A healthChecks entry names an object nothing in the cluster creates.",
		"A Kustomization's spec.healthChecks entry names an object that no Kustomization or rendered chart of the cluster creates (namespace taken as written, apiVersion matched by group): kustomize-controller waits for it until the timeout with status NotFound, so the Kustomization never becomes Ready and its dependents wait forever. A notice when part of the cluster is not rendered.",
		rules.Error},
	"source-not-found": {"SourceNotFound",
		"A sourceRef or chartRef names a Flux source nothing in the cluster creates.",
		"A Kustomization's spec.sourceRef, a HelmRelease's spec.chart.spec.sourceRef or spec.chartRef names a source (namespace defaulting to the referrer's) that no Kustomization or rendered chart of the cluster creates, that is not the root's source and that no ArtifactGenerator makes: kustomize-controller stops with 'Source ... not found' and retries, helm-controller never installs or upgrades the release. A notice when part of the cluster is not rendered.",
		rules.Error},
	"missing-crd": {"MissingCRD",
		"An object's kind is served by no CRD of the cluster.",
		"An object's kind is not built in, and no Kustomization or rendered chart of the cluster installs its CRD, no runtime-catalog trigger is in the cluster and .tiergate.yaml does not declare it preinstalled: the Kustomization's dry-run (or, for an object a chart renders, the HelmRelease's install) fails with 'no matches for kind' on every cluster built from the repository. A notice when part of the cluster is not rendered.",
		rules.Error},
	"target-namespace-renames-namespace": {"TargetNamespaceRenamesNamespace",
		"targetNamespace renames a Namespace object to the target.",
		"A Namespace object in a Kustomization with spec.targetNamespace is renamed to the target namespace by kustomize's namespace transformer: the Namespace in the file is never created, and the Kustomization owns (and may prune) the target Namespace instead.",
		rules.Error},
	"invalid-name": {"InvalidName",
		"An object's name is one the API server refuses for its kind.",
		"An object's metadata.name, often after postBuild substitution, is not valid for its kind (a DNS-1123 subdomain for most kinds, a DNS-1123 label for Namespace, a DNS-1035 label for Service, a path segment for RBAC kinds; never empty): the dry-run fails and the Kustomization's apply, or the HelmRelease's install, fails on every reconcile.",
		rules.Error},
	"invalid-spec": {"InvalidSpec",
		"An object breaks the schema the API server validates it against.",
		"A HelmRelease breaks its CRD's OpenAPI constraints (releaseName over 53 characters, an interval that is no duration, values that are no object, an enum value not allowed), or a built-in kind has a field of the wrong type (replicas: \"three\"): the API server rejects it, so the Kustomization's dry-run, or the HelmRelease's install, fails on every reconcile.",
		rules.Error},
	"depends-on-cycle": {"DependsOnCycle",
		"dependsOn edges form a cycle.",
		"spec.dependsOn edges (of Kustomizations, HelmReleases, or both through a wait) form a cycle: on a new cluster no member is ever applied; on a running cluster the members keep what they applied, and deadlock at the next revision of a source they share, or once one of them is not Ready.",
		rules.Error},
	"duplicate-owner": {"DuplicateOwner",
		"Two Kustomizations emit the same object.",
		"Two Kustomizations of one cluster, a Kustomization and a chart, or two charts emit an object with the same group, kind, namespace and name (or a renamed Kustomization whose parent keeps the old one): they overwrite each other and a prune, upgrade or uninstall by one deletes the other's object.",
		rules.Error},
	"helm-render-error": {"HelmRenderError",
		"A HelmRelease's chart fails to render.",
		"A HelmRelease's chart fails to render as helm-controller renders it (required/fail, kubeVersion, schema, a post-renderer patch that cannot apply, duplicate objects): its install or upgrade fails and the release keeps what it has.",
		rules.Error},
	"release-collision": {"ReleaseCollision",
		"Two HelmReleases manage the same Helm release.",
		"Two HelmReleases have the same release name in the same storage namespace: each upgrades the other's release to its own chart and values on every reconcile (helm-controller#284).",
		rules.Error},
	"runtime-namespace-same-pass": {"RuntimeNamespaceSamePass",
		"An object shares a Kustomization with the HelmRelease whose chart creates its Namespace.",
		"An object is in a Namespace that only a HelmRelease's chart creates (install.createNamespace with targetNamespace, or a template), in the same Kustomization as that HelmRelease: the dry-run fails on the missing Namespace, the HelmRelease is never applied, the Namespace never created (kustomize-controller#511).",
		rules.Error},
	"namespace-for-release": {"NamespaceForRelease",
		"A HelmRelease installs into a Namespace nothing creates.",
		"A HelmRelease's targetNamespace (without install.createNamespace), or a namespace its chart's objects name, is created by nothing in the cluster's graph: Helm's install fails with 'namespaces not found'.",
		rules.Error},
	"missing-namespace": {"MissingNamespace",
		"A Kustomization applies objects in a Namespace nothing creates.",
		"A Kustomization applies objects in a Namespace that no Kustomization, chart or install.createNamespace of the cluster creates: its dry-run fails with 'namespaces not found' on every cold cluster and applies nothing.",
		rules.Error},
	"postrender-patch-unmatched": {"PostrenderPatchUnmatched",
		"A HelmRelease's post-renderer patch selects nothing.",
		"A spec.postRenderers kustomize patch's target selects no object of the rendered chart: kustomize applies it to nothing without an error, so the release installs unpatched.",
		rules.Warning},
	"config-error": {"ConfigError",
		"The head's .tiergate.yaml cannot be used.",
		"The head's .tiergate.yaml cannot be read or is invalid, so the review ran with the base's configuration or the defaults.",
		rules.Error},
	"render-error": {"RenderError",
		"A Kustomization fails to build at head.",
		"A Kustomization fails to build at head (kustomize build or postBuild substitution), so Flux cannot apply it.",
		rules.Error},
	"undefined-variable": {"UndefinedVariable",
		"A ${VAR} without default is defined neither by substitute nor by substituteFrom.",
		"${VAR} without a default operator, in a Kustomization whose postBuild resolves at least one variable, defined by neither substitute nor substituteFrom: since Flux 2.9 (StrictPostBuildSubstitutions on by default) the reconcile fails; before, it became an empty string. Use $${VAR} or substitute: disabled where the text is not meant for Flux. Warning with strictSubstitution: false, or on a cluster whose manifests state a Flux version before 2.9 (FluxInstance distribution.version, gotk-components.yaml header, kustomize-controller image).",
		rules.Error},
	"substitution-type-change": {"SubstitutionTypeChange",
		"postBuild substitution turns a string field into a number, boolean or null.",
		"Flux substitutes an object's YAML text and parses it again, so a quoted \"${ONE}\" with ONE=1 becomes the integer 1. Error where the field is a string by its type (metadata names, labels, annotations, ConfigMap/Secret data, container image, env value, command, args): the dry-run fails with 'expected string'. Warning where the manifest quotes the expression in a field of unknown type. Fix: ${quote}${ONE}${quote} with quote: '\"'.",
		rules.Error},
	"unsubstituted-variable": {"UnsubstitutedVariable",
		"A ${VAR} ships literally because substitution does not run.",
		"${VAR} (defaults included) ships literally: the Kustomization has no postBuild, or its postBuild resolves no variable at all and substituteStrategy is not Always.",
		rules.Warning},
	"missing-wait": {"MissingWait",
		"A dependency is Ready before the runtime resource its dependents need exists.",
		"Kustomization B needs something that A's controllers create at runtime (a runtime CRD, a HelmRelease's CRDs) and B's dependsOn path reaches A, but A has neither wait: true nor a healthCheck covering it: A is Ready as soon as it has applied, before the thing exists.",
		rules.Warning},
	"namespace-not-set": {"NamespaceNotSet",
		"A namespaced object renders with no namespace.",
		"A namespaced kind (built-in, or a CRD with scope: Namespaced in the graph) renders with no namespace and no targetNamespace: the dry-run fails with 'namespace not specified' and the whole Kustomization stops.",
		rules.Error},
}
