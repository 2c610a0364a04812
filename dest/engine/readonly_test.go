package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"rsx/demo"
	"rsx/dest/store"
)

// snapshotTree describes every file and folder under root (the destination's
// own .rsx too): path, kind, size and modification time. Two snapshots are
// equal only when nothing under root was made, removed, written or renamed;
// it holds for root, whom file modes do not stop.
func snapshotTree(t testing.TB, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		out[p] = fmt.Sprintf("%v %d %d", fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func assertSameTree(t testing.TB, before, after map[string]string) {
	t.Helper()
	for p, b := range before {
		if a, ok := after[p]; !ok {
			t.Errorf("%s was removed", p)
		} else if a != b {
			t.Errorf("%s changed: %s → %s", p, b, a)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s was made", p)
		}
	}
}

// openReadOnly opens dest read-only, as audit of a read-only copy and a dry
// run do.
func openReadOnly(t testing.TB, dest string, o store.Options) (*Dest, store.Store) {
	t.Helper()
	o.ReadOnly, o.TempDir = true, t.TempDir()
	st, err := store.Open(context.Background(), dest, o)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), st, testClient(t), Options{})
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	return s, st
}

// TestReadOnlySessionWritesNothing: a read-only session plans and audits a
// copy and writes nothing to it; its state is opened read-only, so that a
// write would fail; the audit says what it did not record.
func TestReadOnlySessionWritesNothing(t *testing.T) {
	ctx := context.Background()
	srv := startDemo(t, demo.Options{Resources: 200, Seed: 5})
	target := srv.URL + "/dataset1/capabilitylist.xml"
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), target, PlanOptions{}); !res.OK() || res.Created == 0 {
		t.Fatalf("baseline: %+v%s", res.Plan.Summary, failures(res))
	}
	advance(t, srv.URL, 3)
	before := snapshotTree(t, dir)

	s, st := openReadOnly(t, dir, store.Options{})
	if !s.ReadOnly() || !s.DB().ReadOnly() {
		t.Errorf("session read-only %v, state read-only %v", s.ReadOnly(), s.DB().ReadOnly())
	}
	if _, err := s.DB().EnsureSource(ctx, "http://example.org/other/capabilitylist.xml"); err == nil {
		t.Error("the read-only state took a write")
	}
	p, err := s.Plan(ctx, target, PlanOptions{Delete: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.Mode != ModeIncremental || p.Summary.Work() == 0 {
		t.Errorf("plan %s %+v", p.Mode, p.Summary)
	}
	if _, err := s.Run(ctx, p); !errors.Is(err, store.ErrReadOnly) {
		t.Errorf("Run of a read-only session: %v", err)
	}
	p.Close()
	rep, err := s.Audit(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Hashed == 0 || !strings.Contains(strings.Join(rep.Warnings, "\n"), "not marked verified") {
		t.Errorf("audit: hashed %d, warnings %q", rep.Hashed, rep.Warnings)
	}
	// Another read-only run goes on beside it; a run that writes does not.
	s2, st2 := openReadOnly(t, dir, store.Options{})
	s2.Close()
	st2.Close()
	assertSameTree(t, before, snapshotTree(t, dir))
	w, err := store.OpenDir(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var le *store.LockedError
	if _, err := Open(ctx, w, testClient(t), Options{}); !errors.As(err, &le) {
		t.Errorf("a writing run beside a read-only one: %v", err)
	}
	w.Close()
	s.Close()
	st.Close()
}

// TestReadOnlySessionOfNoDestination: a dry run into a folder that does not
// exist yet plans everything as new and makes nothing.
func TestReadOnlySessionOfNoDestination(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 100, Seed: 6})
	dir := filepath.Join(t.TempDir(), "copy")
	s, st := openReadOnly(t, dir, store.Options{Create: true})
	defer st.Close()
	defer s.Close()
	p, err := s.Plan(context.Background(), srv.URL+"/dataset1/capabilitylist.xml", PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Mode != ModeBaseline || p.Summary.Create == 0 || p.Summary.Unchanged != 0 {
		t.Errorf("plan %s %+v", p.Mode, p.Summary)
	}
	if _, err := os.Lstat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the destination was made: %v", err)
	}
	// Without Create (an audit), a folder that is not there is an error.
	if _, err := store.Open(context.Background(), dir, store.Options{ReadOnly: true}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("read-only open of a missing folder for an audit: %v", err)
	}
}

// TestS3ReadOnlyWritesNothing: a dry run and an audit of a bucket write no
// object, not even for a moment (the lock, its probe): no request but GET
// and HEAD reaches the server, and where it keeps objects as files
// (versitygw), its own folder of the bucket is unchanged, folders' times
// included.
func TestS3ReadOnlyWritesNothing(t *testing.T) {
	root := t.TempDir()
	gw := startS3(t, "copies", root)
	srv := startDemo(t, demo.Options{Resources: 200, Seed: 7})
	target := srv.URL + "/dataset2/capabilitylist.xml"
	dest := "s3://copies/demo?endpoint=" + gw.Endpoint + "&region=us-east-1"
	if res := s3Sync(t, dest, t.TempDir(), target, PlanOptions{}); !res.OK() || res.Created == 0 {
		t.Fatalf("baseline: %+v%s", res.Plan.Summary, failures(res))
	}
	advance(t, srv.URL, 3)
	ctx := context.Background()
	var mu sync.Mutex
	var writes []string
	u, _ := url.Parse(gw.Endpoint)
	proxy := httputil.NewSingleHostReverseProxy(u)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			mu.Lock()
			writes = append(writes, r.Method+" "+r.URL.String())
			mu.Unlock()
		}
		proxy.ServeHTTP(w, r)
	}))
	defer front.Close()
	dest = "s3://copies/demo?endpoint=" + front.URL + "&region=us-east-1"
	for _, where := range []string{dest, "s3://copies/empty?endpoint=" + front.URL + "&region=us-east-1"} {
		var before map[string]string
		if gw.Files != "" {
			before = snapshotTree(t, root)
		}
		s, st := openReadOnly(t, where, store.Options{Getenv: s3Getenv, CacheDir: t.TempDir()})
		p, err := s.Plan(ctx, target, PlanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if where == dest && p.Mode != ModeIncremental || where != dest && (p.Mode != ModeBaseline || p.Summary.Create == 0) {
			t.Errorf("%s: plan %s %+v", where, p.Mode, p.Summary)
		}
		p.Close()
		if where == dest {
			if rep, err := s.Audit(ctx, target); err != nil || rep.Hashed == 0 {
				t.Errorf("audit: %v %+v", err, rep)
			}
		}
		s.Close()
		st.Close()
		mu.Lock()
		if len(writes) > 0 {
			t.Errorf("%s: a read-only session sent %q", where, writes)
		}
		mu.Unlock()
		if gw.Files != "" {
			assertSameTree(t, before, snapshotTree(t, root))
		}
	}
}
