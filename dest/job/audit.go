package job

import (
	"context"
	"errors"
	"fmt"
	"time"

	"rsx/dest/engine"
	"rsx/dest/plan"
	"rsx/dest/store"
)

// AuditResult is an audit of a copy: its report, open until Close (its
// lists may be spooled to a file, read by Report.Each), and the
// destination held until then.
type AuditResult struct {
	Report *engine.AuditReport
	// Dest is the destination opened (its folder or bucket URL).
	Dest string
	// Unwritable: the copy's state could have been written, but DEST
	// cannot be (a read-only mount, a snapshot): it was audited read-only,
	// nothing recorded in it.
	Unwritable bool
	// ExitStatus is the command line's: 0 in sync, 1 not in sync, 2 the
	// audit could not be done (Err says why, phrased "audit: …").
	ExitStatus int
	Err        error

	o *opened
}

// Close removes the report's spool and releases the destination.
func (a *AuditResult) Close() error {
	if a == nil {
		return nil
	}
	var err error
	if a.Report != nil {
		err = a.Report.Close()
	}
	if a.o != nil {
		err = errors.Join(err, a.o.close())
		a.o = nil
	}
	return err
}

// Audit compares the copy of req.Target's Source in req.Dest with the
// Source's current state (rsx audit --dest): a copy whose state can be
// written is opened for writing, so that the audit records what it found;
// a folder without a state, or one that cannot be written, read-only. The
// caller closes the result.
func (r *Runner) Audit(ctx context.Context, req AuditRequest) *AuditResult {
	so := r.auditStore(r.resolved(req.Dest))
	o, err := r.openWaiting(ctx, req, so)
	if err != nil {
		return &AuditResult{ExitStatus: ExitFailure, Err: err}
	}
	o.discard = false // an audit makes nothing to take back
	out := &AuditResult{Dest: o.st.String(), o: o, Unwritable: !so.ReadOnly && o.dest.ReadOnly()}
	ao := engine.AuditOptions{AllowOtherHosts: req.AllowOtherHosts, Keep: req.Keep, ListSame: req.ListSame, RequireCopy: req.RequireCopy,
		OtherSources: req.OtherSources}
	if req.Only != nil {
		ao.Only = plan.NewURISet(req.Only)
	}
	rep, err := o.dest.AuditWith(ctx, req.Target, ao)
	if err != nil {
		out.ExitStatus = ExitFailure
		if ctx.Err() != nil {
			out.Err = errors.New("audit: interrupted")
		} else {
			out.Err = fmt.Errorf("audit: %w", err)
		}
		return out
	}
	out.Report = rep
	if !rep.InSync() {
		out.ExitStatus = ExitFound
	}
	return out
}

// lockWaitPoll is how often an audit that waits for DEST asks for its lock
// again.
const lockWaitPoll = time.Second

// openWaiting opens DEST for the audit req; while another run holds it, it
// asks again every lockWaitPoll for up to req.Wait, telling req.OnWait
// once. Without Wait it refuses at once, as ever.
func (r *Runner) openWaiting(ctx context.Context, req AuditRequest, so store.Options) (*opened, error) {
	deadline := time.Now().Add(req.Wait)
	said := false
	for {
		o, err := r.open(ctx, "audit", req.Target, req.Dest, so, engine.Options{Progress: req.Progress}, req.Limits)
		var locked *store.LockedError
		if err == nil || req.Wait <= 0 || !errors.As(err, &locked) {
			return o, err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil, fmt.Errorf("%w (waited %s for it, --wait)", err, req.Wait)
		}
		if !said && req.OnWait != nil {
			req.OnWait(req.Dest, locked.Holder.String(), req.Wait)
			said = true
		}
		t := time.NewTimer(min(left, lockWaitPoll))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("audit: waiting for %s: %w", req.Dest, ctx.Err())
		case <-t.C:
		}
	}
}
