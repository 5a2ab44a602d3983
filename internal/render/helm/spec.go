package helm

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fluxcd/pkg/apis/kustomize"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// hrSpec is the part of a HelmRelease's spec (helm.toolkit.fluxcd.io/v2) that shapes the
// render; field names and defaults are api/v2/helmrelease_types.go's.
type hrSpec struct {
	Install struct {
		CRDs                    string `json:"crds"`
		DisableHooks            bool   `json:"disableHooks"`
		DisableSchemaValidation bool   `json:"disableSchemaValidation"`
		DisableTakeOwnership    bool   `json:"disableTakeOwnership"`
		CreateNamespace         bool   `json:"createNamespace"`
	} `json:"install"`
	TargetNamespace string `json:"targetNamespace"`
	PostRenderers   []struct {
		Kustomize *struct {
			Patches []kustomize.Patch `json:"patches"`
			Images  []kustomize.Image `json:"images"`
		} `json:"kustomize"`
	} `json:"postRenderers"`
	CommonMetadata *struct {
		Labels      map[string]string `json:"labels"`
		Annotations map[string]string `json:"annotations"`
	} `json:"commonMetadata"`
	PostRenderStrategy string `json:"postRenderStrategy"`
}

// Policies of spec.install.crds (api/v2 CRDsPolicy).
const (
	crdsSkip          = "Skip"
	crdsCreate        = "Create"
	crdsCreateReplace = "CreateReplace"
)

// specOf decodes the render fields of hr's spec. Fields are checked for type only: the
// HelmRelease's other fields do not matter here.
func specOf(hr *unstructured.Unstructured) (hrSpec, error) {
	var s hrSpec
	if raw, ok := hr.Object["spec"]; ok && raw != nil {
		b, err := json.Marshal(raw)
		if err != nil {
			return s, fmt.Errorf("spec: %w", err)
		}
		if err := json.Unmarshal(b, &s); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				return s, fmt.Errorf("spec.%s cannot be a %s", te.Field, te.Value)
			}
			return s, fmt.Errorf("spec: %w", err)
		}
	}
	switch s.Install.CRDs {
	case "":
		// internal/action/crds.go crdPolicyOrDefault: DefaultCRDPolicy is Create.
		s.Install.CRDs = crdsCreate
	case crdsSkip, crdsCreate, crdsCreateReplace:
	default:
		return s, fmt.Errorf("spec.install.crds: invalid CRD upgrade policy '%s', valid values are '%s', '%s' or '%s'",
			s.Install.CRDs, crdsSkip, crdsCreate, crdsCreateReplace)
	}
	switch s.PostRenderStrategy {
	case "":
		// internal/action/post_render.go toHelmPostRenderStrategy: Helm 4's combined.
		s.PostRenderStrategy = "combined"
	case "combined", "separate", "nohooks":
	default:
		return s, fmt.Errorf("spec.postRenderStrategy: unknown post-render strategy: '%s'", s.PostRenderStrategy)
	}
	return s, nil
}
