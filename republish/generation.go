package republish

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"rsx/dest/state"
)

// bucket is how many rows of the state one document covers at most: a
// Resource List part holds the copies whose row ids share a bucket, a
// Change List the files whose run_file ids do (so at most 50,000 entries,
// the Sitemap limit, and a document's rows never change bucket: a part's
// URL names the same resources and a closed Change List the same changes
// at every generation, whatever was added or pruned since).
const bucket = 50000

// liveLists is how many Change Lists the Change List Index lists, the
// latest ones; the older ones are in the Change List Archive.
const liveLists = 16

// shape is the size of the documents: bucket and liveLists (tests make
// them small).
type shape struct {
	bucket int64
	live   int
}

// A generation is what is served at one time: a view of the state taken
// while no run went on (so never half a run), with the documents' layout.
// It is replaced when a run ends; one that requests still read is closed
// when the last of them is done.
type generation struct {
	shape
	num     uint64
	view    *view
	until   time.Time // every change up to here is served; none after
	lastRun int64     // the last run it holds (0: none)
	spans   []runSpan
	byRun   map[int64]*runSpan
	sources []*servedSource
	byID    map[int64]*servedSource
	// fingerprint tells whether a later view holds anything new.
	fingerprint string

	mu      sync.Mutex
	readers int
	retired bool
}

// servedSource is one Source of the copy, as a generation serves it.
type servedSource struct {
	row   state.Source
	slug  string // its folder under /resourcesync/
	title string
	parts []int64 // the row buckets that hold its copies (Resource List parts)
	lists []changeDoc
	runs  []*runSpan // its runs, oldest first
}

// changeDoc is one Change List of a Source: its changes whose run_file ids
// are in bucket num (num -1: an empty list, for a Source without changes),
// dated from from to until.
type changeDoc struct {
	num         int64
	from, until time.Time
}

// withView is the generation read from another view of the same state (a
// copy of its own).
func (g *generation) withView(v *view) *generation {
	return &generation{shape: g.shape, num: g.num, view: v, until: g.until, lastRun: g.lastRun, spans: g.spans, byRun: g.byRun,
		sources: g.sources, byID: g.byID, fingerprint: g.fingerprint}
}

// acquire takes the generation for one request; release gives it back.
func (g *generation) acquire() {
	g.mu.Lock()
	g.readers++
	g.mu.Unlock()
}

func (g *generation) release() {
	g.mu.Lock()
	g.readers--
	done := g.retired && g.readers == 0
	g.mu.Unlock()
	if done {
		g.view.close()
	}
}

// retire marks the generation replaced: its view is closed once no request
// reads it.
func (g *generation) retire() {
	g.mu.Lock()
	g.retired = true
	done := g.readers == 0
	g.mu.Unlock()
	if done {
		g.view.close()
	}
}

// bucketStat is what a scan of one bucket of run_file found for a Source:
// how many changes it holds there, and the latest of their times; the next
// scan continues at row scanned (a bucket read to its end is not read
// again).
type bucketStat struct {
	latest  time.Time
	count   int
	scanned int64
}

// until is the until of the bucket's Change List beginning at from: after
// every datetime its changes are served with (each its own time, or a tick
// after the one before: no more than a tick a change after the latest).
func (st *bucketStat) until(from time.Time) time.Time {
	return later(from, st.latest).Add(time.Duration(st.count) * tick)
}

// layoutCache keeps, from one generation to the next, what does not
// change once read: the run_file rows of each finished run, and the scans
// of the buckets of changes.
type layoutCache struct {
	mu      sync.Mutex
	spans   map[int64][2]int64       // run id → its first and last run_file id
	buckets map[[2]int64]*bucketStat // (Source, bucket) → its scan
}

func newLayoutCache() *layoutCache {
	return &layoutCache{spans: map[int64][2]int64{}, buckets: map[[2]int64]*bucketStat{}}
}

// build makes the generation of a view, or reports busy when a run goes on.
// over tells whether a run without an end is over.
func build(ctx context.Context, v *view, c *layoutCache, sh shape, titles map[string]string, over endOf) (*generation, bool, error) {
	f := v.f
	var runs []state.Run
	if err := f.EachRun(ctx, func(r *state.Run) error { runs = append(runs, *r); return nil }); err != nil {
		return nil, false, err
	}
	spans, busy := timeline(runs, over)
	if busy {
		return nil, true, nil
	}
	srcs, err := f.Sources(ctx)
	if err != nil {
		return nil, false, err
	}
	g := &generation{shape: sh, view: v, spans: spans, byRun: make(map[int64]*runSpan, len(spans)), byID: map[int64]*servedSource{}}
	for i := range g.spans {
		g.byRun[g.spans[i].id] = &g.spans[i]
	}
	if n := len(spans); n > 0 {
		g.until, g.lastRun = spans[n-1].end, spans[n-1].id
	} else {
		for _, s := range srcs {
			g.until = later(g.until, later(s.LastRun, s.Baseline.Done))
		}
	}
	maxCopy, err := f.LargestCopyID(ctx)
	if err != nil {
		return nil, false, err
	}
	var lastFile int64
	for _, s := range srcs {
		if s.Baseline.Done.IsZero() {
			continue // a copy never finished is no Source to serve
		}
		ss := &servedSource{row: s, slug: strconv.FormatInt(s.ID, 10), title: titles[s.URL]}
		for i := range g.spans {
			if g.spans[i].source == s.ID {
				ss.runs = append(ss.runs, &g.spans[i])
			}
		}
		for b := int64(0); b <= maxCopy/g.bucket; b++ {
			ok, err := f.HasCopies(ctx, s.ID, b*g.bucket, (b+1)*g.bucket)
			if err != nil {
				return nil, false, err
			}
			if ok {
				ss.parts = append(ss.parts, b)
			}
		}
		last, err := c.layoutChanges(ctx, f, g, ss)
		if err != nil {
			return nil, false, err
		}
		lastFile = max(lastFile, last)
		g.sources = append(g.sources, ss)
		g.byID[s.ID] = ss
	}
	damaged, err := f.DamagedCount(ctx)
	if err != nil {
		return nil, false, err
	}
	g.fingerprint = fmt.Sprintf("%d/%s/%d/%d/%d/%d", g.lastRun, g.until, len(g.sources), maxCopy, lastFile, damaged)
	return g, false, nil
}

// layoutChanges lays a Source's Change Lists out: one for each bucket of
// run_file rows that holds changes of its runs, each from the until of the
// one before (the first from its history's start), each until the datetime
// of its last change, the last until the generation's time. It returns the
// largest run_file id of the Source's runs.
func (c *layoutCache) layoutChanges(ctx context.Context, f *state.Frozen, g *generation, ss *servedSource) (int64, error) {
	var nums []int64
	var lastFile int64
	for _, sp := range ss.runs {
		if sp.changes == 0 {
			continue
		}
		span, err := c.fileSpan(ctx, f, sp.id)
		if err != nil {
			return 0, err
		}
		if span[1] == 0 {
			continue
		}
		lastFile = max(lastFile, span[1])
		for b := span[0] / g.bucket; b <= span[1]/g.bucket; b++ {
			nums = append(nums, b)
		}
	}
	slices.Sort(nums)
	nums = slices.Compact(nums)
	from := historyStart(ss)
	for _, b := range nums {
		st, err := c.scanBucket(ctx, f, g, ss.row.ID, b, lastFile)
		if err != nil {
			return 0, err
		}
		if st.count == 0 {
			continue // only files refused or failed: no change to list
		}
		d := changeDoc{num: b, from: from, until: st.until(from)}
		ss.lists = append(ss.lists, d)
		from = d.until
	}
	if n := len(ss.lists); n > 0 {
		ss.lists[n-1].until = g.until
	} else {
		ss.lists = []changeDoc{{num: -1, from: from, until: g.until}}
	}
	return lastFile, nil
}

// historyStart is when the served history of a Source begins: before its
// first run, while the state holds every run it had; else (its oldest runs
// pruned, state.KeepRuns) the first time of the oldest run kept.
func historyStart(ss *servedSource) time.Time {
	if len(ss.runs) == 0 {
		return ss.row.Created.Add(-time.Second)
	}
	if len(ss.runs) < state.KeepRuns {
		t := ss.runs[0].first
		if !ss.row.Created.IsZero() && ss.row.Created.Before(t) {
			t = ss.row.Created
		}
		return t.Add(-time.Second)
	}
	return ss.runs[0].first
}

// fileSpan is the first and last run_file id of a finished run, read once.
func (c *layoutCache) fileSpan(ctx context.Context, f *state.Frozen, run int64) ([2]int64, error) {
	c.mu.Lock()
	sp, ok := c.spans[run]
	c.mu.Unlock()
	if ok {
		return sp, nil
	}
	lo, hi, err := f.FileSpan(ctx, run)
	if err != nil {
		return sp, err
	}
	sp = [2]int64{lo, hi}
	c.mu.Lock()
	c.spans[run] = sp
	c.mu.Unlock()
	return sp, nil
}

// scanBucket counts a Source's changes in bucket b, and finds the latest
// time they are served with, reading only what an earlier scan did not
// (rows up to lastFile are those of finished runs).
func (c *layoutCache) scanBucket(ctx context.Context, f *state.Frozen, g *generation, source, b, lastFile int64) (*bucketStat, error) {
	key := [2]int64{source, b}
	c.mu.Lock()
	st := c.buckets[key]
	if st == nil {
		st = &bucketStat{scanned: b * g.bucket}
		c.buckets[key] = st
	}
	c.mu.Unlock()
	end := min((b+1)*g.bucket, lastFile+1)
	if st.scanned >= end {
		return st, nil
	}
	err := f.ChangeStats(ctx, st.scanned, end, func(run int64, latest time.Time, n int) {
		if sp := g.byRun[run]; sp != nil && sp.source == source {
			st.latest = later(st.latest, sp.changeTime(latest))
			st.count += n
		}
	})
	if err != nil {
		return nil, err
	}
	st.scanned = end
	return st, nil
}

// list finds the Change List of a Source that a URL names: its bucket, from
// and until. It is the generation's list of that bucket, or one it was at
// an earlier generation (the same bucket and from, an earlier until: a
// client that read the index then reads it now, and gets what it held).
func (ss *servedSource) list(num int64, from, until time.Time) (changeDoc, bool) {
	for _, d := range ss.lists {
		if d.num == num && d.from.Equal(from) && !until.After(d.until) && !until.Before(from) {
			return changeDoc{num: num, from: from, until: until}, true
		}
	}
	return changeDoc{}, false
}
