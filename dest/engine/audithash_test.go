package engine

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"rsx/claims"
	"rsx/demo"
	"rsx/dest/plan"
	"rsx/dest/state"
)

// copyHasher judges a copy as the claims.Verifier it replaces in the audit
// did: the same verdict for every length and digests, the body read to its
// end or bounded by the longer of two lengths.
func TestCopyHasherJudgesAsAVerifier(t *testing.T) {
	body := []byte("the bytes of a copy\n")
	md := md5.Sum(body)
	sh := sha256.Sum256(body)
	m, s := hex.EncodeToString(md[:]), hex.EncodeToString(sh[:])
	other := hex.EncodeToString(make([]byte, 16))
	n := int64(len(body))
	cases := []struct {
		name    string
		length  int64
		digests string
	}{
		{"nothing declared", -1, ""},
		{"length only", n, ""},
		{"length shorter", n - 1, ""},
		{"length longer", n + 1, ""},
		{"length zero", 0, ""},
		{"md5", -1, "md5:" + m},
		{"md5 and sha-256", n, "md5:" + m + " sha-256:" + s},
		{"md5 wrong", n, "md5:" + other + " sha-256:" + s},
		{"sha-256 wrong", n, "md5:" + m + " sha-256:" + other + other},
		{"upper-case hex", n, "md5:" + strings.ToUpper(m)},
		{"unknown algorithm only", n, "sha3-256:" + s},
		{"unknown algorithm beside md5", -1, "md5:" + m + " sha3-256:" + other},
		{"md5 of the wrong size", -1, "md5:" + s},
		{"right digests, wrong length", n + 5, "md5:" + m + " sha-256:" + s},
	}
	h := newCopyHasher(7) // a small buffer: several reads a file
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := &plan.Entry{Length: c.length, Digests: state.Digests(c.digests)}
			v := claims.NewVerifier(claimsOf(e), claims.Limits{Margin: -1})
			if _, err := io.Copy(v, bytes.NewReader(body)); err != nil && !errors.Is(err, claims.ErrTooLong) {
				t.Fatal(err)
			}
			want := v.Verify() == nil
			bounds := []int64{-1}
			if c.length >= 0 {
				bounds = append(bounds, c.length)
			}
			for _, most := range bounds {
				h.use(e.Digests)
				if err := h.read(bytes.NewReader(body), most); err != nil {
					t.Fatal(err)
				}
				if got := h.matches(c.length, e.Digests); got != want {
					t.Errorf("read to %d: matches %v, the Verifier says %v", most, got, want)
				}
				h.done()
			}
		})
	}
}

// An audit keeps none of the documents it reads: it records no run to
// store them with (a sync's plan keeps them for its run).
func TestAuditKeepsNoDocuments(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 60, Seed: 4})
	target := srv.URL + "/dataset1/capabilitylist.xml"
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), target, PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	s := openSession(t, dir, testClient(t), Options{})
	defer s.Close()
	rep, err := s.Audit(context.Background(), target)
	if err != nil || !rep.InSync() || rep.Documents == 0 {
		t.Fatalf("audit: %v, %+v", err, rep)
	}
	s.capture.mu.Lock()
	kept := len(s.capture.docs)
	s.capture.mu.Unlock()
	spooled, _ := filepath.Glob(filepath.Join(s.st.TempDir(), "rsx-doc-*"))
	if kept != 0 || len(spooled) != 0 {
		t.Errorf("the audit kept %d documents, %d spool files; want none", kept, len(spooled))
	}
}

// The files no resource owns are found whether or not the copy's files
// are as many as those the audit opened (which spares looking them up).
func TestAuditExtraFiles(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 120, Seed: 9})
	target := srv.URL + "/dataset1/capabilitylist.xml"
	made := t.TempDir()
	res := syncOnce(t, made, testClient(t), target, PlanOptions{})
	if !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	files := copyFiles(t, made)
	rel := func(p string) string { r, _ := filepath.Rel(made, p); return filepath.ToSlash(r) }
	first, second := rel(files[0]), rel(files[1])
	folder := path.Dir(first) // HOST/dataset1/res
	home := path.Dir(folder)  // HOST/dataset1: the Capability List's
	host := path.Dir(home)    // HOST
	cases := []struct {
		name      string
		change    func(t *testing.T, dir string)
		missing   int
		extra     []string
		damaged   int
		protected int
	}{
		{name: "intact", change: func(*testing.T, string) {}},
		{name: "stray files", change: func(t *testing.T, dir string) {
			// In the Source's folders (those of its copies, and its
			// Capability List's): stray. Elsewhere (DEST's top, the host's
			// folder beside the dataset, another dataset's): not its.
			for _, p := range []string{"stray.txt", host + "/notes.txt", host + "/dataset2/res/other.png"} {
				write(t, filepath.Join(dir, filepath.FromSlash(p)))
			}
			for _, p := range []string{folder + "/stray2.txt", home + "/zz-stray.txt", home + "/new/deep/stray3.txt"} {
				write(t, filepath.Join(dir, filepath.FromSlash(p)))
			}
		}, extra: []string{folder + "/stray2.txt", home + "/zz-stray.txt", home + "/new/deep/stray3.txt"}},
		{name: "protected files", change: func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, ".rsxignore"), []byte("# kept on purpose\nkeep/\n*.bak\n!not.bak\n/"+home+"/README\n"), 0o644)
			for _, p := range []string{folder + "/keep/a.txt", home + "/keep/b/c.txt", folder + "/x.bak", home + "/README", home + "/not.bak", folder + "/README"} {
				write(t, filepath.Join(dir, filepath.FromSlash(p)))
			}
		}, extra: []string{home + "/not.bak", folder + "/README"}, protected: 4},
		{name: "a file gone", change: func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, first))
		}, missing: 1, damaged: 1},
		{name: "a file moved", change: func(t *testing.T, dir string) {
			os.Rename(filepath.Join(dir, first), filepath.Join(dir, folder, "moved.txt"))
		}, missing: 1, damaged: 1, extra: []string{folder + "/moved.txt"}},
		{name: "a file moved out of the Source's folders", change: func(t *testing.T, dir string) {
			os.Rename(filepath.Join(dir, first), filepath.Join(dir, "moved.txt"))
		}, missing: 1, damaged: 1},
		{name: "a link in place of a file", change: func(t *testing.T, dir string) {
			p := filepath.Join(dir, first)
			os.Remove(p)
			if err := os.Symlink(filepath.Base(second), p); err != nil {
				t.Skip(err)
			}
		}, missing: 1, damaged: 1},
		{name: "two resources given one path", change: func(t *testing.T, dir string) {
			// The second's row says the first's path: the audit opens that
			// file twice, and the second's own file is owned by no row.
			raw, err := sql.Open("sqlite", filepath.Join(dir, ".rsx", "state.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer raw.Close()
			r, err := raw.Exec(`UPDATE resource SET path = ?, path_key = (SELECT path_key FROM resource WHERE path = ?) WHERE path = ?`, first, first, second)
			if n, _ := r.RowsAffected(); err != nil || n != 1 {
				t.Fatalf("update: %v, %d rows", err, n)
			}
		}, extra: []string{second}, damaged: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.CopyFS(dir, os.DirFS(made)); err != nil {
				t.Fatal(err)
			}
			c.change(t, dir)
			rep := auditOnce(t, dir, testClient(t), target)
			slices.Sort(c.extra)
			if len(rep.Missing) != c.missing || len(rep.Damaged) != c.damaged || !slices.Equal(rep.Extra, c.extra) || rep.Protected != c.protected {
				t.Errorf("missing %q, damaged %q, extra %q, %d protected; want %d missing, %d damaged, extra %q, %d protected",
					rep.Missing, rep.Damaged, rep.Extra, rep.Protected, c.missing, c.damaged, c.extra, c.protected)
			}
			// The stray files are the extra files that are no resource's.
			var stray []string
			for _, e := range c.extra {
				if !strings.HasPrefix(e, "http") {
					stray = append(stray, e)
				}
			}
			if !slices.Equal(rep.Stray, stray) || rep.InSync() != (c.missing+len(c.extra) == 0) {
				t.Errorf("stray %q, want %q; in sync %v", rep.Stray, stray, rep.InSync())
			}
		})
	}
}

// An audit records every copy it found intact (verified_at, and the file's
// modification time) and every copy found damaged (damaged_at), and only
// those.
func TestAuditRecordsWhatItFound(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 700, Seed: 5}) // more rows than a statement of the record takes
	target := srv.URL + "/dataset1/capabilitylist.xml"
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), target, PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	files := copyFiles(t, dir)
	if err := os.WriteFile(files[3], []byte("damaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	later := fixtureClock().Add(48 * time.Hour).Truncate(time.Second)
	s := openSession(t, dir, testClient(t), Options{Now: func() time.Time { return later }})
	defer s.Close()
	rep, err := s.Audit(context.Background(), target)
	if err != nil || len(rep.Damaged) != 1 {
		t.Fatalf("audit: %v, damaged %q", err, rep.Damaged)
	}
	ctx := context.Background()
	srcs, _ := s.db.Sources(ctx)
	verified, damaged := 0, 0
	err = s.db.EachResource(ctx, srcs[0].ID, false, func(r *state.Resource) error {
		fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(r.Path)))
		if err != nil {
			return err
		}
		switch {
		case r.URI == rep.Damaged[0]:
			damaged++
			if !r.DamagedAt.Equal(later) || r.VerifiedAt.Equal(later) {
				t.Errorf("the damaged copy: damaged %v, verified %v", r.DamagedAt, r.VerifiedAt)
			}
		case r.VerifiedAt.Equal(later) && r.FileMTime.Equal(fi.ModTime()) && r.DamagedAt.IsZero():
			verified++
		default:
			t.Errorf("%s: verified %v, file time %v (the file's %v), damaged %v", r.URI, r.VerifiedAt, r.FileMTime, fi.ModTime(), r.DamagedAt)
		}
		return nil
	})
	if err != nil || damaged != 1 || verified != rep.Same || verified < 500 {
		t.Errorf("%v: %d verified, %d damaged; same %d", err, verified, damaged, rep.Same)
	}
}

// An audit records a copy found intact whose row holds its file's time
// already by ranges of ids (state.Writer.SetVerifiedRange), and the others
// with their times (SetVerifiedBatch): rows without a time, files touched
// since, a damaged copy between the ranges. Every row ends as each one
// recorded alone would: verified then with its file's time, or damaged and
// not verified.
func TestAuditRecordsByRanges(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 700, Seed: 7})
	target := srv.URL + "/dataset1/capabilitylist.xml"
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), target, PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	ctx := context.Background()
	s := openSession(t, dir, testClient(t), Options{Now: fixtureClock})
	srcs, _ := s.db.Sources(ctx)
	var rows []state.Resource
	if err := s.db.EachResource(ctx, srcs[0].ID, false, func(r *state.Resource) error { rows = append(rows, *r); return nil }); err != nil {
		t.Fatal(err)
	}
	w := s.db.NewWriter(state.WriterOptions{})
	touched := time.Date(2030, 1, 2, 3, 4, 5, 6, time.UTC)
	damaged := ""
	for i, r := range rows {
		p := filepath.Join(dir, filepath.FromSlash(r.Path))
		switch {
		case i%5 == 1: // no time recorded
			if err := w.SetVerified(ctx, r.ID, fixtureClock(), time.Time{}); err != nil {
				t.Fatal(err)
			}
		case i%7 == 2: // the file touched since
			if err := os.Chtimes(p, touched, touched); err != nil {
				t.Fatal(err)
			}
		case i == 300:
			damaged = r.URI
			if err := os.WriteFile(p, []byte("damaged"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	s.Close()
	later := fixtureClock().Add(48 * time.Hour).Truncate(time.Second)
	s = openSession(t, dir, testClient(t), Options{Now: func() time.Time { return later }})
	defer s.Close()
	rep, err := s.Audit(ctx, target)
	if err != nil || len(rep.Damaged) != 1 || rep.Damaged[0] != damaged {
		t.Fatalf("audit: %v, damaged %q, want %q", err, rep.Damaged, damaged)
	}
	verified := 0
	err = s.db.EachResource(ctx, srcs[0].ID, false, func(r *state.Resource) error {
		fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(r.Path)))
		if err != nil {
			return err
		}
		switch {
		case r.URI == damaged:
			if !r.DamagedAt.Equal(later) || r.VerifiedAt.Equal(later) {
				t.Errorf("the damaged copy: damaged %v, verified %v", r.DamagedAt, r.VerifiedAt)
			}
		case r.VerifiedAt.Equal(later) && r.FileMTime.Equal(fi.ModTime()) && r.DamagedAt.IsZero():
			verified++
		default:
			t.Errorf("%s: verified %v, file time %v (the file's %v), damaged %v", r.URI, r.VerifiedAt, r.FileMTime, fi.ModTime(), r.DamagedAt)
		}
		return nil
	})
	if err != nil || verified != len(rows)-1 || verified != rep.Same {
		t.Errorf("%v: %d verified of %d rows; same %d", err, verified, len(rows), rep.Same)
	}
}

// A copy found intact is recorded by range (its row's file_mtime left as
// it is) only when the look-up read the row's file_mtime and it is the
// file's time: a row found by View.Find (a list out of order), which
// reads no file_mtime, is recorded with its time, a bucket's zero one
// too.
func TestAuditRowSameMTime(t *testing.T) {
	at := time.Unix(1_900_000_000, 5)
	for _, tc := range []struct {
		row   auditRow
		mtime time.Time
		want  bool
	}{
		{auditRow{mtimeRead: true, mtimeKnown: true, mtime: at.UnixNano()}, at, true},
		{auditRow{mtimeRead: true, mtimeKnown: true, mtime: at.UnixNano() + 1}, at, false},
		{auditRow{mtimeRead: true}, at, false},                            // none recorded
		{auditRow{mtimeRead: true}, time.Time{}, true},                    // a bucket's: none, and none recorded
		{auditRow{mtimeRead: true, mtimeKnown: true}, time.Time{}, false}, // one recorded: the record clears it
		{auditRow{mtimeRead: true, mtimeKnown: true, mtime: 0}, time.Unix(0, 0), true},
		{auditRow{}, time.Time{}, false}, // not read (View.Find)
		{auditRow{mtimeKnown: true, mtime: at.UnixNano()}, at, false},
	} {
		if got := tc.row.sameMTime(tc.mtime); got != tc.want {
			t.Errorf("%+v, %v: %v, want %v", tc.row, tc.mtime, got, tc.want)
		}
	}
}
