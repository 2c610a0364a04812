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
// A document given below a Capability List (its up link) is used for that
// Source only when the Capability List lists it: directly, through an index
// or through an archive it lists (trust.go). The up link alone is a claim
// any host can make; Plan, Audit and SourceOf refuse such a document.
//
// An incremental plan reads the Change Lists (or the Change Dump) after the
// copy's point. When the live Change List Index (or Change Dump) no longer
// reaches back to that point, the closed lists of the Source's Change List
// Archive (Change Dump Archive) that cover the time since are read first, in
// order, then the live ones (crawl.LoadHistory, model.PlanCatchUp);
// Plan.ArchivedLists names them. Only a stretch of time that neither covers
// is a gap: reported, nothing applied, a new baseline proposed. The copy's
// point moves only over lists read: a list recorded closed is skipped only
// while it is described as it was read, and one whose until is not well
// before the time it was read is read again (incremental.go needed,
// closedList).
//
// A baseline of a Source that changes while it is copied holds back the
// resources whose body no longer matches the Resource List, or that are
// gone, and takes those a change after the list's at vouches for as the
// Change List records them (live.go, Result.Vouched).
//
// Follow keeps a copy current after a run: it applies the Source's change
// notifications as they arrive and polls the Change Lists at an interval.
// A notification is not a Change List, and the poll remains the record:
//
//   - A notification's changes are planned exactly as a Change List's
//     (dest/plan.Changes, the same selection and path rules, the same
//     decisions against the state) and run through the same verified writes,
//     and each row records the datetime of the change applied to it.
//   - A notification moves neither the copy's point (source.synced_until)
//     nor the cursor of any Change List (the changelist rows): only a poll
//     does, after reading the lists themselves from their cursors.
//   - So the poll meets the changes notifications applied as changes whose
//     datetime is not after the row's: already applied, not fetched again.
//     What it applies are the changes no notification brought (a push lost,
//     rejected, or not arrived yet), and Follow reports those as caught by
//     the poll. Nothing is applied twice and nothing is skipped: the lists
//     are read whole from their cursors whatever the notifications did.
//   - A notification dated before a change already applied to a resource (out
//     of order, or repeated) is found applied; one dated before the copy's
//     point is skipped, as a list's change would be. One dated in the
//     future is applied without its datetime, as a list's change would be
//     (dest/plan.Changes): it pins nothing. A notification with errors is
//     rejected whole, and the poll applies what it announced.
//
// Audit compares the copy with the Source's current state (its Resource List
// and the Change Lists after its at), re-hashing every local copy, and names
// the differences no Change List announced.
package engine
