package engine

import (
	"context"
	"errors"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"rsx/demo"
	"rsx/dest/store"
)

// rangeRecorder is a bucket whose ranges walked are recorded, and one of
// which may fail.
type rangeRecorder struct {
	*store.S3
	mu     sync.Mutex
	ranges [][2]string
	seen   map[string]int // how many times each path was listed
	fail   int            // the range (in the order asked) that fails: 0 none
}

var errRangeRefused = errors.New("the server refused this range")

func (r *rangeRecorder) WalkRange(ctx context.Context, after, upTo string, fn func(store.FileInfo) error) error {
	r.mu.Lock()
	r.ranges = append(r.ranges, [2]string{after, upTo})
	n := len(r.ranges)
	r.mu.Unlock()
	if n == r.fail {
		return errRangeRefused
	}
	return r.S3.WalkRange(ctx, after, upTo, func(fi store.FileInfo) error {
		r.mu.Lock()
		r.seen[fi.Path]++
		r.mu.Unlock()
		return fn(fi)
	})
}

// A bucket's audit lists its objects by ranges of paths at once, beside
// the comparison: the ranges cover every key of the Source's part of the
// bucket once (an extra object at the part's start, its end, on either
// side of every split and in a folder of its own is found, once each; none
// of the state's objects is called extra), nothing outside it is listed
// (objects at the top, beside its folder), and a range the server refuses
// ends the audit with that error.
func TestS3AuditListsByRanges(t *testing.T) {
	defer func(m int64) { listRangeMin = m }(listRangeMin)
	listRangeMin = 10
	endpoint, mc := startVersitygw(t, "copies")
	srv := startDemo(t, demo.Options{Resources: 1000, Seed: 21})
	target := srv.URL + "/dataset2/capabilitylist.xml"
	dest := "s3://copies/demo?endpoint=" + endpoint + "&region=us-east-1"
	if res := s3Sync(t, dest, t.TempDir(), target, PlanOptions{}); !res.OK() || !res.Finished {
		t.Fatalf("baseline into the bucket:%s", failures(res))
	}
	ctx := context.Background()
	open := func(fail int) (*rangeRecorder, *Dest) {
		st, err := store.Open(ctx, dest, store.Options{Getenv: s3Getenv, CacheDir: t.TempDir(), ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		rec := &rangeRecorder{S3: st.(*store.S3), fail: fail, seen: map[string]int{}}
		s, err := Open(ctx, rec, testClient(t), Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return rec, s
	}

	// Where the ranges split: the state's paths (as the audit asks).
	_, s := open(0)
	splits, err := s.db.PathSplits(ctx, listRangesMax, listRangeMin)
	if err != nil || len(splits) != listRangesMax-1 {
		t.Fatalf("splits: %d, %v (want %d)", len(splits), err, listRangesMax-1)
	}
	put := func(p string) {
		t.Helper()
		if _, err := mc.PutObject(ctx, "copies", "demo/"+p, strings.NewReader("stray"), 5, minio.PutObjectOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// The Source's part: the folder of its copies and its Capability List.
	part := path.Dir(path.Dir(splits[0]))
	var want []string
	for _, p := range []string{"!first", "~last", "zz/deep/stray.txt"} {
		put(part + "/" + p)
		want = append(want, part+"/"+p)
	}
	outside := []string{"!first", "~last", "zz/deep/stray.txt", path.Dir(part) + "/notes.txt", part + "0/x"}
	for _, p := range outside {
		put(p)
	}
	for _, sp := range splits {
		// Just after the split (the next range's first key), and just
		// before it: the split with its last byte one less, and more.
		after := sp + " "
		before := sp[:len(sp)-1] + string(sp[len(sp)-1]-1) + "~"
		put(after)
		put(before)
		want = append(want, after, before)
	}
	put(".rsx/not-a-copy") // the state's folder: never a copy's file
	slices.Sort(want)

	rec, s := open(0)
	rep, err := s.AuditWith(ctx, target, AuditOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Extra, want) {
		t.Errorf("extra objects:\n got %q\nwant %q", rep.Extra, want)
	}
	if rep.Same == 0 || len(rep.Missing) != 0 || len(rep.Changed) != 0 {
		t.Errorf("the copy: same %d, missing %d, changed %d", rep.Same, len(rep.Missing), len(rep.Changed))
	}
	if len(rec.seen) != rep.Same+len(want) {
		t.Errorf("%d paths listed, want %d (%d copies, %d extra)", len(rec.seen), rep.Same+len(want), rep.Same, len(want))
	}
	for _, p := range outside {
		if rec.seen[p] != 0 {
			t.Errorf("%q, outside the Source's part, listed", p)
		}
	}
	for p, n := range rec.seen {
		if n != 1 {
			t.Errorf("%q listed %d times", p, n)
		}
	}
	if len(rec.ranges) != listRangesMax {
		t.Errorf("%d ranges listed, want %d: %q", len(rec.ranges), listRangesMax, rec.ranges)
	}
	got := slices.Clone(rec.ranges)
	slices.SortFunc(got, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	for i, r := range got {
		switch {
		case i == 0 && r[0] != part+"/":
			t.Errorf("the first range starts after %q", r[0])
		case i == len(got)-1 && r[1] != part+"/\xff":
			t.Errorf("the last range ends at %q", r[1])
		case i > 0 && r[0] != got[i-1][1]:
			t.Errorf("range %d starts after %q, the one before ends at %q", i, r[0], got[i-1][1])
		}
	}

	// A range refused: the audit ends with the refusal, not a cancellation.
	_, s = open(5)
	if _, err := s.AuditWith(ctx, target, AuditOptions{}); !errors.Is(err, errRangeRefused) {
		t.Errorf("a refused range: %v, want %v", err, errRangeRefused)
	}
}

// heldRanges is a bucket whose listing of every range but the first waits
// (as a listing of a large bucket goes on for minutes) until its context
// ends, or until hold has passed, when it lists as usual.
type heldRanges struct {
	*store.S3
	hold    time.Duration
	mu      sync.Mutex
	calls   int
	waited  int // ranges that waited until hold passed
	stopped int // ranges whose wait the audit's end cut short
}

func (h *heldRanges) WalkRange(ctx context.Context, after, upTo string, fn func(store.FileInfo) error) error {
	h.mu.Lock()
	h.calls++
	first := h.calls == 1
	h.mu.Unlock()
	if !first {
		select {
		case <-ctx.Done():
			h.mu.Lock()
			h.stopped++
			h.mu.Unlock()
			return ctx.Err()
		case <-time.After(h.hold):
			h.mu.Lock()
			h.waited++
			h.mu.Unlock()
		}
	}
	return h.S3.WalkRange(ctx, after, upTo, fn)
}

// A bucket audit whose look-up of the listed paths in the state fails stops
// at once with that error: the listings of the other ranges end then, not
// after listing the whole bucket (17 minutes at 1,000,000 objects before
// the error surfaced).
func TestS3AuditStopsWhenLookupFails(t *testing.T) {
	defer func(m int64) { listRangeMin = m }(listRangeMin)
	listRangeMin = 600 // 1,200 resources: two ranges, the first of more than a look-up's batch
	endpoint, _ := startVersitygw(t, "copies")
	srv := startDemo(t, demo.Options{Resources: 1500, Seed: 22}) // 1,200 in dataset 1
	target := srv.URL + "/dataset1/capabilitylist.xml"
	dest := "s3://copies/demo?endpoint=" + endpoint + "&region=us-east-1"
	if res := s3Sync(t, dest, t.TempDir(), target, PlanOptions{}); !res.OK() || !res.Finished {
		t.Fatalf("baseline into the bucket:%s", failures(res))
	}
	ctx := context.Background()
	st, err := store.Open(ctx, dest, store.Options{Getenv: s3Getenv, CacheDir: t.TempDir(), ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	held := &heldRanges{S3: st.(*store.S3), hold: 20 * time.Second}
	errLookup := errors.New("the state could not be read")
	var lookups atomic.Int64
	s, err := Open(ctx, held, testClient(t), Options{findPaths: func(context.Context, []string, func(int) error) error {
		lookups.Add(1)
		return errLookup
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	_, err = s.AuditWith(ctx, target, AuditOptions{})
	took := time.Since(start)
	if !errors.Is(err, errLookup) {
		t.Fatalf("audit: %v, want %v", err, errLookup)
	}
	if lookups.Load() != 1 {
		t.Errorf("%d look-ups after the one that failed", lookups.Load()-1)
	}
	held.mu.Lock()
	defer held.mu.Unlock()
	if held.waited > 0 || took > held.hold/2 {
		t.Errorf("the audit went on listing after the look-up failed: %d ranges listed after it, %v", held.waited, took.Round(time.Millisecond))
	}
	if held.calls < 2 || held.stopped == 0 {
		t.Errorf("%d ranges asked, %d stopped: the test did not hold a range", held.calls, held.stopped)
	}
}
