package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"

	"github.com/tiergate/tiergate/internal/render/helm"
)

func TestValueRoundTrip(t *testing.T) {
	in := map[string]any{
		"nil": nil, "bool": true, "string": "x", "number": json.Number("1e3"),
		"int": 1, "int32": int32(-2), "int64": int64(1000000), "uint64": uint64(1 << 63),
		"float32": float32(0.25), "float64": 1e6,
		"list": []any{nil, "a", []any{}}, "nilList": []any(nil),
		"strings": []string{"a"}, "emptyStrings": []string{}, "nilStrings": []string(nil),
		"map": map[string]any{"empty": map[string]any{}}, "nilMap": map[string]any(nil),
		"values": common.Values{"k": "v"},
	}
	v, err := encodeValue("values", in)
	if err != nil {
		t.Fatal(err)
	}
	frame, err := encodeFrame(v)
	if err != nil {
		t.Fatal(err)
	}
	var back value
	if err := readFrame(bytes.NewReader(frame), int64(len(frame)), &back); err != nil {
		t.Fatal(err)
	}
	// cmp tells nil from empty slices and maps, and int64 from float64.
	if diff := cmp.Diff(in, decodeValue(back)); diff != "" {
		t.Errorf("round trip (-in +out):\n%s", diff)
	}
}

func TestValueUnsupported(t *testing.T) {
	_, err := encodeValue("values", map[string]any{"a": []any{1, make(chan int)}})
	want := `value at "values.a[1]" has type chan int, which cannot be sent to the worker`
	if errText(err) != want {
		t.Errorf("error = %v, want %q", err, want)
	}
	p := NewPool(Options{Command: []string{"/nonexistent"}})
	defer p.Close()
	_, err = p.Render(context.Background(), helm.Request{Chart: appChart(t, "app"), Values: map[string]any{"t": time.Second}})
	want = `chart app: value at "values.t" has type time.Duration, which cannot be sent to the worker`
	if errText(err) != want {
		t.Errorf("Render error = %v, want %q", err, want)
	}
	if n := p.Started(); n != 0 {
		t.Errorf("started %d workers for a request that cannot be sent", n)
	}
}

func TestChartRoundTrip(t *testing.T) {
	in := appChart(t, "app")
	in.Lock = &chart.Lock{Digest: "sha256:0", Generated: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	in.Metadata.Dependencies = []*chart.Dependency{{Name: "sub", Version: "1.0.0", ImportValues: []any{"data", map[string]any{"child": "a", "parent": "b"}}}}
	w, err := encodeChart(in)
	if err != nil {
		t.Fatal(err)
	}
	frame, err := encodeFrame(w)
	if err != nil {
		t.Fatal(err)
	}
	var back wireChart
	if err := readFrame(bytes.NewReader(frame), int64(len(frame)), &back); err != nil {
		t.Fatal(err)
	}
	out := back.decode()
	opts := cmp.Options{cmpopts.IgnoreUnexported(chart.Chart{}), cmpopts.EquateEmpty()}
	if diff := cmp.Diff(in, out, opts); diff != "" {
		t.Errorf("chart (-in +out):\n%s", diff)
	}
	if len(out.Dependencies()) != 1 || out.Dependencies()[0].Parent() != out {
		t.Fatalf("dependencies = %v, want sub with its parent set", out.Dependencies())
	}
	if diff := cmp.Diff(in.Dependencies()[0], out.Dependencies()[0], opts); diff != "" {
		t.Errorf("subchart (-in +out):\n%s", diff)
	}
}

// TestRequestSeenRoundTrip: the release the templates see (Request.Seen) reaches the
// worker, and a request without one arrives without one.
func TestRequestSeenRoundTrip(t *testing.T) {
	for _, seen := range []*helm.Release{{Name: "tiergate-redacted-0a1b2c3d", Namespace: "apps", StorageNamespace: "flux-system"}, nil} {
		w, err := encodeRequest(helm.Request{Seen: seen}, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		frame, err := encodeFrame(w)
		if err != nil {
			t.Fatal(err)
		}
		var back wireRequest
		if err := readFrame(bytes.NewReader(frame), int64(len(frame)), &back); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(seen, back.decode().Seen); diff != "" {
			t.Errorf("Seen (-in +out):\n%s", diff)
		}
	}
}

func TestServeFrames(t *testing.T) {
	var calls int
	render := func(_ context.Context, req helm.Request) (*helm.Result, error) {
		calls++
		if req.Chart.Metadata.Name == "bad" {
			return nil, errors.New("chart bad: template: x: boom")
		}
		return &helm.Result{Docs: []helm.Doc{{Object: req.Values, Template: "app/templates/x.yaml", Hook: "pre-install", CRD: true}}}, nil
	}
	var in bytes.Buffer
	for _, name := range []string{"app", "bad"} {
		w, err := encodeRequest(helm.Request{Chart: &chart.Chart{Metadata: &chart.Metadata{Name: name}}, Values: map[string]any{"n": int64(1)}}, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		frame, err := encodeFrame(w)
		if err != nil {
			t.Fatal(err)
		}
		in.Write(frame)
	}
	var out bytes.Buffer
	if err := Serve(&in, &out, render); err != nil {
		t.Fatal(err)
	}
	var got []wireResponse
	for {
		var resp wireResponse
		if err := readFrame(&out, 1<<20, &resp); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		got = append(got, resp)
	}
	if calls != 2 || len(got) != 2 {
		t.Fatalf("calls = %d, responses = %d, want 2 and 2", calls, len(got))
	}
	wantOK := &helm.Result{Docs: []helm.Doc{{Object: map[string]any{"n": int64(1)}, Template: "app/templates/x.yaml", Hook: "pre-install", CRD: true}}}
	if diff := cmp.Diff(wantOK, got[0].decode()); diff != "" {
		t.Errorf("first response (-want +got):\n%s", diff)
	}
	if !got[1].Failed || got[1].Err != "chart bad: template: x: boom" {
		t.Errorf("second response = %+v, want the render error", got[1])
	}
}

func TestServeBrokenFrame(t *testing.T) {
	frame, err := encodeFrame(&wireRequest{})
	if err != nil {
		t.Fatal(err)
	}
	err = Serve(bytes.NewReader(frame[:len(frame)-1]), io.Discard, nil)
	if !errors.Is(err, io.ErrUnexpectedEOF) || err.Error() != "read request: unexpected EOF" {
		t.Errorf("error = %v, want read request: unexpected EOF", err)
	}
}

func TestLimitErrorText(t *testing.T) {
	cases := []struct {
		err  LimitError
		want string
	}{
		{LimitError{Chart: "a", Limit: LimitTime, Timeout: 10 * time.Second}, "chart a: render exceeded 10s, stopped"},
		{LimitError{Chart: "a", Limit: LimitTime, Timeout: 1500 * time.Millisecond}, "chart a: render exceeded 1.5s, stopped"},
		{LimitError{Chart: "a", Limit: LimitMemory, Bytes: 512 << 20}, "chart a: render exceeded memory limit 512 MiB"},
		{LimitError{Chart: "a", Limit: LimitMemory, Bytes: 2 << 30}, "chart a: render exceeded memory limit 2 GiB"},
		{LimitError{Chart: "a", Limit: LimitMemory, Bytes: 1000}, "chart a: render exceeded memory limit 1000 bytes"},
		{LimitError{Chart: "a", Limit: LimitOutput, Bytes: 1 << 20}, "chart a: render output exceeded 1048576 bytes"},
	}
	for _, tc := range cases {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.err, got, tc.want)
		}
	}
}

// TestResultRoundTrip: a Result crosses the worker boundary with every field set (a field
// the wire form forgets is lost for every sandboxed render).
func TestResultRoundTrip(t *testing.T) {
	res := &helm.Result{
		Docs:             []helm.Doc{{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}, Template: "app/templates/cm.yaml", Hook: "pre-install", CRD: true}},
		Approximate:      []string{"lookup"},
		UnmatchedPatches: []helm.UnmatchedPatch{{Renderer: 1, Patch: 2, Target: "kind=Deployment,name=web"}},
		SkippedCRDs:      []string{"example.com/Widget"},
	}
	w, err := encodeResponse(res, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(res, w.decode()); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}
