package plan

import "hash/maphash"

// excludedOnce counts each resource the selection leaves out once, however
// often it is met: a URI listed in two parts of an index, changed five times
// in a window, or listed by the Source and held by the state (whose unlisted
// rows a plan reads after the listed ones). It keeps 16 bytes per excluded
// URI (a 128-bit keyed hash), as Snapshot does for new URIs.
type excludedOnce struct {
	k1, k2 maphash.Seed
	keys   map[[2]uint64]struct{}
}

func newExcludedOnce() excludedOnce {
	return excludedOnce{k1: maphash.MakeSeed(), k2: maphash.MakeSeed(), keys: map[[2]uint64]struct{}{}}
}

// count adds one to *n when uri was not counted before.
func (x *excludedOnce) count(uri string, n *int) {
	k := [2]uint64{maphash.String(x.k1, uri), maphash.String(x.k2, uri)}
	if _, ok := x.keys[k]; ok {
		return
	}
	x.keys[k] = struct{}{}
	*n++
}
