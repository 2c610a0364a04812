package cli

import (
	"fmt"
	"strings"
	"time"

	"rsx/dest/engine"
)

// resourceTimeoutFlag is --resource-timeout: "auto" (the default: the
// engine's bound, scaled by each resource's declared length), "0" or
// "none" (no bound: the stall timeout alone), or a duration.
type resourceTimeoutFlag struct {
	d   time.Duration
	set bool
}

func (f *resourceTimeoutFlag) String() string {
	switch {
	case !f.set:
		return "auto"
	case f.d == 0:
		return "none"
	}
	return f.d.String()
}

func (f *resourceTimeoutFlag) Type() string { return "duration" }

func (f *resourceTimeoutFlag) Set(s string) error {
	switch v := strings.TrimSpace(s); v {
	case "auto":
		*f = resourceTimeoutFlag{}
		return nil
	case "none", "0":
		*f = resourceTimeoutFlag{set: true}
		return nil
	default:
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("want a duration such as 30m, 0 (none) or auto: %w", err)
		}
		if d < 0 {
			return fmt.Errorf("must not be negative (0: no limit)")
		}
		*f = resourceTimeoutFlag{d: d, set: true}
		return nil
	}
}

// engine is the flag as engine.Options.ResourceTimeout.
func (f resourceTimeoutFlag) engine() time.Duration {
	switch {
	case !f.set:
		return 0
	case f.d == 0:
		return engine.NoResourceTimeout
	}
	return f.d
}
