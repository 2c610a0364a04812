package state

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// damagedBatch is how many rows a statement of SetDamagedBatch updates.
const damagedBatch = 500

// SetDamagedBatch does SetDamaged for every row of ids, at the same time,
// with one prepared statement for up to damagedBatch rows: an audit of a
// copy with a tenth of its files gone records tens of thousands, and a
// statement parsed for each cost more than the update.
func (w *Writer) SetDamagedBatch(ctx context.Context, ids []int64, at time.Time) error {
	when := clock(at)
	args := make([]any, 0, 1+min(len(ids), damagedBatch))
	for len(ids) > 0 {
		n := min(len(ids), damagedBatch)
		what := fmt.Sprintf("record the damage of %d resources", n)
		st, err := w.stmt(ctx, what, damagedQuery(n))
		if err != nil {
			return err
		}
		args = append(args[:0], when)
		for _, id := range ids[:n] {
			args = append(args, id)
		}
		if _, err := st.ExecContext(ctx, args...); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		w.ops += n - 1
		if err := w.done(ctx); err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
}

// damagedQuery updates n rows: ?1 is the time, then their ids.
func damagedQuery(n int) string {
	var b strings.Builder
	b.WriteString(`UPDATE resource SET damaged_at = ?1 WHERE id IN (`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("?")
	}
	b.WriteString(`)`)
	return b.String()
}
