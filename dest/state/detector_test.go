package state

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestDetector(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	src, _ := db.EnsureSource(ctx, "http://example.org/cap.xml")
	other, _ := db.EnsureSource(ctx, "http://example.net/cap.xml")
	w := db.NewWriter(WriterOptions{})
	for _, r := range []Resource{
		{SourceID: src.ID, URI: "http://h/A.html", Path: "h/A.html"},
		{SourceID: src.ID, URI: "http://h/dir/x", Path: "h/dir/x"},
		{SourceID: other.ID, URI: "http://o/f", Path: "o/f"},
		{SourceID: src.ID, URI: "http://h/Data/x", Path: "h/Data/x"},
	} {
		if err := w.PutResource(ctx, &r); err != nil {
			t.Fatal(err)
		}
	}
	w.Close(ctx)

	tests := []struct {
		name       string
		foldCase   bool
		source     int64
		uri, path  string
		kind       CollisionKind // 0: no collision
		otherURI   string
		otherSrc   int64
		wantInText string
	}{
		{"its own row", false, src.ID, "http://h/A.html", "h/A.html", 0, "", 0, ""},
		{"a new path", false, src.ID, "http://h/B.html", "h/B.html", 0, "", 0, ""},
		{"the same path", false, src.ID, "https://h/A.html", "h/A.html", SamePath, "http://h/A.html", src.ID, "is already the path of http://h/A.html"},
		{"the same path, another Source", false, src.ID, "http://x/f", "o/f", SamePath, "http://o/f", other.ID, ""},
		{"case only, case-sensitive", false, src.ID, "http://h/a.html", "h/a.html", 0, "", 0, ""},
		{"case only, case-insensitive", true, src.ID, "http://h/a.html", "h/a.html", CaseOnly, "http://h/A.html", src.ID, "differs only by case"},
		{"a file where a folder is", false, src.ID, "http://h/dir", "h/dir", FileFolder, "http://h/dir/x", src.ID, "is a folder that holds h/dir/x"},
		{"a folder where a file is", false, src.ID, "http://h/A.html/y", "h/A.html/y", FileFolder, "http://h/A.html", src.ID, "needs h/A.html as a folder"},
		{"a file where a folder is, other case", false, src.ID, "http://h/data", "h/data", 0, "", 0, ""},
		{"a file where a folder is, folding case", true, src.ID, "http://h/data", "h/data", FileFolder, "http://h/Data/x", src.ID, ""},
		{"a folder where a file is, folding case", true, src.ID, "http://h/a.HTML/z", "h/a.HTML/z", FileFolder, "http://h/A.html", src.ID, ""},
		{"a sibling with a common prefix", false, src.ID, "http://h/dir2", "h/dir2", 0, "", 0, ""},
		{"a sibling sorting between", false, src.ID, "http://h/dir.x", "h/dir.x", 0, "", 0, ""},
	}
	for _, preload := range []bool{false, true} {
		for _, tc := range tests {
			name := tc.name
			if preload {
				name += ", preloaded"
			}
			t.Run(name, func(t *testing.T) {
				d := db.NewDetector(tc.foldCase)
				if preload {
					if err := d.Preload(ctx); err != nil {
						t.Fatal(err)
					}
				}
				err := d.Claim(ctx, tc.source, tc.uri, tc.path)
				if tc.kind == 0 {
					if err != nil {
						t.Fatalf("Claim: %v", err)
					}
					if d.Claims() != 1 {
						t.Errorf("claims %d", d.Claims())
					}
					return
				}
				var ce *CollisionError
				if !errors.As(err, &ce) || ce.Kind != tc.kind || ce.OtherURI != tc.otherURI || ce.OtherSource != tc.otherSrc {
					t.Fatalf("Claim: %v (%+v), want kind %d with %s", err, ce, tc.kind, tc.otherURI)
				}
				if tc.wantInText != "" && !strings.Contains(err.Error(), tc.wantInText) {
					t.Errorf("message %q lacks %q", err, tc.wantInText)
				}
				if d.Claims() != 0 {
					t.Errorf("a refused claim is held")
				}
			})
		}
	}
}

func TestDetectorInFlightClaims(t *testing.T) {
	for _, preload := range []bool{false, true} {
		t.Run(map[bool]string{false: "queries", true: "preloaded"}[preload], func(t *testing.T) { testInFlightClaims(t, preload) })
	}
}

// testInFlightClaims: claims collide with each other, and a path recorded
// (its claim released) collides through the state, also when the detector
// preloaded the state's paths before it was recorded.
func testInFlightClaims(t *testing.T, preload bool) {
	ctx := context.Background()
	db := openTemp(t)
	src, _ := db.EnsureSource(ctx, "http://example.org/cap.xml")
	d := db.NewDetector(true)
	if preload {
		if err := d.Preload(ctx); err != nil {
			t.Fatal(err)
		}
	}
	claim := func(uri, path string) error { return d.Claim(ctx, src.ID, uri, path) }
	if err := claim("http://h/a/b", "h/a/b"); err != nil {
		t.Fatal(err)
	}
	if err := claim("http://h/a/b", "h/a/b"); err != nil {
		t.Errorf("the same resource claiming again: %v", err)
	}
	var ce *CollisionError
	for _, c := range []struct {
		uri, path string
		kind      CollisionKind
	}{
		{"http://h/other", "h/a/b", SamePath},
		{"http://h/A/B", "h/A/B", CaseOnly},
		{"http://h/a", "h/a", FileFolder},
		{"http://h/A", "h/A", FileFolder},
		{"http://h/a/b/c", "h/a/b/c", FileFolder},
	} {
		if err := claim(c.uri, c.path); !errors.As(err, &ce) || ce.Kind != c.kind {
			t.Errorf("claim %s: %v, want kind %d", c.path, err, c.kind)
		}
	}
	if err := claim("http://h/a/c", "h/a/c"); err != nil {
		t.Errorf("a sibling: %v", err)
	}

	// Recorded by a Writer with the detector: released on commit, then found
	// in the state instead.
	w := db.NewWriter(WriterOptions{Detector: d})
	r := Resource{SourceID: src.ID, URI: "http://h/a/b", Path: "h/a/b"}
	w.PutResource(ctx, &r)
	if d.Claims() != 2 {
		t.Errorf("claims %d before the commit", d.Claims())
	}
	w.Close(ctx)
	if d.Claims() != 1 {
		t.Errorf("claims %d after the commit", d.Claims())
	}
	if err := claim("http://h/other", "h/a/b"); !errors.As(err, &ce) || ce.Kind != SamePath {
		t.Errorf("after the commit: %v", err)
	}
	// An abandoned write releases its claim.
	d.Release("h/a/c")
	if d.Claims() != 0 {
		t.Errorf("claims %d after Release", d.Claims())
	}
	if err := claim("http://h/a/c/d", "h/a/c/d"); err != nil {
		t.Errorf("after Release: %v", err)
	}
	d.Release("never/claimed")
}
