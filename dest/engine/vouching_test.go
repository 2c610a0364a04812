package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rsx/demo"
)

// eachLoc finds the loc elements of a sitemap as a parser would: plain and
// prefixed, entities decoded, CDATA, white space trimmed; not the closing
// tags, not other elements' text.
func TestEachLoc(t *testing.T) {
	doc := `<?xml version="1.0"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9">
  <rs:ln rel="up" href="http://example.org/cap.xml"/>
  <url><loc>http://example.org/a</loc></url>
  <url><loc>
     http://example.org/b?x=1&amp;y=2
  </loc></url>
  <sm:url><sm:loc>http://example.org/c</sm:loc></sm:url>
  <url><loc><![CDATA[http://example.org/d&e]]></loc><rs:md hash="md5:00"/></url>
  <url><notloc>http://example.org/no</notloc></url>
  <url><loc>/relative</loc></url>
</urlset>`
	var got []string
	eachLoc([]byte(doc), func(loc string) bool { got = append(got, loc); return true })
	want := []string{"http://example.org/a", "http://example.org/b?x=1&y=2", "http://example.org/c", "http://example.org/d&e", "/relative"}
	if !slices.Equal(got, want) {
		t.Errorf("locs %q, want %q", got, want)
	}
	got = got[:0]
	eachLoc([]byte(doc), func(loc string) bool { got = append(got, loc); return len(got) < 2 })
	if len(got) != 2 {
		t.Errorf("fn's false did not stop the scan: %q", got)
	}
}

// A reconcile keeps, of the Resource List Index's parts, those that list a
// file it wrote (it kept every part it read again, once the Source's list
// had moved on), as many as its budget allows; the Source's other
// documents it read are kept.
func TestReconcileKeepsThePartsOfWhatItWrote(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 1000, ListSize: 50, Seed: 9})
	dir := t.TempDir()
	target := srv.URL + "/dataset1/capabilitylist.xml"
	if res := syncOnce(t, dir, testClient(t), target, PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	ctx := context.Background()
	isPart := func(u string) bool { return strings.Contains(u, "/resourcelist-0") }
	reconcile := func(budget int64) (written, parts, others int) {
		t.Helper()
		advance(t, srv.URL, 1) // a new at in every part
		all := files(t, dir)
		for _, f := range []string{all[0], all[len(all)/2], all[len(all)-1]} {
			if err := os.Remove(filepath.Join(dir, filepath.FromSlash(f))); err != nil {
				t.Fatal(err)
			}
		}
		s := openSession(t, dir, testClient(t), Options{})
		defer s.Close()
		s.capture.vouchBudget = budget
		p, err := s.Plan(ctx, target, PlanOptions{Mode: ModeBaseline, Delete: true})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		res, err := s.Run(ctx, p)
		if err != nil || !res.OK() || res.Plan.Summary.Repair != 3 {
			t.Fatalf("reconcile: %v %+v:%s", err, res.Plan.Summary, failures(res))
		}
		run, _, err := s.db.LastRun(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		docs, err := s.db.RunDocuments(ctx, run.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			if isPart(d.URL) {
				parts++
			} else {
				others++
			}
		}
		return res.Created + res.Updated, parts, others
	}
	written, parts, others := reconcile(vouchBudget)
	if parts == 0 || parts > written || parts >= 16 {
		t.Errorf("a reconcile that wrote %d files kept %d of the index's 17 parts", written, parts)
	}
	if others < 2 {
		t.Errorf("the reconcile kept %d of the Source's other documents (the Capability List, the index)", others)
	}
	// No budget: no part, the other documents still.
	written, parts, others = reconcile(1)
	if parts != 0 || others < 2 {
		t.Errorf("with no budget, a reconcile that wrote %d files kept %d parts and %d other documents", written, parts, others)
	}
}
