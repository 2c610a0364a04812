// Package state is a destination's memory of its copy: one SQLite database (Sources, baselines, Change Lists processed, selections, every resource copied).
//
// The database is DEST/.rsx/state.db for a folder (a Store's StatePath says
// where it is for a bucket). Its schema, Schema(), is documented SQL meant to be
// read by people who query the file with sqlite3. The driver is modernc.org/sqlite
// (pure Go, no cgo); the database is in WAL mode and written in batches by a
// Writer, so that a process killed at any moment loses at most the batch it had
// not committed, and the file is never left inconsistent.
//
// A run uses it in this order:
//
//	db, err := state.Open(ctx, path)          // creates or checks the schema
//	src, err := db.EnsureSource(ctx, capabilityListURL)
//	... plan (dest/plan) through db.View(src.ID) or db.LoadIndex(ctx, src.ID) ...
//	det := db.NewDetector(store.CaseInsensitive())
//	w := db.NewWriter(state.WriterOptions{Detector: det, BeforeCommit: store.Sync, AfterCommit: publish})
//	... det.Claim before each write, w.PutResource after it, w.MarkDeleted, w.RemoveResource ...
//	w.SetBaseline / w.PutChangeList / w.SetSyncedUntil / w.SetSelection
//	w.Close(ctx)                              // the last batch
//	db.Close()
//
// An audit reads db.EachResource (paths and digests to hash the copy again),
// db.FindPaths (to find the copy's extra files) and records
// w.SetVerified.
//
// A copy republished as a Source (rsx serve --dest) is read in Frozen views
// (served.go): the state as a commit left it, read beside the run that
// writes it (OpenShared) or from a copy of it, writing nothing.
package state

import (
	"context"
	"database/sql"
	_ "embed"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"rsx/model"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// SchemaVersion is the version of the schema this package writes and reads.
const SchemaVersion = 7

// versionStray is the schema version that added source.stray_due and
// run.trashed (a file of an older version opened read-only reads them as
// empty: DB.since).
const versionStray = 6

// versionVia is the schema version that added each copy's media type and
// provenance (resource.type and via, run_file.type and via): a file of an
// older version opened read-only reads them as unknown.
const versionVia = 7

//go:embed schema.sql
var schemaSQL string

// Schema returns the documented SQL of the schema (for the README and for
// people who query the database).
func Schema() string { return schemaSQL }

// SchemaError is a database this version of rsx cannot use.
type SchemaError struct {
	Path      string
	Found     int // the file's schema version; 0 when the file is not an rsx state
	Supported int
	Reason    string
}

func (e *SchemaError) Error() string {
	return "state database " + e.Path + ": " + e.Reason
}

// DB is an open state database. Reads may run concurrently; writes go through
// one Writer at a time.
type DB struct {
	sql      *sql.DB
	path     string
	readOnly bool
	// version is the file's schema version: SchemaVersion, or an older one
	// when the file was opened read-only (it cannot be upgraded then; what
	// the newer versions added reads as empty).
	version int
	// hasHost: the file's run table has the column host (addHostColumn).
	hasHost bool
	stmts   stmtCache
	scans   atomic.Int64 // reads of every row of a Source or of the state (Scans)
	// copiesByID counts the rows CopiesByID was asked for (CopiesReadByID).
	copiesByID atomic.Int64
	// queries counts the statements run through the cache (Queries).
	queries atomic.Int64
}

// Open opens the state database at path, creating it (and its schema) when the
// file does not exist. A database written by a newer rsx is refused with a
// *SchemaError.
func Open(ctx context.Context, path string) (*DB, error) {
	q := url.Values{}
	for _, p := range []string{"busy_timeout(10000)", "journal_mode(WAL)", "synchronous(FULL)", "foreign_keys(1)", "cache_size(-16384)"} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
	sdb, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open state database %s: %w", path, err)
	}
	sdb.SetMaxIdleConns(idleConns)
	db := &DB{sql: sdb, path: path}
	if err := db.init(ctx); err != nil {
		sdb.Close()
		return nil, err
	}
	return db, nil
}

// OpenReadOnly opens the state database at path for reading only: SQLite
// opens the file read-only (mode=ro), so that any write fails, and nothing
// beside it is made (no journal). When no write-ahead log lies beside it
// (the last run closed the database) it is opened immutable, which a
// read-only file system needs; a log left by a killed run is read as it is.
// A Writer of such a DB fails.
func OpenReadOnly(ctx context.Context, path string) (*DB, error) {
	q := url.Values{}
	for _, p := range []string{"busy_timeout(10000)", "foreign_keys(1)", "cache_size(-16384)"} {
		q.Add("_pragma", p)
	}
	q.Set("mode", "ro")
	if _, err := os.Stat(path + "-wal"); errors.Is(err, os.ErrNotExist) {
		q.Set("immutable", "1")
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open state database %s: %w", path, err)
	}
	return openReader(ctx, path, q)
}

// openReader opens the state database at path for reading with the URI
// parameters q (OpenReadOnly's, OpenShared's) and reads its schema.
func openReader(ctx context.Context, path string, q url.Values) (*DB, error) {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
	sdb, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open state database %s: %w", path, err)
	}
	sdb.SetMaxIdleConns(idleConns)
	db := &DB{sql: sdb, path: path, readOnly: true}
	if err := db.init(ctx); err != nil {
		sdb.Close()
		return nil, err
	}
	return db, nil
}

// ReadOnly reports whether the database was opened with OpenReadOnly.
func (db *DB) ReadOnly() bool { return db.readOnly }

func (db *DB) init(ctx context.Context) error {
	if err := db.initSchema(ctx); err != nil {
		return err
	}
	return db.addHostColumn(ctx)
}

// addHostColumn adds run.host, the process that ran each run (a fleet
// shared by several processes: docs/fleet.md), to a file without it. It is
// a column added without a new schema version: a nullable column at the
// end of its table, which an rsx that does not know it never names (its
// INSERTs name their columns, its SELECTs too), so that the file stays
// readable and writable by every rsx of this schema version. A file opened
// read-only is left as it is, and reads host as empty.
func (db *DB) addHostColumn(ctx context.Context) error {
	var n int
	if err := db.sql.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('run') WHERE name = 'host'`).Scan(&n); err != nil {
		return fmt.Errorf("open state database %s: %w", db.path, err)
	}
	if n == 0 && !db.readOnly && db.version >= 3 {
		if _, err := db.sql.ExecContext(ctx, `ALTER TABLE run ADD COLUMN host TEXT`); err != nil {
			return fmt.Errorf("open state database %s: add the run history's host: %w", db.path, err)
		}
		n = 1
	}
	db.hasHost = n > 0
	return nil
}

func (db *DB) initSchema(ctx context.Context) error {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("open state database %s: %w", db.path, err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'meta'`).Scan(&n); err != nil {
		return fmt.Errorf("open state database %s: %w", db.path, err)
	}
	if n == 0 {
		var tables int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema`).Scan(&tables); err != nil {
			return fmt.Errorf("open state database %s: %w", db.path, err)
		}
		if tables > 0 {
			return &SchemaError{Path: db.path, Supported: SchemaVersion, Reason: "not an rsx state database (it has tables but no meta table)"}
		}
		if db.readOnly {
			return &SchemaError{Path: db.path, Supported: SchemaVersion, Reason: "empty: no rsx state in it (opened read-only, so none is made)"}
		}
		if _, err := tx.ExecContext(ctx, schemaSQL); err != nil {
			return fmt.Errorf("create the schema of state database %s: %w", db.path, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('schema_version', ?), ('created', ?)`,
			strconv.Itoa(SchemaVersion), clock(time.Now())); err != nil {
			return fmt.Errorf("create the schema of state database %s: %w", db.path, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("create the schema of state database %s: %w", db.path, err)
		}
		db.version = SchemaVersion
		return nil
	}
	var v string
	err = tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return &SchemaError{Path: db.path, Supported: SchemaVersion, Reason: "no schema_version in its meta table"}
	}
	if err != nil {
		return fmt.Errorf("open state database %s: %w", db.path, err)
	}
	found, err := strconv.Atoi(v)
	if err != nil {
		return &SchemaError{Path: db.path, Supported: SchemaVersion, Reason: "schema_version " + strconv.Quote(v) + " is not a number"}
	}
	if found > SchemaVersion {
		return &SchemaError{Path: db.path, Found: found, Supported: SchemaVersion,
			Reason: fmt.Sprintf("schema version %d is newer than this rsx understands (%d): use a newer rsx", found, SchemaVersion)}
	}
	if found < 1 {
		return &SchemaError{Path: db.path, Found: found, Supported: SchemaVersion, Reason: fmt.Sprintf("schema version %d is not valid", found)}
	}
	db.version = found
	if found < SchemaVersion && db.readOnly {
		// Read-only, the file stays as it is: version 2 has every column
		// the readers use, the run history (version 3), the files of each
		// run (version 4), a Source's other names and what it was kept out
		// of (version 5), the stray files due and trashed (version 6) read
		// as empty, the types and provenance (version 7) as unknown; so
		// does run.host when the file lacks it (addHostColumn).
		if found < 2 {
			return &SchemaError{Path: db.path, Found: found, Supported: SchemaVersion,
				Reason: fmt.Sprintf("schema version %d is older than this rsx reads without upgrading it, and the file is opened read-only: one rsx sync on the copy upgrades it", found)}
		}
		return nil
	}
	if found < SchemaVersion {
		db.version = SchemaVersion
		for v := found; v < SchemaVersion; v++ {
			if _, err := tx.ExecContext(ctx, migrations[v-1]); err != nil {
				return fmt.Errorf("upgrade state database %s from schema version %d: %w", db.path, v, err)
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE meta SET value = ? WHERE key = 'schema_version'`, strconv.Itoa(SchemaVersion)); err != nil {
			return fmt.Errorf("upgrade state database %s: %w", db.path, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("upgrade state database %s: %w", db.path, err)
		}
	}
	return nil
}

// migrations[v-1] upgrades a database of schema version v to v+1 (in the
// transaction that opens it). An rsx that knows an older version refuses
// the upgraded file.
var migrations = []string{
	// 1 → 2: what an audit found, for the next sync to put right.
	`ALTER TABLE source ADD COLUMN reconcile_due TEXT;
	ALTER TABLE resource ADD COLUMN damaged_at TEXT;
	ALTER TABLE resource ADD COLUMN file_mtime INTEGER;
	CREATE INDEX resource_damaged ON resource (source_id) WHERE damaged_at IS NOT NULL;`,
	// 2 → 3: the history of runs.
	`CREATE TABLE run (
	  id           INTEGER PRIMARY KEY,
	  source_id    INTEGER NOT NULL REFERENCES source(id) ON DELETE CASCADE,
	  started      TEXT NOT NULL,
	  ended        TEXT,
	  mode         TEXT NOT NULL,
	  why          TEXT,
	  planned      INTEGER NOT NULL DEFAULT 0,
	  created      INTEGER NOT NULL DEFAULT 0,
	  updated      INTEGER NOT NULL DEFAULT 0,
	  deleted      INTEGER NOT NULL DEFAULT 0,
	  failed       INTEGER NOT NULL DEFAULT 0,
	  bytes        INTEGER NOT NULL DEFAULT 0,
	  finished     INTEGER NOT NULL DEFAULT 0 CHECK (finished IN (0, 1)),
	  synced_until TEXT,
	  stopped      TEXT,
	  exit_status  INTEGER,
	  rsx_version  TEXT NOT NULL
	);
	CREATE INDEX run_source ON run (source_id, id);
	CREATE TABLE run_document (
	  run_id        INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
	  url           TEXT NOT NULL,
	  final_url     TEXT,
	  fetched_at    TEXT NOT NULL,
	  status        INTEGER,
	  etag          TEXT,
	  last_modified TEXT,
	  sha256        TEXT NOT NULL,
	  PRIMARY KEY (run_id, url)
	) WITHOUT ROWID;
	CREATE INDEX run_document_sha256 ON run_document (sha256);
	CREATE TABLE document_blob (
	  id     INTEGER PRIMARY KEY,
	  sha256 TEXT NOT NULL UNIQUE,
	  length INTEGER NOT NULL,
	  gz     BLOB NOT NULL
	);`,
	// 3 → 4: the files of each run.
	`CREATE TABLE run_file (
	  id      INTEGER PRIMARY KEY,
	  run_id  INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
	  kind    TEXT NOT NULL CHECK (kind IN ('created', 'updated', 'deleted', 'refused', 'trashed', 'failed')),
	  uri     TEXT,
	  path    TEXT,
	  length  INTEGER,
	  digests TEXT,
	  at      TEXT NOT NULL,
	  note    TEXT
	);
	CREATE INDEX run_file_run ON run_file (run_id);`,
	// 4 → 5: the names of a Source, and the resources another Source's
	// copy kept out. The names a Source's Capability List was asked for by
	// before a redirect to it are found in the documents the history kept.
	`CREATE TABLE source_name (
	  url       TEXT PRIMARY KEY,
	  source_id INTEGER NOT NULL REFERENCES source(id) ON DELETE CASCADE
	) WITHOUT ROWID;
	CREATE INDEX source_name_source ON source_name (source_id);
	INSERT OR IGNORE INTO source_name (url, source_id)
	  SELECT DISTINCT d.url, s.id FROM run_document d JOIN run r ON r.id = d.run_id JOIN source s ON s.id = r.source_id
	  WHERE d.final_url = s.url AND d.url <> s.url AND d.url NOT IN (SELECT url FROM source);
	CREATE TABLE held (
	  source_id INTEGER NOT NULL REFERENCES source(id) ON DELETE CASCADE,
	  uri       TEXT NOT NULL,
	  owner_id  INTEGER NOT NULL REFERENCES source(id) ON DELETE CASCADE,
	  owner_key TEXT NOT NULL,
	  PRIMARY KEY (source_id, uri)
	) WITHOUT ROWID;
	CREATE INDEX held_owner ON held (owner_key);
	CREATE TRIGGER held_path_freed AFTER DELETE ON resource
	WHEN EXISTS (SELECT 1 FROM held WHERE owner_key = old.path_key AND owner_id = old.source_id)
	BEGIN
	  UPDATE source SET reconcile_due = coalesce(reconcile_due, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
	  WHERE id IN (SELECT source_id FROM held WHERE owner_key = old.path_key AND owner_id = old.source_id);
	END;
	CREATE TRIGGER held_path_moved AFTER UPDATE OF path_key ON resource
	WHEN old.path_key <> new.path_key AND EXISTS (SELECT 1 FROM held WHERE owner_key = old.path_key AND owner_id = old.source_id)
	BEGIN
	  UPDATE source SET reconcile_due = coalesce(reconcile_due, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
	  WHERE id IN (SELECT source_id FROM held WHERE owner_key = old.path_key AND owner_id = old.source_id);
	END;`,
	// 5 → 6: stray files, found by an audit and moved to the trash by a
	// sync with --delete.
	`ALTER TABLE source ADD COLUMN stray_due TEXT;
	ALTER TABLE run ADD COLUMN trashed INTEGER NOT NULL DEFAULT 0;`,
	// 6 → 7: what rsx serve --dest republishes: the media type the Source
	// declared and the provenance (via) of each copy and of each file a run
	// wrote.
	`ALTER TABLE resource ADD COLUMN type TEXT;
	ALTER TABLE resource ADD COLUMN via TEXT;
	ALTER TABLE run_file ADD COLUMN type TEXT;
	ALTER TABLE run_file ADD COLUMN via TEXT;`,
}

// Path is the database file.
func (db *DB) Path() string { return db.path }

// Close closes the database.
func (db *DB) Close() error {
	db.stmts.close()
	if err := db.sql.Close(); err != nil {
		return fmt.Errorf("close state database %s: %w", db.path, err)
	}
	return nil
}

// Snapshot calls fn with the path of a file that holds the whole committed
// state (a Store uploads it). Normally that is the database file itself, once
// every page of the write-ahead log has been copied into it (a checkpoint that
// waits for nobody); when a reader in another connection keeps part of the log
// from being copied, it is a copy made with VACUUM INTO, removed after fn
// returns. No Writer may commit during the call.
func (db *DB) Snapshot(ctx context.Context, fn func(path string) error) error {
	var busy, logFrames, checkpointed int
	if err := db.sql.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &logFrames, &checkpointed); err != nil {
		return fmt.Errorf("checkpoint state database %s: %w", db.path, err)
	}
	if busy == 0 && checkpointed == logFrames {
		return fn(db.path)
	}
	copyPath := db.path + ".snapshot"
	os.Remove(copyPath)
	if _, err := db.sql.ExecContext(ctx, `VACUUM INTO ?`, copyPath); err != nil {
		return fmt.Errorf("copy state database %s: %w", db.path, err)
	}
	defer os.Remove(copyPath)
	return fn(copyPath)
}

// Baseline is where a Source's copy was made from.
type Baseline struct {
	Kind string    // "list" or "dump"; "" before the first baseline
	URL  string    // the Resource List (Index) or Resource Dump (Index)
	At   time.Time // its at: incremental sync continues after this point
	Done time.Time // when the baseline was finished; zero while it is not
}

// Selection is the include, exclude and map options a Source is synced with.
type Selection struct {
	Include []string // RE2 regular expressions on the URI
	Exclude []string
	Map     []string // PREFIX=DIR
}

// Equal reports whether two selections are the same, option for option.
func (s Selection) Equal(o Selection) bool {
	return slices.Equal(s.Include, o.Include) && slices.Equal(s.Exclude, o.Exclude) && slices.Equal(s.Map, o.Map)
}

// Empty reports whether the selection has no option at all.
func (s Selection) Empty() bool { return len(s.Include)+len(s.Exclude)+len(s.Map) == 0 }

// Source is a Source's row, with its selection.
type Source struct {
	ID          int64
	URL         string
	Created     time.Time
	Baseline    Baseline
	SyncedUntil time.Time // every change up to here is applied; zero: none since the baseline
	LastRun     time.Time
	Selection   Selection
	// ReconcileDue is when an audit found the copy not in sync (zero: none
	// did since the last finished baseline): the next sync reconciles.
	ReconcileDue time.Time
	// StrayDue is when an audit found stray files in the Source's part of
	// DEST (zero: none since a sync with --delete looked for them): the
	// next sync with --delete looks for them, whatever its mode.
	StrayDue time.Time
}

// since is column when the file's schema has it (version v or later), else
// NULL: a file of an older rsx opened read-only is not upgraded, and reads
// as though the column were empty.
func (db *DB) since(v int, column string) string {
	if db.version < v {
		return "NULL"
	}
	return column
}

// Point is the datetime from which incremental sync continues: the later of
// the baseline's at and SyncedUntil.
func (s Source) Point() time.Time {
	if s.SyncedUntil.After(s.Baseline.At) {
		return s.SyncedUntil
	}
	return s.Baseline.At
}

// ErrNoSource is returned when a Source has no row.
var ErrNoSource = errors.New("no state for this Source")

// Source returns the row of the Source keyed by url, or an error wrapping
// ErrNoSource.
func (db *DB) Source(ctx context.Context, sourceURL string) (Source, error) {
	row := db.sql.QueryRowContext(ctx, `SELECT id, url, created, baseline_kind, baseline_url, baseline_at, baseline_done, synced_until, last_run, reconcile_due, `+db.since(versionStray, "stray_due")+` FROM source WHERE url = ?`, sourceURL)
	src, err := scanSource(row)
	if errors.Is(err, sql.ErrNoRows) {
		return Source{}, fmt.Errorf("read state of %s: %w", sourceURL, ErrNoSource)
	}
	if err != nil {
		return Source{}, fmt.Errorf("read state of %s: %w", sourceURL, err)
	}
	if src.Selection, err = db.selection(ctx, src.ID); err != nil {
		return Source{}, err
	}
	return src, nil
}

// Sources returns every Source, in the order they were first synced.
func (db *DB) Sources(ctx context.Context) ([]Source, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT id, url, created, baseline_kind, baseline_url, baseline_at, baseline_done, synced_until, last_run, reconcile_due, `+db.since(versionStray, "stray_due")+` FROM source ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("list Sources in %s: %w", db.path, err)
	}
	var out []Source
	for rows.Next() {
		src, err := scanSource(rows)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("list Sources in %s: %w", db.path, err)
		}
		out = append(out, src)
	}
	if err := closeRows(rows); err != nil {
		return nil, fmt.Errorf("list Sources in %s: %w", db.path, err)
	}
	for i := range out {
		if out[i].Selection, err = db.selection(ctx, out[i].ID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// EnsureSource returns the Source keyed by url, creating its row (committed at
// once) when it has none.
func (db *DB) EnsureSource(ctx context.Context, sourceURL string) (Source, error) {
	if sourceURL == "" {
		return Source{}, errors.New("record a Source: empty URL")
	}
	if _, err := db.sql.ExecContext(ctx, `INSERT INTO source (url, created) VALUES (?, ?) ON CONFLICT (url) DO NOTHING`, sourceURL, clock(time.Now())); err != nil {
		return Source{}, fmt.Errorf("record Source %s: %w", sourceURL, err)
	}
	return db.Source(ctx, sourceURL)
}

type scanner interface{ Scan(dest ...any) error }

func scanSource(r scanner) (Source, error) {
	var s Source
	var created, kind, burl, at, done, until, last, due, stray sql.NullString
	if err := r.Scan(&s.ID, &s.URL, &created, &kind, &burl, &at, &done, &until, &last, &due, &stray); err != nil {
		return s, err
	}
	s.ReconcileDue, s.StrayDue = parseTime(due), parseTime(stray)
	s.Created = parseTime(created)
	s.Baseline = Baseline{Kind: kind.String, URL: burl.String, At: parseTime(at), Done: parseTime(done)}
	s.SyncedUntil = parseTime(until)
	s.LastRun = parseTime(last)
	return s, nil
}

func (db *DB) selection(ctx context.Context, sourceID int64) (Selection, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT kind, value FROM selection WHERE source_id = ? ORDER BY position`, sourceID)
	if err != nil {
		return Selection{}, fmt.Errorf("read selection of Source %d: %w", sourceID, err)
	}
	var sel Selection
	for rows.Next() {
		var kind, value string
		if err := rows.Scan(&kind, &value); err != nil {
			rows.Close()
			return Selection{}, fmt.Errorf("read selection of Source %d: %w", sourceID, err)
		}
		switch kind {
		case "include":
			sel.Include = append(sel.Include, value)
		case "exclude":
			sel.Exclude = append(sel.Exclude, value)
		case "map":
			sel.Map = append(sel.Map, value)
		}
	}
	if err := closeRows(rows); err != nil {
		return Selection{}, fmt.Errorf("read selection of Source %d: %w", sourceID, err)
	}
	return sel, nil
}

// Cursor is the last change processed in a Change List.
type Cursor struct {
	Position int       // 0-based position in the list; -1 when none was processed
	Datetime time.Time // its datetime, zero when it had none
	URI      string
}

// ChangeList is a Change List or Change Dump processed for a Source.
type ChangeList struct {
	URL          string
	Kind         string // "changelist" or "changedump"
	From, Until  time.Time
	Complete     bool // every change in it was processed
	ETag         string
	LastModified string
	Last         Cursor
	ProcessedAt  time.Time
}

// Closed reports whether the list has an until (it will not change any more).
func (c ChangeList) Closed() bool { return !c.Until.IsZero() }

// ChangeLists returns the Change Lists processed for a Source, by from.
func (db *DB) ChangeLists(ctx context.Context, sourceID int64) ([]ChangeList, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT url, kind, from_at, until_at, complete, etag, last_modified, last_position, last_datetime, last_uri, processed_at
		FROM changelist WHERE source_id = ? ORDER BY from_at, url`, sourceID)
	if err != nil {
		return nil, fmt.Errorf("read Change Lists of Source %d: %w", sourceID, err)
	}
	var out []ChangeList
	for rows.Next() {
		c, err := scanChangeList(rows)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("read Change Lists of Source %d: %w", sourceID, err)
		}
		out = append(out, c)
	}
	if err := closeRows(rows); err != nil {
		return nil, fmt.Errorf("read Change Lists of Source %d: %w", sourceID, err)
	}
	return out, nil
}

// ChangeList returns the record of the Change List at url processed for a
// Source; false when there is none.
func (db *DB) ChangeList(ctx context.Context, sourceID int64, url string) (ChangeList, bool, error) {
	c, err := scanChangeList(db.queryRow(ctx, `SELECT url, kind, from_at, until_at, complete, etag, last_modified, last_position, last_datetime, last_uri, processed_at
		FROM changelist WHERE source_id = ? AND url = ?`, sourceID, url))
	if errors.Is(err, sql.ErrNoRows) {
		return ChangeList{}, false, nil
	}
	if err != nil {
		return ChangeList{}, false, fmt.Errorf("read Change List %s of Source %d: %w", url, sourceID, err)
	}
	return c, true, nil
}

// ChangeListCount is how many Change Lists are recorded for a Source.
func (db *DB) ChangeListCount(ctx context.Context, sourceID int64) (int, error) {
	var n int
	if err := db.sql.QueryRowContext(ctx, `SELECT count(*) FROM changelist WHERE source_id = ?`, sourceID).Scan(&n); err != nil {
		return 0, fmt.Errorf("count the Change Lists of Source %d: %w", sourceID, err)
	}
	return n, nil
}

func scanChangeList(row interface{ Scan(...any) error }) (ChangeList, error) {
	var c ChangeList
	var from, until, etag, lm, ldt, luri, pat sql.NullString
	var lpos sql.NullInt64
	if err := row.Scan(&c.URL, &c.Kind, &from, &until, &c.Complete, &etag, &lm, &lpos, &ldt, &luri, &pat); err != nil {
		return c, err
	}
	c.From, c.Until = parseTime(from), parseTime(until)
	c.ETag, c.LastModified = etag.String, lm.String
	c.Last = Cursor{Position: -1, Datetime: parseTime(ldt), URI: luri.String}
	if lpos.Valid {
		c.Last.Position = int(lpos.Int64)
	}
	c.ProcessedAt = parseTime(pat)
	return c, nil
}

func closeRows(rows *sql.Rows) error {
	err := rows.Err()
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	return err
}

// clock formats a time of rsx's own clock: UTC, to the second, so that these
// values sort as text.
func clock(t time.Time) string {
	return model.FormatDatetime(t.UTC().Truncate(time.Second))
}

// datetime formats a datetime from a document (kept to the nanosecond); zero
// gives NULL.
func datetime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return model.FormatDatetime(t)
}

// clockOrNull is clock, with NULL for the zero time.
func clockOrNull(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return clock(t)
}

func parseTime(s sql.NullString) time.Time {
	if !s.Valid || s.String == "" {
		return time.Time{}
	}
	d, err := model.ParseDatetime(s.String)
	if err != nil {
		return time.Time{}
	}
	return d.Time
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }
