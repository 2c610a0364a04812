package engine

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"rsx/demo"
	"rsx/dest/store"
)

// brokenStore is a folder whose writes of some paths fail, as a disk that
// fails does: its Writer for them is one already abandoned, so that the
// folder's own Writer refuses the bytes (a *store.WriteError).
type brokenStore struct {
	store.Store
	broken func(path string) bool
}

func (b brokenStore) Create(ctx context.Context, p string, m store.Meta) (store.Writer, error) {
	w, err := b.Store.Create(ctx, p, m)
	if err == nil && b.broken(p) {
		w.Abort()
	}
	return w, err
}

// A write to the destination that fails is the destination's failure
// (kind write), whether the bytes come from the Source or from a dump's
// package, and never taken for the Source's: told by its type
// (*store.WriteError), not by the words of its message.
func TestADestinationWriteErrorIsAWriteFailure(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 60, PackageSize: 20, Seed: 5})
	target := srv.URL + "/dataset1/capabilitylist.xml"
	for _, from := range []From{FromList, FromDump} {
		t.Run(string(from), func(t *testing.T) {
			dir := t.TempDir()
			st, err := store.OpenDir(dir, store.Options{Create: true})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			var n atomic.Int64
			bs := brokenStore{Store: st, broken: func(string) bool { return n.Add(1)%2 == 0 }}
			s, err := Open(context.Background(), bs, testClient(t), Options{Now: fixtureClock})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			p, err := s.Plan(context.Background(), target, PlanOptions{BaselineFrom: from})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			res, err := s.Run(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			if res.FailedCount == 0 || res.Created == 0 {
				t.Fatalf("created %d, failed %d:%s", res.Created, res.FailedCount, failures(res))
			}
			for _, f := range res.Failed {
				var we *store.WriteError
				if f.Kind != KindWrite || !errors.As(f.Err, &we) {
					t.Errorf("%s: kind %s: %v", f.URL, f.Kind, f.Err)
				}
			}
			if res.Stopped != "" {
				t.Errorf("stopped: %s", res.Stopped)
			}
		})
	}
}
