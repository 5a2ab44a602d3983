package sandbox

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"fmt"
	"io"
	"math"
	"time"

	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/helm"
	"github.com/tiergate/tiergate/internal/render/typedvalue"
)

func init() {
	// Chart.yaml's dependencies[].import-values holds strings and maps behind any.
	gob.Register(map[string]any{})
	gob.Register([]any{})
}

// A frame is a 4-byte big-endian length and that many bytes of one gob value. The length
// comes first so that the parent refuses an oversized response before reading it.
const frameHeader = 4

// errFrameTooBig reports a frame longer than the reader accepts.
type errFrameTooBig struct{ size, max int64 }

func (e *errFrameTooBig) Error() string {
	return fmt.Sprintf("frame of %d bytes exceeds %d", e.size, e.max)
}

func encodeFrame(v any) ([]byte, error) {
	var buf bytes.Buffer
	buf.Write(make([]byte, frameHeader))
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return nil, err
	}
	n := buf.Len() - frameHeader
	if n > math.MaxUint32 {
		return nil, &errFrameTooBig{int64(n), math.MaxUint32}
	}
	b := buf.Bytes()
	binary.BigEndian.PutUint32(b, uint32(n))
	return b, nil
}

// readFrame decodes one frame into v. It returns io.EOF only at a frame boundary.
func readFrame(r io.Reader, max int64, v any) error {
	var h [frameHeader]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return err
	}
	n := int64(binary.BigEndian.Uint32(h[:]))
	if n > max {
		return &errFrameTooBig{n, max}
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	return gob.NewDecoder(bytes.NewReader(body)).Decode(v)
}

// wireRequest is Request on the wire.
type wireRequest struct {
	// Timeout makes the worker exit by itself past the parent's deadline, should the
	// parent be gone.
	Timeout     time.Duration
	Chart       *wireChart
	HelmRelease value // its Object; typedvalue.Nil for no object
	Values      value
	KubeVersion string
	APIVersions []string
	Seen        *helm.Release
}

// wireChart is a chart and its dependencies; chart.Chart keeps them unexported.
type wireChart struct {
	Raw           []*common.File
	Metadata      *chart.Metadata
	Lock          *chart.Lock
	Templates     []*common.File
	Values        value
	Schema        []byte
	SchemaModTime time.Time
	Files         []*common.File
	ModTime       time.Time
	Dependencies  []*wireChart
}

// wireResponse is a Result or a render error.
type wireResponse struct {
	Err         string // the render's error text; the chart failed
	Failed      bool
	NoResult    bool // render returned a nil Result
	Docs        []wireDoc
	DocsNil     bool
	Approximate []string
	ApproxNil   bool
	Unmatched   []helm.UnmatchedPatch
	SkippedCRDs []string
}

type wireDoc struct {
	Object   value
	Template string
	Hook     string
	CRD      bool
}

func encodeRequest(req helm.Request, timeout time.Duration) (*wireRequest, error) {
	w := &wireRequest{Timeout: timeout, KubeVersion: req.KubeVersion, APIVersions: req.APIVersions, Seen: req.Seen, HelmRelease: value{K: typedvalue.Nil}}
	var err error
	if req.Chart != nil {
		if w.Chart, err = encodeChart(req.Chart); err != nil {
			return nil, err
		}
	}
	if req.HelmRelease != nil {
		if w.HelmRelease, err = encodeValue("helmRelease", req.HelmRelease.Object); err != nil {
			return nil, err
		}
	}
	if w.Values, err = encodeValue("values", req.Values); err != nil {
		return nil, err
	}
	return w, nil
}

func encodeChart(c *chart.Chart) (*wireChart, error) {
	vals, err := encodeValue("chart "+c.Name()+" values", c.Values)
	if err != nil {
		return nil, err
	}
	w := &wireChart{
		Raw: c.Raw, Metadata: c.Metadata, Lock: c.Lock, Templates: c.Templates, Values: vals,
		Schema: c.Schema, SchemaModTime: c.SchemaModTime, Files: c.Files, ModTime: c.ModTime,
	}
	for _, d := range c.Dependencies() {
		wd, err := encodeChart(d)
		if err != nil {
			return nil, err
		}
		w.Dependencies = append(w.Dependencies, wd)
	}
	return w, nil
}

func (w *wireRequest) decode() helm.Request {
	req := helm.Request{KubeVersion: w.KubeVersion, APIVersions: w.APIVersions, Seen: w.Seen}
	if w.Chart != nil {
		req.Chart = w.Chart.decode()
	}
	if w.HelmRelease.K != typedvalue.Nil {
		obj, _ := decodeValue(w.HelmRelease).(map[string]any)
		req.HelmRelease = &unstructured.Unstructured{Object: obj}
	}
	req.Values, _ = decodeValue(w.Values).(map[string]any)
	return req
}

func (w *wireChart) decode() *chart.Chart {
	c := &chart.Chart{
		Raw: w.Raw, Metadata: w.Metadata, Lock: w.Lock, Templates: w.Templates,
		Schema: w.Schema, SchemaModTime: w.SchemaModTime, Files: w.Files, ModTime: w.ModTime,
	}
	c.Values, _ = decodeValue(w.Values).(map[string]any)
	for _, d := range w.Dependencies {
		c.AddDependency(d.decode())
	}
	return c
}

func encodeResponse(res *helm.Result, renderErr error) (*wireResponse, error) {
	if renderErr != nil {
		return &wireResponse{Failed: true, Err: renderErr.Error()}, nil
	}
	if res == nil {
		return &wireResponse{NoResult: true}, nil
	}
	w := &wireResponse{DocsNil: res.Docs == nil, Approximate: res.Approximate, ApproxNil: res.Approximate == nil, Unmatched: res.UnmatchedPatches, SkippedCRDs: res.SkippedCRDs}
	for i, d := range res.Docs {
		obj, err := encodeValue(fmt.Sprintf("docs[%d]", i), d.Object)
		if err != nil {
			return nil, err
		}
		w.Docs = append(w.Docs, wireDoc{Object: obj, Template: d.Template, Hook: d.Hook, CRD: d.CRD})
	}
	return w, nil
}

func (w *wireResponse) decode() *helm.Result {
	if w.NoResult {
		return nil
	}
	res := &helm.Result{Approximate: w.Approximate, UnmatchedPatches: w.Unmatched, SkippedCRDs: w.SkippedCRDs}
	if !w.ApproxNil && res.Approximate == nil {
		res.Approximate = []string{}
	}
	if !w.DocsNil {
		res.Docs = make([]helm.Doc, 0, len(w.Docs))
	}
	for _, d := range w.Docs {
		obj, _ := decodeValue(d.Object).(map[string]any)
		res.Docs = append(res.Docs, helm.Doc{Object: obj, Template: d.Template, Hook: d.Hook, CRD: d.CRD})
	}
	return res
}
