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
	"tier-move": {"TierMove",
		"An object's owner Kustomization changes.",
		"An object moves from one Flux Kustomization to another between base and head.",
		rules.Notice},
	"prune-transient": {"PruneTransient",
		"A moved object is pruned by its old owner before its new owner applies it.",
		"An object leaves an owner with prune: true (or an owner that is itself deleted or renamed, whose finalizer garbage-collects the inventory), is not annotated kustomize.toolkit.fluxcd.io/prune: disabled at base, and the new owner is not guaranteed to apply first. Certain when the new owner has a dependsOn path to the old one or is its descendant; a race when neither reaches the other. Also when the identity changes only through targetNamespace or namePrefix (a delete and a create). Error for Namespace, CustomResourceDefinition, PersistentVolumeClaim, PersistentVolume and StatefulSet.",
		rules.Warning},
	"destructive-prune": {"DestructivePrune",
		"An object removed from git is deleted by prune.",
		"An object is removed from git under prune: true, so Flux deletes it from the cluster. Error for Namespace, CustomResourceDefinition, PersistentVolumeClaim, PersistentVolume and StatefulSet; no severity for other kinds.",
		rules.Error},
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
	"depends-on-cycle": {"DependsOnCycle",
		"dependsOn edges form a cycle.",
		"spec.dependsOn edges form a cycle: none of the Kustomizations on it ever reconciles.",
		rules.Error},
	"duplicate-owner": {"DuplicateOwner",
		"Two Kustomizations emit the same object.",
		"Two Kustomizations of one cluster emit an object with the same group, kind, namespace and name: they overwrite each other and a prune by one deletes the other's object.",
		rules.Error},
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
		"${VAR} without a default operator, in a Kustomization whose postBuild resolves at least one variable, defined by neither substitute nor substituteFrom: since Flux 2.9 (StrictPostBuildSubstitutions on by default) the reconcile fails; before, it became an empty string. Use $${VAR} or substitute: disabled where the text is not meant for Flux. Warning with strictSubstitution: false.",
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
