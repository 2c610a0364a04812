package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"rsx/dest/store"
)

// fakeRanges is a store that lists each range it is asked for as per
// objects of its own, then, with hold, waits that long (or until the
// listing is cancelled) before it ends the range, as a slow server's last
// page would.
type fakeRanges struct {
	store.Store
	per  int
	hold time.Duration

	mu      sync.Mutex
	ranges  [][2]string
	waited  int // ranges that waited out hold (not cancelled)
	stopped int // ranges cancelled
}

func (f *fakeRanges) WalkRange(ctx context.Context, after, upTo string, fn func(store.FileInfo) error) error {
	f.mu.Lock()
	f.ranges = append(f.ranges, [2]string{after, upTo})
	k := len(f.ranges)
	f.mu.Unlock()
	for i := range f.per {
		if err := fn(store.FileInfo{Path: fmt.Sprintf("range-%02d/%06d", k, i), Size: int64(i)}); err != nil {
			return err
		}
	}
	if f.hold == 0 {
		return nil
	}
	select {
	case <-time.After(f.hold):
		f.mu.Lock()
		f.waited++
		f.mu.Unlock()
		return nil
	case <-ctx.Done():
		f.mu.Lock()
		f.stopped++
		f.mu.Unlock()
		return ctx.Err()
	}
}

// listByRanges lists every range the state's paths split the copy into,
// each object once, in batches of at most a look-up's; and when what it
// hands a batch to fails, it stops at once with that error: the ranges
// being listed are cancelled, no other is started (a failed look-up in the
// state is no reason to list the rest of a bucket, 17 minutes at 1M on
// versitygw).
func TestListByRanges(t *testing.T) {
	defer func(m int64) { listRangeMin = m }(listRangeMin)
	listRangeMin = 200
	db, _ := lookupState(t, 2000) // and 286 rows of another Source: 11 ranges
	ctx := context.Background()

	f := &fakeRanges{per: 700}
	seen := map[string]int{}
	err := listByRanges(ctx, db, f, []string{""}, func(batch []store.FileInfo) error {
		if len(batch) == 0 || len(batch) > 500 {
			t.Errorf("a batch of %d", len(batch))
		}
		for _, fi := range batch {
			seen[fi.Path]++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.ranges) != 11 || len(seen) != 11*700 {
		t.Errorf("%d ranges listed, %d objects handed on; want 11 and %d", len(f.ranges), len(seen), 11*700)
	}
	for p, n := range seen {
		if n != 1 {
			t.Errorf("%s handed on %d times", p, n)
		}
	}

	// Only the folders given (one Source's part of DEST) are asked for;
	// none, nothing.
	for _, folders := range [][]string{{"m"}, {"a/b", "zz"}, nil} {
		f = &fakeRanges{per: 1}
		if err := listByRanges(ctx, db, f, folders, func([]store.FileInfo) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if len(folders) == 0 && len(f.ranges) > 0 {
			t.Errorf("no folder: %d ranges asked", len(f.ranges))
		}
		for _, r := range f.ranges {
			in := false
			for _, folder := range folders {
				lo, hi := store.FolderRange(folder)
				in = in || r[0] >= lo && r[1] != "" && r[1] <= hi
			}
			if !in {
				t.Errorf("folders %q: range (%q, %q] asked", folders, r[0], r[1])
			}
		}
	}

	f = &fakeRanges{per: 700, hold: 20 * time.Second}
	errLookup := errors.New("the state could not be read")
	calls := 0
	start := time.Now()
	err = listByRanges(ctx, db, f, []string{""}, func([]store.FileInfo) error {
		calls++
		return errLookup
	})
	took := time.Since(start)
	if !errors.Is(err, errLookup) {
		t.Fatalf("listByRanges: %v, want %v", err, errLookup)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if calls != 1 || f.waited > 0 || took > f.hold/2 {
		t.Errorf("after the failure: %d batches more handed on, %d ranges listed to their end, %v", calls-1, f.waited, took.Round(time.Millisecond))
	}
	if f.stopped == 0 || len(f.ranges) > listWorkers {
		t.Errorf("%d ranges asked, %d stopped: want those under way (at most %d) stopped, no other asked", len(f.ranges), f.stopped, listWorkers)
	}
}
