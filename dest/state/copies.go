package state

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Copies reads a Source's rows for a reconcile of a folder: each row found
// by Find carries its copy's facts (Known.Copy: path, recorded length and
// file time), so that the copy is checked by a stat without its row read
// again, and nothing is held per row: a batch of URIs is looked up by a walk
// of the unique index (source_id, uri) over the batch's range, merged with
// the batch in the order of their bytes. A Source that lists its resources
// in URI order (as most do, and the demo) costs one statement a batch and a
// row read once; a batch whose range holds many more rows than it has URIs
// (a list in another order) reads at most twice as many rows as it has
// URIs, then looks each of the rest up by its URI. (An Index loaded by
// LoadIndexCopies held some 100 bytes a row, and twice that while loading:
// the peak memory of a reconcile grew with the copy.) The other methods are
// View's.
type Copies struct {
	*View
}

// Copies returns the reconcile's view of a Source's rows.
func (db *DB) Copies(sourceID int64) *Copies { return &Copies{View: db.View(sourceID)} }

const copyColumns = knownColumns + `, file_mtime, damaged_at IS NOT NULL`

// scanCopy reads a row of copyColumns: scanKnown's fields and the copy's.
func scanCopy(s scanner, uri *string, k *Known) error {
	var mtime sql.NullInt64
	var damaged bool
	if err := scanKnownAnd(s, uri, k, &mtime, &damaged); err != nil {
		return err
	}
	if !damaged {
		// A bucket records no file time (mtime NULL): its copy's facts are
		// its path and length, and a reconcile that took them from here
		// read no row again (each read by id took a connection of its own
		// per checker, and a page cache of up to 16 MiB with it).
		k.Copy = CopyFacts{Path: k.Path, Length: k.Length, FileMTime: mtime.Int64, OK: true}
	}
	return nil
}

// Find calls found for each of uris that has a row, with its index in uris
// (a URI given twice is reported at both indexes), in the order of the
// URIs' bytes. The Known is reused between calls.
func (c *Copies) Find(ctx context.Context, uris []string, found func(i int, k *Known) error) error {
	if len(uris) == 0 {
		return nil
	}
	order := make([]int, len(uris))
	for i := range order {
		order[i] = i
	}
	if !slices.IsSorted(uris) {
		slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(uris[a], uris[b]) })
	}
	limit := 2*len(uris) + 64
	rows, err := c.db.query(ctx, `SELECT `+copyColumns+` FROM resource WHERE source_id = ? AND uri >= ? AND uri <= ? ORDER BY uri LIMIT ?`,
		c.sourceID, uris[order[0]], uris[order[len(order)-1]], limit)
	if err != nil {
		return fmt.Errorf("look up %d resources of Source %d: %w", len(uris), c.sourceID, err)
	}
	var k Known
	var uri string
	j, n := 0, 0
	for rows.Next() {
		if err := scanCopy(rows, &uri, &k); err != nil {
			rows.Close()
			return fmt.Errorf("look up resources of Source %d: %w", c.sourceID, err)
		}
		n++
		for j < len(order) && uris[order[j]] < uri {
			j++ // no row
		}
		for ; j < len(order) && uris[order[j]] == uri; j++ {
			if err := found(order[j], &k); err != nil {
				rows.Close()
				return err
			}
		}
	}
	if err := closeRows(rows); err != nil {
		return fmt.Errorf("look up resources of Source %d: %w", c.sourceID, err)
	}
	if n < limit {
		return nil // the range was read whole
	}
	// The range holds more rows than the batch has URIs: the rest, after
	// the last row read, one by one.
	for ; j < len(order); j++ {
		u := uris[order[j]]
		if j == 0 || u != uris[order[j-1]] {
			err := scanCopy(c.db.queryRow(ctx, `SELECT `+copyColumns+` FROM resource WHERE source_id = ? AND uri = ?`, c.sourceID, u), &uri, &k)
			if errors.Is(err, sql.ErrNoRows) {
				k.ID = 0
				continue
			}
			if err != nil {
				return fmt.Errorf("look up %s in Source %d: %w", u, c.sourceID, err)
			}
		} else if k.ID == 0 {
			continue // the same URI as the one before, which has no row
		}
		if err := found(order[j], &k); err != nil {
			return err
		}
	}
	return nil
}
