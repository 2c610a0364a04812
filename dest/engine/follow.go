package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"rsx/dest/plan"
	"rsx/model"
	"rsx/notify"
)

// DefaultPollInterval is how often Follow polls the Change Lists when
// FollowOptions.Interval is not set.
const DefaultPollInterval = 5 * time.Minute

// FollowOptions configure Dest.Follow.
type FollowOptions struct {
	// Interval is the time between two polls of the Change Lists (the
	// record: they catch what notifications missed); default
	// DefaultPollInterval.
	Interval time.Duration
	// Notifications are the events of the Source's notification channels
	// (notify.Watch on the channels of the followed plan's Capability
	// List); nil: Follow only polls. Follow stops reading them when the
	// channel is closed, and goes on polling.
	Notifications <-chan notify.Event
	// Report is told what happens, one event at a time, in order (while a
	// run goes on, from the run's recording goroutine); it must not block
	// long.
	Report func(FollowEvent)
	// Ran, when set, is told of each run Follow makes (a poll's, or the
	// notifications'), once it is recorded, or that it could not run; not
	// of a run that could not start because Follow was stopped. It is
	// called from Follow's goroutine (a program's metrics count the runs).
	Ran func(FollowRan)
}

// FollowRan is a run Follow made.
type FollowRan struct {
	// Via is ViaPoll or ViaNotification.
	Via     string
	Started time.Time
	Elapsed time.Duration
	// Result is the run's; nil when it could not run (Err says why).
	Result *Result
	Err    error
}

// FollowEventType says what a FollowEvent reports.
type FollowEventType string

const (
	// FollowApplied: a change was applied to the copy (URI, Action, Path,
	// Change, Datetime, Via).
	FollowApplied FollowEventType = "applied"
	// FollowFailed: a change could not be applied (Failure, Via). A later
	// notification or poll tries it again; a resource refused (outside the
	// Source's authority) is reported and never tried.
	FollowFailed FollowEventType = "failed"
	// FollowRejected: a notification with errors (Problems): none of its
	// changes is applied; the next poll applies what it announced, from
	// the Change Lists.
	FollowRejected FollowEventType = "rejected"
	// FollowNotified: a change notification was planned (Changes entries;
	// Problems are its warnings). Its changes follow as FollowApplied.
	FollowNotified FollowEventType = "notified"
	// FollowFramework: a framework notification (a Source document
	// changed); one about a Change List brings the next poll forward.
	FollowFramework FollowEventType = "framework"
	// FollowConnected and FollowDisconnected: a notification channel's
	// connection came up, or dropped (Err; it reconnects after Retry).
	FollowConnected    FollowEventType = "connected"
	FollowDisconnected FollowEventType = "disconnected"
	// FollowPolled: a poll of the Change Lists ended (Result, Caught), or
	// could not run (Err: it is tried again at the next interval).
	FollowPolled FollowEventType = "polled"
)

// Where a change applied by Follow came from.
const (
	ViaNotification = "notification"
	ViaPoll         = "poll"
)

// FollowEvent is one thing that happened while following.
type FollowEvent struct {
	Type FollowEventType
	Time time.Time
	// Via is where a change came from: ViaNotification, or ViaPoll for a
	// change of the Change Lists that no notification had applied (its
	// push was lost, rejected, or had not arrived yet).
	Via string

	// FollowApplied, FollowFailed: the resource, where its copy is, the
	// change as announced, and what was done: "created", "updated",
	// "deleted", or "remembered" (a deletion kept for a run with
	// --delete).
	URI      string
	Path     string
	Change   model.Change
	Datetime time.Time
	Action   string
	Failure  *Failure

	// Notifications and channels: the channel, the notification's entries
	// and its problems; Err and Retry for a dropped connection (Attempt:
	// the how-manieth failure in a row).
	Channel  string
	Changes  int
	Problems []model.Problem
	Items    []notify.Item // FollowFramework: the documents that changed
	Err      error
	Retry    time.Duration
	Attempt  int
	// FollowConnected: an earlier connection of the channel had dropped.
	Reconnect bool

	// FollowPolled: the poll's run (its Plan says what was read), and how
	// many of its changes no notification had applied.
	Result *Result
	Caught int
}

// FollowResult is what a Follow did.
type FollowResult struct {
	// Notifications counts the change notifications received, Rejected
	// those with errors (not applied).
	Notifications, Rejected int
	// Polls counts the polls run; PollErrors those that could not run.
	Polls, PollErrors int
	// Created, Updated, Deleted and Remembered count the changes applied;
	// FromNotifications and FromPolls split them by where they came from.
	Created, Updated, Deleted, Remembered int
	FromNotifications, FromPolls          int
	// Failed are the failures still outstanding at the end: a resource that
	// failed and that no later notification or poll applied (FailedCount
	// counts them; Failed keeps the first maxListed).
	Failed      []Failure
	FailedCount int
	// Gap is a stretch of time the last poll found no Change List covering:
	// Follow stops there (a new baseline is needed). Problems are the
	// documents the last poll could not use.
	Gap      *plan.Gap
	Problems []Failure
	// SyncedUntil is the copy's point after the last poll.
	SyncedUntil time.Time
	// Stopped says why Follow ended: "interrupted", or the gap.
	Stopped string
	Elapsed time.Duration
}

// OK reports whether the copy was in step when Follow ended: no failure
// outstanding, no gap, every document of the last poll read.
func (r *FollowResult) OK() bool {
	return r.FailedCount == 0 && r.Gap == nil && len(r.Problems) == 0
}

// Follow keeps the copy of the Source of a plan that was run (the catch-up)
// current until ctx is done: it applies the Source's change notifications
// as they arrive, and polls the Change Lists every Interval, beginning at
// once, as the record of the Source's changes.
//
// A notification's changes are applied as those of a Change List are (the
// same decisions against the state, the same verified writes, the same
// rows), but a notification is not a Change List: it moves neither the
// copy's point nor the cursor of any list. Each resource's row keeps the
// datetime of the change applied to it, so the poll, which reads the lists
// from their cursors, finds the changes notifications applied already
// applied and does not fetch them again, and applies (and reports, Via
// ViaPoll) those no notification brought. A notification with errors is
// rejected whole; an older change notified after a newer one is found
// already applied. Cancelling ctx stops Follow cleanly: the run in
// progress records what it did, and the next run continues from there.
func (s *Dest) Follow(ctx context.Context, after *Plan, o FollowOptions) (*FollowResult, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	if after == nil || after.sess != s || after.sel == nil || after.mapper == nil {
		return nil, errors.New("follow: the plan followed is not a plan of this session")
	}
	if o.Interval <= 0 {
		o.Interval = DefaultPollInterval
	}
	f := &follower{s: s, o: o, ref: after, res: &FollowResult{}, failed: map[string]Failure{}, notified: map[string]time.Time{}}
	if row, err := s.db.Source(ctx, after.Source); err == nil {
		f.res.SyncedUntil = row.Point()
	}
	started := s.opts.Now()
	defer func() { f.res.Elapsed = s.opts.Now().Sub(started) }()

	timer := time.NewTimer(0) // the first poll at once: it brings a baseline up to the Change Lists
	defer timer.Stop()
	events := o.Notifications
	pollSoon := false
	for {
		select {
		case <-ctx.Done():
			f.res.Stopped = "interrupted"
			return f.finish(), nil
		case e, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			batch := []notify.Event{e}
		drain:
			for len(batch) < maxNoticeBatch {
				select {
				case e, ok := <-events:
					if !ok {
						events = nil
						break drain
					}
					batch = append(batch, e)
				default:
					break drain
				}
			}
			if f.notices(ctx, batch) && !pollSoon {
				// A Change List closed or opened: the poll records it, after
				// a moment for the last change notifications to arrive.
				pollSoon = true
				timer.Reset(frameworkPollDelay)
			}
		case <-timer.C:
			pollSoon = false
			if stop := f.poll(ctx); stop {
				return f.finish(), nil
			}
			timer.Reset(o.Interval)
		}
		if ctx.Err() != nil {
			f.res.Stopped = "interrupted"
			return f.finish(), nil
		}
	}
}

// frameworkPollDelay is how long after a framework notification about a
// Change List the poll runs.
const frameworkPollDelay = time.Second

// maxNoticeBatch bounds the notifications applied in one run.
const maxNoticeBatch = 256

// follower is the state of one Follow.
type follower struct {
	s   *Dest
	o   FollowOptions
	ref *Plan // the last plan of the Source read: its selection, path rules, Source
	res *FollowResult
	// failed are the failures outstanding, by URI.
	failed map[string]Failure
	// overflow counts the failures beyond maxListed, which are not kept:
	// the copy cannot be said to be in step again during this Follow.
	overflow int
	// notified are the changes notifications applied since the last poll
	// that finished, by URI: a poll that meets them again (a deletion
	// remembered again) confirms them rather than catching them.
	notified map[string]time.Time
}

// ran tells FollowOptions.Ran of a run that began at started.
func (f *follower) ran(via string, started time.Time, res *Result, err error) {
	if f.o.Ran != nil {
		f.o.Ran(FollowRan{Via: via, Started: started, Elapsed: f.s.opts.Now().Sub(started), Result: res, Err: err})
	}
}

func (f *follower) report(e FollowEvent) {
	if e.Time.IsZero() {
		e.Time = f.s.opts.Now()
	}
	if f.o.Report != nil {
		f.o.Report(e)
	}
}

// fail keeps a failure outstanding until the resource is applied. A
// collision (the path is another resource's) is kept too; refusals are
// reported only, as a sync reports them.
func (f *follower) fail(uri string, fl Failure) {
	if fl.Kind == KindRefused {
		return
	}
	if _, ok := f.failed[uri]; !ok && len(f.failed) >= maxListed {
		f.overflow++
		return
	}
	f.failed[uri] = fl
}

func (f *follower) finish() *FollowResult {
	r := f.res
	r.Failed, r.FailedCount = nil, len(f.failed)+f.overflow
	for _, fl := range f.failed {
		if len(r.Failed) < maxListed {
			r.Failed = append(r.Failed, fl)
		}
	}
	return r
}

// notices handles a batch of events: channel events are reported, change
// notifications without errors applied together. It reports whether a
// framework notification said a Change List changed (a poll is due).
func (f *follower) notices(ctx context.Context, batch []notify.Event) (pollNow bool) {
	var apply []*notify.Event
	for i := range batch {
		e := &batch[i]
		switch e.Type {
		case notify.EventConnected:
			f.report(FollowEvent{Type: FollowConnected, Time: e.Time, Channel: e.Channel.URL, Attempt: e.Attempt, Reconnect: e.Reconnect})
		case notify.EventDisconnected:
			f.report(FollowEvent{Type: FollowDisconnected, Time: e.Time, Channel: e.Channel.URL, Err: e.Err, Retry: e.Retry, Attempt: e.Attempt})
		case notify.EventNotification:
			if e.Channel.CapabilityList != "" && f.ref.CapabilityList != "" && e.Channel.CapabilityList != f.ref.CapabilityList {
				f.report(FollowEvent{Type: FollowRejected, Time: e.Time, Channel: e.Channel.URL, Changes: len(e.Items),
					Problems: []model.Problem{{Severity: model.SeverityError, Rule: "follow-channel", Entry: -1,
						Message: "the channel is advertised by " + e.Channel.CapabilityList + ", not by the followed Capability List " + f.ref.CapabilityList}}})
				continue
			}
			if e.Errors() > 0 {
				if e.Kind() == notify.KindChange {
					f.res.Notifications++
					f.res.Rejected++
				}
				f.report(FollowEvent{Type: FollowRejected, Time: e.Time, Channel: e.Channel.URL, Changes: len(e.Items), Problems: e.Problems})
				continue
			}
			if e.Kind() == notify.KindFramework {
				f.report(FollowEvent{Type: FollowFramework, Time: e.Time, Channel: e.Channel.URL, Changes: len(e.Items), Items: e.Items, Problems: e.Problems})
				for _, it := range e.Items {
					if it.Capability == model.CapChangeList || it.Capability == model.CapChangeDump {
						pollNow = true
					}
				}
				continue
			}
			f.res.Notifications++
			f.report(FollowEvent{Type: FollowNotified, Time: e.Time, Channel: e.Channel.URL, Changes: len(e.Items), Problems: f.withFutureDates(e)})
			apply = append(apply, e)
		}
	}
	if len(apply) > 0 && ctx.Err() == nil {
		f.applyNotifications(ctx, apply)
	}
	return pollNow
}

// withFutureDates is a notification's problems and a warning for each of
// its changes dated in the future (futureDated).
func (f *follower) withFutureDates(e *notify.Event) []model.Problem {
	return futureDated(f.s.opts.Now(), e)
}

// futureDated is a notification's problems and a warning for each of its
// changes dated in the future at now: applied, but its datetime not
// recorded (dest/plan.Changes), so that it cannot make later changes look
// older.
func futureDated(now time.Time, e *notify.Event) []model.Problem {
	probs := slices.Clip(e.Problems)
	limit := now.Add(plan.FutureAllowance)
	for i, it := range e.Items {
		if it.Datetime.OK && it.Datetime.Time.After(limit) {
			probs = append(probs, model.Problem{Severity: model.SeverityWarning, Rule: "follow-future-datetime", Entry: i,
				Message: fmt.Sprintf("the change of %s at %s is in the future: applied, its datetime not recorded", it.URL, model.FormatDatetime(it.Datetime.Time))})
		}
	}
	return probs
}

// applyNotifications plans and runs the changes of notifications.
func (f *follower) applyNotifications(ctx context.Context, evs []*notify.Event) {
	started := f.s.opts.Now()
	p, err := f.s.planNotifications(ctx, f.ref, evs)
	if err != nil {
		if ctx.Err() == nil {
			f.report(FollowEvent{Type: FollowFailed, Via: ViaNotification, Err: err,
				Failure: &Failure{URL: f.ref.Source, Kind: KindState, Err: err}})
			f.ran(ViaNotification, started, nil, err)
		}
		return
	}
	defer p.Close()
	for _, r := range p.Refused {
		r := r
		f.report(FollowEvent{Type: FollowFailed, Via: ViaNotification, URI: r.URL, Failure: &r})
	}
	if p.Summary.Work()+p.Summary.PendingDelete == 0 {
		return
	}
	p.observe = func(o observed) { f.observed(ViaNotification, o) }
	res, err := f.s.Run(ctx, p)
	if err != nil && ctx.Err() == nil {
		f.report(FollowEvent{Type: FollowFailed, Via: ViaNotification, Err: err, Failure: &Failure{URL: f.ref.Source, Kind: KindState, Err: err}})
	}
	if res != nil || ctx.Err() == nil {
		f.ran(ViaNotification, started, res, err)
	}
}

// poll plans and runs an incremental sync from the Change Lists. It
// reports whether Follow must stop (a gap, or ctx done).
func (f *follower) poll(ctx context.Context) bool {
	// Auto: incremental once the baseline is done (a baseline that had
	// failures is continued until it is), with the stored selection.
	opts := f.ref.opts
	opts.Mode, opts.Selection = ModeAuto, nil
	started := f.s.opts.Now()
	p, err := f.s.Plan(ctx, f.ref.Target, opts)
	if err != nil {
		return f.pollFailed(ctx, started, err)
	}
	defer p.Close()
	f.ref = p
	f.res.Polls++
	f.res.Gap, f.res.Problems = p.Gap, p.Problems
	for _, r := range p.Refused {
		r := r
		f.report(FollowEvent{Type: FollowFailed, Via: ViaPoll, URI: r.URL, Failure: &r})
	}
	caught := 0
	p.observe = func(o observed) {
		if f.observed(ViaPoll, o) {
			caught++
		}
	}
	res, err := f.s.Run(ctx, p)
	if err != nil {
		return f.pollFailed(ctx, started, err)
	}
	f.ran(ViaPoll, started, res, nil)
	if res.Finished {
		f.res.SyncedUntil = res.SyncedUntil
		clear(f.notified)
	}
	f.report(FollowEvent{Type: FollowPolled, Via: ViaPoll, Result: res, Caught: caught})
	switch {
	case p.Gap != nil:
		f.res.Stopped = p.Gap.String()
		return true
	case res.Stopped == "interrupted" || ctx.Err() != nil:
		f.res.Stopped = "interrupted"
		return true
	}
	return false
}

// pollFailed records a poll begun at started whose planning or run failed
// with err and reports whether Follow must stop: it must when ctx is done.
func (f *follower) pollFailed(ctx context.Context, started time.Time, err error) bool {
	if ctx.Err() != nil {
		f.res.Stopped = "interrupted"
		return true
	}
	f.ran(ViaPoll, started, nil, err)
	f.res.PollErrors++
	f.report(FollowEvent{Type: FollowPolled, Via: ViaPoll, Err: err})
	return false
}

// observed reports what became of one change, keeps the counts and the
// failures outstanding, and tells whether a poll's change was one no
// notification had applied.
func (f *follower) observed(via string, o observed) (caught bool) {
	e := o.item.Entry
	ev := FollowEvent{Type: FollowApplied, Via: via, URI: e.URI, Path: o.path, Change: e.Change, Datetime: e.Datetime}
	r := f.res
	switch o.kind {
	case outFailed:
		ev.Type, ev.Failure = FollowFailed, o.fail
		f.fail(e.URI, *o.fail)
		f.report(ev)
		return false
	case outWrote:
		ev.Action = "updated"
		if o.item.Action == plan.Create {
			ev.Action = "created"
			r.Created++
		} else {
			r.Updated++
		}
	case outRemoved:
		ev.Action = "deleted"
		r.Deleted++
	case outPending:
		ev.Action = "remembered"
		if via == ViaPoll {
			if at, ok := f.notified[e.URI]; ok && at.Equal(e.Datetime) {
				return false // the notification's deletion, remembered again
			}
		}
		r.Remembered++
	default:
		return false
	}
	delete(f.failed, e.URI)
	if via == ViaNotification {
		r.FromNotifications++
		f.notified[e.URI] = e.Datetime
	} else {
		r.FromPolls++
	}
	f.report(ev)
	return via == ViaPoll
}

// planNotifications plans the changes of change notifications as an
// incremental sync of the Source of ref (its selection, its path rules, its
// deletions): each notification is read like a Change List, in the order
// they arrived, each resource's last change decided against the state. The
// plan records no list and does not move the copy's point.
func (s *Dest) planNotifications(ctx context.Context, ref *Plan, evs []*notify.Event) (*Plan, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	row, err := s.db.Source(ctx, ref.Source)
	if err != nil {
		return nil, fmt.Errorf("plan the changes notified: %w", err)
	}
	p := &Plan{Mode: ModeIncremental, From: FromList, Source: ref.Source, CapabilityList: ref.CapabilityList, Target: ref.Target,
		Document: evs[0].Channel.URL, Point: row.Point(), Delete: ref.Delete, Selection: row.Selection,
		sess: s, opts: ref.opts, srcID: row.ID, sel: ref.sel, mapper: ref.mapper}
	b := &builder{s: s, p: p, sel: ref.sel, mapper: ref.mapper, capList: ref.CapabilityList}
	if p.items, err = newSpool(s.st.TempDir()); err != nil {
		return nil, err
	}
	chg := plan.NewChanges(plan.ChangesOptions{Options: plan.Options{Selection: b.sel, Delete: p.Delete}, Since: p.Point,
		Now: s.opts.Now(), TempDir: s.st.TempDir(), OnlyAdded: true})
	defer chg.Close()
	fail := func(err error) (*Plan, error) {
		p.Close()
		return nil, err
	}
	base := ref.CapabilityList
	if base == "" {
		base = ref.Source
	}
	for _, e := range evs {
		if err := chg.BeginList(plan.ListInfo{URL: e.Channel.URL, Kind: "notification"}); err != nil {
			return fail(err)
		}
		for i := range e.Items {
			it := &e.Items[i]
			loc := resolveLoc(base, it.URL)
			pe := entryOf(&it.Entry, loc)
			if pe.Datetime.IsZero() && it.Datetime.OK {
				pe.Datetime = it.Datetime.Time // the draft's examples date changes with <lastmod>
			}
			if err := chg.Add(pe); err != nil {
				return fail(err)
			}
			p.Summary.Entries++
		}
		if _, err := chg.EndList(); err != nil {
			return fail(err)
		}
	}
	sum, err := chg.Finish(ctx, s.db.View(row.ID), b.emit(ctx))
	if err != nil {
		return fail(err)
	}
	b.mergeSummary(sum)
	if err := p.items.finish(); err != nil {
		return fail(err)
	}
	return p, nil
}
