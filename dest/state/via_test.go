package state

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"rsx/model"
)

// The via column holds only what differs from the row: the usual copy,
// whose Source declared what it served, stores "{}"; what was not declared
// is null; a republished resource's via names its original in full.
func TestViaEncoding(t *testing.T) {
	lastmod := tm("2026-01-05T09:00:00Z")
	own := Via{Href: "http://a/r.html", Modified: lastmod, Hash: "md5:aa sha-256:bb", Length: 12, Type: "text/html"}
	for _, tc := range []struct {
		name string
		v    Via
		want string
	}{
		{"as declared", own, `{}`},
		{"nothing declared but the loc", Via{Href: own.Href, Length: -1}, `{"modified":null,"hash":null,"length":null,"type":null}`},
		{"md5 added by rsx", Via{Href: own.Href, Modified: lastmod, Hash: "sha3-256:cc", Length: 12, Type: "text/html"}, `{"hash":"sha3-256:cc"}`},
		{"an original elsewhere", Via{Href: "http://orig/r.html", Modified: tm("2013-01-03T07:00:00Z"), Hash: "md5:aa sha-256:bb", Length: 12, Type: "text/html"},
			`{"href":"http://orig/r.html","modified":"2013-01-03T07:00:00Z"}`},
	} {
		got := EncodeVia(tc.v, own)
		if got != tc.want {
			t.Errorf("%s: encoded %s, want %s", tc.name, got, tc.want)
		}
		back, ok := DecodeVia(got, own)
		if !ok || back.Href != tc.v.Href || !back.Modified.Equal(tc.v.Modified) || back.Hash != tc.v.Hash || back.Length != tc.v.Length || back.Type != tc.v.Type {
			t.Errorf("%s: decoded %+v (%v), want %+v", tc.name, back, ok, tc.v)
		}
	}
	for _, bad := range []string{"", "not json", `{"modified":"yesterday"}`, `{"href":""}`} {
		if v, ok := DecodeVia(bad, own); ok {
			t.Errorf("DecodeVia(%q) = %+v, true", bad, v)
		}
	}
	// The via link of an entry: the first rel="via", resolved.
	e := &model.Entry{Loc: "http://agg/r.html", Links: []model.Link{
		{Rel: "duplicate", Href: "http://mirror/r.html", HasRel: true, HasHref: true},
		{Rel: "via", Href: "../orig/r.html", HasRel: true, HasHref: true, Length: 7, LengthOK: true, Type: "text/html",
			Modified: model.Datetime{Time: lastmod, OK: true}, Hash: model.HashList{{Alg: "md5", Digest: []byte{0xab}}}},
	}}
	v, ok := ViaOf(e)
	if !ok || v.Href != "http://agg/orig/r.html" || v.Length != 7 || v.Hash != "md5:ab" || !v.Modified.Equal(lastmod) || v.Type != "text/html" {
		t.Errorf("ViaOf: %+v %v", v, ok)
	}
	if _, ok := ViaOf(&model.Entry{Loc: "http://a/x", Links: e.Links[:1]}); ok {
		t.Error("an entry without a via link has one")
	}
}

// A row written again without its provenance (a metadata update) keeps it;
// a new copy replaces it. The files of a run record theirs.
func TestViaKeptAndReplaced(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	src, err := db.EnsureSource(ctx, "http://a/cap.xml")
	if err != nil {
		t.Fatal(err)
	}
	read := func(uri string) (typ, via sql.NullString) {
		t.Helper()
		if err := db.sql.QueryRow(`SELECT type, via FROM resource WHERE uri = ?`, uri).Scan(&typ, &via); err != nil {
			t.Fatal(err)
		}
		return
	}
	w := db.NewWriter(WriterOptions{})
	r := Resource{SourceID: src.ID, URI: "http://a/r", Path: "a/r", Length: 3, Digests: "md5:aa", Type: "text/plain", Via: `{"href":"http://o/r"}`}
	if err := w.PutResource(ctx, &r); err != nil {
		t.Fatal(err)
	}
	w.Flush(ctx)
	if typ, via := read("http://a/r"); typ.String != "text/plain" || via.String != `{"href":"http://o/r"}` {
		t.Fatalf("written: %v %v", typ, via)
	}
	// Read back (the other reads leave Type and Via empty) and written
	// again, in place and by URI: both keep them.
	back, err := db.Resource(ctx, src.ID, "http://a/r")
	if err != nil {
		t.Fatal(err)
	}
	back.Lastmod = tm("2026-01-01T00:00:00Z")
	if err := w.PutResource(ctx, &back); err != nil {
		t.Fatal(err)
	}
	back.ID = 0
	if err := w.PutResource(ctx, &back); err != nil {
		t.Fatal(err)
	}
	w.Flush(ctx)
	if typ, via := read("http://a/r"); typ.String != "text/plain" || via.String != `{"href":"http://o/r"}` {
		t.Errorf("written back without them: %v %v", typ, via)
	}
	r2 := Resource{ID: back.ID, SourceID: src.ID, URI: "http://a/r", Path: "a/r", Length: 4, Digests: "md5:bb", Via: `{}`}
	if err := w.PutResource(ctx, &r2); err != nil {
		t.Fatal(err)
	}
	w.Flush(ctx)
	if typ, via := read("http://a/r"); typ.Valid || via.String != `{}` {
		t.Errorf("a new copy without a declared type: %v %v", typ, via)
	}
	run := &Run{SourceID: src.ID, Started: time.Now(), Mode: "baseline", Version: "test"}
	if err := db.StartRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	w.TrackRun(run.ID)
	if err := w.PutRunFile(ctx, RunFile{Kind: FileUpdated, URI: "http://a/r", Path: "a/r", Length: 4, At: time.Now(), Type: "text/plain", Via: `{"modified":null}`}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	var got []RunFile
	db.RunFiles(ctx, run.ID, func(f *RunFile) error { got = append(got, *f); return nil })
	if len(got) != 1 || got[0].Type != "text/plain" || got[0].Via != `{"modified":null}` {
		t.Errorf("run files: %+v", got)
	}
}

// A database of schema version 6 is upgraded to 7 (type and via) when
// opened for writing, its rows without provenance; read-only, it is read
// as it is.
func TestOpenUpgradesSchemaVersion6(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.db")
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	v6 := withoutVersion7(t, stripComments(schemaSQL))
	for _, q := range []string{v6,
		`INSERT INTO meta (key, value) VALUES ('schema_version', '6'), ('created', '2026-01-01T00:00:00Z')`,
		`INSERT INTO source (id, url, created) VALUES (1, 'http://h/cap.xml', '2026-01-01T00:00:00Z')`,
		`INSERT INTO resource (source_id, uri, path, path_key, length, digests) VALUES (1, 'http://h/a', 'h/a', 'h/a', 3, 'md5:aa')`,
		`INSERT INTO run (id, source_id, started, mode, rsx_version) VALUES (7, 1, '2026-01-01T00:00:00Z', 'baseline', 'rsx old')`,
		`INSERT INTO run_file (run_id, kind, uri, path, length, at) VALUES (7, 'created', 'http://h/a', 'h/a', 3, '2026-01-01T00:00:00Z')`,
	} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
	}
	raw.Close()
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	var files []RunFile
	if err := ro.RunFiles(ctx, 7, func(f *RunFile) error { files = append(files, *f); return nil }); err != nil || len(files) != 1 || files[0].Via != "" {
		t.Errorf("the files of a version 6 file opened read-only: %+v, %v", files, err)
	}
	// What rsx serve --dest reads of it: the copies and the changes, with
	// no type and no provenance.
	f, err := ro.Freeze(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if srcs, err := f.Sources(ctx); err != nil || len(srcs) != 1 {
		t.Errorf("the Sources of a version 6 file served: %+v, %v", srcs, err)
	}
	var copies, changes []string
	cerr := f.EachCopy(ctx, 1, 0, 1<<62, func(r *Resource) error { copies = append(copies, r.URI+" "+r.Type+r.Via); return nil })
	herr := f.EachChange(ctx, 0, 1<<62, func(c *Change) error { changes = append(changes, c.URI+" "+c.Type+c.Via); return nil })
	if cerr != nil || herr != nil || !slices.Equal(copies, []string{"http://h/a "}) || !slices.Equal(changes, []string{"http://h/a "}) {
		t.Errorf("a version 6 file served: copies %q (%v), changes %q (%v)", copies, cerr, changes, herr)
	}
	f.Close()
	ro.Close()
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v string
	var typ, via sql.NullString
	if err := db.sql.QueryRow(`SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&v); err != nil || v != "7" {
		t.Errorf("schema_version %q, %v", v, err)
	}
	if err := db.sql.QueryRow(`SELECT type, via FROM resource WHERE uri = 'http://h/a'`).Scan(&typ, &via); err != nil || typ.Valid || via.Valid {
		t.Errorf("an older row: %v %v %v", typ, via, err)
	}
}
