package model

import (
	"slices"
	"strings"
	"testing"
)

// TestCharacterNotAllowedInTag: a character XML does not allow where it
// stands inside a tag (a no-break space where only XML white space may be,
// say) is malformed XML, not part of a name and so not an unexpected
// element or attribute.
func TestCharacterNotAllowedInTag(t *testing.T) {
	const head = `<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/" xmlns:ex="http://example.com/ns">` + "\n" +
		`<rs:ln rel="up" href="http://example.com/cl.xml"/>` + "\n"
	md := `<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>` + "\n"
	for name, body := range map[string]string{
		"after an element name":     md + "<url><loc\u00a0>http://example.com/a</loc\u00a0></url>",
		"between attributes":        `<rs:md capability="resourcelist"` + "\u00a0" + `at="2013-01-03T09:00:00Z"/>`,
		"after an attribute name":   `<rs:md capability` + "\u00a0" + `="resourcelist" at="2013-01-03T09:00:00Z"/>`,
		"ideographic space":         md + "<url\u3000><loc>http://example.com/a</loc></url\u3000>",
		"a digit-like start":        md + "<url><ex:\u0300x/><loc>http://example.com/a</loc></url>",
		"a bidi override in a name": md + "<url><loc>http://example.com/a</loc><ex:a\u202eb/></url>",
	} {
		t.Run(name, func(t *testing.T) {
			r := Validate(strings.NewReader(head+body+"\n</urlset>\n"), CheckOptions{})
			if got := chkRuleSet(r.Problems); !slices.Equal(got, []string{"xml-malformed"}) {
				t.Errorf("rules %v, want xml-malformed only:\n%s", got, chkDescribe(r))
			}
		})
	}
	// Names of other scripts are names: an extension element in another
	// namespace is fine.
	r := Validate(strings.NewReader(head+md+"<url><loc>http://example.com/a</loc><ex:naïve·x/><ex:日本/></url>\n</urlset>\n"), CheckOptions{})
	if r.Errors != 0 {
		t.Errorf("non-ASCII names refused:\n%s", chkDescribe(r))
	}
}
