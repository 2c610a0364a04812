package engine

import (
	"context"
	"slices"
	"strings"

	"rsx/dest/state"
)

// rangeView is what rangeFinder reads of the state (a state.View).
type rangeView interface {
	Find(ctx context.Context, uris []string, found func(int, *state.Known) error) error
	EachKnownBetween(ctx context.Context, lo, hi string, limit int, fn func(string, *state.Known) error) (int, error)
}

// rangeFinder looks a batch of URIs up in the state as state.View.Find
// does, but by the range of their bytes: the rows between the batch's least
// and greatest URI, read in URI order by one prepared statement, merged with
// the batch sorted. Resource Lists mostly list their URIs in that order (the
// demo's do), so that the range holds the batch's rows and few others: a
// walk of the index, where Find makes, parses and runs a statement of a
// thousand parameters, a search of the index for each (a fourth of an
// audit's CPU). The range is read up to about twice the batch's rows; past
// that (a list in no order, a batch of scattered URIs) the rest of the batch
// is looked up by Find, and after two such batches the next ones go to Find
// straight away for a while. What is found is the same either way.
type rangeFinder struct {
	order  []int // the batch's indexes, in the order of their URIs
	rest   []string
	restAt []int
	misses int // batches in a row whose range held too many rows
	skip   int // batches to look up by Find before trying a range again
	// ranged and queried count the batches looked up by range (wholly or
	// in part) and by Find alone.
	ranged, queried int
}

// rangeSlack is how many rows a range may hold beyond twice its batch's.
const rangeSlack = 64

// rangeSkip is how many batches go to Find after two whose ranges held
// too many rows.
const rangeSkip = 32

func (f *rangeFinder) find(ctx context.Context, v rangeView, uris []string, found func(int, *state.Known) error) error {
	if len(uris) == 0 {
		return nil
	}
	if f.skip > 0 {
		f.skip--
		f.queried++
		return v.Find(ctx, uris, found)
	}
	f.ranged++
	order := f.order[:0]
	for i := range uris {
		order = append(order, i)
	}
	if !slices.IsSorted(uris) {
		slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(uris[a], uris[b]) })
	}
	f.order = order
	limit := 2*len(uris) + rangeSlack
	j := 0
	n, err := v.EachKnownBetween(ctx, uris[order[0]], uris[order[len(order)-1]], limit, func(uri string, k *state.Known) error {
		for j < len(order) && uris[order[j]] < uri {
			j++ // no row
		}
		for ; j < len(order) && uris[order[j]] == uri; j++ {
			if err := found(order[j], k); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if n < limit || j == len(order) {
		f.misses = 0
		return nil
	}
	// The range held more rows than the limit: those of the batch after the
	// last row read are looked up by Find.
	if f.misses++; f.misses == 2 {
		f.misses, f.skip = 0, rangeSkip
	}
	f.rest, f.restAt = f.rest[:0], f.restAt[:0]
	for _, i := range order[j:] {
		f.rest = append(f.rest, uris[i])
		f.restAt = append(f.restAt, i)
	}
	return v.Find(ctx, f.rest, func(i int, k *state.Known) error { return found(f.restAt[i], k) })
}
