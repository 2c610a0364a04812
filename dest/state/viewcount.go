package state

import (
	"context"
	"fmt"
)

// CountUpTo counts the Source's rows whose id is at most maxID: a count of
// the entries of the index (source_id, uri), where EachID hands every id
// over. A planner that saw as many distinct rows up to maxID knows it saw
// them all (plan.Snapshot.Finish).
func (v *View) CountUpTo(ctx context.Context, maxID int64) (int64, error) {
	var n int64
	if err := v.db.sql.QueryRowContext(ctx, `SELECT COUNT(*) FROM resource WHERE source_id = ? AND id <= ?`, v.sourceID, maxID).Scan(&n); err != nil {
		return 0, fmt.Errorf("count the resources of Source %d: %w", v.sourceID, err)
	}
	return n, nil
}
