package model

import (
	"slices"
	"strings"
	"testing"
)

// TestCheckSpecAuditRules gives each rule added by the audit of the standard
// against the checker (docs/conformance.md) a minimal document that triggers
// it and one that does not, and checks the message names the entry and ends
// with the section.
func TestCheckSpecAuditRules(t *testing.T) {
	const head = `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">` +
		`<rs:ln rel="up" href="http://example.com/capabilitylist.xml"/>`
	const sdHead = `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">` +
		`<rs:ln rel="describedby" href="http://example.com/about.xml"/><rs:md capability="description"/>`
	const rd = head + `<rs:md capability="resourcedump" at="2013-01-03T09:00:00Z"/>`
	const cd = head + `<rs:md capability="changedump" from="2013-01-01T00:00:00Z"/>`
	const rdm = head + `<rs:md capability="resourcedump-manifest" at="2013-01-03T09:00:00Z"/>`
	const cdm = head + `<rs:md capability="changedump-manifest" from="2013-01-02T00:00:00Z"/>`
	const cl = head + `<rs:md capability="changelist" from="2013-01-03T00:00:00Z"/>`
	const capList = `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">` +
		`<rs:ln rel="up" href="http://example.com/sd.xml"/><rs:ln rel="describedby" href="http://example.com/about.xml"/><rs:md capability="capabilitylist"/>`
	tests := []struct {
		name, rule string
		bad, good  string
		section    string
		mention    string // what the message must name
	}{
		{"Source Description entry without describedby", "description-entry-describedby",
			sdHead + `<url><loc>http://example.com/cl1.xml</loc><rs:md capability="capabilitylist"/></url></urlset>`,
			sdHead + `<url><loc>http://example.com/cl1.xml</loc><rs:md capability="capabilitylist"/><rs:ln rel="describedby" href="http://example.com/set1.xml"/></url></urlset>`,
			"8", "entry 1 (http://example.com/cl1.xml)"},
		{"Resource Dump entry without rs:md", "dump-entry-type-length",
			rd + `<url><loc>http://example.com/p1.zip</loc></url></urlset>`,
			rd + `<url><loc>http://example.com/p1.zip</loc><rs:md type="application/zip" length="10"/></url></urlset>`,
			"11.1", "entry 1 (http://example.com/p1.zip)"},
		{"Change Dump entry without length", "changedump-entry-type-length",
			cd + `<url><loc>http://example.com/p1.zip</loc><rs:md type="application/zip" from="2013-01-01T00:00:00Z"/></url></urlset>`,
			cd + `<url><loc>http://example.com/p1.zip</loc><rs:md type="application/zip" length="10" from="2013-01-01T00:00:00Z"/></url></urlset>`,
			"13.1", "no length attribute"},
		{"Change Dump package not ZIP", "dump-package-format",
			cd + `<url><loc>http://example.com/p1.tgz</loc><rs:md type="application/gzip" length="10" from="2013-01-01T00:00:00Z"/></url></urlset>`,
			cd + `<url><loc>http://example.com/p1.zip</loc><rs:md type="Application/Zip; charset=binary" length="10" from="2013-01-01T00:00:00Z"/></url></urlset>`,
			"13.1", `type="application/gzip"`},
		{"Resource Dump Manifest entry without type", "manifest-type-recommended",
			rdm + `<url><loc>http://example.com/r1</loc><rs:md path="/r1"/></url></urlset>`,
			rdm + `<url><loc>http://example.com/r1</loc><rs:md path="/r1" type="text/plain"/></url></urlset>`,
			"11.2", "entry 1 (http://example.com/r1)"},
		{"Change Dump Manifest entry without type", "changedump-manifest-type",
			cdm + `<url><loc>http://example.com/r1</loc><rs:md change="created" path="/r1"/></url></urlset>`,
			cdm + `<url><loc>http://example.com/r1</loc><rs:md change="created" path="/r1" type="text/plain"/></url><url><loc>http://example.com/r2</loc><rs:md change="deleted"/></url></urlset>`,
			"13.2", "entry 1 (http://example.com/r1)"},
		{"duplicate link with the resource's metadata", "duplicate-link-attributes",
			cl + `<url><loc>http://example.com/r1</loc><rs:md change="updated" hash="md5:1584abdf8ebdc9802ac0c6a7402c03b6"/><rs:ln rel="duplicate" href="http://mirror.example.com/r1" hash="md5:1584abdf8ebdc9802ac0c6a7402c03b6"/></url></urlset>`,
			cl + `<url><loc>http://example.com/r1</loc><rs:md change="updated" hash="md5:1584abdf8ebdc9802ac0c6a7402c03b6"/><rs:ln rel="duplicate" pri="1" href="http://mirror.example.com/r1" modified="2013-01-03T18:00:00Z"/></url></urlset>`,
			"14.2", "hash"},
		{"two via links", "via-link-repeated",
			cl + `<url><loc>http://example.com/r1</loc><rs:md change="updated"/><rs:ln rel="via" href="http://a.example.com/r1"/><rs:ln rel="via" href="http://b.example.com/r1"/></url></urlset>`,
			cl + `<url><loc>http://example.com/r1</loc><rs:md change="updated"/><rs:ln rel="via" href="http://a.example.com/r1"/><rs:ln rel="collection" href="http://example.com/c"/></url></urlset>`,
			"14.8", "2 <rs:ln rel=\"via\"> links"},
		{"entry attributes on the document-level rs:md", "attribute-unexpected",
			head + `<rs:md capability="changelist" from="2013-01-03T00:00:00Z" change="updated"/></urlset>`,
			head + `<rs:md capability="changelist" from="2013-01-03T00:00:00Z" until="2013-01-04T00:00:00Z"/></urlset>`,
			"7", "change"},
		{"pri on a document-level link", "link-attribute-unexpected",
			`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">` +
				`<rs:ln rel="up" href="http://example.com/cl.xml" pri="1"/><rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/></urlset>`,
			head + `<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/></urlset>`,
			"7", "pri"},
		{"changefreq in a sitemap", "element-unexpected",
			`<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"><rs:ln rel="up" href="http://example.com/capabilitylist.xml"/>` +
				`<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/><sitemap><loc>http://example.com/rl1.xml</loc><changefreq>daily</changefreq></sitemap></sitemapindex>`,
			`<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"><rs:ln rel="up" href="http://example.com/capabilitylist.xml"/>` +
				`<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/><sitemap><loc>http://example.com/rl1.xml</loc><lastmod>2013-01-03T09:00:00Z</lastmod></sitemap></sitemapindex>`,
			"7", "entry 1 (http://example.com/rl1.xml): <changefreq>"},
		{"one channel for both kinds of notification", "notification-channels-shared",
			capList + `<url><loc>ws://example.com/ch</loc><rs:md capability="change-notification"/></url><url><loc>WS://EXAMPLE.COM/ch</loc><rs:md capability="framework-notification"/></url></urlset>`,
			capList + `<url><loc>ws://example.com/ch/change</loc><rs:md capability="change-notification"/></url><url><loc>ws://example.com/ch/framework</loc><rs:md capability="framework-notification"/></url></urlset>`,
			"N2", "entry 2 (WS://EXAMPLE.COM/ch)"},
		{"a top-level type IANA does not register", "type-unregistered",
			cl + `<url><loc>http://example.com/r1</loc><rs:md change="updated" type="x-world/x-vrml"/></url></urlset>`,
			cl + `<url><loc>http://example.com/r1</loc><rs:md change="updated" type="Model/VRML"/><rs:ln rel="alternate" href="http://example.com/r1.json" type="haptics/ivs"/></url></urlset>`,
			"7", `type="x-world/x-vrml"`},
		// Present with an empty value is not absent: the value's rule, and
		// not the rule of a missing attribute (issue 24).
		{"empty length on an entry", "length-invalid",
			cl + `<url><loc>http://example.com/r1</loc><rs:md change="updated" length=""/></url></urlset>`,
			cl + `<url><loc>http://example.com/r1</loc><rs:md change="updated" length="0"/></url></urlset>`,
			"7", `entry 1 (http://example.com/r1): length=""`},
		{"empty hash on an entry", "hash-syntax",
			cl + `<url><loc>http://example.com/r1</loc><rs:md change="updated" hash=""/></url></urlset>`,
			cl + `<url><loc>http://example.com/r1</loc><rs:md change="updated" hash="md5:1584abdf8ebdc9802ac0c6a7402c03b6"/></url></urlset>`,
			"7", `hash=""`},
		{"empty hash and length on a link", "hash-syntax length-invalid",
			cl + `<url><loc>http://example.com/r1</loc><rs:md change="updated"/><rs:ln rel="duplicate" href="http://m.example.com/r1" hash="" length=""/></url></urlset>`,
			cl + `<url><loc>http://example.com/r1</loc><rs:md change="updated"/><rs:ln rel="duplicate" href="http://m.example.com/r1"/></url></urlset>`,
			"7", `<rs:ln rel="duplicate">`},
		{"empty pri on a link", "link-pri",
			cl + `<url><loc>http://example.com/r1</loc><rs:md change="updated"/><rs:ln rel="duplicate" href="http://m.example.com/r1" pri=""/></url></urlset>`,
			cl + `<url><loc>http://example.com/r1</loc><rs:md change="updated"/><rs:ln rel="duplicate" href="http://m.example.com/r1" pri="1"/></url></urlset>`,
			"7", `pri=""`},
		{"empty change", "change-invalid",
			cl + `<url><loc>http://example.com/r1</loc><rs:md change=""/></url></urlset>`,
			cl + `<url><loc>http://example.com/r1</loc><rs:md change="deleted"/></url></urlset>`,
			"7", `change=""`},
		{"empty datetime", "datetime-invalid",
			cl + `<url><loc>http://example.com/r1</loc><rs:md change="updated" datetime=""/></url></urlset>`,
			cl + `<url><loc>http://example.com/r1</loc><rs:md change="updated" datetime="2013-01-03T01:00:00Z"/></url></urlset>`,
			"7", `datetime=""`},
		{"empty at on the document", "datetime-invalid",
			head + `<rs:md capability="resourcelist" at=""/></urlset>`,
			head + `<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/></urlset>`,
			"7", `document-level <rs:md> at=""`},
		{"empty type on a Change Dump entry", "type-invalid",
			cd + `<url><loc>http://example.com/p1.zip</loc><rs:md type="" length="10" from="2013-01-01T00:00:00Z"/></url></urlset>`,
			cd + `<url><loc>http://example.com/p1.zip</loc><rs:md type="application/zip" length="10" from="2013-01-01T00:00:00Z"/></url></urlset>`,
			"7", `type=""`},
		{"an empty lastmod", "lastmod-invalid",
			cl + `<url><loc>http://example.com/r1</loc><lastmod> </lastmod><rs:md change="updated"/></url></urlset>`,
			cl + `<url><loc>http://example.com/r1</loc><rs:md change="updated"/></url></urlset>`,
			"7", "<lastmod> is empty"},
		{"an empty changefreq", "changefreq-invalid",
			cl + `<url><loc>http://example.com/r1</loc><changefreq/><rs:md change="updated"/></url></urlset>`,
			cl + `<url><loc>http://example.com/r1</loc><changefreq>daily</changefreq><rs:md change="updated"/></url></urlset>`,
			"7", "<changefreq> is empty"},
		{"a stray % in loc", "loc-invalid-char",
			cl + `<url><loc>http://example.com/100%</loc><rs:md change="updated"/></url><url><loc>http://example.com/a%zz</loc><rs:md change="updated"/></url></urlset>`,
			cl + `<url><loc>http://example.com/100%25</loc><rs:md change="updated"/></url><url><loc>http://example.com/a%C3%A9</loc><rs:md change="updated"/></url></urlset>`,
			"7", "has a % that is not followed by two hex digits"},
		{"a stray % in a link's href", "link-href-invalid-char",
			cl + `<url><loc>http://example.com/r1</loc><rs:md change="updated"/><rs:ln rel="duplicate" href="http://m.example.com/r%1"/></url></urlset>`,
			cl + `<url><loc>http://example.com/r1</loc><rs:md change="updated"/><rs:ln rel="duplicate" href="http://m.example.com/r%31"/></url></urlset>`,
			"7", `href="http://m.example.com/r%1"`},
		{"two rs:md, the change on the second", "md-repeated",
			cl + `<url><loc>http://example.com/r1</loc><rs:md datetime="2013-01-03T01:00:00Z"/><rs:md change="updated"/></url></urlset>`,
			cl + `<url><loc>http://example.com/r1</loc><rs:md datetime="2013-01-03T01:00:00Z" change="updated"/></url></urlset>`,
			"7", "2 <rs:md> elements"},
		{"two document-level rs:md, the capability on the second", "md-repeated",
			head + `<rs:md at="2013-01-03T09:00:00Z"/><rs:md capability="resourcelist"/></urlset>`,
			head + `<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/></urlset>`,
			"7", "2 document-level <rs:md> elements"},
		{"two rs:md on a Change Dump Manifest entry", "md-repeated",
			cdm + `<url><loc>http://example.com/r1</loc><rs:md change="updated"/><rs:md path="/r1" type="text/plain"/></url></urlset>`,
			cdm + `<url><loc>http://example.com/r1</loc><rs:md change="updated" path="/r1" type="text/plain"/></url></urlset>`,
			"7", "2 <rs:md> elements"},
		{"pri on a timegate link", "timegate-link-attributes",
			cl + `<url><loc>http://example.com/r1</loc><rs:md change="updated"/><rs:ln rel="timegate" pri="1" href="http://example.com/tg/r1"/></url></urlset>`,
			cl + `<url><loc>http://example.com/r1</loc><rs:md change="updated"/><rs:ln rel="timegate" href="http://example.com/tg/r1"/></url></urlset>`,
			"14.6", "pri"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := strings.Fields(tt.rule) // the rules, sorted
			hints := false
			for _, id := range want {
				rule, ok := RuleByID(id)
				if !ok {
					t.Fatalf("no rule %s", id)
				}
				hints = hints || rule.Severity == SeverityHint
			}
			opts := CheckOptions{Hints: hints}
			r := Validate(strings.NewReader(tt.bad), opts)
			if got := chkRuleSet(r.Problems); !slices.Equal(got, want) {
				t.Fatalf("bad document: rules %v, want %v\n%s", got, want, chkDescribe(r))
			}
			for _, p := range r.Problems {
				rule, _ := RuleByID(p.Rule)
				if p.Severity != rule.Severity || p.Section != tt.section || !strings.HasSuffix(p.Message, "(§"+tt.section+")") || !strings.Contains(p.Message, tt.mention) {
					t.Errorf("problem %+v: want severity %s, section %s, a message naming %q", p, rule.Severity, tt.section, tt.mention)
				}
			}
			r = Validate(strings.NewReader(tt.good), opts)
			if len(r.Problems) != 0 {
				t.Errorf("good document:\n%s", chkDescribe(r))
			}
		})
	}
}

// TestCheckNotificationRootSection: a notification with a <sitemapindex>
// root is reported with the section of the draft that says it of its kind.
func TestCheckNotificationRootSection(t *testing.T) {
	for capb, sec := range map[string]string{"change-notification": "N4", "framework-notification": "N5"} {
		doc := `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">` +
			`<rs:ln rel="up" href="http://example.com/capabilitylist.xml"/><rs:md capability="` + capb + `"/></sitemapindex>`
		r := Validate(strings.NewReader(doc), CheckOptions{})
		found := false
		for _, p := range r.Problems {
			if p.Rule == "root-capability-mismatch" {
				found = true
				if p.Section != sec || !strings.HasSuffix(p.Message, "(§"+sec+")") {
					t.Errorf("%s: %+v, want §%s", capb, p, sec)
				}
			}
		}
		if !found {
			t.Errorf("%s: no root-capability-mismatch:\n%s", capb, chkDescribe(r))
		}
	}
}

// TestCheckEntryLinksHandedOver: the links an entry's rules count are also
// those a Decoder hands over before the entry ends (more than 256 links).
func TestCheckEntryLinksHandedOver(t *testing.T) {
	many := func(first string, n int, last string) string {
		var b strings.Builder
		b.WriteString(first)
		for i := 0; i < n; i++ {
			b.WriteString(`<rs:ln rel="collection" href="http://example.com/c` + strings.Repeat("x", i%7) + `"/>`)
		}
		b.WriteString(last)
		return b.String()
	}
	const sd = `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">` +
		`<rs:ln rel="describedby" href="http://example.com/about.xml"/><rs:md capability="description"/>`
	const cl = `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">` +
		`<rs:ln rel="up" href="http://example.com/capabilitylist.xml"/><rs:md capability="changelist" from="2013-01-03T00:00:00Z"/>`
	tests := []struct {
		name, doc string
		want      []string
	}{
		{"describedby handed over", sd + `<url><loc>http://example.com/cl1.xml</loc>` +
			many(`<rs:ln rel="describedby" href="http://example.com/set1.xml"/>`, 600, "") + `</url>` +
			`<url><loc>http://example.com/cl2.xml</loc></url></urlset>`, []string{"description-entry-describedby"}},
		{"via before and after the hand-over", cl + `<url><loc>http://example.com/r1</loc><rs:md change="updated"/>` +
			many(`<rs:ln rel="via" href="http://a.example.com/r1"/>`, 600, `<rs:ln rel="via" href="http://b.example.com/r1"/>`) + `</url>` +
			`<url><loc>http://example.com/r2</loc><rs:md change="updated"/><rs:ln rel="via" href="http://a.example.com/r2"/></url></urlset>`, []string{"via-link-repeated"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Validate(strings.NewReader(tt.doc), CheckOptions{})
			if got := chkRuleSet(r.Problems); !slices.Equal(got, tt.want) {
				t.Fatalf("rules %v, want %v\n%s", got, tt.want, chkDescribe(r))
			}
			for _, p := range r.Problems {
				if p.Entry != 0 && tt.want[0] == "via-link-repeated" || p.Entry != 1 && tt.want[0] == "description-entry-describedby" {
					t.Errorf("problem on the wrong entry: %+v", p)
				}
			}
		})
	}
}

// TestCheckRelKind: relation types are classified as RelMatches compares
// them (registered names in any case, URIs exactly).
func TestCheckRelKind(t *testing.T) {
	for tok, want := range map[string]chkRelKind{
		"duplicate": relDuplicate, "Duplicate": relDuplicate, "VIA": relVia, "describedby": relDescribedby,
		"DescribedBy": relDescribedby, RelPatch: relPatch, "HTTP://www.openarchives.org/rs/terms/patch": relOther,
		"timegate": relTimegate, "TimeGate": relTimegate, "alternate": relAlternate, "Memento": relMemento,
		"collection": relOther, "up": relOther, "duplicates": relOther, "": relOther,
	} {
		if got := chkRelKindOf(tok); got != want {
			t.Errorf("chkRelKindOf(%q) = %d, want %d", tok, got, want)
		}
		for _, name := range []string{"duplicate", "describedby", "via", "timegate", "alternate", "memento", RelPatch} {
			if RelMatches(tok, name) != (chkRelKindOf(tok) != relOther && chkRelKindOf(tok) == chkRelKindOf(name)) {
				t.Errorf("%q against %q: chkRelKindOf disagrees with RelMatches", tok, name)
			}
		}
	}
}
