package ui

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"rsx/display"
	"rsx/fetch"
)

// Text a Source wrote reaches the screen only through the one escaper
// (display.Escape): a hostile Source is walked page by page and every
// screen is checked for characters a terminal would act on.

// exPX is what an XML document can carry that a terminal acts on: C1
// controls (a one-character CSI and OSC), DEL, and bidirectional overrides
// and isolates that make text read as other text. XML forbids the C0
// controls other than tab, newline and carriage return.
const exPX = "\u202eLIVE\u009b2J\u009d0;T\u2066\x7f"

// exPC adds what HTTP headers, bodies, link-format and HTML carry too: C0
// controls (an OSC that sets the window title, a bell) and the escape.
const exPC = "\x1b]0;PWN\x07\x1b[2J" + exPX

// exOurSGR is the styling the explorer writes itself: SGR sequences only.
var exOurSGR = regexp.MustCompile("\x1b\\[[0-9;:]*m")

// exTerminalSafe fails the test when s, a screen as drawn (styles
// included), holds anything a terminal would act on besides the explorer's
// own colours and line breaks: every control, DEL, C1 and bidirectional
// character of a Source must have been escaped.
func exTerminalSafe(t *testing.T, where, s string) {
	t.Helper()
	rest := exOurSGR.ReplaceAllString(s, "")
	for i, r := range rest {
		if r == '\n' {
			continue
		}
		if display.Unsafe(r) || (r == utf8.RuneError && strings.HasPrefix(rest[i:], "\xff")) {
			lo := max(i-40, 0)
			t.Errorf("%s: %U reaches the terminal: …%q…", where, r, rest[lo:min(i+40, len(rest))])
			return
		}
	}
}

// exHostileGetter serves exSite and a hostile Source: headers, status
// texts and bodies that carry controls.
type exHostileGetter struct {
	*exGetter
	headers map[string]http.Header // by path
}

func (g exHostileGetter) Get(ctx context.Context, url string) (*fetch.Response, error) {
	resp, err := g.exGetter.Get(ctx, url)
	if h := g.headers[strings.TrimPrefix(url, exHost)]; resp != nil && h != nil {
		resp.Header = h.Clone()
		resp.Exchange.ResponseHeader = h.Clone()
		resp.Exchange.StatusText = "OK" + exPC
	}
	return resp, err
}

func exHostileSite() exHostileGetter {
	g := newExGetter()
	ns := `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/" xmlns:ev="http://evil.example/"`
	g.docs["/evil/cl.xml"] = `<?xml version="1.0" encoding="UTF-8"?>
<urlset ` + ns + `>
<rs:md capability="capabilitylist" at="` + exPX + `"/>
<rs:ln rel="up" href="` + exHost + `/.well-known/resourcesync"/>
<rs:ln rel="describedby ` + exPX + `" href="` + exHost + `/about/` + exPX + `.html"/>
<ev:note ev:a="` + exPX + `">` + exPX + `</ev:note>
<url><loc>` + exHost + `/missing` + exPX + `.xml</loc><rs:md capability="resourcelist"/></url>
<url><loc>` + exHost + `/evil/rl.xml</loc><rs:md capability="resourcelist` + exPX + `"/></url>
</urlset>
`
	g.docs["/evil/rl.xml"] = `<?xml version="1.0" encoding="UTF-8"?>
<urlset ` + ns + `>
<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z" completed="` + exPX + `"/>
<rs:ln rel="up" href="` + exHost + `/evil/cl.xml"/>
<url><loc>` + exHost + `/res/` + exPX + `.html</loc><lastmod>` + exPX + `</lastmod><rs:md hash="md5:` + exPX + `" length="` + exPX + `" type="text/html&#10;` + exPX + `" path="/` + exPX + `" ev:x="` + exPX + `"/><rs:ln rel="timemap" href="` + exHost + `/tm/1"/><rs:ln rel="alternate ` + exPX + `" href="` + exHost + `/alt/` + exPX + `" type="` + exPX + `"/><ev:extra>` + exPX + `</ev:extra></url>
<url><loc>` + exHost + `/res/2.txt</loc><rs:md type="text/plain"/><rs:ln rel="timemap" href="` + exHost + `/tm/1"/></url>
</urlset>
`
	g.docs["/res/2.txt"] = "line one" + exPC + "\n\tindented\u202e\n"
	g.docs["/tm/1"] = `<` + exHost + `/res/2.txt>; rel="original", <` + exHost + `/mem/` + exPC + `>; rel="memento"; datetime="Mon, 05 Jan 2026 10:00:00 GMT` + exPC + `"`
	g.docs["/evil/index.html"] = `<!DOCTYPE html><html><head><title>` + exPC + `</title><link rel="resourcesync" href="` + exHost + `/ev` + exPC + `.xml"></head><body>x</body></html>`
	evil := http.Header{"Content-Type": {"text/plain" + exPC}, "X-" + "Evil": {exPC}}
	return exHostileGetter{exGetter: g, headers: map[string]http.Header{
		"/evil/cl.xml": evil, "/evil/rl.xml": evil, "/res/2.txt": evil, "/tm/1": evil,
		"/evil/index.html": {"Content-Type": {"text/html"}, "Link": {`<` + exHost + `/lh` + exPC + `>; rel="resourcesync"`}},
	}}
}

// TestHostileSourceIsEscaped walks a hostile Source through every page
// that shows what it wrote.
func TestHostileSourceIsEscaped(t *testing.T) {
	// shows is what the step's screen must show at 120 columns: what was
	// there, escaped, not blanked.
	px := `\u202eLIVE\u009b2J\u009d0;T\u2066\x7f`
	pc := `\x1b]0;PWN\x07\x1b[2J` + px
	steps := []struct {
		keys  string
		want  string // a page title, or "" for the document page
		shows string
	}{
		{"", "", "capabilitylist  at " + px},
		{"d", "", "xmlns:ev"},
		{"d p", "Problems", `at="` + px + `" is not a W3C Datetime`},
		{"esc x", "Raw XML", `at="` + px + `"/>`},
		{"esc h", "HTTP", "X-Evil: " + pc},
		{"esc enter", "", "GET http://example.org/missing" + px + ".xml: 404 Not Found"},
		{"esc j enter", "", "lastmod    " + px},
		{"d", "", "completed  " + px},
		{"d p", "Problems", "Problems"},
		{"esc x", "Raw XML", `completed="` + px + `"/>`},
		{"esc h", "HTTP", "200 OK" + pc},
		{"esc y", "", "copied entry URL, 5 control characters escaped (%XX): http://example.org/res/%E2%80%AELIVE%C2%9B2J%C2%9D0;T%E2%81%A6%7F"},
		{"tab G", "", "<ev:extra> " + px}, // the detail pane scrolled to its end (the links, below the problems)
		{"tab enter", "Resource", "Resource  http://example.org/res/" + px + ".html"},
		{"esc j enter", "Resource", "  line one" + pc},
		{"esc v", "Versions", "version http://example.org/mem/" + pc},
	}
	for _, sz := range exSizes {
		a, d := exAppWith(t, exHostileSite(), "/evil/cl.xml", sz.w, sz.h)
		for _, s := range steps {
			d.keys(s.keys)
			if got := a.pageTitle(); got != s.want && !strings.HasSuffix(got, s.want) {
				t.Fatalf("%dx%d after %q: pages %q, want %q; screen:\n%s", sz.w, sz.h, s.keys, got, s.want, d.screen())
			}
			v := a.View()
			exTerminalSafe(t, "screen after "+s.keys, v.Content)
			exTerminalSafe(t, "window title after "+s.keys, v.WindowTitle)
			if sz.w == 120 && !strings.Contains(d.screen(), s.shows) {
				t.Errorf("after %q the screen does not show %q:\n%s", s.keys, s.shows, d.screen())
			}
		}
	}
}

// TestHostileDiscoveryIsEscaped: what discovery read from an HTML page and
// its Link header is shown escaped.
func TestHostileDiscoveryIsEscaped(t *testing.T) {
	for _, sz := range exSizes {
		a, d := exAppWith(t, exHostileSite(), "/evil/index.html", sz.w, sz.h)
		exWantPage(t, a, "Discovery")
		if s := d.screen(); sz.w == 120 && !strings.Contains(s, `/ev\x1b]0;PWN\x07\x1b[2J\u202eLIVE`) {
			t.Errorf("the HTML link is not shown escaped:\n%s", s)
		}
		v := a.View()
		exTerminalSafe(t, "discovery", v.Content)
		exTerminalSafe(t, "window title", v.WindowTitle)
	}
}

// TestHostilePackageIsEscaped: member names (a ZIP may name a member with
// any bytes) and what the manifest declares are shown escaped, in the
// table and in the detail of the selected row.
func TestHostilePackageIsEscaped(t *testing.T) {
	const body = "alpha\n"
	manifest := pkManifest("resourcedump-manifest", `at="2013-01-03T09:00:00Z"`,
		pkRes("/res/"+exPX, "/resources/a"+exPX, body, `encoding="`+exPX+`"`))
	z := pkZip(t, manifest, pkMember{"resources/a" + exPX, body}, pkMember{"x" + exPC, "x"})
	for _, sz := range exSizes {
		site := newPKSite(t)
		site.files["/dumps/evil.zip"] = z
		site.files["/evil.xml"] = []byte(pkManifest("resourcedump", `at="2013-01-03T09:00:00Z"`,
			fmt.Sprintf(`<loc>%s/dumps/evil.zip</loc><rs:md type="application/zip" length="%d"/>`, pkHost, len(z))))
		a, d, _ := pkAppSite(t, site, "/evil.xml", sz.w, sz.h)
		d.keys("enter")
		// The entry and the members are refused (a control in a path), and
		// shown.
		pkVerified(t, pkPage(t, a), d)
		if rows := pkRows(d.screen()); len(rows) != 3 {
			t.Fatalf("%d rows; screen:\n%s", len(rows), d.screen())
		}
		for _, keys := range []string{"", "j", "j"} { // the entry, then the unlisted members
			d.keys(keys)
			exTerminalSafe(t, "package page after "+keys, a.View().Content)
		}
		if s := d.screen(); !strings.Contains(s, `x\x1b]0;PWN\x07`) {
			t.Errorf("the member's name is not shown escaped in its detail:\n%s", s)
		}
	}
}
