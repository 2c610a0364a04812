//go:build !unix

package model

import "time"

// processCPUTime is not measured on this system.
func processCPUTime() time.Duration { return 0 }
