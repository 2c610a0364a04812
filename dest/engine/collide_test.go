package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"rsx/dest/store"
	"rsx/internal/s3test"
)

// runWith plans and runs target into the store that open opens, with n
// workers.
func runWith(t *testing.T, open func() store.Store, n int, target string, po PlanOptions) *Result {
	t.Helper()
	st := open()
	defer st.Close()
	s, err := Open(context.Background(), st, testClient(t), Options{Concurrency: n})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p, err := s.Plan(context.Background(), target, po)
	if err != nil {
		t.Fatalf("plan %s: %v", target, err)
	}
	defer p.Close()
	res, err := s.Run(context.Background(), p)
	if err != nil {
		t.Fatalf("run %s: %v", target, err)
	}
	return res
}

// auditWith audits the copy in the store that open opens.
func auditWith(t *testing.T, open func() store.Store, target string) *AuditReport {
	t.Helper()
	st := open()
	defer st.Close()
	s, err := Open(context.Background(), st, testClient(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rep, err := s.Audit(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// contents lists every file of a store's copy with its bytes, sorted.
func contents(t *testing.T, open func() store.Store) []string {
	t.Helper()
	st := open()
	defer st.Close()
	ctx := context.Background()
	var out []string
	err := st.Walk(ctx, func(fi store.FileInfo) error {
		r, err := st.Open(ctx, fi.Path)
		if err != nil {
			return err
		}
		b, err := io.ReadAll(r)
		r.Close()
		out = append(out, fi.Path+" = "+strings.TrimSpace(string(b)))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// collidingSource is a Source whose resources collide: two URIs of one
// path, and a file where another resource needs a folder. Each body names
// its URI's path.
func collidingSource(t *testing.T, paths ...string) *fakeSource {
	f := newFakeSource(t)
	f.setDoc("/cap.xml", capList(map[string]string{"resourcelist": "/rl.xml"}))
	f.list(paths...)
	return f
}

// list makes the Resource List list these resources (and serves them).
func (f *fakeSource) list(paths ...string) {
	var entries []string
	for _, p := range paths {
		body := []byte("from " + p + "\n")
		f.setRes(p, body)
		entries = append(entries, rlEntry(p, body, "2030-01-01T09:00:00Z"))
	}
	f.setDoc("/rl.xml", resourceList("2030-01-01T10:00:00Z", entries...))
}

// folderStore opens a folder destination.
func folderStore(t *testing.T) func() store.Store {
	dir := t.TempDir()
	return func() store.Store {
		st, err := store.OpenDir(dir, store.Options{Create: true})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
}

// bucketStore opens a bucket destination (skipping without an S3 server).
func bucketStore(t *testing.T, endpoint, prefix string) func() store.Store {
	dest := "s3://copies/" + prefix + "?endpoint=" + endpoint + "&region=us-east-1"
	cache := t.TempDir()
	return func() store.Store {
		st, err := store.Open(context.Background(), dest, store.Options{Getenv: s3Getenv, CacheDir: cache})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
}

// The winner of a path collision is the same whatever the number of
// workers and whatever the store: the smallest URI of a path, and the
// folder over the file. The losers are refused (not failures), each naming
// its winner, and an audit counts them outside the copy.
func TestCollisionWinnersAreDeterministic(t *testing.T) {
	// /r//same < /r/same (byte-wise: "/" < "s"), and /r/f is a file where
	// /r/f/x needs a folder; /r/g/x and /r/g need the same, listed the
	// other way round.
	paths := []string{"/r/same", "/r//same", "/r/f", "/r/f/x", "/r/g/x", "/r/g", "/r/plain"}
	// And many more, so that the workers race: pairs of one path listed
	// in both orders, and a file under which several need a folder.
	for i := range 30 {
		if i%2 == 0 {
			paths = append(paths, fmt.Sprintf("/p/%d", i), fmt.Sprintf("/p//%d", i))
		} else {
			paths = append(paths, fmt.Sprintf("/p//%d", i), fmt.Sprintf("/p/%d", i))
		}
		paths = append(paths, fmt.Sprintf("/d/x/%d", i))
		if i == 15 {
			paths = append(paths, "/d/x")
		}
	}
	f := collidingSource(t, paths...)
	host := f.hostDir()
	want := []string{
		host + "/r/f/x = from /r/f/x",
		host + "/r/g/x = from /r/g/x",
		host + "/r/plain = from /r/plain",
		host + "/r/same = from /r//same",
	}
	wantRefused := map[string]string{
		f.srv.URL + "/r/same": f.srv.URL + "/r//same",
		f.srv.URL + "/r/f":    f.srv.URL + "/r/f/x",
		f.srv.URL + "/r/g":    f.srv.URL + "/r/g/x",
		f.srv.URL + "/d/x":    f.srv.URL + "/d/x/0",
	}
	for i := range 30 {
		want = append(want, fmt.Sprintf("%s/p/%d = from /p//%d", host, i, i), fmt.Sprintf("%s/d/x/%d = from /d/x/%d", host, i, i))
		wantRefused[fmt.Sprintf("%s/p/%d", f.srv.URL, i)] = fmt.Sprintf("%s/p//%d", f.srv.URL, i)
	}
	slices.Sort(want)
	stores := map[string]func(t *testing.T) func() store.Store{"folder": folderStore}
	if s3test.Available() {
		endpoint, _ := startVersitygw(t, "copies")
		n := 0
		stores["bucket"] = func(t *testing.T) func() store.Store {
			n++
			return bucketStore(t, endpoint, fmt.Sprintf("c%d", n))
		}
	} else {
		t.Log("no S3 server: the folder store only")
	}
	for name, mk := range stores {
		for _, workers := range []int{1, 8} {
			for round := range 3 {
				t.Run(fmt.Sprintf("%s/%d workers/%d", name, workers, round), func(t *testing.T) {
					open := mk(t)
					res := runWith(t, open, workers, f.target(), PlanOptions{})
					if !res.OK() || res.Created != len(want) || res.FailedCount != 0 {
						t.Fatalf("created %d, refused %d, failed:%s", res.Created, res.Plan.Summary.Refused, failures(res))
					}
					if got := contents(t, open); !slices.Equal(got, want) {
						t.Errorf("files:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
					}
					checkRefused(t, res.Plan, wantRefused)
					rep := auditWith(t, open, f.target())
					if !rep.InSync() || rep.Collisions != len(wantRefused) || len(rep.Missing) != 0 || rep.Same != len(want) {
						t.Errorf("audit: in sync %v, collisions %d, missing %q, same %d", rep.InSync(), rep.Collisions, rep.Missing, rep.Same)
					}
					// Again: nothing to do, the same refusals.
					res = runWith(t, open, workers, f.target(), PlanOptions{})
					if !res.OK() || res.Created+res.Updated+res.Deleted != 0 {
						t.Errorf("second run: %+v:%s", res.Plan.Summary, failures(res))
					}
					checkRefused(t, res.Plan, wantRefused)
				})
			}
		}
	}
}

// checkRefused checks that the plan refuses exactly these URIs as
// collisions, each naming its winner.
func checkRefused(t *testing.T, p *Plan, want map[string]string) {
	t.Helper()
	got := map[string]bool{}
	for _, r := range p.Refused {
		winner, ok := want[r.URL]
		var cr *CollisionRefusal
		if !ok || r.Kind != KindCollision || !errors.As(r.Err, &cr) || cr.OtherURI != winner || !strings.Contains(r.Error(), winner) {
			t.Errorf("refused %s [%s]: %v", r.URL, r.Kind, r.Err)
		}
		got[r.URL] = true
	}
	if len(got) != len(want) || p.Summary.Collisions != len(want) {
		t.Errorf("refused %d (%d collisions), want %d", len(got), p.Summary.Collisions, len(want))
	}
}

// A later run in which a smaller URI needs a path the copy gives another
// takes the path over, so that the copy ends as one made at once; a
// resource the Source deleted holds no path against one it lists.
func TestCollisionTakeover(t *testing.T) {
	f := collidingSource(t, "/r/same", "/r/f", "/r//zz")
	open := folderStore(t)
	if res := runWith(t, open, 4, f.target(), PlanOptions{}); !res.OK() || res.Created != 3 {
		t.Fatalf("first: %d:%s", res.Created, failures(res))
	}
	// Now /r//same (smaller) and /r/f/x (a folder where /r/f is) appear;
	// /r//zz is deleted, and /r/zz (bigger, the same path) appears. A
	// baseline without --delete remembers the deletion, yet /r/zz gets
	// the path.
	f.list("/r/same", "/r//same", "/r/f", "/r/f/x", "/r/f/y", "/r/f/z/w", "/r/f/v", "/r/zz")
	res := runWith(t, open, 8, f.target(), PlanOptions{Mode: ModeBaseline})
	if !res.OK() || res.Created != 6 || res.Deleted != 1 {
		t.Fatalf("second: created %d, deleted %d, %+v:%s", res.Created, res.Deleted, res.Plan.Summary, failures(res))
	}
	host := f.hostDir()
	checkRefused(t, res.Plan, map[string]string{
		f.srv.URL + "/r/same": f.srv.URL + "/r//same",
		f.srv.URL + "/r/f":    f.srv.URL + "/r/f/v", // the smallest of those that need the folder
	})
	fresh := folderStore(t)
	runWith(t, fresh, 1, f.target(), PlanOptions{})
	got, want := contents(t, open), contents(t, fresh)
	if !slices.Equal(got, want) || !slices.Contains(got, host+"/r/same = from /r//same") || !slices.Contains(got, host+"/r/zz = from /r/zz") {
		t.Errorf("taken over:\n%s\nmade at once:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if rep := auditWith(t, open, f.target()); !rep.InSync() || rep.Collisions != 2 {
		t.Errorf("audit: %+v", rep)
	}
}

// The collision rule decides the same when the plan's path keys fill
// several runs of their spool (a plan of more than 65,536 new paths): a
// path needed twice, and a file where another needs a folder, are found
// across runs.
func TestCollisionsPastTheSpoolRun(t *testing.T) {
	defer func(r int) { pathKeysRun = r }(pathKeysRun)
	pathKeysRun = 3
	f := collidingSource(t, "/r/same", "/a/1", "/r/f", "/a/2", "/r/g/x", "/a/3", "/r//same", "/a/4", "/r/f/x", "/a/5", "/r/g", "/r/plain")
	open := folderStore(t)
	res := runWith(t, open, 4, f.target(), PlanOptions{})
	if !res.OK() || res.Created != 9 || res.FailedCount != 0 {
		t.Fatalf("created %d, refused %d, failed:%s", res.Created, res.Plan.Summary.Refused, failures(res))
	}
	checkRefused(t, res.Plan, map[string]string{
		f.srv.URL + "/r/same": f.srv.URL + "/r//same",
		f.srv.URL + "/r/f":    f.srv.URL + "/r/f/x",
		f.srv.URL + "/r/g":    f.srv.URL + "/r/g/x",
	})
}
