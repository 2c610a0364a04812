package job

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// The soft memory limit of the runs, when GOMEMLIMIT is not set, is what
// they hold and the collector's room: for each run open, baseMemoryLimit
// plus memoryPerRow for each resource of its state (and memoryPerChange for
// each its plan holds a change of past baseChanges), over what the process
// held before the first of them opened (the explorer's documents). Runs at
// once (a fleet's) add their needs up. When the last run closes, the limit
// is what it was before the first.
//
// What grows with a copy is held in memory without pointers (a plan's
// Index of the state, an array; its winners by resource, a map of
// numbers): the collector does not scan them, so the room it needs above
// them (the garbage made between collections) does not grow with them,
// and a fixed room is enough. With GOGC=100 alone the heap grows to twice
// what is live: a dry run of a million changes against a million rows
// holds 138 MiB at its peak, and peaked at 360 MB of memory under the
// former limit (200 MiB and 160 bytes a row, which counted the room again
// for each row); 240 MB under this one, in the same CPU time. A limit
// below what a run holds makes the collector work without end instead (an
// audit --dest at 800,000 resources, which then held 370 to 582 MiB, ran
// 2.7 times slower under a fixed 200 MiB), so each term is at least what
// it stands for holds.
const (
	// baseMemoryLimit: what a run on a small copy holds (a plan of a
	// million changes: their winners, 72 MB, and the documents being
	// read) with room above it.
	baseMemoryLimit = 128 << 20
	// baseChanges and memoryPerChange: a plan of more changes holds more
	// than the state's size tells, a winner for each resource it has a
	// change of (a map's entry, up to 72 bytes), and the engine says how
	// many as they grow (engine.Options.Held): each past the base's
	// million adds its winner (without it, a dry run of two million
	// changes into a small copy took 35 s of CPU, 16 s under the former
	// limit).
	baseChanges     = 1_000_000
	memoryPerChange = 72
	// memoryPerRow: a sync's plan against a large state loads its Index,
	// 72 bytes a row, and a reconcile the copies' facts beside it, 24 more
	// (their names, a few bytes each, fit in the base's room). An audit
	// --dest holds a bit a row (it reads the state a batch at a time).
	memoryPerRow = 96
)

// MemoryNeed is the soft memory limit a run on a copy whose state's
// largest row id is maxID (a bound of its rows) needs.
func MemoryNeed(maxID int64) int64 {
	return baseMemoryLimit + memoryPerRow*max(maxID, 0)
}

// heldNeed is what a plan that holds a change of held resources needs
// beyond MemoryNeed.
func heldNeed(held int) int64 {
	return memoryPerChange * int64(max(held-baseChanges, 0))
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
type memoryClaim struct {
	m     *memoryLimiter
	maxID int64 // its state's size (rows)
	held  int   // the resources its plan holds a change of (changes)
}

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
	c.set(func() { c.maxID = maxID })
}

// changes sets the claim's need by the resources its plan holds a change
// of (engine.Options.Held).
func (c *memoryClaim) changes(held int) {
	c.set(func() { c.held = held })
}

// set changes the claim by f and applies its need.
func (c *memoryClaim) set(f func()) {
	if c == nil {
		return
	}
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	if _, ok := c.m.claims[c]; ok {
		f()
		c.m.claims[c] = MemoryNeed(c.maxID) + heldNeed(c.held)
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
