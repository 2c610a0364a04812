package bag

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"rsx/dest/state"
	"rsx/display"
)

// A bag states only what the state can vouch for. The run it reflects is a
// Source's newest run that carried out a plan: runs that could not plan (the
// Source unreachable, a document unreadable) changed nothing in the copy,
// and the newest of those after it is named beside it. The copy is complete
// when its baseline is finished and that run ended with exit status 0;
// otherwise a bag is refused (ErrIncomplete), or made and marked incomplete
// when asked for, without the copy's point: a point is every change up to it
// applied, which a copy with an unfinished baseline, or a bag with files
// left out, does not have.

// planFailed is the mode the history gives a run that could not plan.
const planFailed = "plan"

var errEnough = errors.New("enough runs read")

// assess reads what the history says of a Source's copy: the run a bag of
// it reflects, the newer run that could not plan, and why the copy is not
// complete (no reason: it is).
func assess(ctx context.Context, db *state.DB, s state.Source) (SourceCopy, error) {
	c := SourceCopy{Source: s}
	err := db.Runs(ctx, s.ID, 0, func(r *state.Run) error {
		x := *r
		if r.Mode == planFailed && !r.Ended.IsZero() {
			if c.Later == nil {
				c.Later = &x
			}
			return nil
		}
		c.Run = &x
		return errEnough
	})
	if err != nil && !errors.Is(err, errEnough) {
		return c, fmt.Errorf("bag: read the history of %s: %w", s.URL, err)
	}
	if s.Baseline.Done.IsZero() {
		c.Gaps = append(c.Gaps, "the baseline is not finished")
	}
	if r := c.Run; r != nil {
		switch {
		case r.Ended.IsZero():
			c.Gaps = append(c.Gaps, fmt.Sprintf("run %d (%s, started %s) has no end recorded: it was killed, or is going on", r.ID, r.Mode, stamp(r.Started)))
		case r.ExitStatus != 0:
			c.Gaps = append(c.Gaps, fmt.Sprintf("run %d ended %s with exit status %d: %s", r.ID, stamp(r.Ended), r.ExitStatus, runCounts(r)))
		}
	}
	return c, nil
}

// Assess says, for each Source asked for (every Source of the copy when
// none is), the run a bag would reflect and what keeps its copy from being
// complete: what Write checks before it writes anything, for a caller that
// wants to know before it does more (reads the Source's metadata).
func Assess(ctx context.Context, db *state.DB, sources []string) ([]SourceCopy, error) {
	picked, err := pickSources(ctx, db, sources)
	if err != nil {
		return nil, err
	}
	var out []SourceCopy
	for _, s := range picked {
		c, err := assess(ctx, db, s)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// Incomplete is the error of a Write refused because a copy is not
// complete (wrapping ErrIncomplete), or nil when every copy is.
func Incomplete(copies []SourceCopy) error {
	var parts []string
	for _, c := range copies {
		if len(c.Gaps) > 0 {
			parts = append(parts, c.Source.URL+": "+strings.Join(c.Gaps, "; "))
		}
	}
	if parts == nil {
		return nil
	}
	return fmt.Errorf("bag: %s: %w", strings.Join(parts, "; "), ErrIncomplete)
}

// stamp is a time of rsx's clock as bag-info.txt gives it.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// runCounts says what a run did, and why it stopped when it did.
func runCounts(r *state.Run) string {
	s := fmt.Sprintf("%s: %s created, %s updated, %s deleted, %s failed", r.Mode, display.Count(r.Created), display.Count(r.Updated), display.Count(r.Deleted), display.Count(r.Failed))
	if r.Stopped != "" {
		s += "; stopped: " + r.Stopped
	}
	return s
}

// info is the bag-info.txt lines of a Source's copy.
func (c *SourceCopy) info() []Field {
	s := c.Source
	f := []Field{{"ResourceSync-Capability-List", s.URL}}
	if r := c.Run; r != nil {
		f = append(f, Field{"ResourceSync-Run", strconv.FormatInt(r.ID, 10)})
		if r.Ended.IsZero() {
			f = append(f, Field{"ResourceSync-Run-Ended", "no end recorded (killed, or going on)"})
		} else {
			f = append(f, Field{"ResourceSync-Run-Ended", stamp(r.Ended)})
		}
		f = append(f, Field{"ResourceSync-Run-Summary", runSummary(r)})
	} else {
		f = append(f, Field{"ResourceSync-Run", "none recorded"})
	}
	if l := c.Later; l != nil {
		f = append(f, Field{"ResourceSync-Later-Run", strconv.FormatInt(l.ID, 10) + " ended " + stamp(l.Ended) + ": " + l.Stopped})
	}
	if s.Baseline.URL != "" {
		v := s.Baseline.URL
		if !s.Baseline.At.IsZero() {
			v += " at " + s.Baseline.At.UTC().Format(time.RFC3339Nano)
		}
		f = append(f, Field{"ResourceSync-Baseline", v})
		finished := "no"
		if !s.Baseline.Done.IsZero() {
			finished = stamp(s.Baseline.Done)
		}
		f = append(f, Field{"ResourceSync-Baseline-Finished", finished})
	}
	if p := s.Point(); c.Complete() && !p.IsZero() {
		f = append(f, Field{"ResourceSync-Copy-Point", p.UTC().Format(time.RFC3339Nano)})
	}
	if sel := selectionText(s.Selection); sel != "" {
		f = append(f, Field{"ResourceSync-Selection", sel})
	}
	if !s.ReconcileDue.IsZero() {
		f = append(f, Field{"ResourceSync-Audit-Not-In-Sync", stamp(s.ReconcileDue)})
	}
	if c.Complete() {
		f = append(f, Field{"ResourceSync-Copy-Complete", "yes"})
	} else {
		f = append(f, Field{"ResourceSync-Copy-Complete", "no"})
	}
	for _, g := range c.Gaps {
		f = append(f, Field{"ResourceSync-Incomplete-Reason", g})
	}
	if c.Refused > 0 {
		f = append(f, Field{"ResourceSync-Incomplete-Reason", display.Plural(c.Refused, "file", "files") + " of the copy " + plural(c.Refused, "does", "do") + " not match the state's records: left out of the bag"})
	}
	failed := 0
	if c.Run != nil {
		failed = c.Run.Failed
	}
	return append(f,
		Field{"ResourceSync-Failed", strconv.Itoa(failed)},
		Field{"ResourceSync-Left-Out-Selection", strconv.Itoa(c.Unselected)},
		Field{"ResourceSync-Left-Out-Deleted", strconv.Itoa(c.Deleted)},
		Field{"ResourceSync-Left-Out-Refused", strconv.Itoa(c.Refused)},
	)
}

// runSummary is a run in one line: its mode, exit status, counts, and the
// rsx that ran it.
func runSummary(r *state.Run) string {
	exit := "no exit status"
	if r.ExitStatus >= 0 {
		exit = "exit status " + strconv.Itoa(r.ExitStatus)
	}
	s := exit + ", " + runCounts(r)
	if r.Version != "" {
		s += "; " + r.Version
	}
	return s
}

// selectionText is the options rsx sync selects a Source's resources with,
// as they would be given.
func selectionText(sel state.Selection) string {
	var parts []string
	for _, re := range sel.Include {
		parts = append(parts, "--include "+re)
	}
	for _, re := range sel.Exclude {
		parts = append(parts, "--exclude "+re)
	}
	for _, m := range sel.Map {
		parts = append(parts, "--map "+m)
	}
	return strings.Join(parts, " ")
}
