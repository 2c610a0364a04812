package plan

import (
	"hash/maphash"
	"slices"

	"rsx/dest/state"
)

// URISet is a fixed set of URIs: the resources a run is limited to (those an
// archivist picked in the explorer, or the differences an audit found). It
// holds 16 bytes per URI (a 128-bit keyed hash, sorted), not the URIs, so
// that a set of a million costs 16 MB; two URIs share a key with odds of
// 2^-128. It is read-only once made, and safe for concurrent use.
type URISet struct {
	k1, k2 maphash.Seed
	keys   [][2]uint64
}

// NewURISet returns the set of uris (a URI given twice counts once).
func NewURISet(uris []string) *URISet {
	s := &URISet{k1: maphash.MakeSeed(), k2: maphash.MakeSeed(), keys: make([][2]uint64, 0, len(uris))}
	for _, u := range uris {
		s.keys = append(s.keys, s.key(u))
	}
	slices.SortFunc(s.keys, compareKey)
	s.keys = slices.Compact(s.keys)
	return s
}

func (s *URISet) key(u string) [2]uint64 {
	return [2]uint64{maphash.String(s.k1, u), maphash.String(s.k2, u)}
}

func compareKey(a, b [2]uint64) int {
	switch {
	case a[0] < b[0]:
		return -1
	case a[0] > b[0]:
		return 1
	case a[1] < b[1]:
		return -1
	case a[1] > b[1]:
		return 1
	}
	return 0
}

// Has reports whether uri is in the set. A nil set holds every URI.
func (s *URISet) Has(uri string) bool {
	if s == nil {
		return true
	}
	_, ok := slices.BinarySearchFunc(s.keys, s.key(uri), compareKey)
	return ok
}

// Len is how many URIs the set holds.
func (s *URISet) Len() int {
	if s == nil {
		return 0
	}
	return len(s.keys)
}

// chosen applies Options.Only: it reports whether uri is among the resources
// the plan is limited to, and counts it as not chosen when it is not.
func (o *Options) chosen(uri string, sum *Summary) bool {
	if o.Only.Has(uri) {
		return true
	}
	sum.NotChosen++
	return false
}

// Decide tells what a sync would do with a resource the copy holds (k) that
// an entry e now describes: Update (with why: "md5 differs", "length 10 →
// 12", …) or Unchanged (with why: "same digest", …). It is the comparison
// both planners make, for those that show a copy's state without planning
// (the explorer's column of local states).
func Decide(e *Entry, k *state.Known) (Action, string) {
	act, why, _ := compare(e, k)
	return act, why
}
