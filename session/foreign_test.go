package session

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"rsx/demo"
)

// The explorer's sync and audit go through the engine: a Change List on
// another host that names the demo Source's Capability List as its own is
// refused, the copy untouched.
func TestSyncRefusesAForeignDocument(t *testing.T) {
	srv, s := startDemo(t, demo.Options{Resources: 60, ListSize: 1000})
	capList := srv.URL + "/dataset1/capabilitylist.xml"
	entries := demoEntries(t, srv.URL+"/dataset1/resourcelist.xml")
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:ln rel="up" href="`+capList+`"/>
<rs:md capability="changelist" from="2020-01-01T00:00:00Z"/>
<url><loc>`+entries[0].Loc+`</loc><rs:md change="deleted" datetime="2020-01-02T00:00:00Z"/></url>
</urlset>
`)
	}))
	t.Cleanup(foreign.Close)
	dir := t.TempDir()
	ctx := context.Background()

	j := s.NewSync(SyncRequest{Dest: dir, Target: capList})
	if _, err := j.Plan(ctx, true); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Run(ctx); err != nil {
		t.Fatal(err)
	}
	j.Close()
	before := copyFiles(t, dir)

	k := s.NewSync(SyncRequest{Dest: dir, Target: foreign.URL + "/cl.xml"})
	_, err := k.Plan(ctx, true)
	k.Close()
	if err == nil || !strings.Contains(err.Error(), foreign.URL+"/cl.xml") || !strings.Contains(err.Error(), capList) {
		t.Fatalf("the foreign Change List: %v", err)
	}
	if _, err := s.AuditCopy(ctx, AuditRequest{Dest: dir, Target: foreign.URL + "/cl.xml"}); err == nil || !strings.Contains(err.Error(), "does not list it") {
		t.Errorf("audit of the foreign Change List: %v", err)
	}
	if after := copyFiles(t, dir); len(after) != len(before) {
		t.Errorf("%d files, were %d", len(after), len(before))
	}
}
