package state

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"rsx/dest/pathmap"
)

// FindPaths calls found with the index in paths of each that is the path a
// resource of the state (of any Source) is given, asking LookupBatch paths
// at a time by their indexed key: an audit walks the copy and reports the
// files no resource owns as extra, a batch at a time, so that nothing it
// holds grows with the copy. A path given twice is reported at both
// indexes.
func (db *DB) FindPaths(ctx context.Context, paths []string, found func(i int) error) error {
	args := make([]any, 0, LookupBatch)
	held := make(map[string]bool, LookupBatch)
	var q strings.Builder
	for start := 0; start < len(paths); start += LookupBatch {
		chunk := paths[start:min(start+LookupBatch, len(paths))]
		args = args[:0]
		clear(held)
		q.Reset()
		q.WriteString(`SELECT path FROM resource WHERE path_key IN (`)
		for i, p := range chunk {
			if i > 0 {
				q.WriteByte(',')
			}
			q.WriteByte('?')
			args = append(args, pathmap.Key(p))
		}
		q.WriteByte(')')
		rows, err := db.sql.QueryContext(ctx, q.String(), args...)
		if err != nil {
			return fmt.Errorf("look up %d paths in %s: %w", len(chunk), db.path, err)
		}
		var p string
		for rows.Next() {
			if err := rows.Scan(&p); err != nil {
				rows.Close()
				return fmt.Errorf("look up paths in %s: %w", db.path, err)
			}
			held[p] = true
		}
		if err := closeRows(rows); err != nil {
			return fmt.Errorf("look up paths in %s: %w", db.path, err)
		}
		for i, p := range chunk {
			if held[p] {
				if err := found(start + i); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// PathsDistinct reports whether no two resources of the state (of any
// Source) share a path, even told apart by case only: then a file opened
// for each of n resources is n files, which lets an audit that opened
// every file of a copy tell that it has no other by counting them.
//
// It walks the path index (path_key, which is empty exactly where the path
// is) in order and stops at the first key held twice: COUNT(DISTINCT
// path_key) filled a temporary B-tree with every key, three times the cost.
func (db *DB) PathsDistinct(ctx context.Context) (bool, error) {
	var dup bool
	err := db.sql.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM resource INDEXED BY resource_path_key
		WHERE path_key <> '' GROUP BY path_key HAVING COUNT(*) > 1)`).Scan(&dup)
	if err != nil {
		return false, fmt.Errorf("look for a path held twice in %s: %w", db.path, err)
	}
	return !dup, nil
}

// PathSplits returns paths of the state's resources (of every Source), in
// byte order and distinct, that split their paths into ranges of about as
// many resources each: at most maxRanges ranges, of at least minRows
// resources each (no paths: one range). An audit lists a bucket's ranges at
// once. Any paths split the copy correctly; these balance the ranges. They
// are read by the path index (path_key, the path folded), whose order is
// near enough to the paths' own.
func (db *DB) PathSplits(ctx context.Context, maxRanges int, minRows int64) ([]string, error) {
	var rows int64
	if err := db.sql.QueryRowContext(ctx, `SELECT COUNT(*) FROM resource`).Scan(&rows); err != nil {
		return nil, fmt.Errorf("count the resources of %s: %w", db.path, err)
	}
	n := int(min(int64(maxRanges), rows/max(minRows, 1)))
	if n < 2 {
		return nil, nil
	}
	splits := make([]string, 0, n-1)
	for i := 1; i < n; i++ {
		var p string
		err := db.sql.QueryRowContext(ctx, `SELECT path FROM resource INDEXED BY resource_path_key ORDER BY path_key LIMIT 1 OFFSET ?`, rows*int64(i)/int64(n)).Scan(&p)
		if errors.Is(err, sql.ErrNoRows) {
			break // rows removed since they were counted
		}
		if err != nil {
			return nil, fmt.Errorf("split the paths of %s: %w", db.path, err)
		}
		if p != "" {
			splits = append(splits, p)
		}
	}
	slices.Sort(splits)
	return slices.Compact(splits), nil
}

// PathGroup is the range of the paths of one Source's copies that begin
// with the same first name (a host's folder, or a --map folder's first
// name): the smallest and the largest, in byte order.
type PathGroup struct {
	SourceID int64
	Min, Max string
}

// PathGroups returns the ranges of the paths of every Source's copies, by
// their first name: what decides each Source's part of the destination
// (its folders). One read of every row.
func (db *DB) PathGroups(ctx context.Context) ([]PathGroup, error) {
	db.scans.Add(1)
	// Each Source's least and greatest path first: where both begin with
	// the same first name and a "/", so does every path between them (in
	// byte order), and the Source has that one group. Grouping by the
	// first name too sorted every row (a temporary B-tree): read so only
	// where a Source's paths have several first names.
	groups, err := db.pathGroups(ctx, `SELECT source_id, min(path), max(path) FROM resource WHERE path <> '' GROUP BY source_id ORDER BY source_id`)
	if err != nil {
		return nil, err
	}
	for _, g := range groups {
		if i := strings.IndexByte(g.Min, '/'); i < 0 || !strings.HasPrefix(g.Max, g.Min[:i+1]) {
			return db.pathGroups(ctx, `SELECT source_id, min(path), max(path) FROM resource WHERE path <> ''
				GROUP BY source_id, substr(path, 1, instr(path, '/')) ORDER BY source_id`)
		}
	}
	return groups, nil
}

// pathGroups reads the PathGroups of query.
func (db *DB) pathGroups(ctx context.Context, query string) ([]PathGroup, error) {
	rows, err := db.sql.QueryContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("read the folders of the copies in %s: %w", db.path, err)
	}
	var out []PathGroup
	for rows.Next() {
		var g PathGroup
		if err := rows.Scan(&g.SourceID, &g.Min, &g.Max); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read the folders of the copies in %s: %w", db.path, err)
		}
		out = append(out, g)
	}
	if err := closeRows(rows); err != nil {
		return nil, fmt.Errorf("read the folders of the copies in %s: %w", db.path, err)
	}
	return out, nil
}
