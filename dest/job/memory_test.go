package job

import (
	"runtime/debug"
	"testing"
)

// The soft memory limit grows with the state: never below what a run on it
// holds (the Index a sync's plan loads, 72 bytes a row, and the copies'
// facts a reconcile adds, 24), with a fixed room above that for the
// collector; and no more than keeps a dry run of a million changes against
// a million rows under 300 MB (TestSyncPlan1M: it holds 138 MiB at its
// peak, and the process about 15 MB outside the limit).
func TestMemoryNeedBySize(t *testing.T) {
	const room = 56 << 20 // what the collector got under GOMEMLIMIT=200MiB at a million, no slower
	for _, c := range []struct {
		maxID int64
		least int64
	}{
		{0, room + 72_000_000}, // a plan of a million changes into an empty copy: its winners
		{-1, room + 72_000_000},
		{100_000, room + 96*100_000},
		{1_000_000, room + 138<<20},
		{10_000_000, room + 96*10_000_000},
	} {
		if got := MemoryNeed(c.maxID); got < c.least {
			t.Errorf("MemoryNeed(%d) = %d MiB, want at least %d MiB", c.maxID, got>>20, c.least>>20)
		}
	}
	if got := MemoryNeed(1_000_000); got > 240<<20 {
		t.Errorf("MemoryNeed(1,000,000) = %d MiB, want at most 240 MiB (a plan's peak under 300 MB)", got>>20)
	}
}

// A plan of more changes than the base holds the winners of raises its
// run's limit by a winner for each resource past them (engine.Options.Held),
// beside its state's rows: a dry run of two million changes into a small
// copy took 35 s of CPU under a limit by the state alone, 16 s with room.
func TestMemoryNeedByChangesHeld(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	m := &memoryLimiter{}
	c := m.claim(func(string) string { return "" })
	c.rows(1000)
	base := m.limit()
	if base != m.floor+MemoryNeed(1000) || debug.SetMemoryLimit(-1) != base {
		t.Fatalf("limit %d, want %d", base, m.floor+MemoryNeed(1000))
	}
	c.changes(baseChanges)
	if got := m.limit(); got != base {
		t.Errorf("a million changes held: %d, want %d (the base holds them)", got, base)
	}
	c.changes(2_000_000)
	want := base + 1_000_000*memoryPerChange
	if got := m.limit(); got != want || debug.SetMemoryLimit(-1) != want {
		t.Errorf("two million changes held: %d, want %d", got, want)
	}
	c.rows(2000) // the state's size later: both count
	if got := m.limit(); got != want+1000*memoryPerRow {
		t.Errorf("two million changes and 2,000 rows: %d, want %d", got, want+1000*memoryPerRow)
	}
	c.release()
	c.changes(3_000_000) // released: no effect
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("after: %d, want %d", got, before)
	}
}
