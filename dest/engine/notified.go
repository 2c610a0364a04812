package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"rsx/dest/state"
	"rsx/display"
	"rsx/model"
	"rsx/notify"
)

// ReadListsError is PlanNotified's answer when the notifications cannot be
// applied on their own: the Source's Change Lists must be read (Plan). Why
// says what in the notifications, or in the copy, asks for them.
type ReadListsError struct{ Why string }

func (e *ReadListsError) Error() string { return "the Change Lists are read: " + e.Why }

// IsReadLists reports whether err is a ReadListsError, and its reason.
func IsReadLists(err error) (string, bool) {
	var r *ReadListsError
	if errors.As(err, &r) {
		return r.Why, true
	}
	return "", false
}

// PlanNotified plans the changes of change notifications of the Source of
// target as a run of their own, as Follow applies them (planNotifications:
// the same decisions against the state, the same selection and paths),
// without reading the Change Lists: only the Capability List is read, to
// know the Source and its channels. evs are the notifications in the order
// they arrived; covered is how far the Source's changes are known to be in
// the copy beyond its point (the NotifiedUntil of the last plan of
// notifications run; zero: no further).
//
// The notifications are applied alone only when they can be trusted to be
// all the Source changed: otherwise the error is a ReadListsError, and the
// caller reads the Change Lists as a run without notifications does. That
// is so when one has errors (cut short, malformed, its changes out of
// order), arrives out of order after another of its channel, is a
// framework notification (the Source's documents changed), comes from a
// channel of another Capability List, has an entry without a change type
// or a datetime, or shows a gap: its document-level from is after the time
// up to which the copy holds the Source's changes (a notification was
// missed). It is so too when the copy is not in a state that an
// incremental run continues: no finished baseline, a reconcile due, a
// selection that changes, --mode baseline, --checksum or chosen resources.
func (s *Dest) PlanNotified(ctx context.Context, target string, opts PlanOptions, evs []notify.Event, covered time.Time) (*Plan, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	fall := func(why string) (*Plan, error) { return nil, &ReadListsError{Why: why} }
	switch {
	case opts.Mode == ModeBaseline:
		return fall("--mode baseline")
	case opts.Checksum:
		return fall("--checksum reconciles the copy")
	case opts.Only != nil:
		return fall("a run of chosen resources")
	}
	s.capture.reset()
	s.opts.report(Progress{Phase: PhaseReading})
	src, err := s.resolve(ctx, target)
	if err != nil {
		return nil, err
	}
	if err := s.identify(ctx, src, opts.OtherSources); err != nil {
		return nil, err
	}
	row, err := s.db.Source(ctx, src.key)
	switch {
	case errors.Is(err, state.ErrNoSource):
		return fall("no copy of the Source in the destination yet")
	case err != nil:
		return nil, err
	case row.Baseline.Done.IsZero():
		return fall("the copy's baseline is not finished")
	case !row.ReconcileDue.IsZero():
		return fall("an audit found the copy not in sync: it is reconciled")
	case opts.Selection != nil && !row.Selection.Equal(*opts.Selection):
		return fall("the selection changed")
	}
	point := row.Point()
	if covered.Before(point) {
		covered = point
	}
	until, apply, why := judgeNotified(evs, src.capList, covered)
	if why != "" {
		return fall(why)
	}
	sel, mapper, err := selectionOf(row.Selection, src, opts)
	if err != nil {
		return nil, err
	}
	ref := &Plan{Source: src.key, CapabilityList: src.capList, Target: target, Delete: opts.Delete, sess: s, opts: opts, sel: sel, mapper: mapper}
	p, err := s.planNotifications(ctx, ref, apply)
	if err != nil {
		return nil, err
	}
	p.Channels, p.Notified = channelsListed(src), len(apply)
	if until.After(point) {
		p.NotifiedUntil = until
	}
	// The resources are fetched at the pace a plan of the lists keeps.
	p.Warnings = append(p.Warnings, s.honourCrawlDelay(ctx, src.capListOrKey())...)
	p.Notes = append(p.Notes, src.notes...)
	now := s.opts.Now()
	for _, e := range apply {
		for _, pr := range futureDated(now, e) {
			if pr.Severity == model.SeverityWarning {
				p.Warnings = append(p.Warnings, "a notification of "+e.Channel.URL+": "+pr.Message)
			}
		}
	}
	p.Notes = append(p.Notes, display.Plural(len(apply), "change notification", "change notifications")+" applied: the Change Lists were not read")
	return p, nil
}

// judgeNotified checks notifications in the order they arrived against the
// time up to which the copy holds the Source's changes (covered), and
// returns the change notifications to apply and how far the copy holds the
// changes once they are, or why they cannot be applied alone.
func judgeNotified(evs []notify.Event, capList string, covered time.Time) (time.Time, []*notify.Event, string) {
	if len(evs) > maxNoticeBatch {
		return covered, nil, fmt.Sprintf("%d notifications at once (more than %d)", len(evs), maxNoticeBatch)
	}
	var apply []*notify.Event
	for i := range evs {
		e := &evs[i]
		if e.Type != notify.EventNotification {
			continue
		}
		ch := e.Channel.URL
		if e.Kind() == notify.KindFramework {
			return covered, nil, "a framework notification of " + ch + ": the Source's documents changed"
		}
		if capList != "" && e.Channel.CapabilityList != "" && !model.SameURL(e.Channel.CapabilityList, capList) {
			return covered, nil, "the channel " + ch + " is advertised by " + e.Channel.CapabilityList + ", not by the Capability List " + capList
		}
		for _, pr := range e.Problems {
			switch {
			case pr.Severity == model.SeverityError:
				return covered, nil, "a notification of " + ch + " with errors (cut short, malformed or out of order): " + pr.Rule + ": " + pr.Message
			case pr.Rule == model.RuleNotificationOrder:
				return covered, nil, "a notification of " + ch + " out of order: " + pr.Message
			}
		}
		if len(e.Items) == 0 {
			continue
		}
		for j, it := range e.Items {
			if it.Change == "" || !it.Datetime.OK {
				return covered, nil, fmt.Sprintf("a notification of %s does not say what changed when: entry %d (%s) has no change type or no datetime", ch, j+1, it.URL)
			}
		}
		if e.From.OK {
			if e.From.Time.After(covered) {
				return covered, nil, fmt.Sprintf("a gap: a notification of %s carries the changes from %s, and the copy holds them until %s: a notification was missed",
					ch, model.FormatDatetime(e.From.Time), model.FormatDatetime(covered))
			}
			if e.Until.OK && e.Until.Time.After(covered) {
				covered = e.Until.Time
			}
		}
		apply = append(apply, e)
	}
	if len(apply) == 0 {
		return covered, nil, "no change notified"
	}
	return covered, apply, ""
}

// channelsListed are the notification channels src's Capability List
// advertises.
func channelsListed(src *source) []notify.Channel {
	var out []notify.Channel
	for _, l := range src.listed {
		var k notify.Kind
		switch l.capability {
		case model.CapChangeNotification:
			k = notify.KindChange
		case model.CapFrameworkNotification:
			k = notify.KindFramework
		default:
			continue
		}
		out = append(out, notify.Channel{URL: l.url, Kind: k, CapabilityList: src.capList})
	}
	return out
}
