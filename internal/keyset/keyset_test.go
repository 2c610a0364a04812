package keyset

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestSetSaysWhatItHeld: the same answers in memory and on disk, with keys
// repeated inside one Add and across Adds, and across the move to disk;
// the file goes with Close.
func TestSetSaysWhatItHeld(t *testing.T) {
	ctx := context.Background()
	for _, inMemory := range []int{1 << 20, 100, 1} {
		dir := t.TempDir()
		s := New(dir, "test keys", inMemory)
		r := rand.New(rand.NewPCG(7, uint64(inMemory)))
		ref := map[Key]bool{}
		for round := range 40 {
			n := 1 + r.IntN(1200) // past one INSERT's chunk
			keys := make([]Key, n)
			want := make([]bool, n)
			for i := range keys {
				keys[i] = Key{uint64(r.IntN(3000)), uint64(r.IntN(2))}
				want[i] = ref[keys[i]]
				ref[keys[i]] = true
			}
			had := make([]bool, n)
			if err := s.Add(ctx, keys, had); err != nil {
				t.Fatal(err)
			}
			for i := range keys {
				if had[i] != want[i] {
					t.Fatalf("in memory %d, round %d, key %d (%v): had %v, want %v", inMemory, round, i, keys[i], had[i], want[i])
				}
			}
		}
		if s.Len() != len(ref) {
			t.Errorf("in memory %d: Len %d, want %d", inMemory, s.Len(), len(ref))
		}
		if s.OnDisk() != (inMemory < len(ref)) {
			t.Errorf("in memory %d: on disk %v", inMemory, s.OnDisk())
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
			t.Errorf("in memory %d: left %v", inMemory, left)
		}
	}
}

// TestSetNoDirectory: a folder that cannot hold the file is an error of Add,
// and of every Add after it, never a panic.
func TestSetNoDirectory(t *testing.T) {
	s := New(filepath.Join(t.TempDir(), "not-there"), "test keys", 2)
	keys := []Key{{1, 1}, {2, 2}, {3, 3}}
	for range 2 {
		if err := s.Add(context.Background(), keys, make([]bool, 3)); err == nil {
			t.Fatal("no error")
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestSetSpeed reports how fast keys go in on disk (RSX_SPEED=1).
func TestSetSpeed(t *testing.T) {
	if os.Getenv("RSX_SPEED") == "" {
		t.Skip("RSX_SPEED=1 times a million keys on disk")
	}
	for _, inMemory := range []int{0, 1 << 21} {
		s := New(t.TempDir(), "test keys", inMemory)
		defer s.Close()
		var ru0, ru1 syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
		r := rand.New(rand.NewPCG(1, 2))
		keys := make([]Key, 1000)
		had := make([]bool, len(keys))
		t0 := time.Now()
		for range 1000 {
			for i := range keys {
				keys[i] = Key{r.Uint64(), r.Uint64()}
			}
			if err := s.Add(context.Background(), keys, had); err != nil {
				t.Fatal(err)
			}
		}
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
		cpu := time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
		t.Logf("1,000,000 keys: %v, %v of CPU (on disk: %v)", time.Since(t0).Round(time.Millisecond), cpu.Round(time.Millisecond), s.OnDisk())
	}
}
