package demo

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"rsx/model"
)

// TestBrokenFaults checks that every seeded error is where the broken demo says.
func TestBrokenFaults(t *testing.T) {
	s := New(Options{Broken: true, Seed: 11})
	h := s.Handler()
	found := map[entryFault]bool{}

	// 503, then success on retry.
	if c := get(t, h, "/dataset1/resourcelist-0002.xml").Code; c != http.StatusServiceUnavailable {
		t.Errorf("first request for part 2: %d, want 503", c)
	}
	if c := get(t, h, "/dataset1/resourcelist-0002.xml").Code; c != http.StatusOK {
		t.Errorf("retry of part 2: %d, want 200", c)
	}
	if d := parse(t, "part 3", mustGet(t, h, "/dataset1/resourcelist-0003.xml")); d.MD.Capability != model.CapResourceDump {
		t.Errorf("part 3 capability %q", d.MD.Capability)
	}
	idx := parse(t, "index", mustGet(t, h, "/dataset1/resourcelist.xml"))
	if last := idx.Entries[len(idx.Entries)-1].Loc; get(t, h, last).Code != http.StatusNotFound {
		t.Errorf("the index's last part %s is served", last)
	}

	part := parse(t, "part 1", mustGet(t, h, "/dataset1/resourcelist-0001.xml"))
	for _, e := range part.Entries {
		switch {
		case e.LocRaw != "":
			found[faultWhitespaceLoc] = true
		case !strings.HasPrefix(e.Loc, "http://"):
			found[faultRelativeLoc] = true
		case strings.HasSuffix(e.Loc, "/broken/loop-a"):
			found[faultRedirectLoop] = true
			next := get(t, h, e.Loc)
			back := get(t, h, next.Header().Get("Location"))
			if next.Code != http.StatusFound || back.Header().Get("Location") != e.Loc {
				t.Errorf("no redirect loop at %s", e.Loc)
			}
		case strings.Contains(e.MD.HashRaw, "not-hex"):
			found[faultHashSyntax] = true
		case len(e.MD.Extra) > 0 && e.MD.Extra[0].Prefix == "rs":
			found[faultPrefixedAttr] = true
		case !e.Lastmod.OK:
			found[faultDatetime] = true
		}
		for _, l := range e.Links {
			if l.Rel == "duplicate" && !l.PriOK {
				found[faultPri] = true
			}
		}
		if !strings.HasPrefix(e.Loc, testBase+"/dataset1/res/") || e.LocRaw != "" || strings.Contains(e.MD.HashRaw, "not-hex") {
			continue
		}
		id, _ := s.parseResourceName(1, e.Loc[strings.LastIndexByte(e.Loc, '/')+1:], true)
		if s.faults.slow(1, id) {
			found[faultSlow] = true
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			req := httptest.NewRequestWithContext(ctx, http.MethodGet, e.Loc, nil)
			rec := httptest.NewRecorder()
			start := time.Now()
			h.ServeHTTP(rec, req)
			cancel()
			if took := time.Since(start); took < 90*time.Millisecond || took > slowDelay*5/6 || rec.Body.Len() != 0 {
				t.Errorf("slow resource answered in %v with %d bytes", took, rec.Body.Len())
			}
			continue
		}
		rec := get(t, h, e.Loc)
		v := model.NewVerifier(e.MD.Hash)
		v.Write(rec.Body.Bytes())
		if !v.OK() {
			found[faultHashMismatch] = true
		}
		if e.MD.Length != int64(rec.Body.Len()) {
			found[faultLength] = true
		}
		if e.MD.Type != "" && e.MD.Type != rec.Header().Get("Content-Type") {
			found[faultType] = true
		}
		for _, l := range e.Links {
			if l.Rel == "duplicate" && strings.Contains(l.Href, "/mirror2/") && bytes.Equal(mustGet(t, h, l.Href), rec.Body.Bytes()) {
				t.Errorf("mirror %s is not stale", l.Href)
			}
		}
	}
	for f := faultHashSyntax; f < numEntryFaults; f++ {
		if !found[f] {
			t.Errorf("fault %q not found in part 1", f)
		}
	}

	// Change Lists and their index.
	cl := func(k string) *model.Document {
		return parse(t, k, mustGet(t, h, "/dataset1/changelist/"+k+".xml"))
	}
	if d := cl("0001"); d.MD.At.Raw == "" {
		t.Error("Change List 1 has no at")
	}
	d2 := cl("0002")
	if hdrLink(&d2.Header, "up") != "" {
		t.Error("Change List 2 has an up link")
	}
	if len(d2.Entries) > 1 && !d2.Entries[1].MD.Datetime.Time.Before(d2.Entries[0].MD.Datetime.Time) {
		t.Error("Change List 2 is in order")
	}
	if d := cl("0003"); !d.Entries[0].MD.Datetime.Time.Before(d.MD.From.Time) {
		t.Error("Change List 3's first change is not before from")
	}
	ci := parse(t, "changelist.xml", mustGet(t, h, "/dataset1/changelist.xml"))
	open := 0
	for k, e := range ci.Entries {
		if e.MD.Until.Raw == "" {
			open++
		}
		if k > 0 && ci.Entries[k-1].MD.Until.Raw != "" && ci.Entries[k-1].MD.Until.Raw == e.MD.From.Raw && k < 3 {
			t.Errorf("no gap or overlap before list %d", k+1)
		}
	}
	if open != 2 {
		t.Errorf("%d open lists in the index, want 2", open)
	}

	// Packages.
	z := mustGet(t, h, "/dataset1/resourcedump/part-0001.zip")
	man, members, _ := zipManifest(t, "part 1", z)
	if _, ok := members["../../evil.txt"]; !ok {
		t.Error("no traversal member in package 1")
	}
	if !bytes.Contains(man, []byte(`path="/../../etc/passwd"`)) {
		t.Error("no escaping path in the manifest of package 1")
	}
	z2 := mustGet(t, h, "/dataset1/resourcedump/part-0002.zip")
	man2, _, _ := zipManifest(t, "part 2", z2)
	if bytes.Equal(man2, mustGet(t, h, "/dataset1/resourcedump/part-0002-manifest.xml")) {
		t.Error("the contents copy of package 2 matches its manifest")
	}
	rd2 := parse(t, "dataset2 dump", mustGet(t, h, "/dataset2/resourcedump.xml"))
	if up := hdrLink(&rd2.Header, "up"); get(t, h, up).Code != http.StatusNotFound {
		t.Errorf("dataset 2 Resource Dump up link %s resolves", up)
	}
}

// TestBrokenDocumentsAreWellFormed: the faults are all in values and structure,
// never in the XML itself.
func TestBrokenDocumentsAreWellFormed(t *testing.T) {
	docs := crawlTolerant(t, New(Options{Broken: true}).Handler(), true)
	served := 0
	for _, d := range docs {
		if d != nil {
			served++
		}
	}
	if served < 40 || served == len(docs) {
		t.Errorf("%d of %d documents served", served, len(docs))
	}
}

// TestBrokenOnlyWhenAsked checks that the faults stay out of the normal demo.
func TestBrokenOnlyWhenAsked(t *testing.T) {
	s := New(Options{Seed: 11})
	h := s.Handler()
	for i := 0; i < 2; i++ {
		if c := get(t, h, "/dataset1/resourcelist-0002.xml").Code; c != http.StatusOK {
			t.Fatalf("part 2: %d", c)
		}
	}
	part := parse(t, "part 1", mustGet(t, h, "/dataset1/resourcelist-0001.xml"))
	for _, e := range part.Entries {
		for _, l := range e.Links {
			if l.Rel == "duplicate" && !bytes.Equal(mustGet(t, h, l.Href), mustGet(t, h, e.Loc)) {
				t.Errorf("mirror %s differs from %s", l.Href, e.Loc)
			}
		}
	}
}
