package job

import "testing"

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
