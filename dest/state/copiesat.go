package state

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"rsx/dest/pathmap"
)

// CopiesAt looks paths up among the rows of a Source (of every Source when
// sourceID is 0) and calls fn with the index of each path a row has, and
// that row (reused between calls), asking LookupBatch paths at a time by
// their indexed key: a reconcile lists a bucket's copy by ranges of keys, in
// no order across ranges, and finds each object's row this way, holding
// nothing that grows with the copy. A path given twice is reported at both
// indexes; a path no row of the Source has, at none.
func (db *DB) CopiesAt(ctx context.Context, sourceID int64, paths []string, fn func(i int, c *ListedCopy) error) error {
	args := make([]any, 0, LookupBatch+1)
	at := make(map[string][]int, LookupBatch)
	var q strings.Builder
	var c ListedCopy
	var length sql.NullInt64
	for start := 0; start < len(paths); start += LookupBatch {
		chunk := paths[start:min(start+LookupBatch, len(paths))]
		args = append(args[:0], sourceID)
		clear(at)
		q.Reset()
		q.WriteString(`SELECT id, path, length, damaged_at IS NOT NULL FROM resource WHERE ? IN (0, source_id) AND path_key IN (`)
		for i, p := range chunk {
			if i > 0 {
				q.WriteByte(',')
			}
			q.WriteByte('?')
			args = append(args, pathmap.Key(p))
			at[p] = append(at[p], start+i)
		}
		q.WriteByte(')')
		rows, err := db.sql.QueryContext(ctx, q.String(), args...)
		if err != nil {
			return fmt.Errorf("look up %d paths of Source %d in %s: %w", len(chunk), sourceID, db.path, err)
		}
		for rows.Next() {
			if err := rows.Scan(&c.ID, &c.Path, &length, &c.Damaged); err != nil {
				rows.Close()
				return fmt.Errorf("look up paths of Source %d in %s: %w", sourceID, db.path, err)
			}
			c.Length = -1
			if length.Valid {
				c.Length = length.Int64
			}
			// The key is the path folded: another case of it is another path.
			for _, i := range at[c.Path] {
				if err := fn(i, &c); err != nil {
					rows.Close()
					return err
				}
			}
		}
		if err := closeRows(rows); err != nil {
			return fmt.Errorf("look up paths of Source %d in %s: %w", sourceID, db.path, err)
		}
	}
	return nil
}
