package job

import "testing"

// The soft memory limit grows with the state: never below what a run on it
// needs (the Index a sync's plan loads, 72 bytes a row, and the collector's
// room), so that no run works against its own limit.
func TestMemoryNeedBySize(t *testing.T) {
	for _, c := range []struct {
		maxID int64
		least int64
	}{
		{0, 200 << 20},
		{-1, 200 << 20},
		{100_000, 200<<20 + 2*72*100_000},
		{1_000_000, 200<<20 + 2*72*1_000_000},
		{10_000_000, 200<<20 + 2*72*10_000_000},
	} {
		if got := MemoryNeed(c.maxID); got < c.least || got > c.least+c.least/2 {
			t.Errorf("MemoryNeed(%d) = %d MiB, want about %d", c.maxID, got>>20, c.least>>20)
		}
	}
}
