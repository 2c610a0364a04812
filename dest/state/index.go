package state

import (
	"context"
	"fmt"
	"hash/maphash"
	"time"
)

// Index is a Source's rows held in memory in a compact form, for plans that
// look up as many URIs as the state holds (a full Resource List against a
// large copy): one scan of the database builds it, and a look-up then costs a
// map access instead of a query. Each row takes about 90 bytes; URIs and paths
// are not kept (URIs are keyed by a 128-bit keyed hash; digests by 64-bit
// fingerprints). EachKnown and MaxID read the database, as View's do.
type Index struct {
	view    *View
	k1, k2  maphash.Seed // URI keys
	fpSeed  maphash.Seed // digest fingerprints
	slots   map[[2]uint64]int32
	rows    []indexRow
	extra   map[int32][]algFP // rows with more than two digests
	codes   map[string]uint8
	clashes map[[2]uint64]bool // keys two URIs share: looked up in the database
	maxID   int64
}

type indexRow struct {
	id, length      int64
	lastmod, change int64  // Unix seconds, valid when the flag says so
	lastmodNs       uint32 // and nanoseconds
	changeNs        uint32
	fp              [2]uint64
	alg             [2]uint8
	nalg            uint8
	flags           uint8
}

const (
	flagLastmod uint8 = 1 << iota
	flagChange
	flagPending
)

// LoadIndex builds the Index of a Source's rows.
func (db *DB) LoadIndex(ctx context.Context, sourceID int64) (*Index, error) {
	c, err := db.Count(ctx, sourceID)
	if err != nil {
		return nil, err
	}
	idx := &Index{
		view: db.View(sourceID), k1: maphash.MakeSeed(), k2: maphash.MakeSeed(), fpSeed: maphash.MakeSeed(),
		slots: make(map[[2]uint64]int32, c.Resources), rows: make([]indexRow, 0, c.Resources),
		extra: map[int32][]algFP{}, codes: map[string]uint8{}, clashes: map[[2]uint64]bool{},
	}
	var tooMany error
	err = idx.view.EachKnown(ctx, false, func(uri string, k *Known) error {
		row := indexRow{id: k.ID, length: k.Length}
		if !k.Lastmod.IsZero() {
			row.lastmod, row.lastmodNs, row.flags = k.Lastmod.Unix(), uint32(k.Lastmod.Nanosecond()), row.flags|flagLastmod
		}
		if !k.ChangeDatetime.IsZero() {
			row.change, row.changeNs, row.flags = k.ChangeDatetime.Unix(), uint32(k.ChangeDatetime.Nanosecond()), row.flags|flagChange
		}
		if k.Pending {
			row.flags |= flagPending
		}
		pos := int32(len(idx.rows))
		var more []algFP
		k.digests.Each(func(alg, hex string) {
			code, ok := idx.codes[alg]
			if !ok {
				if len(idx.codes) == 255 {
					tooMany = fmt.Errorf("index Source %d: more than 255 hash algorithms", sourceID)
					return
				}
				code = uint8(len(idx.codes) + 1)
				idx.codes[alg] = code
			}
			f := algFP{alg: code, fp: maphash.String(idx.fpSeed, hex)}
			if row.nalg < 2 {
				row.alg[row.nalg], row.fp[row.nalg] = f.alg, f.fp
			} else {
				more = append(more, f)
			}
			row.nalg++
		})
		if tooMany != nil {
			return tooMany
		}
		if more != nil {
			idx.extra[pos] = more
		}
		key := idx.key(uri)
		if _, dup := idx.slots[key]; dup {
			idx.clashes[key] = true
		}
		idx.slots[key] = pos
		idx.rows = append(idx.rows, row)
		idx.maxID = max(idx.maxID, k.ID)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return idx, nil
}

func (idx *Index) key(uri string) [2]uint64 {
	return [2]uint64{maphash.String(idx.k1, uri), maphash.String(idx.k2, uri)}
}

// Len is how many rows the Index holds.
func (idx *Index) Len() int { return len(idx.rows) }

// Find calls found for each of uris that has a row, with its index in uris.
// The Known is reused between calls and has no Path.
func (idx *Index) Find(ctx context.Context, uris []string, found func(i int, k *Known) error) error {
	var k Known
	var fps []algFP
	var clashed []string
	var clashedAt []int
	for i, uri := range uris {
		key := idx.key(uri)
		pos, ok := idx.slots[key]
		if !ok {
			continue
		}
		if idx.clashes[key] {
			clashed, clashedAt = append(clashed, uri), append(clashedAt, i)
			continue
		}
		row := &idx.rows[pos]
		k = Known{ID: row.id, Length: row.length, Pending: row.flags&flagPending != 0, seed: &idx.fpSeed, codes: idx.codes}
		if row.flags&flagLastmod != 0 {
			k.Lastmod = time.Unix(row.lastmod, int64(row.lastmodNs)).UTC()
		}
		if row.flags&flagChange != 0 {
			k.ChangeDatetime = time.Unix(row.change, int64(row.changeNs)).UTC()
		}
		fps = fps[:0]
		for j := 0; j < int(min(row.nalg, 2)); j++ {
			fps = append(fps, algFP{alg: row.alg[j], fp: row.fp[j]})
		}
		if row.nalg > 2 {
			fps = append(fps, idx.extra[pos]...)
		}
		k.fps = fps
		if err := found(i, &k); err != nil {
			return err
		}
	}
	if len(clashed) > 0 {
		return idx.view.Find(ctx, clashed, func(j int, k *Known) error { return found(clashedAt[j], k) })
	}
	return nil
}

// EachKnown walks the Source's rows in the database (see View.EachKnown).
func (idx *Index) EachKnown(ctx context.Context, pendingOnly bool, fn func(uri string, k *Known) error) error {
	return idx.view.EachKnown(ctx, pendingOnly, fn)
}

// MaxID is the largest id the Index holds.
func (idx *Index) MaxID(context.Context) (int64, error) { return idx.maxID, nil }
