package job

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// The soft memory limit of the runs, when GOMEMLIMIT is not set, is what
// they need: for each run open, baseMemoryLimit (what a run against a
// small copy may take) plus memoryPerRow for each resource of its state,
// over what the process held before the first of them opened (the
// explorer's documents). The garbage collector works harder as the heap
// nears it; a limit below what a run needs makes it collect without end
// instead (an audit --dest at 800,000 resources ran 2.7 times slower under
// a fixed 200 MiB), so the limit keeps room above the need, and only a run
// that holds more than measured (BENCHMARKS.md, "Memory limit") works
// against it. Runs at once (a fleet's) add their needs up. When the last
// run closes, the limit is what it was before the first.
const (
	baseMemoryLimit = 200 << 20
	// memoryPerRow: a sync's plan against a large state loads its Index,
	// 72 bytes a row, beside bitmaps of a bit a row; with the collector's
	// room (GOGC=100: as much again), 160 bytes. An audit --dest holds a
	// bit a row (it reads the state a batch at a time).
	memoryPerRow = 160
)

// MemoryNeed is the soft memory limit a run on a copy whose state's
// largest row id is maxID (a bound of its rows) needs.
func MemoryNeed(maxID int64) int64 {
	return baseMemoryLimit + memoryPerRow*max(maxID, 0)
}

// memoryLimiter keeps the process's soft memory limit at the sum of the
// needs of the runs open.
type memoryLimiter struct {
	mu     sync.Mutex
	claims map[*memoryClaim]int64
	prev   int64 // the limit before the first claim
	floor  int64 // the live heap then
}

// memoryClaim is one run's share; nil when the limit is left alone.
type memoryClaim struct{ m *memoryLimiter }

// claim adds a run of the base need; nil when GOMEMLIMIT is set (read
// through getenv, os.Getenv when nil).
func (m *memoryLimiter) claim(getenv func(string) string) *memoryClaim {
	if getenv == nil {
		getenv = os.Getenv
	}
	if getenv("GOMEMLIMIT") != "" {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.claims) == 0 {
		m.claims = map[*memoryClaim]int64{}
		m.prev = debug.SetMemoryLimit(-1)
		m.floor = liveHeap()
	}
	c := &memoryClaim{m: m}
	m.claims[c] = MemoryNeed(0)
	m.apply()
	return c
}

// rows sets the claim's need by its state's size.
func (c *memoryClaim) rows(maxID int64) {
	if c == nil {
		return
	}
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	if _, ok := c.m.claims[c]; ok {
		c.m.claims[c] = MemoryNeed(maxID)
		c.m.apply()
	}
}

// release gives the claim back: the last one restores the limit.
func (c *memoryClaim) release() {
	if c == nil {
		return
	}
	m := c.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.claims[c]; !ok {
		return
	}
	delete(m.claims, c)
	if len(m.claims) == 0 {
		debug.SetMemoryLimit(m.prev)
		return
	}
	m.apply()
}

// apply sets the limit; m.mu is held.
func (m *memoryLimiter) apply() {
	sum := m.floor
	for _, n := range m.claims {
		sum += n
	}
	debug.SetMemoryLimit(sum)
}

// limit is the limit the claims ask for now (0: none open); for tests.
func (m *memoryLimiter) limit() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.claims) == 0 {
		return 0
	}
	sum := m.floor
	for _, n := range m.claims {
		sum += n
	}
	return sum
}

// liveHeap is the heap the last garbage collection found live.
func liveHeap() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}
