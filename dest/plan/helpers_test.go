package plan

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"rsx/dest/state"
)

func t0(minutes int) time.Time {
	return time.Date(2013, 1, 3, 0, 0, 0, 0, time.UTC).Add(time.Duration(minutes) * time.Minute)
}

// newState opens an empty state with one Source.
func newState(t testing.TB) (*state.DB, state.Source) {
	t.Helper()
	ctx := context.Background()
	db, err := state.Open(ctx, filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	src, err := db.EnsureSource(ctx, "http://example.org/capabilitylist.xml")
	if err != nil {
		t.Fatal(err)
	}
	return db, src
}

// put records resources of the Source.
func put(t testing.TB, db *state.DB, src state.Source, rs ...state.Resource) {
	t.Helper()
	ctx := context.Background()
	w := db.NewWriter(state.WriterOptions{})
	for _, r := range rs {
		r.SourceID = src.ID
		if r.Path == "" {
			r.Path = "example.org/" + r.URI[len("http://example.org/"):]
		}
		if err := w.PutResource(ctx, &r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

// views returns both State implementations of the Source, to run each test on both.
func views(t testing.TB, db *state.DB, src state.Source) map[string]State {
	t.Helper()
	idx, err := db.LoadIndex(context.Background(), src.ID)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]State{"view": db.View(src.ID), "index": idx}
}

type collected struct {
	items []Item
	byURI map[string]Item
}

func (c *collected) emit(it Item) error {
	c.items = append(c.items, it)
	if c.byURI == nil {
		c.byURI = map[string]Item{}
	}
	c.byURI[it.Entry.URI] = it
	return nil
}

func u(path string) string { return "http://example.org/" + path }
