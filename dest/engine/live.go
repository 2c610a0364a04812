package engine

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"rsx/dest/plan"
	"rsx/model"
)

// A baseline of a Source that changes while it is copied (issue 34 item 2).
//
// A baseline's Resource List describes the Source at its at; the resources
// are fetched after it. A resource that changed in between has a body that
// no longer matches the list's hash and length, or is gone (404, 410): a
// failure, unless the Source's Change List records that change after the
// list's at. The run holds such failures back (holdBack) and, once every
// item is done, reads the Change Lists after the at once (changesAfter):
// a resource whose last change there is a deletion is taken as deleted
// (left out, or its copy deleted or its deletion remembered as the
// incremental run would); one whose last change is a creation or an update
// that declares a digest is fetched again and verified against that
// entry's hash and length, and kept when it matches, its row recording
// the change's datetime (so that the next incremental run finds it
// applied). Each is said in the run with its entry (Result.Vouched). A
// body nothing vouches for fails as before.

// lastChange is the last change of a resource after a Resource List's at,
// as a Change List records it.
type lastChange struct {
	e    plan.Entry
	at   time.Time // its datetime, or the latest before it in the list
	list string
}

// holdBack keeps a failed outcome that a change after the Resource List's
// at may explain, for explain; it reports whether it kept it.
func (r *runner) holdBack(out outcome) bool {
	p := r.p
	if out.kind != outFailed || out.it == nil || out.it.Entry.Ref != "" || p.changeList == "" || p.Mode != ModeBaseline || p.From != FromList {
		return false
	}
	switch f := out.fail; {
	case f.Kind == KindVerify:
	case f.Kind == KindFetch && (f.Status == http.StatusNotFound || f.Status == http.StatusGone):
	default:
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.held) >= maxListed {
		return false
	}
	r.held = append(r.held, out)
	return true
}

// explain settles the outcomes held back, once every item is done, and
// hands them to the recorder; what it fetches again, it fetches as many at
// once as the run does.
func (r *runner) explain() {
	r.mu.Lock()
	held := r.held
	r.held = nil
	r.mu.Unlock()
	if len(held) == 0 {
		return
	}
	var changes map[string]lastChange
	var err error
	if r.ctx.Err() == nil {
		uris := make(map[string]bool, len(held))
		for _, o := range held {
			uris[o.it.Entry.URI] = true
		}
		changes, err = r.s.changesAfter(r.ctx, r.p, uris)
	}
	jobs := make(chan outcome)
	var wg sync.WaitGroup
	for range min(r.s.opts.Concurrency, len(held)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 64<<10)
			for out := range jobs {
				switch c, ok := changes[out.it.Entry.URI]; {
				case err != nil && r.ctx.Err() == nil:
					out.fail.Err = fmt.Errorf("%w (the Change List %s, which could say whether the Source changed it after %s, could not be read: %v)",
						out.fail.Err, r.p.changeList, model.FormatDatetime(r.p.At), err)
				case ok && r.ctx.Err() == nil:
					out = r.retake(out, c, buf)
				}
				r.results <- out
			}
		}()
	}
	for _, out := range held {
		jobs <- out
	}
	close(jobs)
	wg.Wait()
}

// retake takes a resource held back as its last change after the Resource
// List's at records it, or returns its failure, said more fully.
func (r *runner) retake(out outcome, c lastChange, buf []byte) outcome {
	it := *out.it
	e := c.e
	v := &Vouched{URI: e.URI, Path: it.Path, Change: e.Change, Datetime: e.Datetime, Length: e.Length, List: c.list, Was: out.fail.Error()}
	what := fmt.Sprintf("its change (%s at %s) in %s", changeWord(e.Change), model.FormatDatetime(c.at), c.list)
	if e.Change == model.ChangeDeleted {
		e.Digests, e.Length = "", -1
		it.Entry = e
		switch {
		case it.Action == plan.Create:
			return outcome{kind: outGone, it: &it, vouch: v}
		case r.p.Delete:
			it.Action = plan.Delete
			o := r.remove(&it)
			o.vouch = v
			return o
		}
		it.Action = plan.PendingDelete
		if it.Entry.Datetime.IsZero() {
			it.Entry.Datetime = c.at
		}
		return outcome{kind: outPending, it: &it, vouch: v}
	}
	if !hasSupportedDigest(e.Digests) {
		out.fail.Err = fmt.Errorf("%w (%s declares no digest rsx can compute to vouch for it)", out.fail.Err, what)
		return out
	}
	v.Hash = string(e.Digests)
	if e.Type == "" {
		e.Type = it.Entry.Type
	}
	it.Entry = e
	o := r.write(&it, buf)
	switch o.kind {
	case outWrote, outQueued:
		o.vouch = v
		return o
	case outAbandoned:
		return o
	}
	out.fail.Err = fmt.Errorf("%w; fetched again, it does not match %s either: %v", out.fail.Err, what, o.fail.Err)
	if o.fail.Rejected != "" {
		out.fail.Rejected = o.fail.Rejected
	}
	return out
}

func changeWord(c model.Change) string {
	if c == "" {
		return "changed"
	}
	return string(c)
}

// changesAfter reads the Change Lists of p's Source that cover the time
// after its Resource List's at (past a stretch no list covers, those after
// it) and returns the last change after the at of each resource of uris.
func (s *Dest) changesAfter(ctx context.Context, p *Plan, uris map[string]bool) (map[string]lastChange, error) {
	b := &builder{s: s, p: &Plan{}, capList: p.CapabilityList, listed: p.listed}
	var lists []listRef
	from := p.At
	for range 8 {
		part, gap, err := b.catchUpLists(ctx, p.changeList, from, nil)
		if err != nil {
			return nil, err
		}
		lists = append(lists, part...)
		if gap == nil || gap.To.IsZero() {
			break
		}
		from = gap.To
	}
	if len(b.p.Problems) > 0 {
		return nil, b.p.Problems[0]
	}
	out := map[string]lastChange{}
	for _, l := range lists {
		if !l.until.IsZero() && l.until.Before(p.At) {
			continue
		}
		if err := s.lastChanges(ctx, l, p.At, uris, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// lastChanges reads one Change List into out: the last change of each
// resource of uris dated at or after at (an entry without a datetime takes
// the latest one before it in the list, else the list's from).
func (s *Dest) lastChanges(ctx context.Context, l listRef, at time.Time, uris map[string]bool, out map[string]lastChange) error {
	d, err := s.openDoc(ctx, l.url)
	if err != nil {
		return err
	}
	defer d.Close()
	if c := d.hdr.MD.Capability; c != model.CapChangeList || d.isIndex() {
		return fmt.Errorf("%s, listed as a Change List, is a %s", d.url, model.DocumentTitle(c, d.hdr.Root))
	}
	latest := firstTime(d.hdr.MD.From.Time, l.from)
	_, err = d.each(ctx, func(e *model.Entry, loc string) error {
		pe := entryOf(e, loc)
		dt := pe.Datetime
		if dt.IsZero() {
			dt = latest
		} else if dt.After(latest) {
			latest = dt
		}
		if !uris[pe.URI] || dt.IsZero() || dt.Before(at) {
			return nil
		}
		if prev, ok := out[pe.URI]; ok && dt.Before(prev.at) {
			return nil
		}
		out[pe.URI] = lastChange{e: pe, at: dt, list: d.url}
		return nil
	})
	return err
}
