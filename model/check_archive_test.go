package model

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCheckArchiveDocuments: the archive documents written from the Archives
// text validate with no problem at all, hints included.
func TestCheckArchiveDocuments(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(chkConformanceDir, "valid", "archives_*.xml"))
	if len(files) < 7 {
		t.Fatalf("%d archive documents in valid/, want 7", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r := chkValidateFileHints(t, f)
			if len(r.Problems) != 0 || r.Errors+r.Warnings != 0 {
				t.Errorf("want no problem:\n%s", chkDescribe(r))
			}
			if !strings.Contains(r.Title, "Archive") && !strings.Contains(f, "capabilitylist") && !strings.Contains(f, "archives_link") {
				t.Errorf("title %q", r.Title)
			}
		})
	}
}

func chkValidateFileHints(t *testing.T, path string) *Report {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return Validate(bytes.NewReader(data), CheckOptions{Hints: true})
}

// TestCheckArchives pins what each archive rule and each core rule says of
// archive documents.
func TestCheckArchives(t *testing.T) {
	const (
		set  = `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">`
		idx  = `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">`
		up   = `<rs:ln rel="up" href="http://example.net/capabilitylist.xml"/>`
		loc  = `<loc>http://example.net/doc.xml</loc>`
		loc2 = `<loc>http://example.net/doc2.xml</loc>`
	)
	md := func(c string) string { return `<rs:md capability="` + c + `"/>` }
	tests := []struct {
		name, doc string
		want      []string // rules, sorted
		section   string   // section of the first problem, when set
	}{
		{"Change List Archive entry with at", set + up + md("changelist-archive") +
			`<url>` + loc + `<rs:md at="2024-01-01T00:00:00Z" from="2024-01-01T00:00:00Z"/></url></urlset>`, []string{"entry-time-not-used"}, "A"},
		{"Resource List Archive entry with from and until", set + up + md("resourcelist-archive") +
			`<url>` + loc + `<rs:md at="2024-01-01T00:00:00Z" from="2024-01-01T00:00:00Z" until="2024-01-02T00:00:00Z"/></url></urlset>`, []string{"entry-time-not-used"}, ""},
		{"Resource Dump Archive entry without at", set + up + md("resourcedump-archive") +
			`<url>` + loc + `<rs:md completed="2024-01-01T00:00:00Z"/></url></urlset>`, []string{"archive-entry-at-missing"}, "AR4"},
		{"Resource List Archive entry without rs:md", set + up + md("resourcelist-archive") +
			`<url>` + loc + `</url></urlset>`, []string{"archive-entry-at-missing"}, "AR3"},
		{"Change Dump Archive entry without from", set + up + md("changedump-archive") +
			`<url>` + loc + `<rs:md until="2024-01-01T00:00:00Z"/></url></urlset>`, []string{"archive-entry-from-missing"}, "AR6"},
		{"Change List Archive entry: until before from", set + up + md("changelist-archive") +
			`<url>` + loc + `<rs:md from="2024-01-02T00:00:00Z" until="2024-01-01T00:00:00Z"/></url></urlset>`, []string{"until-before-from"}, ""},
		{"Resource Dump Archive entry: completed before at", set + up + md("resourcedump-archive") +
			`<url>` + loc + `<rs:md at="2024-01-02T00:00:00Z" completed="2024-01-01T00:00:00Z"/></url></urlset>`, []string{"completed-before-at"}, ""},
		{"Change List Archive entries in any order, open or not", set + up + md("changelist-archive") +
			`<url>` + loc + `<rs:md from="2024-01-02T00:00:00Z"/></url>` +
			`<url>` + loc2 + `<rs:md from="2024-01-01T00:00:00Z" until="2024-01-02T00:00:00Z"/></url></urlset>`, nil, ""},
		{"entry naming the archived capability", set + up + md("changelist-archive") +
			`<url>` + loc + `<rs:md capability="changelist" from="2024-01-01T00:00:00Z"/></url></urlset>`, nil, ""},
		{"entry naming another capability", set + up + md("changelist-archive") +
			`<url>` + loc + `<rs:md capability="changedump" from="2024-01-01T00:00:00Z"/></url></urlset>`, []string{"entry-capability-unexpected"}, ""},
		{"archive index entry naming the archive", idx + up + md("changelist-archive") +
			`<sitemap>` + loc + `<rs:md capability="changelist-archive"/></sitemap></sitemapindex>`, nil, ""},
		{"archive index entry naming the archived capability", idx + up + md("changelist-archive") +
			`<sitemap>` + loc + `<rs:md capability="changelist"/></sitemap></sitemapindex>`, []string{"entry-capability-unexpected"}, ""},
		{"archive index entry with from", idx + up + md("changelist-archive") +
			`<sitemap>` + loc + `<rs:md from="2024-01-01T00:00:00Z"/></sitemap></sitemapindex>`, []string{"entry-time-not-used"}, ""},
		{"archive without up link", set + md("changelist-archive") +
			`<url>` + loc + `<rs:md from="2024-01-01T00:00:00Z"/></url></urlset>`, []string{"up-link-missing"}, "6.2"},
		{"archive with document-level times", set + up + `<rs:md capability="resourcelist-archive" at="2024-01-01T00:00:00Z"/>` +
			`<url>` + loc + `<rs:md at="2024-01-01T00:00:00Z"/></url></urlset>`, []string{"md-time-unexpected"}, ""},
		{"archive entries in a Capability List", set + `<rs:ln rel="up" href="http://example.net/.well-known/resourcesync"/><rs:ln rel="describedby" href="http://example.net/about"/>` + md("capabilitylist") +
			`<url>` + loc + md("changelist-archive") + `</url><url>` + loc2 + md("resourcedump-archive") + `</url></urlset>`, nil, ""},
		{"an archive twice in a Capability List", set + `<rs:ln rel="up" href="http://example.net/.well-known/resourcesync"/><rs:ln rel="describedby" href="http://example.net/about"/>` + md("capabilitylist") +
			`<url>` + loc + md("changelist-archive") + `</url><url>` + loc2 + md("changelist-archive") + `</url></urlset>`, []string{"capabilitylist-duplicate"}, ""},
		{"archives link on a Change List", set + up + `<rs:ln rel="archives" href="http://example.net/cla.xml"/><rs:md capability="changelist" from="2024-01-01T00:00:00Z"/></urlset>`, nil, ""},
		{"misspelt archive capability", set + up + md("ChangeListArchive") + `</urlset>`, []string{"capability-unknown"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Validate(strings.NewReader(tt.doc), CheckOptions{Hints: true})
			if got := chkRuleSet(r.Problems); !slices.Equal(got, tt.want) {
				t.Fatalf("rules %v, want %v:\n%s", got, tt.want, chkDescribe(r))
			}
			if tt.section != "" && r.Problems[0].Section != tt.section {
				t.Errorf("section %q, want %q:\n%s", r.Problems[0].Section, tt.section, chkDescribe(r))
			}
		})
	}
	r := Validate(strings.NewReader(set+up+md("ChangeListArchive")+`</urlset>`), CheckOptions{})
	if len(r.Problems) != 1 || !strings.Contains(r.Problems[0].Message, `did you mean "changelist-archive"`) {
		t.Errorf("misspelt archive capability: no suggestion:\n%s", chkDescribe(r))
	}
}
