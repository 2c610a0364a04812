package state

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// FileKind is what a run did to a file (a row of run_file).
type FileKind string

const (
	FileCreated FileKind = "created" // a copy written where there was none
	FileUpdated FileKind = "updated" // a copy written again
	FileDeleted FileKind = "deleted" // a copy removed (the Source deleted the resource)
	FileRefused FileKind = "refused" // a resource given no copy: outside the Source's authority, no path, a path collision
	FileTrashed FileKind = "trashed" // a file no resource owns, moved to the trash under .rsx
	FileFailed  FileKind = "failed"  // a resource that could not be copied
)

// NoteAdopted is the note of a file a run created by adopting it: the file
// was at its path already (the rest of an interrupted run), verified and
// kept; its bytes were not written by the run.
const NoteAdopted = "adopted: the file was there already, and verified"

// RunFile is one file a run changed, or one resource it could not copy:
// a row of run_file.
type RunFile struct {
	Kind FileKind
	// URI is the resource; "" for a file no resource owns (trashed).
	URI string
	// Path is the file, relative to DEST, '/'-separated; "" when there is
	// none (refused).
	Path string
	// Length is the bytes of the file written or removed; -1 when unknown.
	Length int64
	// Digests are those the file written was verified with.
	Digests Digests
	// At is when the file changed (or the resource failed).
	At time.Time
	// Note says why (refused, failed, updated), where the file went
	// (trashed), or NoteAdopted.
	Note string
	// Type is the media type the Source declared (created, updated); Via
	// the file's provenance (created, updated, deleted) in the column's
	// form: EncodeVia beside the row's URI, digests, length and type, and
	// no lastmod.
	Type, Via string
}

// runCounts are a run's counts as its row holds them.
type runCounts struct {
	created, updated, deleted, failed int
	bytes                             int64
}

// trackedRun is the run whose row a Writer keeps current (TrackRun).
type trackedRun struct {
	id int64
	// cur counts every file recorded, the open batch's too; committed
	// those of the batches committed (an aborted batch goes back to it).
	cur, committed runCounts
}

// TrackRun makes the Writer keep the row of run runID current: its counts
// (created, updated, deleted, failed, bytes), those of the files recorded
// with PutRunFile, are written with every batch, so that a run killed at
// any moment leaves its row with what its committed batches did. Call it
// before the first PutRunFile.
func (w *Writer) TrackRun(runID int64) {
	w.run = &trackedRun{id: runID}
}

// PutRunFile records a file of the tracked run (TrackRun) in the open
// batch, and counts it in the run's row.
func (w *Writer) PutRunFile(ctx context.Context, f RunFile) error {
	if w.run == nil {
		return fmt.Errorf("record the file %s of a run: no run tracked", f.Path)
	}
	var length any
	if f.Length >= 0 {
		length = f.Length
	}
	what := "record the file " + f.Path + " of run " + fmt.Sprint(w.run.id)
	st, err := w.stmt(ctx, what, `INSERT INTO run_file (run_id, kind, uri, path, length, digests, at, note, type, via) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	if _, err := st.ExecContext(ctx, w.run.id, string(f.Kind), nullString(f.URI), nullString(f.Path), length,
		nullString(string(f.Digests)), clock(f.At), nullString(f.Note), nullString(f.Type), nullString(f.Via)); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	c := &w.run.cur
	switch f.Kind {
	case FileCreated:
		c.created++
	case FileUpdated:
		c.updated++
	case FileDeleted:
		c.deleted++
	case FileFailed:
		c.failed++
	}
	if (f.Kind == FileCreated || f.Kind == FileUpdated) && f.Length > 0 && f.Note != NoteAdopted {
		c.bytes += f.Length
	}
	return w.done(ctx)
}

// writeRunCounts writes the tracked run's counts in the open batch, when
// they changed since the last commit.
func (w *Writer) writeRunCounts(ctx context.Context) error {
	r := w.run
	if r == nil || r.cur == r.committed {
		return nil
	}
	c := r.cur
	if _, err := w.tx.ExecContext(ctx, `UPDATE run SET created = ?, updated = ?, deleted = ?, failed = ?, bytes = ? WHERE id = ?`,
		c.created, c.updated, c.deleted, c.failed, c.bytes, r.id); err != nil {
		return fmt.Errorf("record the counts of run %d: %w", r.id, err)
	}
	return nil
}

// RunFiles calls fn for the files of run runID, in the order the run
// recorded them; a database without run_file (an older rsx's, opened
// read-only) has none.
func (db *DB) RunFiles(ctx context.Context, runID int64, fn func(f *RunFile) error) error {
	if db.version < 4 {
		return nil
	}
	cols := `kind, uri, path, length, digests, at, note, type, via`
	if db.version < versionVia {
		cols = `kind, uri, path, length, digests, at, note, NULL, NULL`
	}
	rows, err := db.sql.QueryContext(ctx, `SELECT `+cols+` FROM run_file WHERE run_id = ? ORDER BY id`, runID)
	if err != nil {
		return fmt.Errorf("read the files of run %d: %w", runID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var f RunFile
		var kind string
		var uri, path, digests, at, note, typ, via sql.NullString
		var length sql.NullInt64
		if err := rows.Scan(&kind, &uri, &path, &length, &digests, &at, &note, &typ, &via); err != nil {
			return fmt.Errorf("read the files of run %d: %w", runID, err)
		}
		f.Kind, f.URI, f.Path, f.Digests, f.At, f.Note = FileKind(kind), uri.String, path.String, Digests(digests.String), parseTime(at), note.String
		f.Type, f.Via = typ.String, via.String
		f.Length = -1
		if length.Valid {
			f.Length = length.Int64
		}
		if err := fn(&f); err != nil {
			return err
		}
	}
	return closeRows(rows)
}

// Provenance is where the file a run wrote or deleted came from, read from
// f.Via beside f's own values (a deletion has none: its via holds the whole
// link); ok is false when the run recorded none (a failure, a refusal, a
// stray file, a deletion of a resource that no other Source republished, a
// run of an rsx before schema version 7).
func (f *RunFile) Provenance() (v Via, ok bool) {
	own := Via{Href: f.URI, Length: -1}
	if f.Kind == FileCreated || f.Kind == FileUpdated {
		own = Via{Href: f.URI, Hash: f.Digests, Length: f.Length, Type: f.Type}
	}
	return DecodeVia(f.Via, own)
}
