package spotcheck

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"rsx/claims"
	"rsx/model"
)

// ErrNoEntries: RunEntries was given no entry to check.
var ErrNoEntries = errors.New("no entries to audit")

// Resource is one resource checked, whole: every claim it was held to, and
// its mirrors' (Report.Resources, kept with Options.KeepResources).
type Resource struct {
	URL string // the resource, as listed (absolute)
	// Changed: the claims are a change's (a Change List entry, or a change
	// recorded after the resource's Resource List); Gone: the change is a
	// deletion, so a 404 or 410 was expected.
	Changed, Gone bool
	// Result holds the checks of the resource and of each mirror; it has
	// no Results when the loc could not be fetched (Unfetchable says why).
	Result      claims.EntryResult
	Unfetchable string
	Verdict     claims.Verdict
}

// keep adds a resource checked to Report.Resources.
func (r *Report) keep(it *item, er claims.EntryResult) {
	r.Resources = append(r.Resources, Resource{URL: it.entry.Loc, Changed: it.changed, Gone: it.gone, Result: er, Verdict: er.Verdict()})
}

// keepUnfetchable adds a resource whose loc was not fetched.
func (r *Report) keepUnfetchable(it *item) {
	r.Resources = append(r.Resources, Resource{URL: it.entry.Loc, Changed: it.changed, Gone: it.gone, Unfetchable: it.locProblem, Verdict: claims.Unchecked})
}

// verdictOrder puts the failures first, then what could not be compared,
// then the warnings, then what holds.
func verdictOrder(v claims.Verdict) int {
	switch v {
	case claims.Mismatch:
		return 0
	case claims.Unchecked, claims.NotDeclared:
		return 1
	case claims.Warning:
		return 2
	}
	return 3
}

// sortResources orders Report.Resources: failures first, then by URL.
func (r *Report) sortResources() {
	sort.SliceStable(r.Resources, func(i, j int) bool {
		a, b := &r.Resources[i], &r.Resources[j]
		if oa, ob := verdictOrder(a.Verdict), verdictOrder(b.Verdict); oa != ob {
			return oa < ob
		}
		return a.URL < b.URL
	})
}

// RunEntries checks the given entries, as a document lists them (those an
// archivist marked in the explorer): each by its own claims, a Change List
// entry by its change's (a deletion must be gone: 404 or 410), with its
// mirrors. from names the document they come from (Report.URL). Each loc
// must be absolute (resolved against the document); one that is not is
// reported unchecked, not fetched. The include and exclude patterns apply;
// with Options.Sample > 0 a sample of that many is drawn (seeded, as Run
// draws), otherwise every entry is checked. The error is not nil only when
// there is nothing to check.
func (a *Auditor) RunEntries(ctx context.Context, from string, entries []model.Entry) (*Report, error) {
	start := time.Now()
	r := a.newRun(ctx, from)
	defer r.stop(nil)
	if a.o.TimeBudget > 0 {
		t := time.AfterFunc(a.o.TimeBudget, func() { r.halt(StopTime) })
		defer t.Stop()
	}
	err := r.auditEntries(from, entries)
	return r.finish(start), err
}

func (r *run) auditEntries(from string, entries []model.Entry) error {
	if len(entries) == 0 {
		return fmt.Errorf("audit the entries of %s: %w", from, ErrNoEntries)
	}
	items := make([]*item, 0, len(entries))
	var res *reservoir
	if r.a.o.Sample > 0 && len(entries) > r.a.o.Sample {
		res = newReservoir(r.a.o.Sample)
	}
	for i := range entries {
		e := &entries[i]
		loc := strings.TrimSpace(e.Loc)
		if !r.a.selected(loc) {
			r.skipped.Add(1)
			continue
		}
		r.listed.Add(1)
		key := sampleKey(r.a.o.Seed, loc)
		it := &item{rank: rank{key: key, list: from, index: i}, entry: detach(e, loc), locProblem: locProblem(loc),
			changed: e.MD.Change != "", gone: e.MD.Change == model.ChangeDeleted}
		if res != nil {
			if res.wants(key) {
				res.offer(it)
			}
			continue
		}
		items = append(items, it)
	}
	if res != nil {
		items = res.sample()
	}
	r.checkItems(items)
	r.noteInterrupt()
	return nil
}
