package state

import (
	"context"
	"database/sql"
	"fmt"
	"hash/maphash"
	"strings"
	"time"
)

// Known is what planning needs to know of a resource already copied: enough to
// tell whether an entry of a Source's document describes the same bytes.
type Known struct {
	ID             int64
	Path           string // "" when it came from an Index (which keeps no paths)
	Length         int64  // -1 when unknown
	Lastmod        time.Time
	ChangeDatetime time.Time // of the last change applied
	Pending        bool      // waiting for its deletion
	Copy           CopyFacts // from Copies (or an Index loaded by LoadIndexCopies); else not OK
	// FileMTime is the row's file_mtime (Unix nanoseconds) when
	// FileMTimeKnown: read by View.EachAuditBetween only.
	FileMTime      int64
	FileMTimeKnown bool

	digests Digests // exact digests (from the database)
	fps     []algFP // or their fingerprints (from an Index)
	seed    *maphash.Seed
	codes   map[string]uint8 // the Index's algorithm codes
}

// algFP is the fingerprint of one digest: the algorithm's code in an Index and
// 64 bits of a keyed hash of the hex digest.
type algFP struct {
	alg uint8
	fp  uint64
}

// CompareDigests compares the digests of the copy with those an entry
// declares, over the algorithms both have: shared is how many, differ names the
// algorithms whose digests differ. From an Index, digests are compared by
// 64-bit keyed fingerprints (a false match has odds of 2^-64).
func (k *Known) CompareDigests(d Digests) (shared int, differ []string) {
	if k.seed == nil {
		return k.digests.Compare(d)
	}
	d.Each(func(alg, hex string) {
		code, ok := k.codes[alg]
		if !ok {
			return
		}
		for _, f := range k.fps {
			if f.alg == code {
				shared++
				if f.fp != maphash.String(*k.seed, hex) {
					differ = append(differ, alg)
				}
			}
		}
	})
	return shared, differ
}

// View reads one Source's rows for planning: batched look-ups by URI and a
// streaming walk, straight from the database.
type View struct {
	db       *DB
	sourceID int64
}

// View returns the planning view of a Source's rows.
func (db *DB) View(sourceID int64) *View { return &View{db: db, sourceID: sourceID} }

const knownColumns = `id, uri, path, length, digests, lastmod, change_datetime, deleted_at IS NOT NULL`

func scanKnown(s scanner, uri *string, k *Known) error { return scanKnownAnd(s, uri, k) }

// scanKnownAnd reads a row of knownColumns followed by the columns that
// more scan into (copyColumns' rows).
func scanKnownAnd(s scanner, uri *string, k *Known, more ...any) error {
	var length sql.NullInt64
	var digests, lastmod, cdt sql.NullString
	if err := s.Scan(append([]any{&k.ID, uri, &k.Path, &length, &digests, &lastmod, &cdt, &k.Pending}, more...)...); err != nil {
		return err
	}
	k.Length = -1
	if length.Valid {
		k.Length = length.Int64
	}
	k.digests = Digests(digests.String)
	k.Lastmod, k.ChangeDatetime = parseTime(lastmod), parseTime(cdt)
	k.fps, k.seed, k.codes = nil, nil, nil
	k.Copy = CopyFacts{}
	return nil
}

// Find calls found for each of uris that has a row, with its index in uris
// (a URI given twice is reported at both indexes), asking LookupBatch URIs at
// a time. The Known is reused between calls.
func (v *View) Find(ctx context.Context, uris []string, found func(i int, k *Known) error) error {
	if len(uris) == 0 {
		return nil
	}
	first := make(map[string]int, min(len(uris), LookupBatch))
	next := make([]int, min(len(uris), LookupBatch)) // next index of the same URI in the chunk, -1 at the end
	args := make([]any, 0, LookupBatch+1)
	var q strings.Builder
	var k Known
	var uri string
	for start := 0; start < len(uris); start += LookupBatch {
		chunk := uris[start:min(start+LookupBatch, len(uris))]
		clear(first)
		last := map[string]int{}
		args = append(args[:0], v.sourceID)
		q.Reset()
		q.WriteString(`SELECT ` + knownColumns + ` FROM resource WHERE source_id = ? AND uri IN (`)
		for i, u := range chunk {
			next[i] = -1
			if _, dup := first[u]; dup {
				next[last[u]] = i
				last[u] = i
				continue
			}
			first[u], last[u] = i, i
			if len(args) > 1 {
				q.WriteByte(',')
			}
			q.WriteByte('?')
			args = append(args, u)
		}
		q.WriteByte(')')
		rows, err := v.db.sql.QueryContext(ctx, q.String(), args...)
		if err != nil {
			return fmt.Errorf("look up %d resources of Source %d: %w", len(chunk), v.sourceID, err)
		}
		for rows.Next() {
			if err := scanKnown(rows, &uri, &k); err != nil {
				rows.Close()
				return fmt.Errorf("look up resources of Source %d: %w", v.sourceID, err)
			}
			for i := first[uri]; i >= 0; i = next[i] {
				if err := found(start+i, &k); err != nil {
					rows.Close()
					return err
				}
			}
		}
		if err := closeRows(rows); err != nil {
			return fmt.Errorf("look up resources of Source %d: %w", v.sourceID, err)
		}
	}
	return nil
}

// EachKnown calls fn for every row of the Source in id order, streaming;
// pendingOnly limits it to the rows waiting for their deletion. The Known is
// reused between calls.
func (v *View) EachKnown(ctx context.Context, pendingOnly bool, fn func(uri string, k *Known) error) error {
	q := `SELECT ` + knownColumns + ` FROM resource WHERE source_id = ?`
	if pendingOnly {
		q += ` AND deleted_at IS NOT NULL`
	} else {
		v.db.scans.Add(1)
	}
	rows, err := v.db.sql.QueryContext(ctx, q+` ORDER BY id`, v.sourceID)
	if err != nil {
		return fmt.Errorf("read resources of Source %d: %w", v.sourceID, err)
	}
	var k Known
	var uri string
	return v.eachKnownRow(rows, &uri, &k, fn)
}

// eachKnownRow calls fn for every row of rows, read into uri and k, and
// closes rows.
func (v *View) eachKnownRow(rows *sql.Rows, uri *string, k *Known, fn func(uri string, k *Known) error) error {
	for rows.Next() {
		if err := scanKnown(rows, uri, k); err != nil {
			rows.Close()
			return fmt.Errorf("read resources of Source %d: %w", v.sourceID, err)
		}
		if err := fn(*uri, k); err != nil {
			rows.Close()
			return err
		}
	}
	if err := closeRows(rows); err != nil {
		return fmt.Errorf("read resources of Source %d: %w", v.sourceID, err)
	}
	return nil
}

// MaxID is the largest id of the Source's rows (0 when it has none): the size
// of a bitmap of ids.
func (v *View) MaxID(ctx context.Context) (int64, error) {
	return v.db.MaxID(ctx, v.sourceID)
}

// EachID calls fn with the id of every row of the Source.
func (v *View) EachID(ctx context.Context, fn func(id int64) error) error {
	v.db.scans.Add(1)
	rows, err := v.db.sql.QueryContext(ctx, `SELECT id FROM resource WHERE source_id = ?`, v.sourceID)
	if err != nil {
		return fmt.Errorf("list the resources of Source %d: %w", v.sourceID, err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return fmt.Errorf("list the resources of Source %d: %w", v.sourceID, err)
		}
		if err := fn(id); err != nil {
			rows.Close()
			return err
		}
	}
	if err := closeRows(rows); err != nil {
		return fmt.Errorf("list the resources of Source %d: %w", v.sourceID, err)
	}
	return nil
}

// FindIDs calls fn for each of ids that is a row of the Source, asking
// LookupBatch ids at a time. The Known is reused between calls.
func (v *View) FindIDs(ctx context.Context, ids []int64, fn func(uri string, k *Known) error) error {
	args := make([]any, 0, LookupBatch+1)
	var q strings.Builder
	var k Known
	var uri string
	for start := 0; start < len(ids); start += LookupBatch {
		chunk := ids[start:min(start+LookupBatch, len(ids))]
		args = append(args[:0], v.sourceID)
		q.Reset()
		q.WriteString(`SELECT ` + knownColumns + ` FROM resource WHERE source_id = ? AND id IN (`)
		for i, id := range chunk {
			if i > 0 {
				q.WriteByte(',')
			}
			q.WriteByte('?')
			args = append(args, id)
		}
		q.WriteString(`) ORDER BY id`)
		rows, err := v.db.sql.QueryContext(ctx, q.String(), args...)
		if err != nil {
			return fmt.Errorf("read %d resources of Source %d: %w", len(chunk), v.sourceID, err)
		}
		if err := v.eachKnownRow(rows, &uri, &k, fn); err != nil {
			return err
		}
	}
	return nil
}

// KnownOf is what planning needs to know of a row read whole (DB.Resource,
// View.FindResources): plan.Decide compares an entry with it.
func KnownOf(r *Resource) Known {
	return Known{ID: r.ID, Path: r.Path, Length: r.Length, Lastmod: r.Lastmod, ChangeDatetime: r.ChangeDatetime,
		Pending: r.Pending(), digests: r.Digests}
}

// FindResources calls found with the whole row of each of uris that has one,
// with its index in uris (a URI given twice is reported at both indexes),
// asking LookupBatch URIs at a time: what the explorer needs to tell each
// entry's local state (its path, the times its bytes were written and
// checked). The Resource is reused between calls.
func (v *View) FindResources(ctx context.Context, uris []string, found func(i int, r *Resource) error) error {
	var r Resource
	for start := 0; start < len(uris); start += LookupBatch {
		chunk := uris[start:min(start+LookupBatch, len(uris))]
		at := make(map[string][]int, len(chunk))
		args := make([]any, 0, len(chunk)+1)
		args = append(args, v.sourceID)
		var q strings.Builder
		q.WriteString(`SELECT ` + resourceColumns + ` FROM resource WHERE source_id = ? AND uri IN (`)
		for i, u := range chunk {
			if _, dup := at[u]; !dup {
				if len(args) > 1 {
					q.WriteByte(',')
				}
				q.WriteByte('?')
				args = append(args, u)
			}
			at[u] = append(at[u], start+i)
		}
		q.WriteByte(')')
		rows, err := v.db.sql.QueryContext(ctx, q.String(), args...)
		if err != nil {
			return fmt.Errorf("read the rows of %d resources of Source %d: %w", len(chunk), v.sourceID, err)
		}
		for rows.Next() {
			if err := scanResource(rows, &r); err != nil {
				rows.Close()
				return fmt.Errorf("read the rows of resources of Source %d: %w", v.sourceID, err)
			}
			for _, i := range at[r.URI] {
				if err := found(i, &r); err != nil {
					rows.Close()
					return err
				}
			}
		}
		if err := closeRows(rows); err != nil {
			return fmt.Errorf("read the rows of resources of Source %d: %w", v.sourceID, err)
		}
	}
	return nil
}

// Digests returns the row's digests, and whether they are exact: read from
// the database (a View), not an Index's fingerprints (then none are given).
func (k *Known) Digests() (Digests, bool) {
	if k.seed != nil {
		return "", false
	}
	return k.digests, true
}
