package engine

import (
	"testing"
	"time"

	"rsx/dest/plan"
	"rsx/model"
)

// FuzzSpoolRecord: a record of the items' spool decodes to the item that was
// encoded, and any other bytes give an error or an item, never a panic.
func FuzzSpoolRecord(f *testing.F) {
	sp, err := newSpool(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	defer sp.close()
	it := Item{Item: plan.Item{Action: plan.Update, ID: 42, Reason: "md5 differs", Touch: true,
		Entry: plan.Entry{URI: "http://h/a b", Length: 12, Digests: "md5:00", Type: "text/plain", Change: "updated",
			Ref: makeRef(3, "/p"), Lastmod: time.Unix(1700000000, 5).UTC(), Datetime: time.Unix(1700000100, 0).UTC()}},
		Path: "h/a b"}
	if err := sp.add(&it); err != nil {
		f.Fatal(err)
	}
	f.Add(sp.buf)
	f.Add([]byte{})
	f.Add([]byte{1, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		var got Item
		if err := decodeItem(b, &got); err != nil {
			return
		}
		// What decodes encodes again to a record that decodes the same.
		sp2, err := newSpool(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		defer sp2.close()
		if err := sp2.add(&got); err != nil {
			t.Fatal(err)
		}
		var again Item
		if err := decodeItem(sp2.buf, &again); err != nil {
			t.Fatalf("re-encoded record: %v", err)
		}
		if again.Entry.URI != got.Entry.URI || again.Path != got.Path || again.ID != got.ID || !again.Entry.Lastmod.Equal(got.Entry.Lastmod) {
			t.Fatalf("%+v\n%+v", got, again)
		}
	})
}

func TestSpoolRoundTrip(t *testing.T) {
	sp, err := newSpool(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer sp.close()
	in := []Item{
		{Item: plan.Item{Action: plan.Create, Entry: plan.Entry{URI: "http://h/1", Length: -1}}, Path: "h/1"},
		{Item: plan.Item{Action: plan.PendingDelete, ID: 7, Entry: plan.Entry{URI: "http://h/2", Length: -1, Datetime: time.Date(2030, 1, 2, 3, 4, 5, 6, time.UTC)}}},
		// A write that takes over the path of a resource the Source deleted,
		// with the deletion's via (a copy of a copy).
		{Item: plan.Item{Action: plan.Create, Entry: plan.Entry{URI: "http://h/3", Length: 3}}, Path: "h/3",
			Takes: Taken{ID: 9, URI: "http://h//3", Path: "h/3", Deleted: true, Via: `{"href":"http://origin/3"}`}},
	}
	for i := range in {
		if err := sp.add(&in[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := sp.finish(); err != nil {
		t.Fatal(err)
	}
	var out []Item
	if err := sp.each(func(it *Item) error { out = append(out, *it); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(out) != 3 || out[2].Takes != in[2].Takes || out[0].Takes != (Taken{}) || out[0].Path != "h/1" || out[0].Entry.Length != -1 || out[1].ID != 7 || !out[1].Entry.Datetime.Equal(in[1].Entry.Datetime) || out[1].Action != plan.PendingDelete {
		t.Errorf("%+v", out)
	}
}

// FuzzPlainAbsolute: a loc taken as plain resolves to itself.
func FuzzPlainAbsolute(f *testing.F) {
	for _, s := range []string{"http://h/a", "https://h:8080/a/b.html?x=1&y=2", "http://h/a/./b", "http://h/a/..", "http://h", "http://h/.x", "http://H/A", "http://h/a;b=c,d", "http:///x", "http://h?q"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !plainAbsolute(s) {
			return
		}
		if got := model.ResolveHref("http://base.example/dir/doc.xml", s); got != s {
			t.Fatalf("%q resolves to %q", s, got)
		}
	})
}
