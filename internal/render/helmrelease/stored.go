package helmrelease

import (
	"encoding/json"
	"errors"
)

// storedSource is ChartSource with its unexported fields, as a stored graph keeps it.
type storedSource struct {
	InRepo        bool     `json:",omitempty"`
	Dir, Root     string   `json:",omitempty"`
	ValuesFiles   []string `json:",omitempty"`
	IgnoreMissing bool     `json:",omitempty"`
	HelmChart     string   `json:",omitempty"`
	Strategy      string   `json:",omitempty"`
}

// StoreInRepo returns the in-repo chart source cs as JSON, which LoadStored reads back so
// that a stored graph's chart can be loaded again from the same tree (LoadRepoChart); it
// is nil for a remote source, which only a pull gives.
func (cs ChartSource) StoreInRepo() json.RawMessage {
	if !cs.InRepo {
		return nil
	}
	data, err := json.Marshal(storedSource{cs.InRepo, cs.Dir, cs.root, cs.ValuesFiles, cs.ignoreMissing, cs.HelmChart, cs.Strategy})
	if err != nil {
		return nil
	}
	return data
}

// LoadStored is the in-repo ChartSource that StoreInRepo wrote; an error for anything else.
func LoadStored(data json.RawMessage) (ChartSource, error) {
	var s storedSource
	if err := json.Unmarshal(data, &s); err != nil {
		return ChartSource{}, err
	}
	if !s.InRepo {
		return ChartSource{}, errors.New("not an in-repo chart source")
	}
	return ChartSource{InRepo: true, Dir: s.Dir, root: s.Root, ValuesFiles: s.ValuesFiles, ignoreMissing: s.IgnoreMissing,
		HelmChart: s.HelmChart, Strategy: s.Strategy}, nil
}
