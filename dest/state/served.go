package state

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"time"

	"rsx/dest/pathmap"

	"modernc.org/sqlite"
)

// The reads of a copy republished as a Source (rsx serve --dest, package
// republish). They run beside the runs that write the state, in another
// process, and write nothing: neither the state nor anything beside it.

// ErrNoLog is OpenShared's answer for a database with no write-ahead log
// beside it: no process has it open, and a reader that opened it would make
// the log (and its index) in the destination.
var ErrNoLog = errors.New("no write-ahead log beside it (no process has it open)")

// OpenShared opens the state database at path for reading while a run in
// another process may write it: read-only (mode=ro), never immutable, so
// that SQLite's locks and its write-ahead log give every read transaction
// the state as some commit left it. It refuses with ErrNoLog when no log
// lies beside the database: SQLite would make one (and its index, -shm),
// writing beside a state that no process has open (copy the file instead:
// nothing can change it while no log is there). With a log there, the
// reader shares the log's index (-shm) with the writer, as any reader does,
// and writes nothing else.
func OpenShared(ctx context.Context, path string) (*DB, error) {
	if _, err := os.Stat(path + "-wal"); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("open state database %s to read beside its runs: %w", path, ErrNoLog)
	}
	q := url.Values{}
	for _, p := range []string{"busy_timeout(10000)", "cache_size(-16384)"} {
		q.Add("_pragma", p)
	}
	q.Set("mode", "ro")
	return openReader(ctx, path, q)
}

// Frozen is one consistent view of a state: a read transaction held open,
// which every read goes through and sees as the last commit before it began
// left the state, however many commits a run makes meanwhile. Its reads may
// run concurrently (they share the transaction's connection, one statement
// step at a time); the context of a read is checked between rows and not
// given to SQLite, whose interruption would stop every statement of the
// connection. Of a database no process writes (a copy of its own), a Frozen
// reads the database itself, on as many connections as it likes.
//
// While a Frozen of a state that a run writes is open, SQLite cannot copy
// the run's commits from the log back into the database: the log grows with
// the run (Frozen.LogBytes says how much).
type Frozen struct {
	db   *DB
	q    querier
	conn *sql.Conn // the transaction's; nil: the database itself (one no process writes)
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Freeze begins a Frozen view. shared: the database may be written by
// another process (OpenShared), so the view is a read transaction; else it
// is the database as it is.
func (db *DB) Freeze(ctx context.Context, shared bool) (*Frozen, error) {
	if !shared {
		return &Frozen{db: db, q: db.sql}, nil
	}
	ctx = context.WithoutCancel(ctx)
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("read state database %s: %w", db.path, err)
	}
	// A transaction's snapshot is taken by its first read.
	var n int
	if _, err = conn.ExecContext(ctx, `BEGIN`); err == nil {
		if err = conn.QueryRowContext(ctx, `SELECT count(*) FROM meta`).Scan(&n); err != nil {
			conn.ExecContext(ctx, `ROLLBACK`)
		}
	}
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("read state database %s: %w", db.path, err)
	}
	return &Frozen{db: db, q: conn, conn: conn}, nil
}

// Close ends the view, once every read of it has ended.
func (f *Frozen) Close() error {
	if f.conn == nil {
		return nil
	}
	_, err := f.conn.ExecContext(context.Background(), `ROLLBACK`)
	if cerr := f.conn.Close(); err == nil {
		err = cerr
	}
	return err
}

// Shared reports whether the view is a read transaction on a state another
// process may write.
func (f *Frozen) Shared() bool { return f.conn != nil }

// CopyTo writes the view's state into a new database file at path (SQLite's
// online backup, in the view's transaction): what the view reads, for a
// reader that must let the state's log go.
func (f *Frozen) CopyTo(ctx context.Context, path string) error {
	if f.conn == nil {
		return fmt.Errorf("copy state database %s: the view is the database itself", f.db.path)
	}
	type backuper interface {
		NewBackup(dstURI string) (*sqlite.Backup, error)
	}
	err := f.conn.Raw(func(dc any) error {
		b, ok := dc.(backuper)
		if !ok {
			return fmt.Errorf("the SQLite driver cannot back a database up")
		}
		bk, err := b.NewBackup(path)
		if err != nil {
			return err
		}
		for more := true; more && err == nil; {
			if err = ctx.Err(); err == nil {
				more, err = bk.Step(1024)
			}
		}
		if ferr := bk.Finish(); err == nil {
			err = ferr
		}
		return err
	})
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("copy state database %s to %s: %w", f.db.path, path, err)
	}
	return nil
}

// DamagedCount counts the copies an audit found damaged or gone.
func (f *Frozen) DamagedCount(ctx context.Context) (int, error) {
	var n int
	if err := f.q.QueryRowContext(context.WithoutCancel(ctx), `SELECT count(*) FROM resource WHERE damaged_at IS NOT NULL`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count the damaged copies: %w", err)
	}
	return n, nil
}

// A Watcher tells whether a state another process writes has had a commit
// since it last looked (SQLite's data_version, on a connection of its own).
type Watcher struct {
	conn *sql.Conn
	last int64
	seen bool
}

// Watch returns a Watcher of a database opened with OpenShared.
func (db *DB) Watch(ctx context.Context) (*Watcher, error) {
	conn, err := db.sql.Conn(context.WithoutCancel(ctx))
	if err != nil {
		return nil, fmt.Errorf("watch state database %s: %w", db.path, err)
	}
	return &Watcher{conn: conn}, nil
}

// Changed reports whether a commit was made since the last call (true the
// first time).
func (w *Watcher) Changed(ctx context.Context) (bool, error) {
	var v int64
	if err := w.conn.QueryRowContext(context.WithoutCancel(ctx), `PRAGMA data_version`).Scan(&v); err != nil {
		return false, fmt.Errorf("watch the state database: %w", err)
	}
	changed := !w.seen || v != w.last
	w.last, w.seen = v, true
	return changed, nil
}

// Reset makes the next Changed report true.
func (w *Watcher) Reset() { w.seen = false }

// Close frees the Watcher's connection.
func (w *Watcher) Close() error { return w.conn.Close() }

// Version is the state's schema version: below 7, no copy has a type or a
// provenance.
func (f *Frozen) Version() int { return f.db.version }

// LogBytes is the size of the write-ahead log beside the database (0 when
// there is none).
func (f *Frozen) LogBytes() int64 {
	fi, err := os.Stat(f.db.path + "-wal")
	if err != nil {
		return 0
	}
	return fi.Size()
}

// query runs a read of the view: with a context SQLite is not given.
func (f *Frozen) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return f.q.QueryContext(context.WithoutCancel(ctx), q, args...)
}

// Sources are the Sources of the state, by id (without their selections).
func (f *Frozen) Sources(ctx context.Context) ([]Source, error) {
	rows, err := f.query(ctx, `SELECT id, url, created, baseline_kind, baseline_url, baseline_at, baseline_done, synced_until, last_run, reconcile_due, `+f.db.since(versionStray, "stray_due")+` FROM source ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("list Sources in %s: %w", f.db.path, err)
	}
	defer rows.Close()
	var out []Source
	for rows.Next() {
		s, err := scanSource(rows)
		if err != nil {
			return nil, fmt.Errorf("list Sources in %s: %w", f.db.path, err)
		}
		out = append(out, s)
	}
	return out, closeRows(rows)
}

// EachRun calls fn for every run of the state, every Source's, oldest
// first.
func (f *Frozen) EachRun(ctx context.Context, fn func(r *Run) error) error {
	if f.db.version < 3 {
		return nil
	}
	rows, err := f.query(ctx, f.db.runColumns()+` ORDER BY r.id`)
	if err != nil {
		return fmt.Errorf("read the run history: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var r Run
		if err := scanRun(rows, &r); err != nil {
			return err
		}
		if err := fn(&r); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return closeRows(rows)
}

// FileSpan is the smallest and largest id of the rows of run_file of a run
// (0, 0 when it has none): where its files are among every run's.
func (f *Frozen) FileSpan(ctx context.Context, runID int64) (first, last int64, err error) {
	if f.db.version < 4 {
		return 0, 0, nil
	}
	var lo, hi sql.NullInt64
	if err := f.q.QueryRowContext(context.WithoutCancel(ctx), `SELECT min(id), max(id) FROM run_file WHERE run_id = ?`, runID).Scan(&lo, &hi); err != nil {
		return 0, 0, fmt.Errorf("read the files of run %d: %w", runID, err)
	}
	return lo.Int64, hi.Int64, nil
}

// LastFileAt is the time of the last file of a run (zero when it has
// none): the end of a run killed before it recorded its own.
func (f *Frozen) LastFileAt(ctx context.Context, runID int64) (time.Time, error) {
	if f.db.version < 4 {
		return time.Time{}, nil
	}
	var at sql.NullString
	if err := f.q.QueryRowContext(context.WithoutCancel(ctx), `SELECT max(at) FROM run_file WHERE run_id = ?`, runID).Scan(&at); err != nil {
		return time.Time{}, fmt.Errorf("read the files of run %d: %w", runID, err)
	}
	return parseTime(at), nil
}

// Change is a file a run created, updated or deleted: a row of run_file.
type Change struct {
	ID, RunID int64
	RunFile
}

// EachChange calls fn for the files created, updated and deleted whose row
// id is in [from, to), every run's, in the order they were recorded. The
// Change is reused between calls.
func (f *Frozen) EachChange(ctx context.Context, from, to int64, fn func(c *Change) error) error {
	if f.db.version < 4 {
		return nil
	}
	cols := `id, run_id, kind, uri, path, length, digests, at, type, via`
	if f.db.version < versionVia {
		cols = `id, run_id, kind, uri, path, length, digests, at, NULL, NULL`
	}
	rows, err := f.query(ctx, `SELECT `+cols+` FROM run_file WHERE id >= ? AND id < ? AND kind IN ('created', 'updated', 'deleted') ORDER BY id`, from, to)
	if err != nil {
		return fmt.Errorf("read the files of the runs: %w", err)
	}
	defer rows.Close()
	var c Change
	for rows.Next() {
		var kind string
		var uri, path, digests, at, typ, via sql.NullString
		var length sql.NullInt64
		if err := rows.Scan(&c.ID, &c.RunID, &kind, &uri, &path, &length, &digests, &at, &typ, &via); err != nil {
			return fmt.Errorf("read the files of the runs: %w", err)
		}
		c.Kind, c.URI, c.Path, c.Digests, c.At = FileKind(kind), uri.String, path.String, Digests(digests.String), parseTime(at)
		c.Type, c.Via, c.Note = typ.String, via.String, ""
		c.Length = -1
		if length.Valid {
			c.Length = length.Int64
		}
		if err := fn(&c); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return closeRows(rows)
}

// ChangeStats calls fn, for each run with files created, updated or
// deleted (with a path) whose row id is in [from, to), with the latest
// time of those files and how many they are: what a Change List of those
// rows is dated by, read without reading the rows one by one.
func (f *Frozen) ChangeStats(ctx context.Context, from, to int64, fn func(runID int64, latest time.Time, n int)) error {
	if f.db.version < 4 {
		return nil
	}
	rows, err := f.query(ctx, `SELECT run_id, max(at), count(*) FROM run_file WHERE id >= ? AND id < ?
		AND kind IN ('created', 'updated', 'deleted') AND path IS NOT NULL GROUP BY run_id`, from, to)
	if err != nil {
		return fmt.Errorf("read the files of the runs: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var run int64
		var at sql.NullString
		var n int
		if err := rows.Scan(&run, &at, &n); err != nil {
			return fmt.Errorf("read the files of the runs: %w", err)
		}
		fn(run, parseTime(at), n)
	}
	return closeRows(rows)
}

// servedColumns are what a served copy needs of a row.
func (f *Frozen) servedColumns() string {
	if f.db.version < versionVia {
		return `id, source_id, uri, path, length, digests, lastmod, fetched_at, deleted_at, damaged_at, file_mtime, NULL, NULL`
	}
	return `id, source_id, uri, path, length, digests, lastmod, fetched_at, deleted_at, damaged_at, file_mtime, type, via`
}

func scanServed(s scanner, r *Resource) error {
	var length, mtime sql.NullInt64
	var digests, lastmod, fat, dat, dmg, typ, via sql.NullString
	if err := s.Scan(&r.ID, &r.SourceID, &r.URI, &r.Path, &length, &digests, &lastmod, &fat, &dat, &dmg, &mtime, &typ, &via); err != nil {
		return err
	}
	r.Length = -1
	if length.Valid {
		r.Length = length.Int64
	}
	r.Digests, r.Lastmod, r.FetchedAt = Digests(digests.String), parseTime(lastmod), parseTime(fat)
	r.DeletedAt, r.DamagedAt = parseTime(dat), parseTime(dmg)
	r.FileMTime = time.Time{}
	if mtime.Valid {
		r.FileMTime = time.Unix(0, mtime.Int64).UTC()
	}
	r.Type, r.Via = typ.String, via.String
	r.ETag, r.LastModified, r.ChangeDatetime, r.VerifiedAt = "", "", time.Time{}, time.Time{}
	return nil
}

// EachCopy calls fn for the rows of a Source whose id is in [from, to), by
// id (read in the order of the table, the first at once: the index of a
// Source's URIs would have SQLite read them all and sort them first), with what a served copy needs (ID, SourceID, URI, Path, Length,
// Digests, Lastmod, FetchedAt, DeletedAt, DamagedAt, FileMTime, Type, Via).
// The Resource is reused between calls.
func (f *Frozen) EachCopy(ctx context.Context, sourceID, from, to int64, fn func(r *Resource) error) error {
	rows, err := f.query(ctx, `SELECT `+f.servedColumns()+` FROM resource WHERE id >= ? AND id < ? AND +source_id = ? ORDER BY id`, from, to, sourceID)
	if err != nil {
		return fmt.Errorf("read the copies of Source %d: %w", sourceID, err)
	}
	defer rows.Close()
	var r Resource
	for rows.Next() {
		if err := scanServed(rows, &r); err != nil {
			return fmt.Errorf("read the copies of Source %d: %w", sourceID, err)
		}
		if err := fn(&r); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return closeRows(rows)
}

// HasCopies reports whether a Source has a row whose id is in [from, to).
func (f *Frozen) HasCopies(ctx context.Context, sourceID, from, to int64) (bool, error) {
	var n int
	err := f.q.QueryRowContext(context.WithoutCancel(ctx), `SELECT count(*) FROM (SELECT 1 FROM resource WHERE id >= ? AND id < ? AND +source_id = ? LIMIT 1)`,
		from, to, sourceID).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("read the copies of Source %d: %w", sourceID, err)
	}
	return n > 0, nil
}

// LargestCopyID is the largest id of any row (0 when there is none).
func (f *Frozen) LargestCopyID(ctx context.Context) (int64, error) {
	var id sql.NullInt64
	if err := f.q.QueryRowContext(context.WithoutCancel(ctx), `SELECT max(id) FROM resource`).Scan(&id); err != nil {
		return 0, fmt.Errorf("read the largest id of %s: %w", f.db.path, err)
	}
	return id.Int64, nil
}

// CopyAt is the row whose copy is at path (ok false when none is), as
// EachCopy reads it.
func (f *Frozen) CopyAt(ctx context.Context, path string, r *Resource) (ok bool, err error) {
	err = scanServed(f.q.QueryRowContext(context.WithoutCancel(ctx), `SELECT `+f.servedColumns()+` FROM resource WHERE path_key = ? AND path = ?`,
		pathmap.Key(path), path), r)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read the copy at %s: %w", path, err)
	}
	return true, nil
}
