package state

import (
	"context"
	"fmt"
	"hash/maphash"
	"slices"
)

// PathSet is the set of every path the state gives a resource, of every
// Source: an audit walks the copy and reports the files not in it as extra.
// Paths are held as 128-bit keyed hashes, 16 bytes each.
type PathSet struct {
	k1, k2 maphash.Seed
	keys   [][2]uint64 // sorted
}

// LoadPathSet reads every path of the state.
func (db *DB) LoadPathSet(ctx context.Context) (*PathSet, error) {
	db.scans.Add(1)
	var n int
	if err := db.sql.QueryRowContext(ctx, `SELECT count(*) FROM resource`).Scan(&n); err != nil {
		return nil, fmt.Errorf("read the paths of %s: %w", db.path, err)
	}
	s := &PathSet{k1: maphash.MakeSeed(), k2: maphash.MakeSeed(), keys: make([][2]uint64, 0, n)}
	rows, err := db.sql.QueryContext(ctx, `SELECT path FROM resource`)
	if err != nil {
		return nil, fmt.Errorf("read the paths of %s: %w", db.path, err)
	}
	var p string
	for rows.Next() {
		if err := rows.Scan(&p); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read the paths of %s: %w", db.path, err)
		}
		s.keys = append(s.keys, s.key(p))
	}
	if err := closeRows(rows); err != nil {
		return nil, fmt.Errorf("read the paths of %s: %w", db.path, err)
	}
	slices.SortFunc(s.keys, compareKeys)
	return s, nil
}

func (s *PathSet) key(p string) [2]uint64 {
	return [2]uint64{maphash.String(s.k1, p), maphash.String(s.k2, p)}
}

// Has reports whether path is the path of a resource.
func (s *PathSet) Has(path string) bool {
	_, ok := slices.BinarySearchFunc(s.keys, s.key(path), compareKeys)
	return ok
}

// Len is how many paths the set holds.
func (s *PathSet) Len() int { return len(s.keys) }
