package crawl

import (
	"fmt"
	"strings"
	"testing"

	"rsx/model"
)

func crossOf(root *Node, base string) []string {
	var out []string
	root.Walk(func(n *Node) bool {
		for _, p := range n.Cross {
			out = append(out, fmt.Sprintf("%s %s %d", strings.TrimPrefix(n.URL, base), p.Rule, p.Entry))
		}
		return true
	})
	return out
}

func TestCheckTreeCleanSource(t *testing.T) {
	s := newSite(t)
	treeSource(s)
	g := NewGraph(&testGetter{}, GraphOptions{})
	root, err := g.Walk(testCtx(t), s.URL+"/sd.xml", WalkOptions{Depth: Unlimited, Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := crossOf(root, s.URL); len(got) != 0 {
		t.Errorf("cross-document problems in a clean Source: %v", got)
	}
	root.Walk(func(n *Node) bool {
		if !n.Checked {
			t.Errorf("%s not checked", n.URL)
		}
		return true
	})
}

func TestCrossDocumentRules(t *testing.T) {
	const at = `at="2013-01-03T09:00:00Z"`
	sd := func(entries ...string) string { return urlset(`capability="description"`, nil, entries...) }
	cl := func(up string, entries ...string) string {
		return urlset(`capability="capabilitylist"`, []string{ln("up", up)}, entries...)
	}
	rl := func(links ...string) string { return urlset(`capability="resourcelist" `+at, links, "{{base}}/r") }
	ch := func(md string, links ...string) string {
		return urlset(`capability="changelist" `+md, links, `{{base}}/r change="updated"`)
	}
	upCL := ln("up", "{{base}}/cl.xml")
	tests := []struct {
		name string
		root string
		docs map[string]string
		want string // "path rule entry"
	}{
		{"index child with another capability", "/cl.xml", map[string]string{
			"/cl.xml":  cl("{{base}}/sd.xml", `{{base}}/rli.xml capability="resourcelist"`),
			"/rli.xml": sitemapindex(`capability="resourcelist" `+at, []string{upCL}, "{{base}}/p.xml"),
			"/p.xml":   ch(`from="2013-01-01T00:00:00Z"`, upCL, ln("index", "{{base}}/rli.xml")),
		}, "/p.xml index-child-capability -1"},
		{"up link to another Capability List", "/cl.xml", map[string]string{
			"/cl.xml": cl("{{base}}/sd.xml", `{{base}}/rl.xml capability="resourcelist"`),
			"/rl.xml": rl(ln("up", "{{base}}/other-cl.xml")),
		}, "/rl.xml up-link-parent -1"},
		{"index child's up skips the Capability List above its index", "/cl.xml", map[string]string{
			"/cl.xml":  cl("{{base}}/sd.xml", `{{base}}/rli.xml capability="resourcelist"`),
			"/rli.xml": sitemapindex(`capability="resourcelist" `+at, []string{upCL}, "{{base}}/p.xml"),
			"/p.xml":   rl(ln("up", "{{base}}/rli.xml"), ln("index", "{{base}}/rli.xml")),
		}, "/p.xml up-link-parent -1"},
		{"Capability List up to another Source Description", "/sd.xml", map[string]string{
			"/sd.xml": sd(`{{base}}/cl.xml capability="capabilitylist"`),
			"/cl.xml": cl("{{base}}/elsewhere/sd.xml"),
		}, "/cl.xml capabilitylist-up-description -1"},
		{"index link to another index", "/rli.xml", map[string]string{
			"/rli.xml": sitemapindex(`capability="resourcelist" `+at, []string{upCL}, "{{base}}/p.xml"),
			"/p.xml":   rl(upCL, ln("index", "{{base}}/other-index.xml")),
		}, "/p.xml index-link-parent -1"},
		{"index listing an index", "/rli.xml", map[string]string{
			"/rli.xml":  sitemapindex(`capability="resourcelist" `+at, []string{upCL}, "{{base}}/rli2.xml"),
			"/rli2.xml": sitemapindex(`capability="resourcelist" `+at, []string{upCL}, "{{base}}/p.xml"),
			"/p.xml":    rl(upCL, ln("index", "{{base}}/rli2.xml")),
		}, "/rli.xml index-child-index 0"},
		{"no index link", "/rli.xml", map[string]string{
			"/rli.xml": sitemapindex(`capability="resourcelist" `+at, []string{upCL}, "{{base}}/p.xml"),
			"/p.xml":   rl(upCL),
		}, "/p.xml index-link-recommended -1"},
		{"Change Lists out of order", "/cli.xml", map[string]string{
			"/cli.xml": sitemapindex(`capability="changelist" from="2013-01-01T00:00:00Z"`, []string{upCL}, "{{base}}/c2.xml", "{{base}}/c1.xml"),
			"/c1.xml":  ch(`from="2013-01-01T00:00:00Z" until="2013-01-02T00:00:00Z"`, upCL, ln("index", "{{base}}/cli.xml")),
			"/c2.xml":  ch(`from="2013-01-02T00:00:00Z" until="2013-01-03T00:00:00Z"`, upCL, ln("index", "{{base}}/cli.xml")),
		}, "/cli.xml change-index-order 1"},
		{"gap between Change Lists", "/cli.xml", map[string]string{
			"/cli.xml": sitemapindex(`capability="changelist" from="2013-01-01T00:00:00Z"`, []string{upCL}, "{{base}}/c1.xml", "{{base}}/c2.xml"),
			"/c1.xml":  ch(`from="2013-01-01T00:00:00Z" until="2013-01-02T00:00:00Z"`, upCL, ln("index", "{{base}}/cli.xml")),
			"/c2.xml":  ch(`from="2013-01-02T06:00:00Z"`, upCL, ln("index", "{{base}}/cli.xml")),
		}, "/cli.xml change-index-gap 1"},
		{"overlapping Change Lists", "/cli.xml", map[string]string{
			"/cli.xml": sitemapindex(`capability="changelist" from="2013-01-01T00:00:00Z"`, []string{upCL}, "{{base}}/c1.xml", "{{base}}/c2.xml"),
			"/c1.xml":  ch(`from="2013-01-01T00:00:00Z" until="2013-01-02T00:00:00Z"`, upCL, ln("index", "{{base}}/cli.xml")),
			"/c2.xml":  ch(`from="2013-01-01T12:00:00Z"`, upCL, ln("index", "{{base}}/cli.xml")),
		}, "/cli.xml change-index-overlap 1"},
		{"open Change List before the last", "/cli.xml", map[string]string{
			"/cli.xml": sitemapindex(`capability="changelist" from="2013-01-01T00:00:00Z"`, []string{upCL}, "{{base}}/c1.xml", "{{base}}/c2.xml"),
			"/c1.xml":  ch(`from="2013-01-01T00:00:00Z"`, upCL, ln("index", "{{base}}/cli.xml")),
			"/c2.xml":  ch(`from="2013-01-02T00:00:00Z"`, upCL, ln("index", "{{base}}/cli.xml")),
		}, "/cli.xml change-index-open-not-last 0"},
		{"index entry at differs", "/rli.xml", map[string]string{
			"/rli.xml": sitemapindex(`capability="resourcelist" `+at, []string{upCL}, `{{base}}/p.xml at="2013-01-01T00:00:00Z"`),
			"/p.xml":   rl(upCL, ln("index", "{{base}}/rli.xml")),
		}, "/rli.xml index-entry-at 0"},
		{"index entry says closed, list is open", "/cli.xml", map[string]string{
			"/cli.xml": sitemapindex(`capability="changelist" from="2013-01-01T00:00:00Z"`, []string{upCL},
				`{{base}}/c1.xml from="2013-01-01T00:00:00Z" until="2013-01-02T00:00:00Z"`),
			"/c1.xml": ch(`from="2013-01-01T00:00:00Z"`, upCL, ln("index", "{{base}}/cli.xml")),
		}, "/cli.xml index-entry-until 0"},
		{"index entry from differs", "/cli.xml", map[string]string{
			"/cli.xml": sitemapindex(`capability="changelist" from="2013-01-01T00:00:00Z"`, []string{upCL},
				`{{base}}/c1.xml from="2013-01-01T05:00:00Z"`),
			"/c1.xml": ch(`from="2013-01-01T00:00:00Z"`, upCL, ln("index", "{{base}}/cli.xml")),
		}, "/cli.xml index-entry-interval 0"},
		{"declared capability differs", "/cl.xml", map[string]string{
			"/cl.xml": cl("{{base}}/sd.xml", `{{base}}/x.xml capability="resourcelist"`),
			"/x.xml":  ch(`from="2013-01-01T00:00:00Z"`, upCL),
		}, "/cl.xml capability-declared 0"},
		{"Source Description lists a Resource List", "/sd.xml", map[string]string{
			"/sd.xml": sd(`{{base}}/cl.xml capability="capabilitylist"`, `{{base}}/rl.xml`),
			"/cl.xml": cl("{{base}}/sd.xml"),
			"/rl.xml": rl(upCL),
		}, "/sd.xml description-entry-not-capabilitylist 1"},
		{"unreachable child", "/sd.xml", map[string]string{
			"/sd.xml": sd(`{{base}}/cl.xml capability="capabilitylist"`, `{{base}}/gone.xml capability="capabilitylist"`),
			"/cl.xml": cl("{{base}}/sd.xml"),
		}, "/sd.xml child-unreachable 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSite(t)
			for p, body := range tt.docs {
				s.xml(p, body)
			}
			// Gaps and overlaps are hints: reported only when asked.
			hint := strings.Contains(tt.want, "change-index-gap") || strings.Contains(tt.want, "change-index-overlap")
			if hint {
				root, _ := NewGraph(&testGetter{}, GraphOptions{}).Walk(testCtx(t), s.URL+tt.root, WalkOptions{Depth: Unlimited, Check: true})
				if got := crossOf(root, s.URL); len(got) != 0 {
					t.Errorf("hints reported without WalkOptions.Hints: %v", got)
				}
			}
			g := NewGraph(&testGetter{}, GraphOptions{})
			root, err := g.Walk(testCtx(t), s.URL+tt.root, WalkOptions{Depth: Unlimited, Check: true, Hints: hint})
			if err != nil {
				t.Fatal(err)
			}
			streamAgrees(t, &testGetter{}, s.URL+tt.root, WalkOptions{Depth: Unlimited, Check: true, Hints: hint}, root, s.URL)
			got := crossOf(root, s.URL)
			if len(got) != 1 || got[0] != tt.want {
				t.Errorf("got %v, want [%s]", got, tt.want)
			}
			for _, n := range []*Node{root} {
				for _, p := range n.Cross {
					if p.Message == "" || p.Section == "" || p.Severity == 0 {
						t.Errorf("incomplete problem %+v", p)
					}
				}
			}
		})
	}
}

func TestRulesCatalogue(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rules() {
		if seen[r.ID] || r.Section == "" || r.Summary == "" || (r.Severity != model.SeverityError && r.Severity != model.SeverityWarning && r.Severity != model.SeverityHint) {
			t.Errorf("bad rule %+v", r)
		}
		if r.Severity != model.SeverityError && r.Basis == "" {
			t.Errorf("%s (%s) cites no sentence of the specification", r.ID, r.Severity)
		}
		seen[r.ID] = true
	}
	// no clash with the single-document checker's IDs
	for _, r := range model.Rules() {
		if seen[r.ID] {
			t.Errorf("rule ID %q is also the checker's", r.ID)
		}
	}
}

// TestCrossDocumentSections: a rule that several sections state alike is
// reported with the section of the documents concerned, and every message
// ends with its section, as the single-document checker's do.
func TestCrossDocumentSections(t *testing.T) {
	upCL := ln("up", "{{base}}/cl.xml")
	cd := func(md string, links ...string) string {
		return urlset(`capability="changedump" `+md, links, `{{base}}/p.zip type="application/zip" length="1"`)
	}
	tests := []struct {
		name     string
		root     string
		docs     map[string]string
		want     string // "path rule entry"
		severity model.Severity
		section  string
	}{
		{"Change List without its index link", "/cli.xml", map[string]string{
			"/cli.xml": sitemapindex(`capability="changelist" from="2013-01-01T00:00:00Z"`, []string{upCL}, "{{base}}/c1.xml"),
			"/c1.xml":  urlset(`capability="changelist" from="2013-01-01T00:00:00Z"`, []string{upCL}, `{{base}}/r change="updated"`),
		}, "/c1.xml index-link-recommended -1", model.SeverityWarning, "12.1"},
		{"Resource Dump without its index link", "/rdi.xml", map[string]string{
			"/rdi.xml": sitemapindex(`capability="resourcedump" at="2013-01-03T09:00:00Z"`, []string{upCL}, "{{base}}/d1.xml"),
			"/d1.xml":  urlset(`capability="resourcedump" at="2013-01-03T09:00:00Z"`, []string{upCL}, `{{base}}/p.zip type="application/zip" length="1"`),
		}, "/d1.xml index-link-recommended -1", model.SeverityWarning, "11.1"},
		{"Change Dumps out of order", "/cdi.xml", map[string]string{
			"/cdi.xml": sitemapindex(`capability="changedump" from="2013-01-01T00:00:00Z"`, []string{upCL}, "{{base}}/d2.xml", "{{base}}/d1.xml"),
			"/d1.xml":  cd(`from="2013-01-01T00:00:00Z" until="2013-01-02T00:00:00Z"`, upCL, ln("index", "{{base}}/cdi.xml")),
			"/d2.xml":  cd(`from="2013-01-02T00:00:00Z" until="2013-01-03T00:00:00Z"`, upCL, ln("index", "{{base}}/cdi.xml")),
		}, "/cdi.xml changedump-index-order 1", model.SeverityWarning, "13.1"},
		{"Change Lists out of order", "/cli.xml", map[string]string{
			"/cli.xml": sitemapindex(`capability="changelist" from="2013-01-01T00:00:00Z"`, []string{upCL}, "{{base}}/c2.xml", "{{base}}/c1.xml"),
			"/c1.xml":  urlset(`capability="changelist" from="2013-01-01T00:00:00Z" until="2013-01-02T00:00:00Z"`, []string{upCL, ln("index", "{{base}}/cli.xml")}, `{{base}}/r change="updated"`),
			"/c2.xml":  urlset(`capability="changelist" from="2013-01-02T00:00:00Z" until="2013-01-03T00:00:00Z"`, []string{upCL, ln("index", "{{base}}/cli.xml")}, `{{base}}/r change="updated"`),
		}, "/cli.xml change-index-order 1", model.SeverityError, "12.2"},
		{"Change Dump open before the last", "/cdi.xml", map[string]string{
			"/cdi.xml": sitemapindex(`capability="changedump" from="2013-01-01T00:00:00Z"`, []string{upCL}, "{{base}}/d1.xml", "{{base}}/d2.xml"),
			"/d1.xml":  cd(`from="2013-01-01T00:00:00Z"`, upCL, ln("index", "{{base}}/cdi.xml")),
			"/d2.xml":  cd(`from="2013-01-02T00:00:00Z"`, upCL, ln("index", "{{base}}/cdi.xml")),
		}, "/cdi.xml change-index-open-not-last 0", model.SeverityError, "13.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSite(t)
			for p, body := range tt.docs {
				s.xml(p, body)
			}
			root, err := NewGraph(&testGetter{}, GraphOptions{}).Walk(testCtx(t), s.URL+tt.root, WalkOptions{Depth: Unlimited, Check: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := crossOf(root, s.URL); len(got) != 1 || got[0] != tt.want {
				t.Fatalf("got %v, want [%s]", got, tt.want)
			}
			root.Walk(func(n *Node) bool {
				for _, p := range n.Cross {
					if p.Severity != tt.severity || p.Section != tt.section || !strings.HasSuffix(p.Message, "(§"+tt.section+")") {
						t.Errorf("problem %+v: want %s §%s, the message ending with its section", p, tt.severity, tt.section)
					}
				}
				return true
			})
		})
	}
}
