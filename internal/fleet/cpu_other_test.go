//go:build !unix

package fleet_test

import "time"

// processCPU is zero where getrusage is not available: cpu-ms/op then reads 0.
func processCPU() time.Duration { return 0 }
