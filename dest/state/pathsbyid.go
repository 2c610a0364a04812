package state

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// PathsByID calls found with the path and length (-1 when unknown) of each
// of ids that has a row, in no particular order, asking LookupBatch ids at
// a time by a statement prepared once for each size of batch (a batch is
// padded to a power of two with its last id again; an id given twice is
// reported once): what a dry run's list of decisions needs of the rows it
// names, read with three columns instead of a ResourceByID for each.
func (db *DB) PathsByID(ctx context.Context, ids []int64, found func(id int64, path string, length int64) error) error {
	var (
		id     int64
		path   string
		length sql.NullInt64
		args   = make([]any, 0, min(len(ids), LookupBatch))
	)
	for start := 0; start < len(ids); start += LookupBatch {
		chunk := ids[start:min(start+LookupBatch, len(ids))]
		n := 8
		for n < len(chunk) {
			n *= 2
		}
		args = args[:0]
		for _, id := range chunk {
			args = append(args, id)
		}
		for len(args) < n {
			args = append(args, chunk[len(chunk)-1])
		}
		rows, err := db.query(ctx, `SELECT id, path, length FROM resource WHERE id IN (?`+strings.Repeat(",?", n-1)+`)`, args...)
		if err != nil {
			return fmt.Errorf("read the paths of %d resources: %w", len(chunk), err)
		}
		for rows.Next() {
			if err := rows.Scan(&id, &path, &length); err != nil {
				rows.Close()
				return fmt.Errorf("read the paths of %d resources: %w", len(chunk), err)
			}
			l := int64(-1)
			if length.Valid {
				l = length.Int64
			}
			if err := found(id, path, l); err != nil {
				rows.Close()
				return err
			}
		}
		if err := closeRows(rows); err != nil {
			return fmt.Errorf("read the paths of %d resources: %w", len(chunk), err)
		}
	}
	return nil
}
