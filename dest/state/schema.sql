-- The state of an rsx destination, schema version 7.
--
-- One SQLite database per destination: DEST/.rsx/state.db for a folder; for a
-- bucket, a local cache copy replicated by its changes to PREFIX/.rsx/state/.
-- It is in WAL mode: copy it with `sqlite3 state.db ".backup copy.db"`, not cp,
-- while a run may be going on. Read it with any SQLite 3 client:
--
--   sqlite3 DEST/.rsx/state.db "SELECT uri, path, length FROM resource LIMIT 10"
--
-- Datetimes are text in UTC, as W3C Datetimes / RFC 3339: 2013-01-03T09:00:00Z.
-- Those that come from a Source's documents (at, from, until, lastmod, datetime)
-- keep a fraction of a second when they have one; those of rsx's own clock
-- (created, fetched_at, verified_at, ...) are to the second, so that they sort
-- as text.

-- meta: facts about the database itself.
--   schema_version  the version of this schema (an rsx that knows an older one refuses the file)
--   created         when the database was made
--   path_rule/ID    2 when every path of Source ID is written by the rule under which a name holds
--                   no control, bidirectional or invisible character but as %XX (an older rsx wrote
--                   them raw: a sync renames such files until none is left, then records it)
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;

-- source: one row per Source this destination copies, keyed by the URL of its
-- Capability List (or of the document synced when it was not reached through one).
CREATE TABLE source (
  id            INTEGER PRIMARY KEY,
  url           TEXT NOT NULL UNIQUE,
  created       TEXT NOT NULL,  -- first run for this Source
  baseline_kind TEXT,           -- 'list' or 'dump': what the baseline was made from
  baseline_url  TEXT,           -- the Resource List (Index) or Resource Dump (Index)
  baseline_at   TEXT,           -- its `at`: incremental sync continues after this point
  baseline_done TEXT,           -- when the baseline was finished; NULL while it is not
  synced_until  TEXT,           -- every change up to this datetime is applied (NULL: none since the baseline)
  last_run      TEXT,           -- when the last run for this Source ended
  reconcile_due TEXT,           -- an audit found the copy not in sync then: the next sync (mode auto)
                                -- reconciles it with the Source; cleared when a baseline is finished
  stray_due     TEXT            -- an audit found stray files (files no resource owns) in the Source's part
                                -- of DEST then: the next sync with --delete looks for them and moves them to
                                -- the trash (DEST/.rsx/trash/); cleared when one has
);

-- selection: the --include, --exclude and --map options of the last run, in the
-- order given; a later run without such options applies the same ones.
CREATE TABLE selection (
  source_id INTEGER NOT NULL REFERENCES source(id) ON DELETE CASCADE,
  position  INTEGER NOT NULL,
  kind      TEXT NOT NULL CHECK (kind IN ('include', 'exclude', 'map')),
  value     TEXT NOT NULL,       -- an RE2 regular expression on the URI, or PREFIX=DIR
  PRIMARY KEY (source_id, position)
) WITHOUT ROWID;

-- changelist: every Change List (or Change Dump) processed for a Source. One
-- complete (its until well before it was read) is not fetched again while it is
-- described with the same from, until and etag; any other is fetched again
-- (conditionally, etag and last_modified, when it is open) and continued after
-- the last change processed (last_position, with last_uri and last_datetime to
-- check that the list still starts as it did).
CREATE TABLE changelist (
  source_id     INTEGER NOT NULL REFERENCES source(id) ON DELETE CASCADE,
  url           TEXT NOT NULL,
  kind          TEXT NOT NULL CHECK (kind IN ('changelist', 'changedump')),
  from_at       TEXT,             -- its `from`
  until_at      TEXT,             -- its `until`; NULL while the list is open
  complete      INTEGER NOT NULL DEFAULT 0 CHECK (complete IN (0, 1)), -- every change in it was processed
  etag          TEXT,             -- HTTP ETag of the copy processed
  last_modified TEXT,             -- HTTP Last-Modified of the copy processed, as received
  last_position INTEGER,          -- 0-based position of the last change processed
  last_datetime TEXT,             -- that change's datetime, when it had one
  last_uri      TEXT,             -- that change's URI
  processed_at  TEXT,             -- when it was last processed
  PRIMARY KEY (source_id, url)
) WITHOUT ROWID;

-- resource: every resource copied (or being deleted), one row per Source and URI.
CREATE TABLE resource (
  id              INTEGER PRIMARY KEY,
  source_id       INTEGER NOT NULL REFERENCES source(id) ON DELETE CASCADE,
  uri             TEXT NOT NULL,
  path            TEXT NOT NULL,    -- where the copy is, relative to DEST, '/'-separated
  path_key        TEXT NOT NULL,    -- path folded to lower case: finds paths that collide
  length          INTEGER,          -- bytes of the copy
  digests         TEXT,             -- every digest the Source declared, as 'md5:HEX sha-256:HEX' (algorithms sorted), all verified where rsx can compute them
  lastmod         TEXT,             -- the resource's lastmod as the Source declared it
  etag            TEXT,             -- HTTP ETag when it was fetched (for conditional requests)
  last_modified   TEXT,             -- HTTP Last-Modified when it was fetched, as received
  change_datetime TEXT,             -- datetime of the last change applied to it (NULL: from the baseline)
  fetched_at      TEXT,             -- when the copy was written
  verified_at     TEXT,             -- when the copy was last checked against its digests and length (written, or audited)
  deleted_at      TEXT,             -- the Source deleted it then (the change's datetime, or when rsx learned it):
                                    -- the copy is kept until a run with --delete removes it and this row
  damaged_at      TEXT,             -- an audit found the copy damaged or gone then: the next sync fetches it
                                    -- again (NULL once a verified copy is written)
  file_mtime      INTEGER,          -- the copy's modification time when it was written or verified, in Unix
                                    -- nanoseconds (NULL for a bucket): a reconcile hashes a file whose time differs
  type            TEXT,             -- the media type the Source declared (its rs:md type; NULL: none)
  via             TEXT,             -- provenance (ResourceSync §12.7): the original resource and what its Source
                                    -- declared, as the rs:ln rel="via" that rsx serve --dest gives the copy, in
                                    -- JSON: {"href", "modified", "hash", "length", "type"}; a key not given is the
                                    -- row's own uri, lastmod, digests, length or type, a key null was not declared;
                                    -- the via link of a Source that republished it, kept as it was (a copy of a
                                    -- copy names the original). NULL: written by an rsx before schema version 7
  UNIQUE (source_id, uri)
);
CREATE INDEX resource_path_key ON resource (path_key);
CREATE INDEX resource_deleted ON resource (source_id) WHERE deleted_at IS NOT NULL;
CREATE INDEX resource_damaged ON resource (source_id) WHERE damaged_at IS NOT NULL;

-- run: every run of rsx sync on this destination (the explorer's syncs too),
-- one row per Source and run, written when it starts, its counts kept
-- current with each batch the run commits, and completed when it ends. A row
-- whose ended is NULL is a run still going on, or one killed before it could
-- record its end (its counts are those of its last batch): the next run on
-- the destination marks it stopped 'interrupted (no end recorded)'. The last
-- 10,000 runs of each Source are kept.
CREATE TABLE run (
  id           INTEGER PRIMARY KEY,
  source_id    INTEGER NOT NULL REFERENCES source(id) ON DELETE CASCADE,
  started      TEXT NOT NULL,
  ended        TEXT,             -- NULL: going on, or killed
  mode         TEXT NOT NULL,    -- 'baseline', 'reconcile', 'incremental', or 'plan': it could not plan (stopped says why)
  why          TEXT,             -- why the run chose its mode: a baseline 'resumed: …', why a run of mode auto reconciled, …
  planned      INTEGER NOT NULL DEFAULT 0, -- resources the plan had to fetch or delete
  created      INTEGER NOT NULL DEFAULT 0,
  updated      INTEGER NOT NULL DEFAULT 0,
  deleted      INTEGER NOT NULL DEFAULT 0,
  failed       INTEGER NOT NULL DEFAULT 0,
  bytes        INTEGER NOT NULL DEFAULT 0, -- bytes written
  finished     INTEGER NOT NULL DEFAULT 0 CHECK (finished IN (0, 1)), -- the baseline was done, or the copy's point moved
  synced_until TEXT,             -- the copy's point after the run
  stopped      TEXT,             -- why the run ended before its plan did: 'interrupted' (ctrl+c, SIGTERM), 'interrupted (no end recorded)' (killed), …
  exit_status  INTEGER,          -- as rsx sync exits: 0 done, 1 something failed, 2 stopped; NULL while going on
  rsx_version  TEXT NOT NULL,    -- the rsx that ran it
  trashed      INTEGER NOT NULL DEFAULT 0, -- stray files moved to the trash (DEST/.rsx/trash/RUN-FOLDER/, which lists them)
  host         TEXT              -- the process that ran it: its host id (--host-id, RSX_HOST_ID; else HOSTNAME:PID); NULL when an older rsx ran it (added when missing, without a new schema version)
);
CREATE INDEX run_source ON run (source_id, id);

-- run_file: the files each run created, updated, deleted and moved to the
-- trash, and the resources it refused or failed, one row each, in the order
-- the run recorded them, written in the run's own batches (a killed run keeps
-- those of the batches it committed). Removed with their run.
CREATE TABLE run_file (
  id      INTEGER PRIMARY KEY,
  run_id  INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
  kind    TEXT NOT NULL CHECK (kind IN ('created', 'updated', 'deleted', 'refused', 'trashed', 'failed')),
  uri     TEXT,                   -- the resource; NULL for a file no resource owns (trashed)
  path    TEXT,                   -- the file, relative to DEST, '/'-separated; NULL when it has none (refused)
  length  INTEGER,                -- bytes of the file written or removed, when known
  digests TEXT,                   -- the digests the file written was verified with, as resource.digests
  at      TEXT NOT NULL,          -- when the file changed (or the resource failed)
  note    TEXT,                   -- refused, failed: why; trashed: where in the trash; created: 'adopted' (already there, verified)
  type    TEXT,                   -- created, updated: the media type the Source declared, as resource.type
  via     TEXT                    -- created, updated, deleted: provenance, as resource.via (its modified given
                                  -- in full: the row has no lastmod); NULL before schema version 7
);
CREATE INDEX run_file_run ON run_file (run_id);

-- run_document: the Source's documents a run read (Source Description,
-- Capability List, lists, indexes, robots.txt), as received, so that what the
-- Source claimed when a file was copied can be read again; their bytes are in
-- document_blob, once however many runs read them. Kept: the documents of
-- each Source's last 10 runs and of its last 1,000 runs that changed the copy,
-- within 256 MiB of compressed bytes per Source (its oldest runs' go first;
-- one Source's documents never push out another's).
CREATE TABLE run_document (
  run_id        INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
  url           TEXT NOT NULL,    -- as asked for
  final_url     TEXT,             -- after redirects
  fetched_at    TEXT NOT NULL,
  status        INTEGER,
  etag          TEXT,
  last_modified TEXT,
  sha256        TEXT NOT NULL,    -- of the bytes received (decompressed): the document_blob
  PRIMARY KEY (run_id, url)
) WITHOUT ROWID;
CREATE INDEX run_document_sha256 ON run_document (sha256);

-- document_blob: a document's bytes, gzip-compressed (sqlite3's writefile()
-- saves them: see the example queries).
CREATE TABLE document_blob (
  id     INTEGER PRIMARY KEY,
  sha256 TEXT NOT NULL UNIQUE,
  length INTEGER NOT NULL,        -- bytes, uncompressed
  gz     BLOB NOT NULL
);

-- source_name: the other URLs a Source is named by, as given to rsx sync (or a
-- fleet) and as asked for before a redirect to its Capability List: a run whose
-- URL leads, by a redirect, to the Capability List of a Source held under
-- another name is refused (a Source's settings apply to the Source its URL
-- names), and a Capability List that moves keeps its row.
CREATE TABLE source_name (
  url       TEXT PRIMARY KEY,
  source_id INTEGER NOT NULL REFERENCES source(id) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX source_name_source ON source_name (source_id);

-- held: resources of a Source that a sync did not copy because their path is
-- (or is inside) the path of another Source's resource: a path of DEST belongs
-- to one Source. When that resource leaves the path (deleted, or moved), the
-- Source kept out is reconciled by its next sync (source.reconcile_due), which
-- copies them; a Source's rows go when it copies the resource, or when a
-- finished baseline records its refusals again.
CREATE TABLE held (
  source_id INTEGER NOT NULL REFERENCES source(id) ON DELETE CASCADE,
  uri       TEXT NOT NULL,
  owner_id  INTEGER NOT NULL REFERENCES source(id) ON DELETE CASCADE, -- the Source whose resource holds the path
  owner_key TEXT NOT NULL,       -- the path_key of that resource's path
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
END;

-- Example queries:
--   -- how many resources each Source has, and their bytes
--   SELECT s.url, count(*), sum(r.length) FROM resource r JOIN source s ON s.id = r.source_id GROUP BY s.id;
--   -- the copy of a resource
--   SELECT path, length, digests, fetched_at FROM resource WHERE uri = 'http://example.org/a.pdf';
--   -- deletions waiting for a run with --delete
--   SELECT uri, path, deleted_at FROM resource WHERE deleted_at IS NOT NULL;
--   -- copies an audit found damaged or gone, to be fetched again by the next sync
--   SELECT uri, path, damaged_at FROM resource WHERE damaged_at IS NOT NULL;
--   -- the last ten runs, newest first
--   SELECT id, started, ended, mode, created, updated, deleted, failed, exit_status FROM run ORDER BY id DESC LIMIT 10;
--   -- what run 12 created, updated and deleted
--   SELECT kind, uri, path, length, at FROM run_file WHERE run_id = 12 ORDER BY id;
--   -- the documents the last run read, and one of them saved to a file (then: gunzip capabilitylist.xml.gz)
--   SELECT url, fetched_at, sha256 FROM run_document WHERE run_id = (SELECT max(id) FROM run);
--   SELECT writefile('capabilitylist.xml.gz', b.gz) FROM run_document d JOIN document_blob b ON b.sha256 = d.sha256
--     WHERE d.run_id = 12 AND d.url LIKE '%capabilitylist.xml';
--   -- where each copy came from: the original resource (the copy's own uri when via names none)
--   SELECT uri, coalesce(json_extract(via, '$.href'), uri) AS original, type FROM resource LIMIT 10;
--   -- copies not verified in the last 30 days
--   SELECT uri FROM resource WHERE verified_at < strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '-30 days');
