package engine

import (
	"context"
	"errors"
)

// StopReason, given as the cause of a run's context
// (context.WithCancelCause), is why the caller stopped the run: its
// Result.Stopped and its row in the history say Reason instead of
// "interrupted" (the fleet's bound on how long one Source holds a DEST
// that others wait for). The run stops as an interrupted one does: what it
// verified is kept, and the next run continues from there.
type StopReason struct{ Reason string }

func (e *StopReason) Error() string { return e.Reason }

// stopReason is why a run whose ctx ended stopped: the caller's
// StopReason, or "interrupted".
func stopReason(ctx context.Context) string {
	var sr *StopReason
	if errors.As(context.Cause(ctx), &sr) && sr.Reason != "" {
		return sr.Reason
	}
	return "interrupted"
}
