package state

import (
	"context"
	"fmt"
)

// EachKnownBetween calls fn for the Source's rows whose URI lies between lo
// and hi (both included, compared byte by byte as Go compares strings), in
// that order, reading at most limit rows, and returns how many it read: a
// walk of the unique index (source_id, uri) from lo, with one prepared
// statement, where Find asks for each URI with a statement made for its
// batch. A caller that looks up URIs in the order of their bytes (a Resource
// List sorted by URI) merges a batch with the rows of its range; when limit
// rows were read before hi, those after the last one read are not known yet.
// The Known is reused between calls.
func (v *View) EachKnownBetween(ctx context.Context, lo, hi string, limit int, fn func(uri string, k *Known) error) (int, error) {
	if limit <= 0 || lo > hi {
		return 0, nil
	}
	rows, err := v.db.query(ctx, `SELECT `+knownColumns+` FROM resource WHERE source_id = ? AND uri >= ? AND uri <= ? ORDER BY uri LIMIT ?`,
		v.sourceID, lo, hi, limit)
	if err != nil {
		return 0, fmt.Errorf("read resources of Source %d: %w", v.sourceID, err)
	}
	var k Known
	var uri string
	n := 0
	err = v.eachKnownRow(rows, &uri, &k, func(uri string, k *Known) error {
		n++
		return fn(uri, k)
	})
	return n, err
}
