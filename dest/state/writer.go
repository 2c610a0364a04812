package state

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"rsx/dest/pathmap"
)

// Defaults of WriterOptions.
const (
	DefaultBatchSize = 1000
	DefaultMaxDelay  = 5 * time.Second
)

// WriterOptions configure a Writer.
type WriterOptions struct {
	// BatchSize is how many changes a batch holds before it is committed.
	BatchSize int
	// MaxDelay commits a batch at its next change once it is this old.
	MaxDelay time.Duration
	// BeforeCommit runs before each commit; an error leaves the batch
	// uncommitted (rolled back). A Store's Sync goes here: the files a batch
	// records must be durable before the batch is.
	BeforeCommit func(ctx context.Context) error
	// AfterCommit runs after each commit (a bucket Store publishes the state
	// here, through DB.Snapshot).
	AfterCommit func(ctx context.Context) error
	// Detector, when set, has the paths of the resources a batch records
	// released once the batch is committed (they are then found in the database).
	Detector *Detector
}

// Writer records changes to the state in batches: each change joins the open
// transaction, which is committed when it holds BatchSize changes, when it is
// MaxDelay old, and by Flush and Close. A process killed at any moment loses
// at most the open batch. A Writer is used by one goroutine.
type Writer struct {
	db       *DB
	opts     WriterOptions
	tx       *sql.Tx
	ops      int
	began    time.Time
	released []string // paths to release from the detector after the commit
	commits  int
	put      *sql.Stmt // prepared once: SQLite's parser costs as much as the insert
	putTx    *sql.Stmt // put, bound to the open batch
	same     *sql.Stmt // sameSQL, prepared once
	sameTx   *sql.Stmt // same, bound to the open batch
	// prepared are other statements a Writer runs once per row (an
	// audit's SetVerified of every copy), prepared once; bound are those
	// bound to the open batch.
	prepared, bound map[string]*sql.Stmt
	// run is the run whose row the Writer keeps current (TrackRun), nil
	// for none.
	run *trackedRun
}

const putResourceSQL = `INSERT INTO resource (source_id, uri, path, path_key, length, digests, lastmod, etag, last_modified, change_datetime, fetched_at, verified_at, deleted_at, file_mtime, type, via)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (source_id, uri) DO UPDATE SET path = excluded.path, path_key = excluded.path_key, length = excluded.length,
			digests = excluded.digests, lastmod = excluded.lastmod, etag = excluded.etag, last_modified = excluded.last_modified,
			change_datetime = excluded.change_datetime, fetched_at = excluded.fetched_at, verified_at = excluded.verified_at,
			deleted_at = excluded.deleted_at, damaged_at = NULL, file_mtime = excluded.file_mtime,
			type = CASE WHEN excluded.via IS NULL THEN resource.type ELSE excluded.type END, via = coalesce(excluded.via, resource.via)
		RETURNING id`

// sameSQL updates a row in place, its path left as it is: setting path and
// path_key, even to the values they have, rewrites the row's entry of the
// path index, a page more to log and sync for each update (300 updates
// spread over a 50,000-row state logged 559 pages through putResourceSQL,
// 300 through this).
const sameSQL = `UPDATE resource SET length = ?1, digests = ?2, lastmod = ?3, etag = ?4, last_modified = ?5, change_datetime = ?6,
		fetched_at = ?7, verified_at = ?8, deleted_at = ?9, damaged_at = NULL, file_mtime = ?10,
		type = CASE WHEN ?17 IS NULL THEN type ELSE ?16 END, via = coalesce(?17, via)
		WHERE id = ?11 AND source_id = ?12 AND uri = ?13 AND path = ?14 AND path_key = ?15`

// NewWriter returns a Writer.
func (db *DB) NewWriter(opts WriterOptions) *Writer {
	if opts.BatchSize <= 0 {
		opts.BatchSize = DefaultBatchSize
	}
	if opts.MaxDelay <= 0 {
		opts.MaxDelay = DefaultMaxDelay
	}
	return &Writer{db: db, opts: opts}
}

// Pending is how many changes the open batch holds.
func (w *Writer) Pending() int { return w.ops }

// Commits is how many batches were committed.
func (w *Writer) Commits() int { return w.commits }

// begin opens a batch when none is open.
func (w *Writer) begin(ctx context.Context, what string) error {
	if w.tx != nil {
		return nil
	}
	tx, err := w.db.sql.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%s: begin a batch in %s: %w", what, w.db.path, err)
	}
	w.tx, w.began = tx, time.Now()
	return nil
}

func (w *Writer) exec(ctx context.Context, what, query string, args ...any) (sql.Result, error) {
	if err := w.begin(ctx, what); err != nil {
		return nil, err
	}
	res, err := w.tx.ExecContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return res, nil
}

func (w *Writer) done(ctx context.Context) error {
	w.ops++
	if w.ops >= w.opts.BatchSize || time.Since(w.began) >= w.opts.MaxDelay {
		return w.Flush(ctx)
	}
	return nil
}

// Flush commits the open batch, if any.
func (w *Writer) Flush(ctx context.Context) error {
	if w.tx == nil {
		return nil
	}
	if err := w.writeRunCounts(ctx); err != nil {
		w.Abort()
		return fmt.Errorf("commit a batch of %s: %w", w.db.path, err)
	}
	if w.opts.BeforeCommit != nil {
		if err := w.opts.BeforeCommit(ctx); err != nil {
			w.Abort()
			return fmt.Errorf("commit a batch of %s: %w", w.db.path, err)
		}
	}
	err := w.tx.Commit()
	w.tx, w.putTx, w.sameTx = nil, nil, nil
	clear(w.bound)
	n := w.ops
	w.ops = 0
	if err != nil {
		w.releaseClaims()
		if w.run != nil {
			w.run.cur = w.run.committed
		}
		return fmt.Errorf("commit a batch of %d changes to %s: %w", n, w.db.path, err)
	}
	w.commits++
	if w.run != nil {
		w.run.committed = w.run.cur
	}
	w.releaseClaims()
	if w.opts.AfterCommit != nil {
		if err := w.opts.AfterCommit(ctx); err != nil {
			return fmt.Errorf("after committing a batch of %s: %w", w.db.path, err)
		}
	}
	return nil
}

func (w *Writer) releaseClaims() {
	if w.opts.Detector != nil {
		for _, p := range w.released {
			w.opts.Detector.Release(p)
		}
	}
	w.released = w.released[:0]
}

// Abort rolls the open batch back.
func (w *Writer) Abort() {
	if w.tx != nil {
		w.tx.Rollback()
		w.tx, w.putTx, w.sameTx = nil, nil, nil
		clear(w.bound)
	}
	w.ops = 0
	if w.run != nil {
		w.run.cur = w.run.committed
	}
	w.releaseClaims()
}

// Close commits the open batch and frees the Writer's statements.
func (w *Writer) Close(ctx context.Context) error {
	err := w.Flush(ctx)
	for _, st := range []**sql.Stmt{&w.put, &w.same} {
		if *st != nil {
			(*st).Close()
			*st = nil
		}
	}
	for q, st := range w.prepared {
		st.Close()
		delete(w.prepared, q)
	}
	return err
}

// stmt returns query prepared (once per Writer) and bound to the open
// batch, which it begins when none is open.
func (w *Writer) stmt(ctx context.Context, what, query string) (*sql.Stmt, error) {
	if err := w.begin(ctx, what); err != nil {
		return nil, err
	}
	if st := w.bound[query]; st != nil {
		return st, nil
	}
	st := w.prepared[query]
	if st == nil {
		var err error
		if st, err = w.db.sql.PrepareContext(ctx, query); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		if w.prepared == nil {
			w.prepared, w.bound = map[string]*sql.Stmt{}, map[string]*sql.Stmt{}
		}
		w.prepared[query] = st
	}
	bound := w.tx.StmtContext(ctx, st)
	w.bound[query] = bound
	return bound, nil
}

// PutResource records a resource (insert, or update of the row with the same
// Source and URI, which keeps its id) and sets r.ID. An r.ID already set
// says which row the resource has: when that row is the resource's at the
// same path, it is updated in place, its path index entry left alone (an
// r.ID that does not say so costs a look-up by id, nothing else).
func (w *Writer) PutResource(ctx context.Context, r *Resource) error {
	if r.SourceID == 0 || r.URI == "" || r.Path == "" {
		return fmt.Errorf("record resource %q: Source, URI and path are required", r.URI)
	}
	var length any
	if r.Length >= 0 {
		length = r.Length
	}
	if err := w.begin(ctx, "record resource "+r.URI); err != nil {
		return err
	}
	if r.ID > 0 {
		if w.same == nil {
			stmt, err := w.db.sql.PrepareContext(ctx, sameSQL)
			if err != nil {
				return fmt.Errorf("record resource %s: %w", r.URI, err)
			}
			w.same = stmt
		}
		if w.sameTx == nil {
			w.sameTx = w.tx.StmtContext(ctx, w.same)
		}
		res, err := w.sameTx.ExecContext(ctx, length, nullString(string(r.Digests)), datetime(r.Lastmod),
			nullString(r.ETag), nullString(r.LastModified), datetime(r.ChangeDatetime), clockOrNull(r.FetchedAt),
			clockOrNull(r.VerifiedAt), datetime(r.DeletedAt), unixNanoOrNull(r.FileMTime),
			r.ID, r.SourceID, r.URI, r.Path, pathmap.Key(r.Path), nullString(r.Type), nullString(r.Via))
		if err != nil {
			return fmt.Errorf("record resource %s: %w", r.URI, err)
		}
		if n, err := res.RowsAffected(); err == nil && n == 1 {
			w.released = append(w.released, r.Path)
			return w.done(ctx)
		}
	}
	if w.put == nil {
		stmt, err := w.db.sql.PrepareContext(ctx, putResourceSQL)
		if err != nil {
			return fmt.Errorf("record resource %s: %w", r.URI, err)
		}
		w.put = stmt
	}
	if w.putTx == nil {
		w.putTx = w.tx.StmtContext(ctx, w.put)
	}
	err := w.putTx.QueryRowContext(ctx,
		r.SourceID, r.URI, r.Path, pathmap.Key(r.Path), length, nullString(string(r.Digests)), datetime(r.Lastmod),
		nullString(r.ETag), nullString(r.LastModified), datetime(r.ChangeDatetime), clockOrNull(r.FetchedAt),
		clockOrNull(r.VerifiedAt), datetime(r.DeletedAt), unixNanoOrNull(r.FileMTime), nullString(r.Type), nullString(r.Via)).Scan(&r.ID)
	if err != nil {
		return fmt.Errorf("record resource %s: %w", r.URI, err)
	}
	w.released = append(w.released, r.Path)
	return w.done(ctx)
}

// MarkDeleted records that the Source deleted a resource at the given time
// (its change's datetime, or now): the row stays, waiting for a run with
// --delete. It reports whether the resource had a row.
func (w *Writer) MarkDeleted(ctx context.Context, sourceID int64, uri string, at time.Time) (bool, error) {
	if at.IsZero() {
		return false, fmt.Errorf("record the deletion of %s: no time given", uri)
	}
	res, err := w.exec(ctx, "record the deletion of "+uri, `UPDATE resource SET deleted_at = ? WHERE source_id = ? AND uri = ?`, datetime(at), sourceID, uri)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0, w.done(ctx)
}

// RemoveResource removes a resource's row (its copy was deleted). It reports
// whether there was one.
func (w *Writer) RemoveResource(ctx context.Context, sourceID int64, uri string) (bool, error) {
	// Prepared once: a statement on resource is compiled with the schema's
	// triggers (held), which cost more to compile than the delete does.
	what := "forget resource " + uri
	st, err := w.stmt(ctx, what, `DELETE FROM resource WHERE source_id = ? AND uri = ?`)
	if err != nil {
		return false, err
	}
	res, err := st.ExecContext(ctx, sourceID, uri)
	if err != nil {
		return false, fmt.Errorf("%s: %w", what, err)
	}
	n, _ := res.RowsAffected()
	return n > 0, w.done(ctx)
}

// SetVerified records that a copy was checked against its length and digests
// (by an audit) at the given time, and the file's modification time then
// (zero: unknown, or a bucket).
func (w *Writer) SetVerified(ctx context.Context, id int64, at, fileMTime time.Time) error {
	// Prepared once: an audit records every copy it found intact, and
	// parsing the statement cost more than running it.
	what := "record the verification of resource " + strconv.FormatInt(id, 10)
	st, err := w.stmt(ctx, what, `UPDATE resource SET verified_at = ?, file_mtime = ? WHERE id = ?`)
	if err != nil {
		return err
	}
	if _, err := st.ExecContext(ctx, clock(at), unixNanoOrNull(fileMTime), id); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return w.done(ctx)
}

// Verified is a copy found intact (SetVerifiedBatch): its row, and its
// file's modification time then (zero when unknown).
type Verified struct {
	ID        int64
	FileMTime time.Time
}

// verifiedBatch is how many rows one statement of SetVerifiedBatch updates.
const verifiedBatch = 200

// SetVerifiedBatch does SetVerified for every row given, at the same time,
// with one statement for up to verifiedBatch rows: an audit records every
// copy of a copy, and a statement a row cost most of that.
func (w *Writer) SetVerifiedBatch(ctx context.Context, rows []Verified, at time.Time) error {
	when := clock(at)
	args := make([]any, 0, 1+2*min(len(rows), verifiedBatch))
	for len(rows) > 0 {
		n := min(len(rows), verifiedBatch)
		what := fmt.Sprintf("record the verification of %d resources", n)
		st, err := w.stmt(ctx, what, verifiedQuery(n))
		if err != nil {
			return err
		}
		args = append(args[:0], when)
		for _, r := range rows[:n] {
			args = append(args, r.ID, unixNanoOrNull(r.FileMTime))
		}
		if _, err := st.ExecContext(ctx, args...); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		w.ops += n - 1
		if err := w.done(ctx); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}

// verifiedQuery updates n rows: ?1 is the time, then each row's id and
// file_mtime.
func verifiedQuery(n int) string {
	var b strings.Builder
	b.WriteString(`UPDATE resource SET verified_at = ?1, file_mtime = v.column2 FROM (VALUES `)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("(?,?)")
	}
	b.WriteString(`) AS v WHERE resource.id = v.column1`)
	return b.String()
}

// unixNanoOrNull is a time as Unix nanoseconds, NULL when zero.
func unixNanoOrNull(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixNano()
}

// SetDamaged records that an audit found a copy damaged or gone at the
// given time: the next sync fetches it again.
func (w *Writer) SetDamaged(ctx context.Context, id int64, at time.Time) error {
	if _, err := w.exec(ctx, fmt.Sprintf("record the damage of resource %d", id), `UPDATE resource SET damaged_at = ? WHERE id = ?`, clock(at), id); err != nil {
		return err
	}
	return w.done(ctx)
}

// SetReconcileDue records that an audit found a Source's copy not in sync at
// the given time (zero clears it): the next sync reconciles.
func (w *Writer) SetReconcileDue(ctx context.Context, sourceID int64, at time.Time) error {
	if _, err := w.exec(ctx, fmt.Sprintf("record that Source %d is to be reconciled", sourceID), `UPDATE source SET reconcile_due = ? WHERE id = ?`, clockOrNull(at), sourceID); err != nil {
		return err
	}
	return w.done(ctx)
}

// SetStrayDue records that an audit found stray files in a Source's part of
// DEST at at (zero: none left, or a sync with --delete moved them to the
// trash).
func (w *Writer) SetStrayDue(ctx context.Context, sourceID int64, at time.Time) error {
	if _, err := w.exec(ctx, fmt.Sprintf("record the stray files of Source %d", sourceID), `UPDATE source SET stray_due = ? WHERE id = ?`, clockOrNull(at), sourceID); err != nil {
		return err
	}
	return w.done(ctx)
}

// SetBaseline records a Source's baseline.
func (w *Writer) SetBaseline(ctx context.Context, sourceID int64, b Baseline) error {
	if b.Kind != "" && b.Kind != "list" && b.Kind != "dump" {
		return fmt.Errorf("record the baseline of Source %d: kind %q is not list or dump", sourceID, b.Kind)
	}
	if _, err := w.exec(ctx, fmt.Sprintf("record the baseline of Source %d", sourceID),
		// A finished baseline compared the whole copy with the Source: what
		// an audit found before it is put right.
		`UPDATE source SET baseline_kind = ?1, baseline_url = ?2, baseline_at = ?3, baseline_done = ?4,
			reconcile_due = CASE WHEN ?4 IS NULL THEN reconcile_due END WHERE id = ?5`,
		nullString(b.Kind), nullString(b.URL), datetime(b.At), clockOrNull(b.Done), sourceID); err != nil {
		return err
	}
	return w.done(ctx)
}

// SetSyncedUntil records that every change of a Source up to t is applied.
func (w *Writer) SetSyncedUntil(ctx context.Context, sourceID int64, t time.Time) error {
	if _, err := w.exec(ctx, fmt.Sprintf("record how far Source %d is synced", sourceID),
		`UPDATE source SET synced_until = ? WHERE id = ?`, datetime(t), sourceID); err != nil {
		return err
	}
	return w.done(ctx)
}

// SetLastRun records when a run for a Source ended.
func (w *Writer) SetLastRun(ctx context.Context, sourceID int64, t time.Time) error {
	if _, err := w.exec(ctx, fmt.Sprintf("record the run of Source %d", sourceID),
		`UPDATE source SET last_run = ? WHERE id = ?`, clock(t), sourceID); err != nil {
		return err
	}
	return w.done(ctx)
}

// SetSelection replaces a Source's selection.
func (w *Writer) SetSelection(ctx context.Context, sourceID int64, sel Selection) error {
	what := fmt.Sprintf("record the selection of Source %d", sourceID)
	if _, err := w.exec(ctx, what, `DELETE FROM selection WHERE source_id = ?`, sourceID); err != nil {
		return err
	}
	pos := 0
	for _, group := range []struct {
		kind   string
		values []string
	}{{"include", sel.Include}, {"exclude", sel.Exclude}, {"map", sel.Map}} {
		for _, v := range group.values {
			if _, err := w.exec(ctx, what, `INSERT INTO selection (source_id, position, kind, value) VALUES (?, ?, ?, ?)`, sourceID, pos, group.kind, v); err != nil {
				return err
			}
			pos++
		}
	}
	return w.done(ctx)
}

// PutChangeList records a Change List (or Change Dump) processed for a Source.
func (w *Writer) PutChangeList(ctx context.Context, sourceID int64, c ChangeList) error {
	if c.URL == "" {
		return errors.New("record a Change List: empty URL")
	}
	if c.Kind != "changelist" && c.Kind != "changedump" {
		return fmt.Errorf("record Change List %s: kind %q is not changelist or changedump", c.URL, c.Kind)
	}
	var pos any
	if c.Last.Position >= 0 {
		pos = c.Last.Position
	}
	complete := 0
	if c.Complete {
		complete = 1
	}
	if _, err := w.exec(ctx, "record Change List "+c.URL, `INSERT INTO changelist (source_id, url, kind, from_at, until_at, complete, etag, last_modified, last_position, last_datetime, last_uri, processed_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (source_id, url) DO UPDATE SET kind = excluded.kind, from_at = excluded.from_at, until_at = excluded.until_at,
			complete = excluded.complete, etag = excluded.etag, last_modified = excluded.last_modified, last_position = excluded.last_position,
			last_datetime = excluded.last_datetime, last_uri = excluded.last_uri, processed_at = excluded.processed_at`,
		sourceID, c.URL, c.Kind, datetime(c.From), datetime(c.Until), complete, nullString(c.ETag), nullString(c.LastModified),
		pos, datetime(c.Last.Datetime), nullString(c.Last.URI), clockOrNull(c.ProcessedAt)); err != nil {
		return err
	}
	return w.done(ctx)
}
