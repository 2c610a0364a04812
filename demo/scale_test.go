package demo

import (
	"runtime"
	"testing"
	"time"

	"rsx/model"
)

// TestTenMillionResources checks that the 10,000,000-resource demo costs no
// memory per resource and serves its parts quickly. It fetches one part only.
func TestTenMillionResources(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := New(Options{Resources: 10_000_000, ListSize: 50000})
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > 4<<20 {
		t.Errorf("New holds %d bytes for 10,000,000 resources", grown)
	}
	h := s.Handler()
	parts := 0
	for _, p := range []string{"/dataset1/resourcelist.xml", "/dataset2/resourcelist.xml"} {
		idx := parse(t, p, mustGet(t, h, p))
		if idx.Root != model.RootSitemapIndex {
			t.Fatalf("%s is not an index", p)
		}
		parts += len(idx.Entries)
	}
	// 8,000,000 articles and 2,000,000 images, plus the few resources created
	// during the history, which open one more part in each dataset.
	if parts < 200 || parts > 202 {
		t.Errorf("%d Resource List parts, want 200 (+2)", parts)
	}
	start := time.Now()
	body := mustGet(t, h, "/dataset1/resourcelist-0123.xml")
	took := time.Since(start)
	d := parse(t, "part 123", body)
	if len(d.Entries) != 50000 {
		t.Errorf("part 123 has %d entries", len(d.Entries))
	}
	first, last := d.Entries[0].Loc, d.Entries[len(d.Entries)-1].Loc
	if first != testBase+"/dataset1/res/6100001.html" || last != testBase+"/dataset1/res/6150000.xml" {
		t.Errorf("part 123 runs from %s to %s", first, last)
	}
	t.Logf("one 50,000-entry part: %d bytes in %v (%.0f MB/s)", len(body), took, float64(len(body))/took.Seconds()/1e6)
	// The Resource Dump of 8,000,000 resources needs an index; one part of it
	// is computed from at most 50,000 resources.
	rd := parse(t, "resourcedump.xml", mustGet(t, h, "/dataset1/resourcedump.xml"))
	if rd.Root != model.RootSitemapIndex || len(rd.Entries) != 160 {
		t.Errorf("Resource Dump: root %v, %d entries", rd.Root, len(rd.Entries))
	}
}
