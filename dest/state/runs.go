package state

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"rsx/display"
)

// Run is one row of the run table: a run of rsx sync on the destination for
// one Source.
type Run struct {
	ID                                int64
	SourceID                          int64
	Source                            string // the Source's URL (read with the row)
	Started                           time.Time
	Ended                             time.Time // zero: going on, or killed before it recorded its end
	Mode                              string    // "baseline", "reconcile" or "incremental"
	Why                               string    // why a run of mode auto reconciled
	Planned                           int
	Created, Updated, Deleted, Failed int
	Bytes                             int64
	// Trashed counts the stray files the run moved to the trash
	// (DEST/.rsx/trash/, in a folder of the run's own).
	Trashed     int
	Finished    bool // the baseline was done, or the copy's point moved
	SyncedUntil time.Time
	Stopped     string
	ExitStatus  int // -1 while going on (or killed)
	Version     string
	// Host is the process that ran it: its host id (a fleet's processes
	// on several machines share its Sources: which one ran this); "" in
	// a run recorded by an rsx that did not record it.
	Host string
}

// Why a run stopped (Run.Stopped), when it was interrupted.
const (
	// StoppedInterrupted: stopped by ctrl+c, SIGINT or SIGTERM, its end
	// recorded.
	StoppedInterrupted = "interrupted"
	// StoppedNoEnd: a run that recorded no end (killed, or its machine
	// stopped), marked so by the next run on the destination, which holds
	// its lock: it is not going on.
	StoppedNoEnd = "interrupted (no end recorded)"
)

// Interrupted reports whether the run was interrupted: stopped by a signal
// (its end recorded), or ended without recording its end and found so by a
// later run.
func (r *Run) Interrupted() bool {
	return r.Stopped == StoppedInterrupted || r.Stopped == StoppedNoEnd
}

// KeepRuns is how many runs of each Source the run table keeps: older ones
// are removed when a run ends.
const KeepRuns = 10000

// StartRun records the start of a run and sets r.ID. It is written at once
// (its own transaction), so that a run killed at any moment leaves its row.
// It is called by a run that holds the destination's lock: the runs before
// it that recorded no end are over (killed), and are marked StoppedNoEnd in
// the same transaction.
func (db *DB) StartRun(ctx context.Context, r *Run) error {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("record the start of the run: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `UPDATE run SET stopped = ? WHERE ended IS NULL AND stopped IS NULL`, StoppedNoEnd); err != nil {
		return fmt.Errorf("record the end of the runs killed before: %w", err)
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO run (source_id, started, mode, why, planned, rsx_version, host) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		r.SourceID, clock(r.Started), r.Mode, nullString(display.Redact(r.Why)), r.Planned, r.Version, nullString(r.Host))
	if err != nil {
		return fmt.Errorf("record the start of the run: %w", err)
	}
	if r.ID, err = res.LastInsertId(); err != nil {
		return fmt.Errorf("record the start of the run: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("record the start of the run: %w", err)
	}
	return nil
}

// EndRun records how a run ended (the counts, Ended, Finished, SyncedUntil,
// Stopped, ExitStatus of r), and removes the Source's runs beyond KeepRuns.
func (db *DB) EndRun(ctx context.Context, r *Run) error {
	_, err := db.sql.ExecContext(ctx, `UPDATE run SET ended = ?, created = ?, updated = ?, deleted = ?, failed = ?, bytes = ?,
		finished = ?, synced_until = ?, stopped = ?, exit_status = ?, trashed = ? WHERE id = ?`,
		clock(r.Ended), r.Created, r.Updated, r.Deleted, r.Failed, r.Bytes, boolInt(r.Finished), datetime(r.SyncedUntil),
		nullString(display.Redact(r.Stopped)), r.ExitStatus, r.Trashed, r.ID)
	if err != nil {
		return fmt.Errorf("record the end of the run: %w", err)
	}
	_, err = db.sql.ExecContext(ctx, `DELETE FROM run WHERE source_id = ? AND id <= (SELECT id FROM run WHERE source_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`,
		r.SourceID, r.SourceID, KeepRuns)
	if err != nil {
		return fmt.Errorf("prune the run history: %w", err)
	}
	return nil
}

// hostColumn is column when the file has run.host, else NULL.
func (db *DB) hostColumn(column string) string {
	if !db.hasHost {
		return "NULL"
	}
	return column
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// runColumns selects the columns of a Run, read by scanRuns (trashed is
// NULL in a file older than versionStray, host in one without the column,
// opened read-only).
func (db *DB) runColumns() string {
	return `SELECT r.id, r.source_id, s.url, r.started, r.ended, r.mode, r.why, r.planned, r.created, r.updated, r.deleted, r.failed,
		r.bytes, r.finished, r.synced_until, r.stopped, r.exit_status, r.rsx_version, ` + db.since(versionStray, "r.trashed") + `, ` + db.hostColumn("r.host") + ` FROM run r JOIN source s ON s.id = r.source_id`
}

// Runs calls fn for the runs of the Source sourceID (every Source: 0),
// newest first, at most limit of them (0: all).
func (db *DB) Runs(ctx context.Context, sourceID int64, limit int, fn func(r *Run) error) error {
	if db.version < 3 {
		return nil // a file of an older rsx, opened read-only: no history yet
	}
	q := db.runColumns()
	var args []any
	if sourceID != 0 {
		q += ` WHERE r.source_id = ?`
		args = append(args, sourceID)
	}
	q += ` ORDER BY r.id DESC`
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	return db.scanRuns(ctx, q, args, fn)
}

// Run returns the run id, however old; ok is false when the history has
// no such run (pruned, or never).
func (db *DB) Run(ctx context.Context, id int64) (r Run, ok bool, err error) {
	if db.version < 3 {
		return r, false, nil
	}
	err = db.scanRuns(ctx, db.runColumns()+` WHERE r.id = ?`, []any{id}, func(x *Run) error {
		r, ok = *x, true
		return nil
	})
	return r, ok, err
}

// scanRuns calls fn for each run the query q (on runColumns()) reads.
func (db *DB) scanRuns(ctx context.Context, q string, args []any, fn func(r *Run) error) error {
	rows, err := db.sql.QueryContext(ctx, q, args...)
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
	}
	return closeRows(rows)
}

// scanRun reads a row of runColumns() into r.
func scanRun(s scanner, r *Run) error {
	var started, ended, why, until, stopped, host sql.NullString
	var exit, trashed sql.NullInt64
	var finished int
	if err := s.Scan(&r.ID, &r.SourceID, &r.Source, &started, &ended, &r.Mode, &why, &r.Planned, &r.Created, &r.Updated,
		&r.Deleted, &r.Failed, &r.Bytes, &finished, &until, &stopped, &exit, &r.Version, &trashed, &host); err != nil {
		return fmt.Errorf("read the run history: %w", err)
	}
	r.Started, r.Ended, r.SyncedUntil = parseTime(started), parseTime(ended), parseTime(until)
	r.Why, r.Stopped, r.Finished = why.String, stopped.String, finished == 1
	r.Trashed, r.Host = int(trashed.Int64), host.String
	r.ExitStatus = -1
	if exit.Valid {
		r.ExitStatus = int(exit.Int64)
	}
	return nil
}

// LastRun is the newest run of a Source; ok is false when it has none.
func (db *DB) LastRun(ctx context.Context, sourceID int64) (r Run, ok bool, err error) {
	err = db.Runs(ctx, sourceID, 1, func(x *Run) error {
		r, ok = *x, true
		return nil
	})
	return r, ok, err
}

// Damaged counts the copies of a Source an audit found damaged or gone
// since they were written (the next sync fetches them again).
func (db *DB) Damaged(ctx context.Context, sourceID int64) (int, error) {
	var n int
	if err := db.sql.QueryRowContext(ctx, `SELECT count(*) FROM resource WHERE source_id = ? AND damaged_at IS NOT NULL`, sourceID).Scan(&n); err != nil {
		return 0, fmt.Errorf("count the damaged copies: %w", err)
	}
	return n, nil
}
