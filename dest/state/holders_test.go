package state

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// Holders names every row a path collides with, and how; ClaimReplacing
// lets a claim take over the row it names.
func TestHolders(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	src, _ := db.EnsureSource(ctx, "http://example.org/cap.xml")
	other, _ := db.EnsureSource(ctx, "http://example.net/cap.xml")
	w := db.NewWriter(WriterOptions{})
	for _, r := range []Resource{
		{SourceID: src.ID, URI: "http://h/A.html", Path: "h/A.html"},
		{SourceID: src.ID, URI: "http://h/dir/x", Path: "h/dir/x"},
		{SourceID: src.ID, URI: "http://h/dir/y", Path: "h/dir/y"},
		{SourceID: other.ID, URI: "http://o/f", Path: "o/f"},
	} {
		if err := w.PutResource(ctx, &r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.MarkDeleted(ctx, src.ID, "http://h/dir/y", time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	w.Close(ctx)
	describe := func(hs []Holder) string {
		var out []string
		for _, h := range hs {
			out = append(out, fmt.Sprintf("%s kind=%d below=%v deleted=%v src=%d", h.URI, h.Kind, h.Below, h.Deleted, h.SourceID))
		}
		return strings.Join(out, "; ")
	}
	for _, tc := range []struct {
		name      string
		foldCase  bool
		uri, path string
		want      string
	}{
		{"none", false, "http://h/B", "h/B", ""},
		{"its own", false, "http://h/A.html", "h/A.html", ""},
		{"the same path", false, "https://h/A.html", "h/A.html", fmt.Sprintf("http://h/A.html kind=1 below=false deleted=false src=%d", src.ID)},
		{"case only", true, "http://h/a.html", "h/a.html", fmt.Sprintf("http://h/A.html kind=2 below=false deleted=false src=%d", src.ID)},
		{"case only, case-sensitive", false, "http://h/a.html", "h/a.html", ""},
		{"a file at a folder", false, "http://h/A.html/z", "h/A.html/z", fmt.Sprintf("http://h/A.html kind=3 below=false deleted=false src=%d", src.ID)},
		{"files below", false, "http://h/dir", "h/dir", fmt.Sprintf("http://h/dir/x kind=3 below=true deleted=false src=%d; http://h/dir/y kind=3 below=true deleted=true src=%d", src.ID, src.ID)},
		{"another Source's", false, "http://x/f", "o/f", fmt.Sprintf("http://o/f kind=1 below=false deleted=false src=%d", other.ID)},
	} {
		for _, preload := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/preload %v", tc.name, preload), func(t *testing.T) {
				d := db.NewDetector(tc.foldCase)
				if preload {
					if err := d.Preload(ctx); err != nil {
						t.Fatal(err)
					}
				}
				hs, err := d.Holders(ctx, src.ID, tc.uri, tc.path)
				if got := describe(hs); err != nil || got != tc.want {
					t.Errorf("Holders: %v\n got %s\nwant %s", err, got, tc.want)
				}
				if d.Claims() != 0 {
					t.Error("Holders claimed")
				}
			})
		}
	}
	d := db.NewDetector(false)
	if err := d.Claim(ctx, src.ID, "http://h//A.html", "h/A.html"); err == nil {
		t.Error("a held path claimed")
	}
	if err := d.ClaimReplacing(ctx, src.ID, "http://h//A.html", "h/A.html", "http://h/A.html"); err != nil {
		t.Errorf("taking the path over: %v", err)
	}
	if err := d.ClaimReplacing(ctx, src.ID, "http://h/A.html/z", "h/A.html/z", "http://h/other"); err == nil {
		t.Error("a claim took over a row it does not name")
	}
}
