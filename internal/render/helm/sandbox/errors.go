package sandbox

import (
	"fmt"
	"time"
)

// Limit names the bound that stopped a render.
type Limit string

const (
	LimitTime   Limit = "time"   // Options.Timeout
	LimitMemory Limit = "memory" // Options.MemoryBytes
	LimitOutput Limit = "output" // Options.MaxOutputBytes
)

// LimitError is a render its worker was stopped for; the chart did not render.
type LimitError struct {
	Chart   string // chart name, from Chart.yaml
	Limit   Limit
	Timeout time.Duration // LimitTime
	Bytes   int64         // LimitMemory, LimitOutput
}

func (e *LimitError) Error() string {
	switch e.Limit {
	case LimitTime:
		return fmt.Sprintf("chart %s: render exceeded %s, stopped", e.Chart, e.Timeout)
	case LimitMemory:
		return fmt.Sprintf("chart %s: render exceeded memory limit %s", e.Chart, sizeString(e.Bytes))
	}
	return fmt.Sprintf("chart %s: render output exceeded %d bytes", e.Chart, e.Bytes)
}

// sizeString prints whole GiB or MiB as such, else bytes.
func sizeString(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
