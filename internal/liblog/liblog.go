// Package liblog withholds what libraries write to Go's standard log and to klog while
// tiergate renders untrusted input. kustomize's api filters/refvar/expand.go
// (MakePrimitiveReplacer: "bad replacement type=… val=…") and kyaml's
// yaml/internal/k8sgen/pkg/labels/selector.go (Requirement.Matches: "ParseInt failed for
// value … in label …") print the values they handle with the standard log, which may be Secret values;
// those lines bypass the review's redaction, so none is printed, only their count.
package liblog

import (
	"fmt"
	"io"
	"log"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-logr/logr/funcr"
	"k8s.io/klog/v2"
)

// Withheld counts the library log lines dropped since Capture; safe for concurrent use.
type Withheld struct {
	lines atomic.Int64
	prev  io.Writer
	once  sync.Once
}

// Write counts the lines of p (one log call writes at least one) and drops them.
func (w *Withheld) Write(p []byte) (int, error) {
	n := int64(strings.Count(strings.TrimSuffix(string(p), "\n"), "\n") + 1)
	w.lines.Add(n)
	return len(p), nil
}

// Lines is the number of library log lines withheld so far.
func (w *Withheld) Lines() int64 { return w.lines.Load() }

// Capture points Go's standard log and klog at a new Withheld until Release.
func Capture() *Withheld {
	w := &Withheld{prev: log.Writer()}
	log.SetOutput(w)
	klog.SetLogger(funcr.New(func(string, string) { w.lines.Add(1) }, funcr.Options{}))
	return w
}

// Release restores the standard log's earlier output and klog's default, and writes to
// out one line with the count of withheld lines when there were any:
// "tiergate: N library log line(s) withheld (they may quote Secret values)".
func (w *Withheld) Release(out io.Writer) {
	w.once.Do(func() {
		log.SetOutput(w.prev)
		klog.ClearLogger()
		if n := w.Lines(); n > 0 {
			s := "s"
			if n == 1 {
				s = ""
			}
			fmt.Fprintf(out, "tiergate: %d library log line%s withheld (they may quote Secret values)\n", n, s)
		}
	})
}
