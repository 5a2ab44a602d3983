package liblog

import (
	"bytes"
	"log"
	"testing"

	"k8s.io/klog/v2"
)

// Lines written to the standard log and klog during a capture are counted, not written;
// Release restores the earlier output and prints the count once (none for zero).
func TestCapture(t *testing.T) {
	var before, out bytes.Buffer
	prev := log.Writer()
	log.SetOutput(&before)
	defer log.SetOutput(prev)
	w := Capture()
	log.Printf("ParseInt failed for value %s", "Vahdlongv4l")
	log.Print("two\nlines")
	klog.Info("val=Vahdlongv4l")
	w.Release(&out)
	w.Release(&out)
	if got, want := out.String(), "tiergate: 4 library log lines withheld (they may quote Secret values)\n"; got != want {
		t.Errorf("Release wrote %q, want %q", got, want)
	}
	if before.Len() != 0 {
		t.Errorf("the earlier output received %q", before.String())
	}
	log.Print("after")
	if before.String() == "" {
		t.Error("Release did not restore the standard log's output")
	}
	var none bytes.Buffer
	Capture().Release(&none)
	if none.Len() != 0 {
		t.Errorf("a capture without lines wrote %q", none.String())
	}
}
