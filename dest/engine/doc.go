// Package engine runs a destination's syncs and audits: it reads a Source's documents, plans against the state, writes verified copies and records them.
//
// It is used in three steps, so that a caller (the sync command, the
// explorer) can show what will happen before it happens, and stop cleanly:
//
//	sess, err := engine.Open(ctx, st, client, engine.Options{Progress: show})
//	defer sess.Close()                      // releases the destination's lock
//	p, err := sess.Plan(ctx, url, engine.PlanOptions{Mode: engine.ModeAuto})
//	... show p.Summary, p.Gap, p.Warnings; a dry run stops here ...
//	res, err := sess.Run(ctx, p)            // cancel ctx to stop: the state stays consistent
//	... res.Failed; retry them with sess.Run(ctx, res.Retry()) ...
//
// Plan reads the Source (its Capability List, then a Resource List or
// Resource Dump for a baseline, Change Lists or a Change Dump for an
// incremental sync), decides every resource's fate with dest/plan against
// the state and spools the decisions to a file: nothing of the copy or of
// the state is written. Run carries the decisions out: each download goes to
// a temporary file through a claims.Verifier (length and every declared
// digest), and is committed (fsynced and renamed, or uploaded) only when it
// verifies; a failed verification keeps the old copy and the rejected bytes
// under .rsx/rejected/. The state is written in batches (dest/state); a
// baseline is marked done, and Change Lists complete, only when every
// resource of the run succeeded, so that the next run resumes where this one
// stopped. Progress is reported as values through Options.Progress.
//
// Audit compares the copy with the Source's current state (its Resource List
// and the Change Lists after its at), re-hashing every local copy, and names
// the differences no Change List announced.
package engine
