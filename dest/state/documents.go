package state

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"rsx/display"
)

// RunDocument is a Source document a run read: what it was asked as, what
// answered, and the digest of the bytes received (decompressed).
type RunDocument struct {
	URL, FinalURL      string
	Status             int
	ETag, LastModified string
	FetchedAt          time.Time
	SHA256             string // hex, of the bytes
	Length             int64  // bytes
	Stored             int64  // bytes of the gzip kept (read back by RunDocuments)
}

// The documents a run read are kept by this rule (PruneDocuments):
//   - those of each Source's last KeepDocumentRuns runs, and of its last
//     KeepChangedRuns runs that changed the copy (created, updated or
//     deleted something); the others are dropped;
//   - one copy of equal bytes, however many runs read them (by SHA-256);
//   - at most DefaultDocumentBytes of compressed bytes for each Source of a
//     DEST (bytes two Sources read count for both): beyond, the documents of
//     the Source's oldest runs go first. A Source's documents never push out
//     another's: with one bound for the whole DEST, the oldest runs' went
//     first, so one Source's huge Resource Lists emptied the history of
//     every other Source that shares the DEST.
const (
	KeepDocumentRuns     = 10
	KeepChangedRuns      = 1000
	DefaultDocumentBytes = 256 << 20
)

// HaveDocumentBlob reports whether the state keeps the bytes whose SHA-256
// is sha (hex): PutRunDocuments will not ask for them.
func (db *DB) HaveDocumentBlob(ctx context.Context, sha string) (bool, error) {
	var have int
	if err := db.sql.QueryRowContext(ctx, `SELECT count(*) FROM document_blob WHERE sha256 = ?`, sha).Scan(&have); err != nil {
		return false, fmt.Errorf("read the run's documents: %w", err)
	}
	return have > 0, nil
}

// PutRunDocuments records the documents of a run; gz(i) gives docs[i]'s
// bytes, gzip-compressed (read only when those bytes are not kept already).
func (db *DB) PutRunDocuments(ctx context.Context, runID int64, docs []RunDocument, gz func(i int) ([]byte, error)) error {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("record the run's documents: %w", err)
	}
	defer tx.Rollback()
	for i, d := range docs {
		// The history keeps no password of a URL's userinfo.
		d.URL, d.FinalURL = display.RedactURL(d.URL), display.RedactURL(d.FinalURL)
		var have int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM document_blob WHERE sha256 = ?`, d.SHA256).Scan(&have); err != nil {
			return fmt.Errorf("record the run's documents: %w", err)
		}
		if have == 0 {
			b, err := gz(i)
			if err != nil {
				return fmt.Errorf("record the run's document %s: %w", d.URL, err)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO document_blob (sha256, length, gz) VALUES (?, ?, ?)`, d.SHA256, d.Length, b); err != nil {
				return fmt.Errorf("record the run's document %s: %w", d.URL, err)
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO run_document (run_id, url, final_url, fetched_at, status, etag, last_modified, sha256)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, runID, d.URL, nullString(d.FinalURL), clock(d.FetchedAt), d.Status, nullString(d.ETag),
			nullString(d.LastModified), d.SHA256); err != nil {
			return fmt.Errorf("record the run's document %s: %w", d.URL, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("record the run's documents: %w", err)
	}
	return nil
}

// PruneDocuments applies the rule above to the Source sourceID: its runs'
// documents are kept by their count, then within maxBytes of compressed
// documents (0: DefaultDocumentBytes), its oldest runs' going first. Other
// Sources' documents are not touched.
func (db *DB) PruneDocuments(ctx context.Context, sourceID int64, maxBytes int64) error {
	if maxBytes <= 0 {
		maxBytes = DefaultDocumentBytes
	}
	_, err := db.sql.ExecContext(ctx, `DELETE FROM run_document WHERE run_id IN (
		SELECT id FROM run WHERE source_id = ?1
		AND id NOT IN (SELECT id FROM run WHERE source_id = ?1 ORDER BY id DESC LIMIT ?2)
		AND id NOT IN (SELECT id FROM run WHERE source_id = ?1 AND created + updated + deleted > 0 ORDER BY id DESC LIMIT ?3))`,
		sourceID, KeepDocumentRuns, KeepChangedRuns)
	if err != nil {
		return fmt.Errorf("prune the run's documents: %w", err)
	}
	if err := db.dropOrphanBlobs(ctx); err != nil {
		return err
	}
	for range 1000 {
		var total int64
		if err := db.sql.QueryRowContext(ctx, `SELECT coalesce(sum(length(gz)), 0) FROM document_blob WHERE sha256 IN (
			SELECT d.sha256 FROM run_document d JOIN run r ON r.id = d.run_id WHERE r.source_id = ?)`, sourceID).Scan(&total); err != nil {
			return fmt.Errorf("prune the run's documents: %w", err)
		}
		if total <= maxBytes {
			return nil
		}
		var oldest sql.NullInt64
		if err := db.sql.QueryRowContext(ctx, `SELECT min(d.run_id) FROM run_document d JOIN run r ON r.id = d.run_id WHERE r.source_id = ?`,
			sourceID).Scan(&oldest); err != nil {
			return fmt.Errorf("prune the run's documents: %w", err)
		}
		if !oldest.Valid {
			return nil
		}
		if _, err := db.sql.ExecContext(ctx, `DELETE FROM run_document WHERE run_id = ?`, oldest.Int64); err != nil {
			return fmt.Errorf("prune the run's documents: %w", err)
		}
		if err := db.dropOrphanBlobs(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (db *DB) dropOrphanBlobs(ctx context.Context) error {
	if _, err := db.sql.ExecContext(ctx, `DELETE FROM document_blob WHERE sha256 NOT IN (SELECT sha256 FROM run_document)`); err != nil {
		return fmt.Errorf("prune the run's documents: %w", err)
	}
	return nil
}

// RunDocuments lists the documents kept of a run, in URL order.
func (db *DB) RunDocuments(ctx context.Context, runID int64) ([]RunDocument, error) {
	if db.version < 3 {
		return nil, nil
	}
	rows, err := db.sql.QueryContext(ctx, `SELECT d.url, d.final_url, d.fetched_at, d.status, d.etag, d.last_modified, d.sha256, b.length, length(b.gz)
		FROM run_document d JOIN document_blob b ON b.sha256 = d.sha256 WHERE d.run_id = ? ORDER BY d.url`, runID)
	if err != nil {
		return nil, fmt.Errorf("read the run's documents: %w", err)
	}
	defer rows.Close()
	var out []RunDocument
	for rows.Next() {
		var d RunDocument
		var final, fetched, etag, lm sql.NullString
		if err := rows.Scan(&d.URL, &final, &fetched, &d.Status, &etag, &lm, &d.SHA256, &d.Length, &d.Stored); err != nil {
			return nil, fmt.Errorf("read the run's documents: %w", err)
		}
		d.FinalURL, d.FetchedAt, d.ETag, d.LastModified = final.String, parseTime(fetched), etag.String, lm.String
		out = append(out, d)
	}
	return out, closeRows(rows)
}

// DocumentGzip returns the kept bytes of a run's document, gzip-compressed.
func (db *DB) DocumentGzip(ctx context.Context, runID int64, url string) ([]byte, error) {
	var b []byte
	err := db.sql.QueryRowContext(ctx, `SELECT b.gz FROM run_document d JOIN document_blob b ON b.sha256 = d.sha256 WHERE d.run_id = ? AND d.url = ?`,
		runID, display.RedactURL(url)).Scan(&b)
	if isNoRows(err) {
		return nil, fmt.Errorf("run %d kept no document %s", runID, url)
	}
	if err != nil {
		return nil, fmt.Errorf("read the document: %w", err)
	}
	return b, nil
}
