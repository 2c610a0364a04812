package cli

import (
	"bytes"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rsx/dest/pathmap"
)

// A copy that converges (issue 22): a Source published the way the reference
// implementation publishes one, by resync-build alone, changes a few times;
// after each change resync-build writes a new Change List (against the
// previous Resource List: it gives the list no from and its entries no
// datetime) and a new Resource List, and rsx sync --delete (mode auto) brings
// the copy to the Source's files byte for byte, with rsx audit --dest saying
// it is in sync. Needs RSX_RESYNC, as the other live cross-runs.

// convergeJSON is the part of sync --json this test reads.
type convergeJSON struct {
	Mode           string `json:"mode"`
	Created        int    `json:"created"`
	Updated        int    `json:"updated"`
	Deleted        int    `json:"deleted"`
	Unchanged      int    `json:"unchanged"`
	PendingDeletes int    `json:"pending_deletes"`
	Bytes          int64  `json:"bytes"`
	Failed         []any  `json:"failed"`
	Refused        []any  `json:"refused"`
	Reconcile      *struct {
		Why      string `json:"why"`
		Checked  int    `json:"checked"`
		Repaired int    `json:"repaired"`
	} `json:"reconcile"`
}

// resyncSource is a web root that resync-build publishes as base: the
// resources under files/, the documents beside them.
type resyncSource struct {
	checkout, work, www, base string
	mtime                     time.Time // the next modification time a write gets
}

// build runs resync-build; it exits 0 even on its own fatal errors, so its
// output is checked too.
func (s *resyncSource) build(t *testing.T, args ...string) {
	t.Helper()
	out, err := resyncRun(t, s.checkout, s.work, "resync-build", args...)
	if err != nil || strings.Contains(out, "Error") || strings.Contains(out, "Traceback") {
		t.Fatalf("resync-build %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// write creates or replaces resources, each with the next modification time
// (a second apart, so resync's lastmod tells every version apart).
func (s *resyncSource) write(t *testing.T, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(s.www, "files", filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		s.mtime = s.mtime.Add(time.Second)
		if err := os.Chtimes(p, s.mtime, s.mtime); err != nil {
			t.Fatal(err)
		}
	}
}

func (s *resyncSource) remove(t *testing.T, names ...string) {
	t.Helper()
	for _, name := range names {
		if err := os.Remove(filepath.Join(s.www, "files", filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
}

// publish writes the Change List from the Resource List published before
// (empty at the first state) and then the new Resource List, as a Source
// that runs resync-build after each change does.
func (s *resyncSource) publish(t *testing.T, first bool) {
	t.Helper()
	up := []string{"--hash", "md5", "--hash", "sha-256", "--capabilitylist-link", s.base + "/capabilitylist.xml"}
	mapping := s.base + "=" + s.www
	rl, cl := filepath.Join(s.www, "resourcelist.xml"), filepath.Join(s.www, "changelist.xml")
	if first {
		s.build(t, append(append([]string{"--write-changelist", "--empty"}, up...), "--outfile", cl, mapping)...)
		s.build(t, "--write-capabilitylist", "resourcelist="+s.base+"/resourcelist.xml,changelist="+s.base+"/changelist.xml",
			"--sourcedescription-link", s.base+"/.well-known/resourcesync", "--outfile", filepath.Join(s.www, "capabilitylist.xml"), mapping)
		s.build(t, "--write-sourcedescription", s.base+"/capabilitylist.xml", "--outfile", filepath.Join(s.www, ".well-known", "resourcesync"), mapping)
	} else {
		s.build(t, append(append([]string{"--write-changelist", "--reference", rl}, up...), "--paths", filepath.Join(s.www, "files"), "--outfile", cl, mapping)...)
	}
	s.build(t, append(append([]string{"--write-resourcelist"}, up...), "--paths", filepath.Join(s.www, "files"), "--outfile", rl, mapping)...)
}

// sameAsCopy checks that dest holds the Source's files byte for byte, each
// at the path its loc maps to (resync-build writes base/files/NAME with the
// name as it is, and pathmap writes a stray % as %25: 100%.txt is copied to
// 100%25.txt), and nothing else besides rsx's own .rsx.
func (s *resyncSource) sameAsCopy(t *testing.T, step, dest string) {
	t.Helper()
	m, err := pathmap.New(pathmap.Options{Authorities: []string{s.base}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{}
	read := func(root string, add func(rel string, b []byte) error) {
		t.Helper()
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			if d.IsDir() {
				if rel == ".rsx" {
					return filepath.SkipDir
				}
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return add(filepath.ToSlash(rel), b)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	read(filepath.Join(s.www, "files"), func(rel string, b []byte) error {
		p, err := m.Map(s.base + "/files/" + rel)
		want[p] = b
		return err
	})
	read(dest, func(rel string, b []byte) error {
		w, ok := want[rel]
		switch {
		case !ok:
			t.Errorf("%s: %s is in the copy only", step, rel)
		case !bytes.Equal(b, w):
			t.Errorf("%s: %s differs from the Source's file", step, rel)
		}
		delete(want, rel)
		return nil
	})
	for p := range want {
		t.Errorf("%s: %s is missing from the copy", step, p)
	}
}

func TestInteropLiveResyncConverges(t *testing.T) {
	checkout := resyncCheckout(t)
	work := t.TempDir()
	s := &resyncSource{checkout: checkout, work: work, www: filepath.Join(work, "www"),
		mtime: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	for _, d := range []string{"files", ".well-known"} {
		if err := os.MkdirAll(filepath.Join(s.www, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The port is known before anything is built: resync-build writes the
	// base URL into every loc.
	srv := httptest.NewServer(http.FileServer(http.Dir(s.www)))
	defer srv.Close()
	s.base = srv.URL
	cap := s.base + "/capabilitylist.xml"
	dest := filepath.Join(work, "copy")
	host := strings.ReplaceAll(strings.TrimPrefix(srv.URL, "http://"), ":", "+")

	sync := func(args ...string) convergeJSON {
		t.Helper()
		code, out, errOut := validateRun(t, "", append(append([]string{"sync", "--json", "--dest", dest}, args...), cap)...)
		r := decodeOneJSON[convergeJSON](t, out, "sync")
		if code != exitOK || len(r.Failed) != 0 || len(r.Refused) != 0 {
			t.Fatalf("sync %v: exit %d\n%s\n%s", args, code, out, errOut)
		}
		return r
	}
	// converged: the copy is the Source's files, and audit --dest agrees.
	converged := func(step string, files int) {
		t.Helper()
		s.sameAsCopy(t, step, dest)
		code, out, errOut := validateRun(t, "", "audit", "--json", "--dest", dest, cap)
		a := decodeOneJSON[interopAuditJSON](t, out, "audit")
		if code != exitOK || !a.InSync || a.Same != files {
			t.Errorf("%s: audit --dest: exit %d, %d of %d the same\n%s\n%s", step, code, a.Same, files, out, errOut)
		}
	}
	counts := func(step string, r convergeJSON, created, updated, deleted int) {
		t.Helper()
		why := ""
		if r.Reconcile != nil {
			why = r.Reconcile.Why
		}
		t.Logf("%s: mode %s, created %d, updated %d, deleted %d, unchanged %d; reconcile: %q", step, r.Mode, r.Created, r.Updated, r.Deleted, r.Unchanged, why)
		if r.Created != created || r.Updated != updated || r.Deleted != deleted {
			t.Errorf("%s: created %d, updated %d, deleted %d; want %d, %d, %d", step, r.Created, r.Updated, r.Deleted, created, updated, deleted)
		}
	}

	// 1. The first state, and a baseline. resync-build writes the locs
	// with the names as they are: spaces and a stray % unescaped.
	s.write(t, map[string]string{
		"100%.txt":                "one hundred per cent\n",
		"a file with spaces.txt":  "spaces\n",
		"résumé 日本語.txt":          "non-ASCII name\n",
		"sub dir/nested ü.txt":    "nested\n",
		"plain.txt":               "plain\n",
		"gone soon.txt":           "to be deleted\n",
		"same length.txt":         "version 1\n",
		"edited in place.txt":     "aaaa\n",
		"large/blob.bin":          strings.Repeat("0123456789abcdef", 4096),
		"untouched/kept file.txt": "never changes\n",
	})
	s.publish(t, true)
	if rl, err := os.ReadFile(filepath.Join(s.www, "resourcelist.xml")); err != nil || !strings.Contains(string(rl), "/files/100%.txt</loc>") {
		t.Fatalf("resync-build no longer writes the stray %% this test is about (%v):\n%s", err, rl)
	}
	// The first run starts from resync-build's Source Description.
	code, out, errOut := validateRun(t, "", "sync", "--json", "--dest", dest, s.base+"/.well-known/resourcesync")
	r := decodeOneJSON[convergeJSON](t, out, "sync")
	if code != exitOK || len(r.Failed) != 0 || len(r.Refused) != 0 {
		t.Fatalf("baseline: exit %d\n%s\n%s", code, out, errOut)
	}
	if r.Mode != "baseline" {
		t.Errorf("first run: mode %q, want baseline", r.Mode)
	}
	counts("baseline", r, 10, 0, 0)
	converged("baseline", 10)
	if b, err := os.ReadFile(filepath.Join(dest, host, "files", "100%25.txt")); err != nil || string(b) != "one hundred per cent\n" {
		t.Errorf("100%%.txt, copied as 100%%25.txt: %q, %v", b, err)
	}

	// 2. Changes: two updated (one keeps its length), two created (one with
	// a stray % and a space), two deleted; resync-build's Change List
	// announces them without a from, so rsx reconciles, and says why.
	s.write(t, map[string]string{
		"100%.txt":          "one hundred per cent, and more\n",
		"same length.txt":   "version 2\n",
		"new ü file.txt":    "created\n",
		"50% off sale.txt":  "half\n",
		"sub dir/added.txt": "added beside the nested one\n",
	})
	s.remove(t, "gone soon.txt", "plain.txt")
	s.publish(t, false)
	r = sync("--delete")
	counts("first changes", r, 3, 2, 2)
	if r.Reconcile == nil || !strings.Contains(r.Reconcile.Why, "no from") {
		t.Errorf("first changes: reconcile %+v, want the reason that the Change Lists give no from", r.Reconcile)
	}
	converged("first changes", 11)

	// 3. A file edited in place with its modification time kept (its
	// length and lastmod stay, only its digests change), a deleted file
	// published again, a created one deleted at once.
	old, err := os.Stat(filepath.Join(s.www, "files", "edited in place.txt"))
	if err != nil {
		t.Fatal(err)
	}
	s.write(t, map[string]string{"edited in place.txt": "bbbb\n", "gone soon.txt": "back again\n"})
	if err := os.Chtimes(filepath.Join(s.www, "files", "edited in place.txt"), old.ModTime(), old.ModTime()); err != nil {
		t.Fatal(err)
	}
	s.remove(t, "50% off sale.txt")
	s.publish(t, false)
	r = sync("--delete")
	counts("second changes", r, 1, 1, 1)
	converged("second changes", 11)

	// 4. Nothing changed: resync-build's Change List is empty, and
	// nothing is fetched.
	s.publish(t, false)
	r = sync("--delete")
	counts("no changes", r, 0, 0, 0)
	if r.Bytes != 0 {
		t.Errorf("no changes: %d bytes fetched", r.Bytes)
	}
	converged("no changes", 11)

	// 5. The copy is damaged (a file cut short), and the Source has moved
	// on; --mode baseline reconciles: it checks the other files, repairs
	// the damaged one and applies the change, fetching nothing else.
	cut := filepath.Join(dest, host, "files", "untouched", "kept file.txt")
	if err := os.WriteFile(cut, []byte("never"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.write(t, map[string]string{"a file with spaces.txt": "spaces, changed\n"})
	s.publish(t, false)
	r = sync("--delete", "--mode", "baseline")
	if r.Mode != "baseline" || r.Reconcile == nil || r.Reconcile.Repaired != 1 || r.Reconcile.Checked != 10 {
		t.Errorf("baseline on the copy: mode %s, reconcile %+v; want 10 checked (all but the changed one) and 1 repaired", r.Mode, r.Reconcile)
	}
	counts("baseline on the copy", r, 0, 2, 0)
	converged("baseline on the copy", 11)

	// 6. Damage that keeps the length, made right after the last check
	// (audit --dest recorded verified_at): only a hash finds it, and
	// --checksum hashes every file. The quick check of --mode baseline and
	// mode auto does not: it hashes a file only when its modification time
	// is more than two seconds (mtimeSlack) after the fetched_at or
	// verified_at recorded, kept to the second, so this damage goes
	// unnoticed by every later run without --checksum (not asserted here;
	// a known limit of the quick check).
	damaged := filepath.Join(dest, host, "files", "résumé 日本語.txt")
	if err := os.WriteFile(damaged, []byte("NON-ascii name\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = sync("--delete", "--checksum")
	if r.Reconcile == nil || r.Reconcile.Repaired != 1 || !strings.Contains(r.Reconcile.Why, "--checksum") {
		t.Errorf("--checksum: reconcile %+v, want 1 repaired", r.Reconcile)
	}
	counts("--checksum", r, 0, 1, 0)
	converged("--checksum", 11)
}
