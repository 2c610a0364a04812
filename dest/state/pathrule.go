package state

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"rsx/display"
)

// PathRule names the rule (dest/pathmap) that the paths of a Source's rows
// are written by, when it is not the first one: 2 is the rule under which a
// name holds no character display.Unsafe names but as %XX (an rsx before
// it wrote C1 controls, bidirectional overrides, U+2028 and the other
// format characters raw into file names). The meta row path_rule/ID says
// that every row of Source ID was found written by it: a sync then looks
// no more for rows to rename (RowsToRename), which costs a read of every row.
const PathRule = "2"

func pathRuleKey(sourceID int64) string { return "path_rule/" + strconv.FormatInt(sourceID, 10) }

// PathsChecked reports whether every row of the Source was found written by
// PathRule (SetPathsChecked recorded it).
func (db *DB) PathsChecked(ctx context.Context, sourceID int64) (bool, error) {
	var v string
	err := db.queryRow(ctx, `SELECT value FROM meta WHERE key = ?`, pathRuleKey(sourceID)).Scan(&v)
	if isNoRows(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read the path rule of Source %d in %s: %w", sourceID, db.path, err)
	}
	return v == PathRule, nil
}

// SetPathsChecked records that every row of the Source is written by
// PathRule.
func (w *Writer) SetPathsChecked(ctx context.Context, sourceID int64) error {
	if _, err := w.exec(ctx, fmt.Sprintf("record the path rule of Source %d", sourceID),
		`INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)`, pathRuleKey(sourceID), PathRule); err != nil {
		return err
	}
	return w.done(ctx)
}

// RowsToRename calls fn with each row of the Source whose path holds a
// character that PathRule writes as %XX (display.Unsafe), at most limit of
// them, and reports whether there were more. It reads every row of the
// Source: a sync asks it until PathsChecked.
func (db *DB) RowsToRename(ctx context.Context, sourceID int64, limit int, fn func(*Resource) error) (more bool, err error) {
	// GLOB keeps the paths with a character outside printable ASCII (every
	// unsafe one is: an rsx before PathRule escaped C0 controls and DEL),
	// so that only those reach Go.
	conn, err := db.scanConn(ctx) // every row read once: a small page cache
	if err != nil {
		return false, fmt.Errorf("look for paths to rename in %s: %w", db.path, err)
	}
	defer conn.Close()
	rows, err := conn.QueryContext(ctx, `SELECT `+resourceColumns+` FROM resource WHERE source_id = ? AND path GLOB '*[^ -~]*'`, sourceID)
	if err != nil {
		return false, fmt.Errorf("look for paths to rename in %s: %w", db.path, err)
	}
	var r Resource
	n := 0
	for rows.Next() {
		if err := scanResource(rows, &r); err != nil {
			rows.Close()
			return false, fmt.Errorf("look for paths to rename in %s: %w", db.path, err)
		}
		if !strings.ContainsFunc(r.Path, display.Unsafe) {
			continue
		}
		if n == limit {
			more = true
			break
		}
		n++
		if err := fn(&r); err != nil {
			rows.Close()
			return false, err
		}
	}
	if err := closeRows(rows); err != nil {
		return false, fmt.Errorf("look for paths to rename in %s: %w", db.path, err)
	}
	return more, nil
}
