package engine

import (
	"slices"
	"testing"
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
