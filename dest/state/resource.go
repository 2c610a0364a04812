package state

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"rsx/model"
)

// Digests are the digests of a resource's bytes in the form of a hash attribute:
// "md5:HEX sha-256:HEX", algorithm names normalised (model.NormalizeHashAlg) and
// sorted, digests in lower-case hex, each algorithm once. "" is no digest.
type Digests string

// DigestsOf returns the digests of a hash attribute that could be decoded, of
// any algorithm (those rsx cannot compute are kept too). When an algorithm is
// given twice, the first digest is kept.
func DigestsOf(h model.HashList) Digests {
	if len(h) == 0 {
		return ""
	}
	// Every entry of a list has its digests made into this form: the
	// common few are kept on the stack and written at once.
	type pair struct {
		alg    string
		digest []byte
	}
	var small [4]pair
	pairs := small[:0]
	size := 0
	for _, x := range h {
		if x.Digest == nil {
			continue
		}
		alg := x.Alg
		if alg == "" {
			alg = model.NormalizeHashAlg(x.AlgRaw)
		}
		if alg == "" || strings.ContainsAny(alg, ": \t\n") {
			continue
		}
		dup := false
		for _, p := range pairs {
			if p.alg == alg {
				dup = true
				break
			}
		}
		if !dup {
			pairs = append(pairs, pair{alg, x.Digest})
			size += len(alg) + 2 + 2*len(x.Digest)
		}
	}
	// By algorithm (each is there once): an insertion sort of a few.
	for i := 1; i < len(pairs); i++ {
		for j := i; j > 0 && pairs[j].alg < pairs[j-1].alg; j-- {
			pairs[j], pairs[j-1] = pairs[j-1], pairs[j]
		}
	}
	var b strings.Builder
	b.Grow(size)
	var buf [128]byte
	for i, p := range pairs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p.alg)
		b.WriteByte(':')
		b.Write(hex.AppendEncode(buf[:0], p.digest))
	}
	return Digests(b.String())
}

// Each calls fn for every algorithm and its hex digest, in order.
func (d Digests) Each(fn func(alg, hex string)) {
	s := string(d)
	for s != "" {
		tok, rest, _ := strings.Cut(s, " ")
		s = rest
		if alg, hex, ok := strings.Cut(tok, ":"); ok {
			fn(alg, hex)
		}
	}
}

// Get returns the hex digest of one algorithm (normalised name).
func (d Digests) Get(alg string) (string, bool) {
	s := string(d)
	for s != "" {
		tok, rest, _ := strings.Cut(s, " ")
		s = rest
		if a, hex, ok := strings.Cut(tok, ":"); ok && a == alg {
			return hex, true
		}
	}
	return "", false
}

// Compare compares the algorithms both have: shared is how many, and differ
// names those whose digests differ.
func (d Digests) Compare(o Digests) (shared int, differ []string) {
	if d == o {
		n := 0
		d.Each(func(string, string) { n++ })
		return n, nil
	}
	d.Each(func(alg, hex string) {
		if other, ok := o.Get(alg); ok {
			shared++
			if other != hex {
				differ = append(differ, alg)
			}
		}
	})
	return shared, differ
}

// HashList returns the digests as a model.HashList (for a model.Verifier).
func (d Digests) HashList() model.HashList {
	if d == "" {
		return nil
	}
	h, _ := model.ParseHashList(string(d))
	return h
}

// Resource is a resource's row: what rsx knows of its copy.
type Resource struct {
	ID       int64
	SourceID int64
	URI      string
	Path     string // relative to the destination, "/"-separated
	Length   int64  // bytes of the copy; -1 when unknown
	Digests  Digests
	Lastmod  time.Time // as the Source declared it; zero when it did not
	// ETag and LastModified are the HTTP validators received with the bytes.
	ETag, LastModified string
	ChangeDatetime     time.Time // datetime of the last change applied; zero after a baseline
	FetchedAt          time.Time // when the bytes were written
	VerifiedAt         time.Time // when the bytes were last checked against length and digests
	// DeletedAt is set when the Source deleted the resource (the change's
	// datetime, or when rsx learned of it): the copy stays until a run with
	// --delete removes it and the row.
	DeletedAt time.Time
	// DamagedAt is when an audit found the copy damaged or gone (zero: none
	// did since it was written): the next sync fetches it again.
	DamagedAt time.Time
	// FileMTime is the copy's modification time when it was written or
	// verified (zero when unknown, and for a bucket): a reconcile reads a
	// file whose time differs, as rsync's quick check does.
	FileMTime time.Time
	// Type is the media type the Source declared; Via is the copy's
	// provenance in the column's form (EncodeVia beside the row). They are
	// written with a copy (PutResource) and read by the republishing of a
	// copy (rsx serve --dest), not by the other reads of a row, which
	// leave them empty: a row written back without Via keeps its own.
	Type, Via string
}

// Pending reports whether the resource waits for its deletion.
func (r *Resource) Pending() bool { return !r.DeletedAt.IsZero() }

const resourceColumns = `id, source_id, uri, path, length, digests, lastmod, etag, last_modified, change_datetime, fetched_at, verified_at, deleted_at, damaged_at, file_mtime`

func scanResource(s scanner, r *Resource) error {
	var length sql.NullInt64
	var digests, lastmod, etag, lm, cdt, fat, vat, dat, dmg sql.NullString
	var mtime sql.NullInt64
	if err := s.Scan(&r.ID, &r.SourceID, &r.URI, &r.Path, &length, &digests, &lastmod, &etag, &lm, &cdt, &fat, &vat, &dat, &dmg, &mtime); err != nil {
		return err
	}
	r.DamagedAt = parseTime(dmg)
	r.FileMTime = time.Time{}
	if mtime.Valid {
		r.FileMTime = time.Unix(0, mtime.Int64).UTC()
	}
	r.Length = -1
	if length.Valid {
		r.Length = length.Int64
	}
	r.Digests = Digests(digests.String)
	r.Lastmod = parseTime(lastmod)
	r.ETag, r.LastModified = etag.String, lm.String
	r.ChangeDatetime = parseTime(cdt)
	r.FetchedAt, r.VerifiedAt, r.DeletedAt = parseTime(fat), parseTime(vat), parseTime(dat)
	return nil
}

// ErrNoResource is returned when a resource has no row.
var ErrNoResource = errors.New("no such resource in the state")

// Resource returns the row of one resource of a Source, or an error wrapping
// ErrNoResource.
func (db *DB) Resource(ctx context.Context, sourceID int64, uri string) (Resource, error) {
	var r Resource
	err := scanResource(db.sql.QueryRowContext(ctx, `SELECT `+resourceColumns+` FROM resource WHERE source_id = ? AND uri = ?`, sourceID, uri), &r)
	if errors.Is(err, sql.ErrNoRows) {
		return r, fmt.Errorf("read state of %s: %w", uri, ErrNoResource)
	}
	if err != nil {
		return r, fmt.Errorf("read state of %s: %w", uri, err)
	}
	return r, nil
}

// ResourceByID returns a resource's row by its id.
func (db *DB) ResourceByID(ctx context.Context, id int64) (Resource, error) {
	var r Resource
	err := scanResource(db.queryRow(ctx, `SELECT `+resourceColumns+` FROM resource WHERE id = ?`, id), &r)
	if errors.Is(err, sql.ErrNoRows) {
		return r, fmt.Errorf("read state of resource %d: %w", id, ErrNoResource)
	}
	if err != nil {
		return r, fmt.Errorf("read state of resource %d: %w", id, err)
	}
	return r, nil
}

// ResourcesByID calls found with the row of each of ids that has one, in no
// particular order, asking LookupBatch ids at a time (an id given twice is
// reported once): ResourceByID for many rows, as a reconcile reads the rows
// of the resources it checks. The Resource is reused between calls.
func (db *DB) ResourcesByID(ctx context.Context, ids []int64, found func(r *Resource) error) error {
	var (
		r    Resource
		q    strings.Builder
		args = make([]any, 0, min(len(ids), LookupBatch))
	)
	for start := 0; start < len(ids); start += LookupBatch {
		chunk := ids[start:min(start+LookupBatch, len(ids))]
		args = args[:0]
		q.Reset()
		q.WriteString(`SELECT ` + resourceColumns + ` FROM resource WHERE id IN (`)
		for i, id := range chunk {
			if i > 0 {
				q.WriteByte(',')
			}
			q.WriteByte('?')
			args = append(args, id)
		}
		q.WriteByte(')')
		rows, err := db.sql.QueryContext(ctx, q.String(), args...)
		if err != nil {
			return fmt.Errorf("read the state of %d resources: %w", len(chunk), err)
		}
		for rows.Next() {
			if err := scanResource(rows, &r); err != nil {
				rows.Close()
				return fmt.Errorf("read the state of %d resources: %w", len(chunk), err)
			}
			if err := found(&r); err != nil {
				rows.Close()
				return err
			}
		}
		if err := closeRows(rows); err != nil {
			return fmt.Errorf("read the state of %d resources: %w", len(chunk), err)
		}
	}
	return nil
}

// CopiesByID is ResourcesByID for the checks of the copies' files (a
// reconcile's): each Resource has only what such a check needs (ID, Path,
// Length, Digests, DamagedAt, FileMTime, and FetchedAt and VerifiedAt when
// FileMTime is unknown), read with half the columns and none of the other
// datetimes to parse, by a statement prepared once for each size of batch
// (a batch is padded to a power of two with its last id again).
func (db *DB) CopiesByID(ctx context.Context, ids []int64, found func(r *Resource) error) error {
	db.copiesByID.Add(int64(len(ids)))
	const cols = `id, path, length, digests, damaged_at, file_mtime,
		CASE WHEN file_mtime IS NULL THEN fetched_at END, CASE WHEN file_mtime IS NULL THEN verified_at END`
	var (
		r                      Resource
		length, mtime          sql.NullInt64
		digests, dmg, fat, vat sql.NullString
		args                   = make([]any, 0, min(len(ids), LookupBatch))
	)
	for start := 0; start < len(ids); start += LookupBatch {
		chunk := ids[start:min(start+LookupBatch, len(ids))]
		n := 8
		for n < len(chunk) {
			n *= 2
		}
		args = args[:0]
		for _, id := range chunk {
			args = append(args, id)
		}
		for len(args) < n {
			args = append(args, chunk[len(chunk)-1])
		}
		rows, err := db.query(ctx, `SELECT `+cols+` FROM resource WHERE id IN (?`+strings.Repeat(",?", n-1)+`)`, args...)
		if err != nil {
			return fmt.Errorf("read the state of %d resources: %w", len(chunk), err)
		}
		for rows.Next() {
			if err := rows.Scan(&r.ID, &r.Path, &length, &digests, &dmg, &mtime, &fat, &vat); err != nil {
				rows.Close()
				return fmt.Errorf("read the state of %d resources: %w", len(chunk), err)
			}
			r.Length = -1
			if length.Valid {
				r.Length = length.Int64
			}
			r.Digests, r.DamagedAt = Digests(digests.String), parseTime(dmg)
			r.FileMTime = time.Time{}
			if mtime.Valid {
				r.FileMTime = time.Unix(0, mtime.Int64).UTC()
			}
			r.FetchedAt, r.VerifiedAt = parseTime(fat), parseTime(vat)
			if err := found(&r); err != nil {
				rows.Close()
				return err
			}
		}
		if err := closeRows(rows); err != nil {
			return fmt.Errorf("read the state of %d resources: %w", len(chunk), err)
		}
	}
	return nil
}

// ResourcesAtPath returns the rows whose path has the same Key (pathmap.Key:
// case folded) as path, of every Source: the owners of a file found in the
// destination, or its rivals.
func (db *DB) ResourcesAtPath(ctx context.Context, pathKey string) ([]Resource, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+resourceColumns+` FROM resource WHERE path_key = ?`, pathKey)
	if err != nil {
		return nil, fmt.Errorf("find resources at %s: %w", pathKey, err)
	}
	var out []Resource
	for rows.Next() {
		var r Resource
		if err := scanResource(rows, &r); err != nil {
			rows.Close()
			return nil, fmt.Errorf("find resources at %s: %w", pathKey, err)
		}
		out = append(out, r)
	}
	if err := closeRows(rows); err != nil {
		return nil, fmt.Errorf("find resources at %s: %w", pathKey, err)
	}
	return out, nil
}

// LookupBatch is the most URIs a View's Find asks SQLite for at once.
const LookupBatch = 500

// EachResource calls fn for every row of a Source, in id order (the order they
// were first recorded), streaming: the Resource is reused between calls.
// pendingOnly limits the walk to resources waiting for their deletion.
func (db *DB) EachResource(ctx context.Context, sourceID int64, pendingOnly bool, fn func(r *Resource) error) error {
	q := `SELECT ` + resourceColumns + ` FROM resource WHERE source_id = ?`
	if pendingOnly {
		q += ` AND deleted_at IS NOT NULL`
	} else {
		db.scans.Add(1)
	}
	rows, err := db.sql.QueryContext(ctx, q+` ORDER BY id`, sourceID)
	if err != nil {
		return fmt.Errorf("read resources of Source %d: %w", sourceID, err)
	}
	var r Resource
	for rows.Next() {
		if err := scanResource(rows, &r); err != nil {
			rows.Close()
			return fmt.Errorf("read resources of Source %d: %w", sourceID, err)
		}
		if err := fn(&r); err != nil {
			rows.Close()
			return err
		}
	}
	if err := closeRows(rows); err != nil {
		return fmt.Errorf("read resources of Source %d: %w", sourceID, err)
	}
	return nil
}

// Scans is how many reads through this DB visited every row of a Source or
// of the state (counts, loads of an Index or of the paths, walks of every
// row). An incremental run does none: its cost follows its changes, not the
// size of the copy (tests hold it to that).
func (db *DB) Scans() int64 { return db.scans.Load() }

// CopiesReadByID is how many rows CopiesByID was asked for through this DB.
// A reconcile's checkers read a row by id only for a copy the plan's row
// does not describe (--checksum, a folder's row without a file time, a
// copy to hash): each of them that queries holds a connection of its own,
// and with it a page cache of up to 16 MiB (tests hold a bucket's quick
// reconcile to none).
func (db *DB) CopiesReadByID() int64 { return db.copiesByID.Load() }

// Rows counts a Source's rows, from the (source_id, uri) index alone: much
// cheaper than Count, which reads every row for the bytes.
func (db *DB) Rows(ctx context.Context, sourceID int64) (int, error) {
	db.scans.Add(1)
	var n int
	if err := db.sql.QueryRowContext(ctx, `SELECT count(*) FROM resource WHERE source_id = ?`, sourceID).Scan(&n); err != nil {
		return 0, fmt.Errorf("count resources of Source %d: %w", sourceID, err)
	}
	return n, nil
}

// RowsUpTo counts a Source's rows (every Source's when sourceID is 0), but
// stops at limit: it reads at most limit entries of an index, so that a run
// can ask whether the state is small beside its changes at a cost that
// follows the changes, not the state (Rows reads the whole index).
func (db *DB) RowsUpTo(ctx context.Context, sourceID int64, limit int) (int, error) {
	q, args := `SELECT count(*) FROM (SELECT 1 FROM resource WHERE source_id = ? LIMIT ?)`, []any{sourceID, limit}
	if sourceID == 0 {
		q, args = `SELECT count(*) FROM (SELECT 1 FROM resource LIMIT ?)`, []any{limit}
	}
	var n int
	if err := db.sql.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count resources of %s: %w", db.path, err)
	}
	return n, nil
}

// MaxID is the largest id of a Source's rows (0 when it has none).
func (db *DB) MaxID(ctx context.Context, sourceID int64) (int64, error) {
	var id sql.NullInt64
	if err := db.sql.QueryRowContext(ctx, `SELECT max(id) FROM resource WHERE source_id = ?`, sourceID).Scan(&id); err != nil {
		return 0, fmt.Errorf("read the largest id of Source %d: %w", sourceID, err)
	}
	return id.Int64, nil
}

// Counts are the numbers of rows of a Source.
type Counts struct {
	Resources int   // every row
	Pending   int   // waiting for their deletion
	Bytes     int64 // sum of the known lengths
	MaxID     int64 // the largest id (sizes a bitmap of ids)
}

// Count counts a Source's rows.
func (db *DB) Count(ctx context.Context, sourceID int64) (Counts, error) {
	db.scans.Add(1)
	var c Counts
	var bytes, maxID sql.NullInt64
	err := db.sql.QueryRowContext(ctx, `SELECT count(*), count(deleted_at), sum(length), max(id) FROM resource WHERE source_id = ?`, sourceID).
		Scan(&c.Resources, &c.Pending, &bytes, &maxID)
	if err != nil {
		return c, fmt.Errorf("count resources of Source %d: %w", sourceID, err)
	}
	c.Bytes, c.MaxID = bytes.Int64, maxID.Int64
	return c, nil
}

// LargestID is the largest id of any row of the state (0 when it has none):
// a bound of its rows, of every Source, read without counting them.
func (db *DB) LargestID(ctx context.Context) (int64, error) {
	var id sql.NullInt64
	if err := db.sql.QueryRowContext(ctx, `SELECT max(id) FROM resource`).Scan(&id); err != nil {
		return 0, fmt.Errorf("read the largest id of %s: %w", db.path, err)
	}
	return id.Int64, nil
}

// ListedCopy is what a listing of a bucket's copy is compared with: a row's
// id, path, recorded length (-1 for none) and whether an audit found its
// copy damaged or gone.
type ListedCopy struct {
	ID      int64
	Path    string
	Length  int64
	Damaged bool
}

// CopiesByPath calls fn for every row of a Source (of every Source when
// sourceID is 0) in the byte order of the
// paths (SQLite's BINARY collation: the order of an S3 listing's keys
// under one prefix), streaming: the ListedCopy are reused between calls.
// SQLite sorts with its sorter, which spills to temporary files past the
// cache's size: memory does not grow with the rows.
func (db *DB) CopiesByPath(ctx context.Context, sourceID int64, fn func(c *ListedCopy) error) error {
	db.scans.Add(1)
	rows, err := db.sql.QueryContext(ctx, `SELECT id, path, length, damaged_at IS NOT NULL FROM resource WHERE ? IN (0, source_id) ORDER BY path`, sourceID)
	if err != nil {
		return fmt.Errorf("read the copies of Source %d: %w", sourceID, err)
	}
	var (
		c      ListedCopy
		length sql.NullInt64
	)
	for rows.Next() {
		if err := rows.Scan(&c.ID, &c.Path, &length, &c.Damaged); err != nil {
			rows.Close()
			return fmt.Errorf("read the copies of Source %d: %w", sourceID, err)
		}
		c.Length = -1
		if length.Valid {
			c.Length = length.Int64
		}
		if err := fn(&c); err != nil {
			rows.Close()
			return err
		}
	}
	if err := closeRows(rows); err != nil {
		return fmt.Errorf("read the copies of Source %d: %w", sourceID, err)
	}
	return nil
}

// LargestFolder is the most rows of a Source (of every Source when
// sourceID is 0) whose paths share a folder (all of the path but its last
// segment), 0 when it has none.
func (db *DB) LargestFolder(ctx context.Context, sourceID int64) (int, error) {
	db.scans.Add(1)
	var n int
	err := db.sql.QueryRowContext(ctx, `SELECT count(*) AS n FROM resource WHERE ? IN (0, source_id)
		GROUP BY rtrim(path, replace(path, '/', '')) ORDER BY n DESC LIMIT 1`, sourceID).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("count the copies of Source %d by folder: %w", sourceID, err)
	}
	return n, nil
}
