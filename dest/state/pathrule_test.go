package state

import (
	"context"
	"slices"
	"testing"
)

// RowsToRename finds the rows of a Source whose paths hold a character
// that PathRule writes as %XX, and no other (plain ASCII, printable
// non-ASCII, another Source's); PathsChecked says whether a run recorded
// that none is left.
func TestRowsToRenameAndPathsChecked(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	src, _ := db.EnsureSource(ctx, "http://h/cap.xml")
	other, _ := db.EnsureSource(ctx, "http://o/cap.xml")
	w := db.NewWriter(WriterOptions{})
	paths := map[string]bool{ // path → to rename
		"h/plain.txt":           false,
		"h/café/日本.txt":         false,
		"h/a%E2%80%AEb.txt":     false,
		"h/evil\u202egpj.exe":   true,
		"h/csi\u009b2J/x.txt":   true,
		"h/zw\u200bsp.txt":      true,
		"h/line\u2028sep.txt":   true,
		"h/tag\U000e0041.txt":   true,
		"h/nbsp\u00a0space.txt": false,
	}
	for p := range paths {
		if err := w.PutResource(ctx, &Resource{SourceID: src.ID, URI: "http://h/" + p, Path: p, Length: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.PutResource(ctx, &Resource{SourceID: other.ID, URI: "http://o/x", Path: "o/evil\u202e", Length: 1}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for p, rename := range paths {
		if rename {
			want = append(want, p)
		}
	}
	more, err := db.RowsToRename(ctx, src.ID, 100, func(r *Resource) error { got = append(got, r.Path); return nil })
	slices.Sort(got)
	slices.Sort(want)
	if err != nil || more || !slices.Equal(got, want) {
		t.Errorf("RowsToRename = %q, more %v, %v; want %q", got, more, err, want)
	}
	got = nil
	if more, err := db.RowsToRename(ctx, src.ID, 2, func(r *Resource) error { got = append(got, r.Path); return nil }); err != nil || !more || len(got) != 2 {
		t.Errorf("with a limit of 2: %q, more %v, %v", got, more, err)
	}
	if ok, err := db.PathsChecked(ctx, src.ID); ok || err != nil {
		t.Errorf("PathsChecked before any record: %v, %v", ok, err)
	}
	w = db.NewWriter(WriterOptions{})
	if err := w.SetPathsChecked(ctx, src.ID); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := db.PathsChecked(ctx, src.ID); !ok || err != nil {
		t.Errorf("PathsChecked after the record: %v, %v", ok, err)
	}
	if ok, _ := db.PathsChecked(ctx, other.ID); ok {
		t.Error("another Source's paths are recorded as checked")
	}
}
