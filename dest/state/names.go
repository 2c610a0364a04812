package state

import (
	"context"
	"errors"
	"fmt"
	neturl "net/url"
	"strings"

	"rsx/dest/pathmap"
)

// A Source is known by the URL of its row (its Capability List, as first
// reached) and by the other URLs it was named by (source_name): those given
// to rsx sync, and those its Capability List was asked for by before a
// redirect to it. The engine finds a Source's row by the URL a run names,
// so that a Capability List that moves keeps its copy, and refuses a run
// whose URL leads to the Capability List of a Source named otherwise.

// SourceNamed returns the row of the Source that url names: the Source
// keyed by url, or one of whose names url is, or (failing both) by the
// same URL with the other of http and https; url's userinfo, which no key
// or name keeps, is not compared. The error wraps ErrNoSource when none is.
func (db *DB) SourceNamed(ctx context.Context, url string) (Source, error) {
	url = withoutUserinfo(strings.TrimSpace(url))
	for _, u := range []string{url, otherScheme(url)} {
		if u == "" {
			continue
		}
		src, err := db.Source(ctx, u)
		if !errors.Is(err, ErrNoSource) {
			return src, err
		}
		if db.version < 5 {
			continue
		}
		var key string
		err = db.sql.QueryRowContext(ctx, `SELECT s.url FROM source_name n JOIN source s ON s.id = n.source_id WHERE n.url = ?`, u).Scan(&key)
		if err == nil {
			return db.Source(ctx, key)
		}
		if !isNoRows(err) {
			return Source{}, fmt.Errorf("read state of %s: %w", url, err)
		}
	}
	return Source{}, fmt.Errorf("read state of %s: %w", url, ErrNoSource)
}

// withoutUserinfo is raw without the userinfo of its authority.
func withoutUserinfo(raw string) string {
	u, err := neturl.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	u.User = nil
	return u.String()
}

// otherScheme is url with http:// for https:// and the reverse; "" for
// any other URL.
func otherScheme(url string) string {
	switch {
	case strings.HasPrefix(url, "http://"):
		return "https://" + url[len("http://"):]
	case strings.HasPrefix(url, "https://"):
		return "http://" + url[len("https://"):]
	}
	return ""
}

// NameSource records urls as names of the Source sourceID (committed at
// once). A URL that is the key of a Source, or already a name, is left as
// it is: a name belongs to one Source.
func (db *DB) NameSource(ctx context.Context, sourceID int64, urls ...string) error {
	for _, u := range urls {
		if u == "" {
			continue
		}
		_, err := db.sql.ExecContext(ctx, `INSERT INTO source_name (url, source_id) SELECT ?1, ?2
			WHERE NOT EXISTS (SELECT 1 FROM source WHERE url = ?1) ON CONFLICT (url) DO NOTHING`, u, sourceID)
		if err != nil {
			return fmt.Errorf("record %s as a name of Source %d: %w", u, sourceID, err)
		}
	}
	return nil
}

// SourceNames returns the names recorded for a Source (not its key), sorted.
func (db *DB) SourceNames(ctx context.Context, sourceID int64) ([]string, error) {
	if db.version < 5 {
		return nil, nil
	}
	rows, err := db.sql.QueryContext(ctx, `SELECT url FROM source_name WHERE source_id = ? ORDER BY url`, sourceID)
	if err != nil {
		return nil, fmt.Errorf("read the names of Source %d: %w", sourceID, err)
	}
	var out []string
	for rows.Next() {
		var u string
		if err := rows.Scan(&u); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read the names of Source %d: %w", sourceID, err)
		}
		out = append(out, u)
	}
	if err := closeRows(rows); err != nil {
		return nil, fmt.Errorf("read the names of Source %d: %w", sourceID, err)
	}
	return out, nil
}

// Held is a resource of a Source that a sync did not copy because its path
// is (or is inside) the path of another Source's resource.
type Held struct {
	URI string
	// OwnerID is the Source whose resource holds the path, OwnerPath that
	// resource's path.
	OwnerID   int64
	OwnerPath string
}

// PutHeld records that a resource of sourceID is kept out by another
// Source's resource (replacing what was recorded of it).
func (w *Writer) PutHeld(ctx context.Context, sourceID int64, h Held) error {
	what := "record that " + h.URI + " is kept out by another Source's copy"
	st, err := w.stmt(ctx, what, `INSERT INTO held (source_id, uri, owner_id, owner_key) VALUES (?, ?, ?, ?)
		ON CONFLICT (source_id, uri) DO UPDATE SET owner_id = excluded.owner_id, owner_key = excluded.owner_key`)
	if err != nil {
		return err
	}
	if _, err := st.ExecContext(ctx, sourceID, h.URI, h.OwnerID, pathmap.Key(h.OwnerPath)); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return w.done(ctx)
}

// ClearHeld forgets what a Source was kept out of (a baseline records it
// again).
func (w *Writer) ClearHeld(ctx context.Context, sourceID int64) error {
	if _, err := w.exec(ctx, fmt.Sprintf("forget what Source %d was kept out of", sourceID), `DELETE FROM held WHERE source_id = ?`, sourceID); err != nil {
		return err
	}
	return w.done(ctx)
}

// DropCopiedHeld forgets the resources a Source was kept out of that it
// now has a copy of.
func (w *Writer) DropCopiedHeld(ctx context.Context, sourceID int64) error {
	if _, err := w.exec(ctx, fmt.Sprintf("forget what Source %d copied since it was kept out", sourceID),
		`DELETE FROM held WHERE source_id = ?1 AND EXISTS (SELECT 1 FROM resource r WHERE r.source_id = ?1 AND r.uri = held.uri)`, sourceID); err != nil {
		return err
	}
	return w.done(ctx)
}

// HeldCounts says how many resources of a Source another Source's copy
// keeps out, and how many of them it no longer does (the path is free:
// the next sync copies them).
func (db *DB) HeldCounts(ctx context.Context, sourceID int64) (held, freed int, err error) {
	if db.version < 5 {
		return 0, 0, nil
	}
	err = db.sql.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(NOT EXISTS (SELECT 1 FROM resource r
		WHERE r.source_id = h.owner_id AND r.path_key = h.owner_key)), 0) FROM held h WHERE h.source_id = ?`, sourceID).Scan(&held, &freed)
	if err != nil {
		return 0, 0, fmt.Errorf("count what Source %d is kept out of: %w", sourceID, err)
	}
	return held, freed, nil
}
