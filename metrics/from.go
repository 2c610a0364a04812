package metrics

import (
	"time"

	"rsx/dest/engine"
	"rsx/dest/job"
)

// SyncRun is the Run of a sync through the runner (a fleet's, serve's)
// that began at started and took elapsed; interrupted says the program's
// end, or a fleet's hold bound, stopped it.
func SyncRun(s Source, started time.Time, elapsed time.Duration, r *job.SyncResult, interrupted bool) Run {
	out := Run{Source: s, Command: "sync", Started: started, Elapsed: elapsed}
	if r == nil {
		out.Outcome = OutcomeOf(job.ExitFailure, interrupted)
		return out
	}
	out.Outcome = OutcomeOf(r.ExitStatus, interrupted || (r.Result != nil && r.Result.Stopped == "interrupted"))
	out.TookOver = r.TookOver != nil
	out.Applied = r.Notified.Applied
	if r.Result != nil {
		addResult(&out, r.Result)
	}
	return out
}

// AuditRun is the Run of an audit of a copy through the runner.
func AuditRun(s Source, started time.Time, elapsed time.Duration, r *job.AuditResult, interrupted bool) Run {
	out := Run{Source: s, Command: "audit", Started: started, Elapsed: elapsed, Outcome: OutcomeOf(job.ExitFailure, interrupted)}
	if r != nil {
		out.Outcome = OutcomeOf(r.ExitStatus, interrupted)
	}
	return out
}

// EngineRun is the Run of an engine's run (one Source's follow: its
// catch-up, each poll and each notifications' run): res is nil when it
// could not run.
func EngineRun(s Source, started time.Time, elapsed time.Duration, res *engine.Result, interrupted bool) Run {
	out := Run{Source: s, Command: "sync", Started: started, Elapsed: elapsed}
	if res == nil {
		out.Outcome = OutcomeOf(job.ExitFailure, interrupted)
		return out
	}
	out.Outcome = OutcomeOf(res.ExitStatus(), interrupted || res.Stopped == "interrupted")
	addResult(&out, res)
	return out
}

// addResult adds what an engine's run did.
func addResult(out *Run, res *engine.Result) {
	out.Fetched = max(res.Created-res.Adopted, 0) + res.Updated
	out.Deleted, out.Bytes = res.Deleted, res.Bytes
	if len(res.FailedByKind) > 0 {
		out.Failures = make(map[string]int, len(res.FailedByKind))
		for k, n := range res.FailedByKind {
			out.Failures[string(k)] = n
		}
	}
	if res.Finished {
		out.SyncedUntil = res.SyncedUntil
	}
}
