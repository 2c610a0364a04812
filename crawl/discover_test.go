package crawl

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"rsx/model"
)

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// standardSource puts a Source Description at sdPath listing one Capability
// List, which lists a Resource List.
func standardSource(s *site, sdPath string) {
	s.xml(sdPath, urlset(`capability="description"`, nil,
		`{{base}}/cl1.xml capability="capabilitylist"`,
		`{{base}}/cl2.xml capability="capabilitylist"`))
	s.xml("/cl1.xml", urlset(`capability="capabilitylist"`, []string{ln("up", "{{base}}"+sdPath)},
		`{{base}}/rl1.xml capability="resourcelist"`))
	s.xml("/cl2.xml", urlset(`capability="capabilitylist"`, []string{ln("up", "{{base}}"+sdPath)}))
	s.xml("/rl1.xml", urlset(`capability="resourcelist" at="2013-01-03T09:00:00Z"`, []string{ln("up", "{{base}}/cl1.xml")},
		`{{base}}/res1`, `{{base}}/res2`))
}

func attemptsOf(d *Discovery, method string) []Attempt {
	var out []Attempt
	for _, a := range d.Attempts {
		if a.Method == method {
			out = append(out, a)
		}
	}
	return out
}

func TestDiscoverWellKnownAtRoot(t *testing.T) {
	s := newSite(t)
	standardSource(s, WellKnownPath)
	d, err := Discover(testCtx(t), &testGetter{}, s.URL, DiscoverOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.SourceDescription != s.URL+WellKnownPath {
		t.Errorf("SourceDescription = %q", d.SourceDescription)
	}
	want := []string{s.URL + "/cl1.xml", s.URL + "/cl2.xml"}
	if !reflect.DeepEqual(d.CapabilityLists, want) {
		t.Errorf("CapabilityLists = %v", d.CapabilityLists)
	}
	if !d.OK() || !d.InputReached {
		t.Errorf("OK %v InputReached %v", d.OK(), d.InputReached)
	}
	rb := attemptsOf(d, MethodRobots)
	if len(rb) != 1 || rb[0].Status != 404 || rb[0].Err == "" {
		t.Errorf("robots attempts = %+v", rb)
	}
	wk := attemptsOf(d, MethodWellKnown)
	if len(wk) != 1 || wk[0].Status != 200 || len(wk[0].Found) != 1 {
		t.Errorf("well-known attempts = %+v", wk)
	}
	if len(d.Found) != 1 || d.Found[0].Capability != model.CapDescription || d.Found[0].Method != MethodWellKnown {
		t.Errorf("Found = %+v", d.Found)
	}
}

func TestDiscoverWellKnownUnderPrefix(t *testing.T) {
	s := newSite(t)
	standardSource(s, "/repo"+WellKnownPath)
	s.set("/repo/items/1.html", page{ctype: "text/html", body: `<html><head><title>x</title></head><body>hi</body></html>`})
	d, err := Discover(testCtx(t), &testGetter{}, s.URL+"/repo/items/1.html", DiscoverOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var urls []string
	for _, a := range attemptsOf(d, MethodWellKnown) {
		urls = append(urls, a.URL)
	}
	want := []string{s.URL + WellKnownPath, s.URL + "/repo" + WellKnownPath, s.URL + "/repo/items" + WellKnownPath}
	if !reflect.DeepEqual(urls, want) {
		t.Errorf("well-known tried %v, want %v", urls, want)
	}
	if d.SourceDescription != s.URL+"/repo"+WellKnownPath {
		t.Errorf("SourceDescription = %q", d.SourceDescription)
	}
	if len(d.CapabilityLists) != 2 {
		t.Errorf("CapabilityLists = %v", d.CapabilityLists)
	}
}

func TestWellKnownCandidates(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"http://h/", []string{"http://h" + WellKnownPath}},
		{"http://h", []string{"http://h" + WellKnownPath}},
		{"http://h/a/b/c.html", []string{"http://h" + WellKnownPath, "http://h/a" + WellKnownPath, "http://h/a/b" + WellKnownPath}},
		{"http://h/a/b/", []string{"http://h" + WellKnownPath, "http://h/a" + WellKnownPath, "http://h/a/b" + WellKnownPath}},
		{"http://h/repo/.well-known/resourcesync", []string{"http://h" + WellKnownPath, "http://h/repo" + WellKnownPath}},
	}
	for _, tt := range tests {
		u, _ := url.Parse(tt.in)
		if got := wellKnownCandidates(u, 8); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %v want %v", tt.in, got, tt.want)
		}
	}
	u, _ := url.Parse("http://h/1/2/3/4/5/6/7/8/9/10/11/x")
	if got := wellKnownCandidates(u, 3); len(got) != 4 {
		t.Errorf("bounded prefixes: %v", got)
	}
}

func TestDiscoverRobots(t *testing.T) {
	s := newSite(t)
	standardSource(s, "/sd.xml")
	s.xml("/plain-sitemap.xml", `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://x/</loc></url></urlset>`)
	s.set("/robots.txt", page{ctype: "text/plain", body: "User-agent: *\r\nDisallow: /cgi-bin/\r\nCrawl-delay: 2\r\n\r\nsitemap: {{base}}/plain-sitemap.xml\r\nSITEMAP: {{base}}/rl1.xml\r\n"})
	g := &testGetter{}
	d, err := Discover(testCtx(t), g, s.URL+"/", DiscoverOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rb := attemptsOf(d, MethodRobots)
	if len(rb) != 3 {
		t.Fatalf("robots attempts = %+v", rb)
	}
	if want := []string{s.URL + "/plain-sitemap.xml", s.URL + "/rl1.xml"}; !reflect.DeepEqual(rb[0].Found, want) {
		t.Errorf("Sitemap lines = %v", rb[0].Found)
	}
	if rb[1].Err != "" || len(rb[1].Notes) != 1 || !strings.Contains(rb[1].Notes[0], "not a ResourceSync document") {
		t.Errorf("plain sitemap attempt = %+v", rb[1])
	}
	if len(rb[2].Found) != 1 {
		t.Errorf("resource list attempt = %+v", rb[2])
	}
	host, _ := url.Parse(s.URL)
	if g.delays[host.Hostname()] != 2*time.Second {
		t.Errorf("crawl delays = %v", g.delays)
	}
	if d.SourceDescription != s.URL+"/sd.xml" {
		t.Errorf("SourceDescription = %q", d.SourceDescription)
	}
	if want := []string{s.URL + "/rl1.xml", s.URL + "/cl1.xml", s.URL + "/sd.xml"}; !reflect.DeepEqual(d.UpChain, want) {
		t.Errorf("UpChain = %v", d.UpChain)
	}
	// the robots fetch came first, so that Crawl-delay governs the rest
	if len(g.gets) == 0 || !strings.HasSuffix(g.gets[0], "/robots.txt") {
		t.Errorf("first request %v", g.gets)
	}
}

func TestDiscoverRobotsCrawlDelayCapped(t *testing.T) {
	s := newSite(t)
	s.set("/robots.txt", page{body: "User-agent: rsx\nCrawl-delay: 3600\n"})
	g := &testGetter{}
	d, err := Discover(testCtx(t), g, s.URL, DiscoverOptions{MaxCrawlDelay: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	host, _ := url.Parse(s.URL)
	if g.delays[host.Hostname()] != 5*time.Second {
		t.Errorf("delays = %v", g.delays)
	}
	if rb := attemptsOf(d, MethodRobots); len(rb[0].Notes) == 0 || !strings.Contains(rb[0].Notes[0], "capped") {
		t.Errorf("notes = %v", rb[0].Notes)
	}
	if d.OK() {
		t.Error("nothing should be found")
	}
}

func TestDiscoverRobotsUnparsableFallsBack(t *testing.T) {
	s := newSite(t)
	standardSource(s, "/sd.xml")
	// A Crawl-delay before any User-agent makes the robots parser refuse
	// the whole file; the Sitemap line still counts.
	s.set("/robots.txt", page{body: "Crawl-delay: 1\nSitemap: {{base}}/cl1.xml # the list\n"})
	d, err := Discover(testCtx(t), &testGetter{}, s.URL, DiscoverOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rb := attemptsOf(d, MethodRobots)
	if len(rb) != 2 || len(rb[0].Notes) == 0 || !reflect.DeepEqual(rb[0].Found, []string{s.URL + "/cl1.xml"}) {
		t.Fatalf("robots attempts = %+v", rb)
	}
	if d.SourceDescription != s.URL+"/sd.xml" {
		t.Errorf("SourceDescription = %q", d.SourceDescription)
	}
}

func TestScanSitemapLines(t *testing.T) {
	got := scanSitemapLines([]byte("# c\r\nSitemap: http://a/1\r\nsitemap:http://a/2\nSITEMAP : http://a/3 # x\nSitemapX: no\nsitemap:\n"))
	want := []string{"http://a/1", "http://a/2", "http://a/3"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v", got)
	}
}

func TestDiscoverHTMLLink(t *testing.T) {
	s := newSite(t)
	standardSource(s, "/sd.xml")
	s.xml("/sub/cl.xml", urlset(`capability="capabilitylist"`, []string{ln("up", "{{base}}/sd.xml")}))
	// ISO-8859-1 page (é as byte 0xE9), rel with several tokens in mixed
	// case, href with whitespace, <base href>, a link outside the head.
	body := "<!DOCTYPE html><html><head><meta charset=\"iso-8859-1\"><title>Caf\xe9</title>" +
		"<base href=\"/sub/\">\n<link rel=\"alternate  ResourceSync\" href=\"  cl.xml \">" +
		"<link rel=\"stylesheet\" href=\"x.css\"></head><body><p>caf\xe9</p>" +
		"<link rel=\"resourcesync\" href=\"/body.xml\"></body></html>"
	s.set("/page.html", page{ctype: "text/html", body: body})
	d, err := Discover(testCtx(t), &testGetter{}, s.URL+"/page.html", DiscoverOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hl := attemptsOf(d, MethodHTMLLink)
	if len(hl) != 2 {
		t.Fatalf("html-link attempts = %+v", hl)
	}
	if !reflect.DeepEqual(hl[0].Found, []string{s.URL + "/sub/cl.xml"}) {
		t.Errorf("html links = %v", hl[0].Found)
	}
	if len(hl[0].Notes) != 1 || !strings.Contains(hl[0].Notes[0], "outside <head>") {
		t.Errorf("notes = %v", hl[0].Notes)
	}
	if len(d.Found) != 1 || d.Found[0].Method != MethodHTMLLink || d.Found[0].Capability != model.CapCapabilityList {
		t.Errorf("Found = %+v", d.Found)
	}
	if d.SourceDescription != s.URL+"/sd.xml" {
		t.Errorf("SourceDescription = %q", d.SourceDescription)
	}
	if want := []string{s.URL + "/sub/cl.xml", s.URL + "/sd.xml"}; !reflect.DeepEqual(d.UpChain, want) {
		t.Errorf("UpChain = %v", d.UpChain)
	}
}

func TestHTMLLinksCharsetFromHeader(t *testing.T) {
	// é is byte 0xE9 in ISO-8859-1; read as such it becomes %C3%A9 in the URL.
	body := "<html><head><title>\xe9</title><link rel=RESOURCESYNC href=\"/caf\xe9.xml\"></head></html>"
	got, _, err := htmlLinks(strings.NewReader(body), "text/html; charset=ISO-8859-1", "http://127.0.0.1/a/b")
	if err != nil || !reflect.DeepEqual(got, []string{"http://127.0.0.1/caf%C3%A9.xml"}) {
		t.Errorf("got %v, %v", got, err)
	}
	// A page without a head element: the parser puts the link in the head.
	got, _, _ = htmlLinks(strings.NewReader(`<link rel="resourcesync" href="x.xml"><p>text`), "text/html", "http://127.0.0.1/a/b")
	if !reflect.DeepEqual(got, []string{"http://127.0.0.1/a/x.xml"}) {
		t.Errorf("implied head: %v", got)
	}
}

func TestDiscoverLinkHeader(t *testing.T) {
	s := newSite(t)
	standardSource(s, "/sd.xml")
	s.xml("/new/cl2.xml", urlset(`capability="capabilitylist"`, []string{ln("up", "{{base}}/sd.xml")}))
	s.set("/old.png", page{status: http.StatusMovedPermanently, header: map[string][]string{"Location": {"/new/res.png"}}})
	s.set("/new/res.png", page{ctype: "image/png", body: "\x89PNG\r\n", header: map[string][]string{
		"Link": {
			`<{{base}}/next>; rel="next", </cl1.xml>; rel="resourcesync describedby"; title="a, b; c"`,
			`<cl2.xml>; rel=ResourceSync`,
		},
	}})
	d, err := Discover(testCtx(t), &testGetter{}, s.URL+"/old.png", DiscoverOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lh := attemptsOf(d, MethodLinkHeader)
	if len(lh) != 3 {
		t.Fatalf("link-header attempts = %+v", lh)
	}
	// relative targets resolve against the final URL, after the redirect
	if want := []string{s.URL + "/cl1.xml", s.URL + "/new/cl2.xml"}; !reflect.DeepEqual(lh[0].Found, want) {
		t.Errorf("targets = %v", lh[0].Found)
	}
	if len(d.Found) != 2 {
		t.Errorf("Found = %+v", d.Found)
	}
	if d.SourceDescription != s.URL+"/sd.xml" {
		t.Errorf("SourceDescription = %q", d.SourceDescription)
	}
	in := attemptsOf(d, MethodInput)
	if len(in) != 1 || in[0].Status != 200 || len(in[0].Found) != 0 {
		t.Errorf("input attempt = %+v", in)
	}
}

func TestDiscoverInputIsDocument(t *testing.T) {
	s := newSite(t)
	standardSource(s, "/sd.xml")
	d, err := Discover(testCtx(t), &testGetter{}, s.URL+"/rl1.xml", DiscoverOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Found) != 1 || d.Found[0].Method != MethodInput || d.Found[0].Capability != model.CapResourceList {
		t.Errorf("Found = %+v", d.Found)
	}
	if want := []string{s.URL + "/rl1.xml", s.URL + "/cl1.xml", s.URL + "/sd.xml"}; !reflect.DeepEqual(d.UpChain, want) {
		t.Errorf("UpChain = %v", d.UpChain)
	}
	if len(attemptsOf(d, MethodUp)) != 2 {
		t.Errorf("up attempts = %+v", attemptsOf(d, MethodUp))
	}
	if s.hitCount("/rl1.xml") != 1 {
		t.Errorf("input fetched %d times", s.hitCount("/rl1.xml"))
	}
}

func TestDiscoverUpLoop(t *testing.T) {
	s := newSite(t)
	s.xml("/cl.xml", urlset(`capability="capabilitylist"`, []string{ln("up", "{{base}}/rl.xml")}))
	s.xml("/rl.xml", urlset(`capability="resourcelist" at="2013-01-03T09:00:00Z"`, []string{ln("up", "{{base}}/cl.xml")}))
	d, err := Discover(testCtx(t), &testGetter{}, s.URL+"/rl.xml", DiscoverOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.SourceDescription != "" || d.UpChain != nil {
		t.Errorf("SD %q chain %v", d.SourceDescription, d.UpChain)
	}
	if s.hitCount("/cl.xml") != 1 || s.hitCount("/rl.xml") != 1 {
		t.Errorf("hits cl %d rl %d", s.hitCount("/cl.xml"), s.hitCount("/rl.xml"))
	}
	if d.OK() {
		t.Error("no Capability List was found directly, nothing should be OK")
	}
}

func TestDiscoverCapabilityListWithoutSD(t *testing.T) {
	s := newSite(t)
	s.xml("/cl.xml", urlset(`capability="capabilitylist"`, []string{ln("up", "{{base}}/missing.xml")}))
	d, err := Discover(testCtx(t), &testGetter{}, s.URL+"/cl.xml", DiscoverOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.SourceDescription != "" || !reflect.DeepEqual(d.CapabilityLists, []string{s.URL + "/cl.xml"}) || !d.OK() {
		t.Errorf("SD %q CLs %v", d.SourceDescription, d.CapabilityLists)
	}
	up := attemptsOf(d, MethodUp)
	if len(up) != 1 || up[0].Status != 404 {
		t.Errorf("up attempts = %+v", up)
	}
}

func TestDiscoverUnreachable(t *testing.T) {
	s := newSite(t)
	u := s.URL
	s.Close()
	d, err := Discover(testCtx(t), &testGetter{}, u+"/x", DiscoverOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.InputReached || d.OK() {
		t.Errorf("reached %v ok %v", d.InputReached, d.OK())
	}
	for _, a := range d.Attempts {
		if a.Status != 0 || a.Err == "" {
			t.Errorf("attempt %+v", a)
		}
	}
}

func TestDiscoverBadInput(t *testing.T) {
	for _, in := range []string{"ftp://127.0.0.1/x", "not a url", "http://", "/local/path"} {
		if _, err := Discover(testCtx(t), &testGetter{}, in, DiscoverOptions{}); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

func FuzzHTMLLinks(f *testing.F) {
	f.Add(`<html><head><base href="/a/"><link rel="resourcesync" href="b.xml"></head></html>`, "text/html; charset=iso-8859-1")
	f.Add("<link rel=resourcesync href=\"\xff\">", "text/html; charset=bogus")
	f.Fuzz(func(t *testing.T, body, ctype string) {
		targets, _, _ := htmlLinks(strings.NewReader(body), ctype, "http://127.0.0.1/p")
		for _, u := range targets {
			if u == "" {
				t.Error("empty target")
			}
		}
	})
}

func FuzzScanSitemapLines(f *testing.F) {
	f.Add("Sitemap: http://a/1\r\nsitemap:x # y\n")
	f.Fuzz(func(t *testing.T, s string) {
		for _, u := range scanSitemapLines([]byte(s)) {
			if u == "" || strings.ContainsAny(u, "\r\n#") {
				t.Errorf("bad sitemap %q", u)
			}
		}
	})
}

// TestDiscoverCapsCandidates: a page can carry thousands of resourcesync
// links. At most MaxLinkTargets, MaxHTMLLinks and MaxSitemaps are tried, the
// likeliest first; the cap is noted; a file: target is never tried.
func TestDiscoverCapsCandidates(t *testing.T) {
	s := newSite(t)
	standardSource(s, "/sd.xml")
	s.xml("/sets/capabilitylist.xml", urlset(`capability="capabilitylist"`, []string{ln("up", "{{base}}/sd.xml")}))
	var link, head, robots strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&link, "<http://other%d.example/%d.xml>; rel=resourcesync, </page/%d>; rel=resourcesync, ", i%7, i, i)
		fmt.Fprintf(&head, `<link rel="resourcesync" href="/h/%d">`, i)
		fmt.Fprintf(&robots, "Sitemap: {{base}}/sm/%d\n", i)
	}
	link.WriteString("<file:///etc/passwd>; rel=resourcesync, </sets/capabilitylist.xml>; rel=resourcesync")
	head.WriteString(`<link rel="resourcesync" href="/sets/capabilitylist.xml">`)
	s.set("/robots.txt", page{ctype: "text/plain", body: robots.String()})
	s.set("/page.html", page{ctype: "text/html", body: "<html><head>" + head.String() + "</head><body></body></html>",
		header: map[string][]string{"Link": {link.String()}}})
	d, err := Discover(testCtx(t), &testGetter{}, s.URL+"/page.html", DiscoverOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		method string
		max    int
	}{{MethodLinkHeader, 20}, {MethodHTMLLink, 20}, {MethodRobots, 20}} {
		as := attemptsOf(d, c.method)
		if tried := len(as) - 1; tried > c.max {
			t.Errorf("%s: %d candidates tried, at most %d", c.method, tried, c.max)
		}
		if !strings.Contains(strings.Join(as[0].Notes, "\n"), "not tried") {
			t.Errorf("%s: the cap is not noted: %q", c.method, as[0].Notes)
		}
	}
	for _, a := range d.Attempts {
		if strings.HasPrefix(a.URL, "file:") {
			t.Errorf("a file: target was tried: %+v", a)
		}
	}
	lh := attemptsOf(d, MethodLinkHeader)
	if lh[0].Found[0] != s.URL+"/sets/capabilitylist.xml" {
		t.Errorf("the likeliest target is not tried first: %v", lh[0].Found[:3])
	}
	if d.SourceDescription != s.URL+"/sd.xml" {
		t.Errorf("SourceDescription = %q", d.SourceDescription)
	}
}

// TestDiscoveryProblems: what discovery finds wrong with the Source.
func TestDiscoveryProblems(t *testing.T) {
	html := func(href string) page {
		return page{ctype: "text/html", body: `<html><head><link rel="resourcesync" href="` + href + `"></head><body>x</body></html>`}
	}
	tests := []struct {
		name  string
		setup func(s *site)
		input string
		want  []string // "rule section"
	}{
		{"Source Description at the well-known URI", func(s *site) { standardSource(s, WellKnownPath) }, "/", nil},
		{"Source Description elsewhere, reached by up links", func(s *site) {
			standardSource(s, "/sd.xml")
			s.set("/page.html", html("/cl1.xml"))
		}, "/page.html", []string{"source-description-not-well-known 6.3.2"}},
		{"no Source Description", func(s *site) {
			s.xml("/cl.xml", urlset(`capability="capabilitylist"`, nil, `{{base}}/rl.xml capability="resourcelist"`))
			s.set("/page.html", html("/cl.xml"))
		}, "/page.html", []string{"source-description-unreached 6.3.2"}},
		{"Capability List the Source Description does not list", func(s *site) {
			standardSource(s, WellKnownPath)
			s.xml("/cl3.xml", urlset(`capability="capabilitylist"`, []string{ln("up", "{{base}}"+WellKnownPath)}))
			s.set("/page.html", html("/cl3.xml"))
		}, "/page.html", []string{"capabilitylist-not-listed 8"}},
		{"HTML link to a Resource List", func(s *site) {
			standardSource(s, WellKnownPath)
			s.set("/page.html", html("/rl1.xml"))
		}, "/page.html", []string{"discovery-link-target 6.3.3"}},
		{"nothing found: no Source to judge", func(s *site) {
			s.set("/page.html", page{ctype: "text/html", body: `<html><head></head><body>x</body></html>`})
		}, "/page.html", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSite(t)
			tt.setup(s)
			d, err := Discover(testCtx(t), &testGetter{}, s.URL+tt.input, DiscoverOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range d.Problems() {
				got = append(got, p.Rule+" "+p.Section)
				if r := rule(p.Rule); p.Severity != r.Severity || !strings.HasSuffix(p.Message, "(§"+p.Section+")") || !strings.Contains(p.Message, s.URL) {
					t.Errorf("problem %+v: severity, section or message wrong", p)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("problems %v, want %v\n%+v", got, tt.want, d.Problems())
			}
		})
	}
}

// TestCheckLinkCoverage: §6.3.3, the Capability List a resource links to
// must cover it.
func TestCheckLinkCoverage(t *testing.T) {
	const at = `at="2013-01-03T09:00:00Z"`
	cl := func(entries ...string) string { return urlset(`capability="capabilitylist"`, nil, entries...) }
	tests := []struct {
		name            string
		docs            map[string]string
		max             int
		judged, covered bool
		where           string
	}{
		{"in the Resource List", map[string]string{
			"/cl.xml": cl(`{{base}}/rl.xml capability="resourcelist"`),
			"/rl.xml": urlset(`capability="resourcelist" `+at, nil, "{{base}}/other", "{{base}}/page.html"),
		}, 0, true, true, "/rl.xml"},
		{"in a part of the Resource List Index", map[string]string{
			"/cl.xml":  cl(`{{base}}/rli.xml capability="resourcelist"`),
			"/rli.xml": sitemapindex(`capability="resourcelist" `+at, nil, "{{base}}/p1.xml", "{{base}}/p2.xml"),
			"/p1.xml":  urlset(`capability="resourcelist" `+at, nil, "{{base}}/other"),
			"/p2.xml":  urlset(`capability="resourcelist" `+at, nil, "page.html"),
		}, 0, true, true, "/p2.xml"},
		{"in the Change List only", map[string]string{
			"/cl.xml": cl(`{{base}}/rl.xml capability="resourcelist"`, `{{base}}/ch.xml capability="changelist"`),
			"/rl.xml": urlset(`capability="resourcelist" `+at, nil, "{{base}}/other"),
			"/ch.xml": urlset(`capability="changelist" from="2013-01-01T00:00:00Z"`, nil, `{{base}}/page.html change="created"`),
		}, 0, true, true, "/ch.xml"},
		{"in no list", map[string]string{
			"/cl.xml": cl(`{{base}}/rl.xml capability="resourcelist"`),
			"/rl.xml": urlset(`capability="resourcelist" `+at, nil, "{{base}}/other"),
		}, 0, true, false, ""},
		{"only a Resource Dump: not judged", map[string]string{
			"/cl.xml": cl(`{{base}}/rd.xml capability="resourcedump"`),
		}, 0, false, false, ""},
		{"a list that cannot be read: not judged", map[string]string{
			"/cl.xml": cl(`{{base}}/rl.xml capability="resourcelist"`, `{{base}}/gone.xml capability="changelist"`),
			"/rl.xml": urlset(`capability="resourcelist" `+at, nil, "{{base}}/other"),
		}, 0, false, false, ""},
		{"bound reached: not judged", map[string]string{
			"/cl.xml":  cl(`{{base}}/rli.xml capability="resourcelist"`),
			"/rli.xml": sitemapindex(`capability="resourcelist" `+at, nil, "{{base}}/p1.xml", "{{base}}/p2.xml"),
			"/p1.xml":  urlset(`capability="resourcelist" `+at, nil, "{{base}}/other"),
			"/p2.xml":  urlset(`capability="resourcelist" `+at, nil, "{{base}}/page.html"),
		}, 3, false, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSite(t)
			for p, body := range tt.docs {
				s.xml(p, body)
			}
			lc := CheckLinkCoverage(testCtx(t), &testGetter{}, s.URL+"/cl.xml", []string{s.URL + "/page.html?x", s.URL + "/page.html"}, CoverageOptions{MaxDocuments: tt.max})
			if lc.Judged != tt.judged || lc.Covered != tt.covered || (tt.where != "" && lc.Where != s.URL+tt.where) {
				t.Fatalf("%+v", lc)
			}
			p, bad := lc.Problem()
			if bad != (tt.judged && !tt.covered) {
				t.Fatalf("problem %v for %+v", bad, lc)
			}
			if bad && (p.Rule != RuleDiscoveryLinkCoverage || p.Section != "6.3.3" || p.Severity != model.SeverityError ||
				!strings.Contains(p.Message, s.URL+"/cl.xml") || !strings.HasSuffix(p.Message, "(§6.3.3)")) {
				t.Errorf("problem %+v", p)
			}
			if !tt.judged && lc.Reason == "" {
				t.Errorf("not judged without a reason: %+v", lc)
			}
		})
	}
}
