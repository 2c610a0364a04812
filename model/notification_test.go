package model

import (
	"slices"
	"strings"
	"testing"
)

const (
	ntfHead = `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:ln rel="up" href="http://example.com/dataset1/capabilitylist.xml"/>
`
	ntfCapList = "http://example.com/dataset1/capabilitylist.xml"
)

// The draft's Example 4.1 (a change notification) and Examples 5.1 and 5.2
// (framework notifications) are valid.
var ntfExample41 = ntfHead + `  <url>
    <loc>http://example.com/res1</loc>
    <lastmod>2013-01-02T13:03:00Z</lastmod>
    <rs:md change="updated" hash="md5:1584abdf8ebdc9802ac0c6a7402c03b6" length="8876" type="text/html"/>
  </url>
  <url>
    <loc>http://example.com/res2</loc>
    <lastmod>2013-01-02T13:23:00Z</lastmod>
    <rs:md change="updated" hash="md5:1e0d5cb8ef6ba40c99b14c0237be735e
       sha-256:854f61290e2e197a11bc91063afce22e43f8ccc655237050ace766adc68dc784" length="14599" type="application/pdf"/>
  </url>
</urlset>`

var ntfExample52 = ntfHead + `  <url>
    <loc>http://example.com/dataset1/resourcelist.xml</loc>
    <rs:md change="created" capability="resourcelist"/>
    <rs:ln rel="index" href="http://example.com/dataset1/resourcelist-index.xml"/>
  </url>
  <url>
    <loc>http://example.com/dataset1/resourcedump.xml</loc>
    <rs:md change="created" capability="resourcedump"/>
  </url>
  <url>
    <loc>http://example.com/dataset1/changelist.xml</loc>
    <rs:md change="updated" capability="changelist"/>
  </url>
</urlset>`

func ntfRules(ps []Problem) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Rule)
	}
	return out
}

func TestCheckNotification(t *testing.T) {
	change := NotificationOptions{Kind: CapChangeNotification, CapabilityList: ntfCapList}
	framework := NotificationOptions{Kind: CapFrameworkNotification, CapabilityList: ntfCapList}
	cases := []struct {
		name string
		doc  string
		opts NotificationOptions
		want []string // rules, in order
	}{
		{"example 4.1", ntfExample41, change, nil},
		{"example 5.1", ntfHead + `<url><loc>http://example.com/resourceset1/resourcelist.xml</loc><rs:md change="created" capability="resourcelist"/></url></urlset>`, framework, nil},
		{"example 5.2", ntfExample52, framework, nil},
		{"change with datetime", ntfHead + `<url><loc>http://example.com/r</loc><rs:md change="deleted" datetime="2013-01-02T13:00:00Z"/></url></urlset>`, change, nil},
		{"index root", strings.NewReplacer("urlset", "sitemapindex", "<url>", "<sitemap>", "</url>", "</sitemap>").Replace(ntfExample41), change, []string{RuleNotificationRoot}},
		{"no up link", `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"><url><loc>http://example.com/r</loc><rs:md change="created"/></url></urlset>`, change, []string{RuleNotificationUpLink}},
		{"other capability list", ntfExample41, NotificationOptions{Kind: CapChangeNotification, CapabilityList: "http://example.com/dataset2/capabilitylist.xml"}, []string{RuleNotificationUpMismatch}},
		{"same capability list, other case of host", ntfExample41, NotificationOptions{Kind: CapChangeNotification, CapabilityList: "HTTP://Example.COM/dataset1/capabilitylist.xml"}, nil},
		{"empty", ntfHead + `</urlset>`, change, []string{RuleNotificationEmpty}},
		{"change missing", ntfHead + `<url><loc>http://example.com/r</loc><lastmod>2013-01-02T13:03:00Z</lastmod></url></urlset>`, change, []string{"change-missing"}},
		{"change invalid", ntfHead + `<url><loc>http://example.com/r</loc><rs:md change="moved"/></url></urlset>`, change, []string{"change-invalid"}},
		{"out of order inside", ntfHead + `<url><loc>http://example.com/a</loc><rs:md change="created" datetime="2013-01-02T13:10:00Z"/></url><url><loc>http://example.com/b</loc><rs:md change="created" datetime="2013-01-02T13:00:00Z"/></url></urlset>`, change, []string{"changelist-order"}},
		{"framework without capability or change", ntfHead + `<url><loc>http://example.com/dataset1/changelist.xml</loc><rs:md/></url></urlset>`, framework, []string{RuleFrameworkCapabilityMissing, RuleFrameworkChangeMissing}},
		{"framework about a manifest", ntfHead + `<url><loc>http://example.com/m.xml</loc><rs:md change="created" capability="resourcedump-manifest"/></url></urlset>`, framework, []string{RuleFrameworkCapabilityInvalid}},
		{"framework unknown capability", ntfHead + `<url><loc>http://example.com/m.xml</loc><rs:md change="created" capability="thinglist"/></url></urlset>`, framework, []string{RuleFrameworkCapabilityUnknown}},
		{"framework index link to itself", ntfHead + `<url><loc>http://example.com/cl.xml</loc><rs:md change="created" capability="changelist"/><rs:ln rel="index" href="http://example.com/cl.xml"/></url></urlset>`, framework, []string{RuleFrameworkIndexLinkMalformed}},
		{"framework Resource List updated", ntfHead + `<url><loc>http://example.com/rl.xml</loc><rs:md change="updated" capability="resourcelist"/></url></urlset>`, framework, []string{RuleFrameworkChangeType}},
		{"framework Change Dump deleted", ntfHead + `<url><loc>http://example.com/cd.xml</loc><rs:md change="deleted" capability="changedump"/></url></urlset>`, framework, []string{RuleFrameworkChangeType}},
		{"framework Capability List deleted", ntfHead + `<url><loc>http://example.com/cl.xml</loc><rs:md change="deleted" capability="capabilitylist"/></url></urlset>`, framework, nil},
		{"not a sitemap", `<html><body/></html>`, change, []string{"root-not-sitemap"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, ps := ParseNotification(strings.NewReader(tc.doc), tc.opts, DecoderOptions{})
			if d == nil {
				t.Fatalf("not parsed: %v", ps)
			}
			if got := ntfRules(ps); !slices.Equal(got, tc.want) {
				for _, p := range ps {
					t.Log(DescribeProblem(p))
				}
				t.Fatalf("rules %v, want %v", got, tc.want)
			}
			for _, p := range ps {
				if p.Message == "" || p.Section == "" || p.Severity == 0 {
					t.Errorf("incomplete problem %+v", p)
				}
				if (p.Section == "N4" || p.Section == "N5") && (tc.opts.IsFramework() != (p.Section == "N5") || !strings.Contains(p.Message, "(§"+p.Section+" ")) {
					t.Errorf("section %s for a %s: %s", p.Section, tc.opts.Kind, p.Message)
				}
			}
		})
	}
}

func TestParseNotificationMalformed(t *testing.T) {
	for _, raw := range []string{"", "<urlset", ntfExample41[:len(ntfExample41)/2], "\x00\x01binary"} {
		d, ps := ParseNotification(strings.NewReader(raw), NotificationOptions{Kind: CapChangeNotification}, DecoderOptions{})
		if d != nil || len(ps) != 1 || ps[0].Rule != "xml-malformed" || ps[0].Severity != SeverityError {
			t.Errorf("%q: document %v, problems %v", raw, d != nil, ps)
		}
	}
}

func TestParseNotificationLimit(t *testing.T) {
	big := ntfHead + strings.Repeat(`<url><loc>http://example.com/r</loc><rs:md change="created"/></url>`, 2000) + "</urlset>"
	d, ps := ParseNotification(strings.NewReader(big), NotificationOptions{Kind: CapChangeNotification}, DecoderOptions{MaxBytes: 4096})
	if d != nil || len(ps) != 1 || ps[0].Rule != "xml-malformed" {
		t.Fatalf("a notification over the limit was read: %v", ps)
	}
}

func TestNotificationCheckerOrder(t *testing.T) {
	at := func(ts ...string) []byte {
		var b strings.Builder
		b.WriteString(ntfHead)
		for _, s := range ts {
			b.WriteString(`<url><loc>http://example.com/r</loc><rs:md change="updated" datetime="` + s + `"/></url>`)
		}
		b.WriteString("</urlset>")
		return []byte(b.String())
	}
	c := NewNotificationChecker(NotificationOptions{Kind: CapChangeNotification, CapabilityList: ntfCapList})
	steps := []struct {
		raw  []byte
		want []string
	}{
		{at("2026-01-05T09:00:10Z", "2026-01-05T09:00:20Z"), nil},
		{at("2026-01-05T09:15:10Z"), nil},
		{[]byte("<urlset"), []string{"xml-malformed"}},                // does not move the clock
		{at("2026-01-05T09:00:20Z"), []string{RuleNotificationOrder}}, // a repeat of the first
		{at("2026-01-05T09:15:10Z", "2026-01-05T09:30:00Z"), nil},     // equal is not before
		{at("2026-01-05T09:20:00Z"), []string{RuleNotificationOrder}},
		{at(), []string{RuleNotificationEmpty}},
	}
	for i, s := range steps {
		_, ps := c.Check(s.raw, DecoderOptions{})
		if got := ntfRules(ps); !slices.Equal(got, s.want) {
			t.Errorf("notification %d: rules %v, want %v", i, got, s.want)
		}
	}
}

func TestChangeTime(t *testing.T) {
	d, _ := ParseNotification(strings.NewReader(ntfExample41), NotificationOptions{Kind: CapChangeNotification}, DecoderOptions{})
	if got := ChangeTime(&d.Entries[0]); got.Raw != "2013-01-02T13:03:00Z" {
		t.Errorf("lastmod fallback: %q", got.Raw)
	}
	e := Entry{}
	e.MD.Datetime = Datetime{Raw: "x"}
	if ChangeTime(&e).OK {
		t.Error("an invalid datetime gave a change time")
	}
}

func TestNotificationRulesCatalogue(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rules() {
		seen[r.ID] = true
	}
	for _, r := range NotificationRules() {
		if seen[r.ID] || r.Summary == "" || !strings.HasPrefix(r.Section, "N") {
			t.Errorf("bad or repeated rule %+v", r)
		}
		seen[r.ID] = true
	}
}

func FuzzParseNotification(f *testing.F) {
	f.Add([]byte(ntfExample41), false)
	f.Add([]byte(ntfExample52), true)
	f.Add([]byte("<urlset"), false)
	f.Fuzz(func(t *testing.T, raw []byte, framework bool) {
		kind := CapChangeNotification
		if framework {
			kind = CapFrameworkNotification
		}
		c := NewNotificationChecker(NotificationOptions{Kind: kind, CapabilityList: ntfCapList})
		for i := 0; i < 2; i++ { // twice: the order check runs against the first
			d, ps := c.Check(raw, DecoderOptions{MaxBytes: 1 << 20})
			if d == nil && len(ps) == 0 {
				t.Fatal("neither a document nor a problem")
			}
			for _, p := range ps {
				if p.Rule == "" || p.Message == "" {
					t.Fatalf("incomplete problem %+v", p)
				}
			}
		}
	})
}
