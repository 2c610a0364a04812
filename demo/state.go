package demo

import (
	"slices"
	"sort"
	"time"

	"rsx/model"
)

// change is one entry of a dataset's change log.
type change struct {
	id      int
	kind    model.Change
	version int // the version after the change; for a deletion, the version deleted
	at      time.Time
	step    int // the clock step during which it happened
}

// changeLog is append-only: a prefix of it, once taken, never changes, so
// readers copy the slice header under the lock and read without it.
type changeLog struct {
	changes []change
	maxID   int
}

// liveRes is the current state of a resource that has changed at least once.
type liveRes struct {
	version int
	deleted bool
}

// liveState is what Advance needs to pick plausible changes.
type liveState struct {
	maxID int
	mods  map[int]liveRes
}

// snapshot is a consistent view of the Source at one clock step.
type snapshot struct {
	steps int
	now   time.Time
	logs  [2]changeLog
}

func (s *Source) snapshot() *snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return &snapshot{steps: s.steps, now: s.logStart.Add(time.Duration(s.steps) * stepDuration), logs: s.log}
}

// stepStart is the beginning of a clock step.
func (s *Source) stepStart(step int) time.Time {
	return s.logStart.Add(time.Duration(step) * stepDuration)
}

// Advance moves the clock n steps. Each step appends a few changes (created,
// updated, deleted) to each dataset's change log, which the open Change List,
// the Change Dump and the Resource List reflect; every stepsPerList steps the
// open Change List is closed and a new one begins. It is safe for concurrent use.
//
// The steps are queued for the notification subscribers as one advance; that
// never blocks (notify.go).
func (s *Source) Advance(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advanceLocked(n)
}

// advanceLocked is Advance with s.mu held.
func (s *Source) advanceLocked(n int) {
	from := s.steps
	for ; n > 0; n-- {
		for i := range s.sets {
			s.stepDataset(i, s.steps)
		}
		s.steps++
	}
	if s.steps > from {
		s.notify.publish(advance{from: from, until: s.steps, logs: s.log})
	}
}

// stepDataset appends the changes of one step of one dataset. It depends only
// on the seed, the step and the changes before it.
func (s *Source) stepDataset(i, step int) {
	ds := s.sets[i].num
	live := &s.live[i]
	r := rng{mix(s.opts.Seed, saltStep, uint64(step), uint64(ds))}
	var count int
	if ds == 1 {
		count = 2 + r.intn(4)
	} else {
		count = r.intn(3)
	}
	if count == 0 {
		return
	}
	// Distinct seconds within the step, never at its very start.
	secs := make([]int, 0, count)
	for len(secs) < count {
		v := 1 + r.intn(int(stepDuration/time.Second)-1)
		if !slices.Contains(secs, v) {
			secs = append(secs, v)
		}
	}
	sort.Ints(secs)
	start := s.stepStart(step)
	for _, sec := range secs {
		at := start.Add(time.Duration(sec) * time.Second)
		c := change{at: at, step: step}
		roll := r.intn(100)
		switch {
		case roll < 60:
			c.kind = model.ChangeUpdated
		case roll < 80:
			c.kind = model.ChangeCreated
		default:
			c.kind = model.ChangeDeleted
		}
		if c.kind != model.ChangeCreated {
			c.id = s.pickExisting(&r, i, c.kind == model.ChangeDeleted)
			if c.id == 0 {
				c.kind = model.ChangeCreated
			}
		}
		switch c.kind {
		case model.ChangeCreated:
			live.maxID++
			c.id, c.version = live.maxID, 1
			live.mods[c.id] = liveRes{version: 1}
		case model.ChangeUpdated:
			st := s.liveVersion(i, c.id)
			c.version = st + 1
			live.mods[c.id] = liveRes{version: c.version}
		case model.ChangeDeleted:
			c.version = s.liveVersion(i, c.id)
			live.mods[c.id] = liveRes{version: c.version, deleted: true}
		}
		s.byID[i][c.id] = append(s.byID[i][c.id], int32(len(s.log[i].changes)))
		s.log[i].changes = append(s.log[i].changes, c)
	}
	s.log[i].maxID = live.maxID
}

func (s *Source) liveVersion(i, id int) int {
	if m, ok := s.live[i].mods[id]; ok {
		return m.version
	}
	return 1
}

// pickExisting picks a resource that exists now; for a deletion, not one of a
// metadata pair (so that describedby/describes links never dangle) and not one
// the broken demo uses for a fault. It returns 0 when it finds none.
func (s *Source) pickExisting(r *rng, i int, forDeletion bool) int {
	ds := s.sets[i].num
	for try := 0; try < 16; try++ {
		id := 1 + r.intn(s.live[i].maxID)
		if m, ok := s.live[i].mods[id]; ok && m.deleted {
			continue
		}
		if forDeletion && (s.describedByOf(ds, id) != 0 || s.describesOf(ds, id) != 0 || s.faults.protected(ds, id)) {
			continue
		}
		return id
	}
	return 0
}

// rng is a small deterministic generator (splitmix64).
type rng struct{ x uint64 }

func (r *rng) next() uint64 {
	r.x += 0x9E3779B97F4A7C15
	z := r.x
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

func (r *rng) intn(n int) int {
	if n <= 1 {
		return 0
	}
	return int(r.next() % uint64(n))
}

// resState is the state of a resource in a snapshot.
type resState struct {
	version int
	lastmod time.Time
	exists  bool
}

// stateRange folds the change log into the states of ids lo..hi that changed;
// ids absent from the result are at version 1 (or do not exist, beyond maxID).
func (sn *snapshot) stateRange(i, lo, hi int) map[int]change {
	m := make(map[int]change)
	for _, c := range sn.logs[i].changes {
		if c.id >= lo && c.id <= hi {
			m[c.id] = c
		}
	}
	return m
}

// state returns the state of one resource in the snapshot.
func (s *Source) state(sn *snapshot, i, id int) resState {
	if id < 1 || id > sn.logs[i].maxID {
		return resState{}
	}
	st := resState{version: 1, exists: id <= s.sets[i].initial}
	if st.exists {
		st.lastmod = s.baseLastmod(s.sets[i].num, id)
	}
	for _, k := range s.changesOf(sn, i, id) {
		st = fromChange(sn.logs[i].changes[k])
	}
	return st
}

// changesOf returns the positions in the snapshot's log of the changes of one
// resource, in order.
func (s *Source) changesOf(sn *snapshot, i, id int) []int32 {
	s.mu.Lock()
	pos := s.byID[i][id] // append-only: the elements of this slice never change
	s.mu.Unlock()
	n := int32(len(sn.logs[i].changes))
	for len(pos) > 0 && pos[len(pos)-1] >= n {
		pos = pos[:len(pos)-1]
	}
	return pos
}

func fromChange(c change) resState {
	return resState{version: c.version, lastmod: c.at, exists: c.kind != model.ChangeDeleted}
}

// versionTimes returns when each version of a resource began (index 0 is version 1).
func (s *Source) versionTimes(sn *snapshot, i, id int) []time.Time {
	var out []time.Time
	if id <= s.sets[i].initial {
		out = append(out, s.baseLastmod(s.sets[i].num, id))
	}
	for _, k := range s.changesOf(sn, i, id) {
		if c := sn.logs[i].changes[k]; c.kind != model.ChangeDeleted {
			out = append(out, c.at)
		}
	}
	return out
}

// stepRange returns the changes that happened during steps [from, until).
func stepRange(changes []change, from, until int) []change {
	lo := sort.Search(len(changes), func(k int) bool { return changes[k].step >= from })
	hi := sort.Search(len(changes), func(k int) bool { return changes[k].step >= until })
	return changes[lo:hi]
}
