package crawl

import (
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/temoto/robotstxt"
	"golang.org/x/net/html/charset"

	"rsx/display"
	"rsx/fetch"
	"rsx/model"
)

// Discovery methods, the values of Attempt.Method and Found.Method.
const (
	MethodWellKnown  = "well-known"  // /.well-known/resourcesync (section 6.3.2)
	MethodRobots     = "robots"      // robots.txt Sitemap directives (section 6.3.4)
	MethodHTMLLink   = "html-link"   // <link rel="resourcesync"> in an HTML head (section 6.3.3)
	MethodLinkHeader = "link-header" // HTTP Link header with rel="resourcesync" (section 6.3.3)
	MethodInput      = "input"       // the input URL itself is a ResourceSync document
	MethodUp         = "up"          // a document fetched while following up links
)

// WellKnownPath is the well-known URI of a Source Description (RFC 8615).
const WellKnownPath = "/.well-known/resourcesync"

// DiscoverOptions tune Discover. The zero value is ready to use.
type DiscoverOptions struct {
	// UserAgent selects the robots.txt group whose Crawl-delay applies;
	// default "rsx".
	UserAgent string
	// MaxCrawlDelay caps the Crawl-delay passed to the Getter, so that a
	// robots.txt asking for an hour between requests cannot stall the
	// program; default 30s.
	MaxCrawlDelay time.Duration
	// MaxPrefixes bounds the path prefixes under which the well-known URI is
	// tried besides the host root; default 8 (the deepest ones are dropped).
	MaxPrefixes int
	// MaxSitemaps bounds the robots.txt Sitemap URLs that are fetched to see
	// whether they are ResourceSync documents; default 20.
	MaxSitemaps int
	// MaxUp bounds the up links followed from one document; default 8.
	MaxUp int
	// MaxLinkTargets bounds the targets of Link headers that are tried,
	// and MaxHTMLLinks those of HTML <link> elements; default 20 each. A
	// response can carry thousands: the likeliest are tried first (see
	// likeliestFirst) and the cap, when reached, is noted on the attempt.
	MaxLinkTargets int
	MaxHTMLLinks   int
}

func (o DiscoverOptions) withDefaults() DiscoverOptions {
	if o.UserAgent == "" {
		o.UserAgent = "rsx"
	}
	if o.MaxCrawlDelay <= 0 {
		o.MaxCrawlDelay = 30 * time.Second
	}
	if o.MaxPrefixes <= 0 {
		o.MaxPrefixes = 8
	}
	if o.MaxSitemaps <= 0 {
		o.MaxSitemaps = 20
	}
	if o.MaxUp <= 0 {
		o.MaxUp = 8
	}
	if o.MaxLinkTargets <= 0 {
		o.MaxLinkTargets = 20
	}
	if o.MaxHTMLLinks <= 0 {
		o.MaxHTMLLinks = 20
	}
	return o
}

// Attempt is one request made during discovery and what it pointed at.
type Attempt struct {
	Method string   // one of the Method constants
	URL    string   // the URL requested
	Status int      // HTTP status, 0 when no response came
	Err    string   // "" when the request succeeded
	Found  []string // URLs this attempt pointed at (links, Sitemap lines) or, for a document, its own URL when it is a ResourceSync document
	Notes  []string // remarks: a robots.txt parse error, a capped Crawl-delay, a link outside <head> …
}

// Found is a ResourceSync document reached by a discovery method.
type Found struct {
	Method     string
	URL        string
	Capability model.Capability
	Root       model.RootKind
}

// Discovery is the outcome of Discover.
type Discovery struct {
	Input    string
	Attempts []Attempt
	Found    []Found
	// SourceDescription is the Source Description reached: found directly or
	// by following up links; "" when none was reached.
	SourceDescription string
	// UpChain is the path of up links that led to the Source Description,
	// from the document it started at to the Source Description itself.
	UpChain []string
	// CapabilityLists are the entries of the Source Description or, when no
	// Source Description was reached, the Capability Lists found directly.
	CapabilityLists []string
	// InputReached is true when the input URL gave an HTTP response, of any
	// status.
	InputReached bool
	// InputFinal is the input URL after redirects, "" when it gave no
	// response.
	InputFinal string
	// Coverage holds, after CheckCoverage, whether the input is covered by
	// each Capability List it links to.
	Coverage []LinkCoverage
}

// CheckCoverage judges, for each Capability List the input links to (an
// HTML <link rel="resourcesync"> or a Link header), whether the input is
// covered by its capabilities (§6.3.3), and keeps the answers in Coverage;
// Problems reports the input that is not. It reads the Resource Lists and
// Change Lists of each such Capability List, within opts.
func (d *Discovery) CheckCoverage(ctx context.Context, g fetch.Getter, opts CoverageOptions) {
	d.Coverage = nil
	seen := map[string]bool{}
	for _, f := range d.Found {
		if (f.Method != MethodHTMLLink && f.Method != MethodLinkHeader) || f.Capability != model.CapCapabilityList || f.Root != model.RootURLSet || seen[f.URL] {
			continue
		}
		seen[f.URL] = true
		d.Coverage = append(d.Coverage, CheckLinkCoverage(ctx, g, f.URL, []string{d.Input, d.InputFinal}, opts))
	}
}

// OK reports whether discovery reached a Source Description or at least one
// Capability List.
func (d *Discovery) OK() bool {
	return d.SourceDescription != "" || len(d.CapabilityLists) > 0
}

// Problems are what discovery found wrong with the Source (rules
// source-description-unreached, source-description-not-well-known and
// discovery-link-target of Rules): nothing when no ResourceSync document was
// found at all, for then there is no Source to judge. Entry is -1.
func (d *Discovery) Problems() []model.Problem {
	if len(d.Found) == 0 {
		return nil
	}
	var out []model.Problem
	add := func(p model.Problem) {
		p.Message = withSection(p)
		out = append(out, p)
	}
	wellKnown := false
	for _, f := range d.Found {
		if f.Method == MethodWellKnown && f.Capability == model.CapDescription {
			wellKnown = true
		}
	}
	switch {
	case d.SourceDescription == "":
		what := make([]string, 0, len(d.Found))
		for _, f := range d.Found {
			what = appendNew(what, f.URL)
		}
		add(problem(RuleSourceDescriptionUnreached, -1,
			"no Source Description was reached: not at a well-known URI, nor by following up links from %s; a Source must publish one",
			strings.Join(what[:min(3, len(what))], ", ")))
	case !wellKnown:
		// Judged only when the well-known URI of the Source Description's
		// host was tried (discovery tries those of the input's host).
		wk := wellKnownOf(d.SourceDescription)
		for _, at := range d.Attempts {
			if at.Method == MethodWellKnown && NormalizeURL(at.URL) == NormalizeURL(wk) {
				add(problem(RuleSourceDescriptionNotWellKnown, -1,
					"the Source Description %s is not published at the well-known URI %s of its host, where discovery found none", d.SourceDescription, wk))
				break
			}
		}
	}
	// The document just below the Source Description on the up chain (a
	// Capability List) is one the Source Description should list.
	if n := len(d.UpChain); n >= 2 && d.SourceDescription != "" {
		below := d.UpChain[n-2]
		listed := false
		for _, c := range d.CapabilityLists {
			if NormalizeURL(c) == NormalizeURL(below) {
				listed = true
			}
		}
		if !listed {
			add(problem(RuleCapabilityListNotListed, -1,
				"%s links up to the Source Description %s, which does not list it", below, d.SourceDescription))
		}
	}
	for _, lc := range d.Coverage {
		if p, ok := lc.Problem(); ok {
			out = append(out, p)
		}
	}
	for _, f := range d.Found {
		if (f.Method == MethodHTMLLink || f.Method == MethodLinkHeader) && !(f.Capability == model.CapCapabilityList && f.Root == model.RootURLSet) {
			how := `<link rel="resourcesync">`
			if f.Method == MethodLinkHeader {
				how = `Link header with rel="resourcesync"`
			}
			add(problem(RuleDiscoveryLinkTarget, -1,
				"the %s of %s points at %s, %s, not a Capability List", how, d.Input, f.URL, docTitleArticle(f.Capability, f.Root)))
		}
	}
	return out
}

// wellKnownOf is the well-known URI of the host of u.
func wellKnownOf(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" {
		return WellKnownPath
	}
	return p.Scheme + "://" + p.Host + WellKnownPath
}

// docTitleArticle names a document with its article: "a Resource List",
// "an Unknown document".
func docTitleArticle(c model.Capability, root model.RootKind) string {
	t := model.DocumentTitle(c, root)
	if strings.ContainsRune("AEIOU", rune(t[0])) {
		return "an " + t
	}
	return "a " + t
}

// probe is what one fetch of a candidate document told.
type probe struct {
	url    string // as asked
	final  string // after redirects
	status int
	err    error
	header *model.Header
	locs   []string // entries of a Source Description, resolved
}

// discoverer carries the state of one Discover call.
type discoverer struct {
	g      fetch.Getter
	opts   DiscoverOptions
	d      *Discovery
	probes map[string]*probe // by normalised URL
}

// bounds on what discovery reads.
const (
	maxRobotsBytes = 512 << 10
	maxHTMLBytes   = 4 << 20
	maxSDEntries   = 50000
	maxNotes       = 10 // remarks of one kind kept per attempt
)

// Discover looks for ResourceSync from any URL: a site root, an HTML page, any
// resource, robots.txt or a ResourceSync document. It tries every method of
// section 6.3 — the well-known URI at the host root and under each path
// prefix of the input, robots.txt Sitemap directives, HTML <link> elements and
// HTTP Link headers of the input, and the input itself — records every
// request as an Attempt, then follows up links to the Source Description.
//
// The error is not nil only for an input that is not an http(s) URL or a
// cancelled context; unreachable URLs are Attempts with their error.
func Discover(ctx context.Context, g fetch.Getter, input string, opts DiscoverOptions) (*Discovery, error) {
	if meant := fetch.SchemeFor(strings.TrimSpace(input)); meant != "" {
		return nil, fmt.Errorf("discover %q: not a URL: it has no scheme; for the web, give the scheme: %s", input, meant)
	}
	u, err := url.Parse(strings.TrimSpace(input))
	if err != nil {
		return nil, fmt.Errorf("discover %q: %w", input, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("discover %q: not an http or https URL", input)
	}
	u.Fragment, u.RawFragment = "", ""
	x := &discoverer{
		g:      g,
		opts:   opts.withDefaults(),
		d:      &Discovery{Input: input},
		probes: map[string]*probe{},
	}

	// robots.txt first: its Crawl-delay applies to every later request.
	sitemaps := x.robots(ctx, u)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	linkTargets, htmlTargets := x.input(ctx, u)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// When neither robots.txt nor the input got any answer the host is down
	// or unreachable: the well-known URIs on it are listed, not tried, rather
	// than waiting out connection timeouts and retries for each of them.
	hostDown := !x.d.InputReached && x.d.Attempts[0].Status == 0
	for _, wk := range wellKnownCandidates(u, x.opts.MaxPrefixes) {
		if hostDown {
			x.d.Attempts = append(x.d.Attempts, Attempt{Method: MethodWellKnown, URL: wk, Err: "not tried: " + u.Host + " did not answer"})
			continue
		}
		x.candidate(ctx, MethodWellKnown, wk)
	}
	for _, t := range linkTargets {
		x.candidate(ctx, MethodLinkHeader, t)
	}
	for _, t := range htmlTargets {
		x.candidate(ctx, MethodHTMLLink, t)
	}
	for i, s := range likeliestFirst(u.String(), sitemaps) {
		if i >= x.opts.MaxSitemaps {
			x.noteOn(MethodRobots, fmt.Sprintf("%s Sitemap URLs: only the %s likeliest are tried; %s not tried", display.Count(len(sitemaps)), display.Count(x.opts.MaxSitemaps), display.Count(len(sitemaps)-i)))
			break
		}
		x.candidate(ctx, MethodRobots, s)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	x.climb(ctx)
	return x.d, ctx.Err()
}

// wellKnownCandidates lists the well-known URI at the host root, then under
// each path prefix of u from the shortest, at most max prefixes.
func wellKnownCandidates(u *url.URL, max int) []string {
	root := &url.URL{Scheme: u.Scheme, Host: u.Host}
	out := []string{root.String() + WellKnownPath}
	p := u.EscapedPath()
	// The prefixes are the directories of the path: /a/b/c.html has /a and
	// /a/b; /a/b/ has /a and /a/b too.
	segs := strings.Split(strings.Trim(p, "/"), "/")
	if !strings.HasSuffix(p, "/") && len(segs) > 0 {
		segs = segs[:len(segs)-1] // the last segment is a file name
	}
	var dirs []string
	prefix := ""
	for _, s := range segs {
		if s == "" || s == ".well-known" {
			break
		}
		prefix += "/" + s
		dirs = append(dirs, prefix)
	}
	if len(dirs) > max {
		dirs = dirs[:max]
	}
	for _, d := range dirs {
		out = append(out, root.String()+d+WellKnownPath)
	}
	return out
}

// robots reads robots.txt at the input's host, passes its Crawl-delay on and
// returns its Sitemap URLs.
func (x *discoverer) robots(ctx context.Context, u *url.URL) []string {
	robotsURL := (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/robots.txt"}).String()
	att := Attempt{Method: MethodRobots, URL: robotsURL}
	defer func() { x.d.Attempts = append(x.d.Attempts, att) }()
	resp, status, err := get(ctx, x.g, robotsURL)
	att.Status = status
	if err != nil {
		att.Err = err.Error()
		return nil
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxRobotsBytes+1))
	if err != nil {
		att.Err = fmt.Sprintf("read %s: %v", robotsURL, err)
		return nil
	}
	if len(body) > maxRobotsBytes {
		body = body[:maxRobotsBytes]
		att.Notes = append(att.Notes, fmt.Sprintf("only the first %d KiB were read", maxRobotsBytes>>10))
	}
	base := finalURL(resp, robotsURL)
	var sitemaps []string
	data, err := robotstxt.FromStatusAndBytes(http.StatusOK, body)
	if err != nil || data == nil {
		// The library refuses a whole file for one bad line (a Crawl-delay
		// before any User-agent, say); Sitemap lines stand on their own.
		att.Notes = append(att.Notes, "robots.txt does not parse cleanly: "+errText(err)+"; Sitemap lines read line by line")
		sitemaps = scanSitemapLines(body)
	} else {
		sitemaps = data.Sitemaps
		if grp := data.FindGroup(x.opts.UserAgent); grp != nil && grp.CrawlDelay > 0 {
			delay := grp.CrawlDelay
			if delay > x.opts.MaxCrawlDelay {
				att.Notes = append(att.Notes, fmt.Sprintf("Crawl-delay %v capped at %v", delay, x.opts.MaxCrawlDelay))
				delay = x.opts.MaxCrawlDelay
			} else {
				att.Notes = append(att.Notes, fmt.Sprintf("Crawl-delay %v honoured", delay))
			}
			if cd, ok := x.g.(CrawlDelayer); ok {
				cd.SetCrawlDelay(u.Hostname(), delay)
			}
		}
	}
	seen := map[string]bool{}
	for _, s := range sitemaps {
		s = model.ResolveHref(base, s)
		if s == "" || seen[s] {
			continue
		}
		seen[s] = true
		att.Found = append(att.Found, s)
	}
	return att.Found
}

// scanSitemapLines reads "Sitemap:" directives (any case, LF or CRLF, with
// comments) from a robots.txt body that the robots parser refused.
func scanSitemapLines(body []byte) []string {
	var out []string
	for _, line := range strings.FieldsFunc(string(body), func(r rune) bool { return r == '\n' || r == '\r' }) {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok || !strings.EqualFold(strings.TrimSpace(name), "sitemap") {
			continue
		}
		if v := strings.TrimSpace(value); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// input fetches the input URL: its Link headers, its HTML <link> elements and
// whether it is a ResourceSync document itself. It returns the resourcesync
// targets of the Link headers and of the HTML links.
func (x *discoverer) input(ctx context.Context, u *url.URL) (linkTargets, htmlTargets []string) {
	raw := u.String()
	att := Attempt{Method: MethodInput, URL: raw}
	p := &probe{url: raw}
	x.probes[NormalizeURL(raw)] = p
	resp, gerr := x.g.Get(ctx, raw)
	if resp != nil {
		p.status = resp.Status
		if resp.Body != nil {
			defer resp.Body.Close()
		}
	}
	if se := asStatusError(gerr); se != nil && p.status == 0 {
		p.status = se.Status
	}
	if gerr == nil && resp != nil && (resp.Status < 200 || resp.Status > 299) && resp.Status != 0 {
		gerr = fmt.Errorf("GET %s: %d %s", raw, resp.Status, http.StatusText(resp.Status))
	}
	x.d.InputReached = p.status != 0
	att.Status = p.status
	if resp == nil || resp.Body == nil {
		if gerr == nil {
			gerr = fmt.Errorf("GET %s: no response", raw)
		}
		p.err = gerr
		att.Err = gerr.Error()
		x.d.Attempts = append(x.d.Attempts, att)
		return nil, nil
	}
	p.final = finalURL(resp, raw)
	x.d.InputFinal = p.final

	// Link headers: a resource of any status and content type may carry one.
	lh := Attempt{Method: MethodLinkHeader, URL: raw, Status: p.status}
	var notes noteList
	var targets targetSet
	for _, l := range ParseLinkHeader(resp.Header.Values("Link")) {
		if !l.HasRel("resourcesync") {
			continue
		}
		if l.Anchor != "" {
			anchor := model.ResolveHref(p.final, l.Anchor)
			if NormalizeURL(anchor) != NormalizeURL(p.final) {
				notes.add(fmt.Sprintf("link to %s ignored: its anchor %s is another resource", l.Target, l.Anchor))
				continue
			}
		}
		t, err := l.Resolve(p.final)
		if err != nil {
			notes.add(fmt.Sprintf("link target %q: %v", l.Target, err))
			continue
		}
		targets.add(t)
	}
	lh.Found, lh.Notes = x.cap(p.final, targets.list, x.opts.MaxLinkTargets, "Link header", notes.done())
	linkTargets = lh.Found

	if gerr != nil {
		p.err = gerr
		att.Err = gerr.Error()
		x.d.Attempts = append(x.d.Attempts, att, lh)
		return linkTargets, nil
	}

	ctype := resp.Header.Get("Content-Type")
	if isHTMLType(ctype) {
		hl := Attempt{Method: MethodHTMLLink, URL: raw, Status: p.status}
		targets, notes, err := htmlLinks(io.LimitReader(resp.Body, maxHTMLBytes), ctype, p.final)
		hl.Found, hl.Notes = x.cap(p.final, targets, x.opts.MaxHTMLLinks, "HTML <link>", notes)
		if err != nil {
			hl.Err = err.Error()
		}
		p.err = fmt.Errorf("an HTML page, not a ResourceSync document")
		att.Notes = append(att.Notes, "an HTML page, not a ResourceSync document")
		x.d.Attempts = append(x.d.Attempts, att, lh, hl)
		return linkTargets, hl.Found
	}
	x.readDocument(p, resp.Body)
	if p.err != nil {
		att.Notes = append(att.Notes, "not a ResourceSync document: "+p.err.Error())
	} else if isResourceSync(p.header) {
		att.Found = []string{p.final}
		x.found(MethodInput, p)
	} else {
		att.Notes = append(att.Notes, "a Sitemap without a capability, not a ResourceSync document")
	}
	x.d.Attempts = append(x.d.Attempts, att, lh)
	return linkTargets, nil
}

// candidate fetches a URL a method pointed at and records whether it is a
// ResourceSync document.
func (x *discoverer) candidate(ctx context.Context, method, rawURL string) *probe {
	p := x.fetchProbe(ctx, rawURL)
	att := Attempt{Method: method, URL: rawURL, Status: p.status, Err: errText(p.err)}
	if p.err == nil {
		if isResourceSync(p.header) {
			att.Found = []string{p.final}
			x.found(method, p)
		} else {
			att.Notes = append(att.Notes, "not a ResourceSync document ("+describeHeader(p.header)+")")
		}
	}
	x.d.Attempts = append(x.d.Attempts, att)
	return p
}

// fetchProbe fetches and reads the header of rawURL once per Discover call.
func (x *discoverer) fetchProbe(ctx context.Context, rawURL string) *probe {
	key := NormalizeURL(rawURL)
	if p, ok := x.probes[key]; ok {
		return p
	}
	p := &probe{url: rawURL}
	x.probes[key] = p
	resp, status, err := get(ctx, x.g, rawURL)
	p.status = status
	if err != nil {
		p.err = err
		return p
	}
	defer resp.Body.Close()
	p.final = finalURL(resp, rawURL)
	if f := NormalizeURL(p.final); f != key {
		x.probes[f] = p
	}
	if isHTMLType(resp.Header.Get("Content-Type")) {
		p.err = fmt.Errorf("%s is an HTML page", rawURL)
		return p
	}
	x.readDocument(p, resp.Body)
	return p
}

// readDocument reads the header of the document in body and, for a Source
// Description, its entries.
func (x *discoverer) readDocument(p *probe, body io.Reader) {
	dec := model.NewDecoder(body, model.DecoderOptions{})
	h, err := dec.Header()
	if err != nil {
		p.err = fmt.Errorf("read %s: %w", p.url, err)
		return
	}
	p.header = h
	if h.MD.Capability != model.CapDescription || h.Root != model.RootURLSet {
		return
	}
	var e model.Entry
	for len(p.locs) < maxSDEntries {
		if err := dec.Next(&e); err != nil {
			break // io.EOF or a syntax error: keep what was read
		}
		if e.Loc != "" {
			p.locs = append(p.locs, model.ResolveHref(p.final, e.Loc))
		}
	}
}

func (x *discoverer) found(method string, p *probe) {
	for _, f := range x.d.Found {
		if f.URL == p.final && f.Method == method {
			return
		}
	}
	x.d.Found = append(x.d.Found, Found{Method: method, URL: p.final, Capability: p.header.MD.Capability, Root: p.header.Root})
}

// climb follows up links from what was found to a Source Description. The
// starting points are tried from the most specific to the least: the input,
// then the documents linked from it, robots.txt Sitemaps, and the well-known
// URIs from the deepest prefix to the host root.
func (x *discoverer) climb(ctx context.Context) {
	order := []string{MethodInput, MethodLinkHeader, MethodHTMLLink, MethodRobots}
	var starts []Found
	for _, m := range order {
		for _, f := range x.d.Found {
			if f.Method == m {
				starts = append(starts, f)
			}
		}
	}
	for i := len(x.d.Found) - 1; i >= 0; i-- {
		if x.d.Found[i].Method == MethodWellKnown {
			starts = append(starts, x.d.Found[i])
		}
	}
	for _, f := range starts {
		if chain, sd := x.upChain(ctx, f.URL); sd != nil {
			x.d.SourceDescription = sd.final
			x.d.UpChain = chain
			x.d.CapabilityLists = append([]string(nil), sd.locs...)
			return
		}
	}
	// No Source Description: report the Capability Lists found directly.
	for _, f := range x.d.Found {
		if f.Capability == model.CapCapabilityList {
			x.d.CapabilityLists = appendNew(x.d.CapabilityLists, f.URL)
		}
	}
}

// upChain follows up links from start until a Source Description, a
// document without an up link, a loop or the depth bound.
func (x *discoverer) upChain(ctx context.Context, start string) ([]string, *probe) {
	seen := map[string]bool{}
	cur := start
	var chain []string
	for depth := 0; depth <= x.opts.MaxUp; depth++ {
		key := NormalizeURL(cur)
		if seen[key] {
			return nil, nil // a loop of up links
		}
		seen[key] = true
		p, cached := x.probes[key]
		if !cached {
			p = x.fetchProbe(ctx, cur)
			att := Attempt{Method: MethodUp, URL: cur, Status: p.status, Err: errText(p.err)}
			if p.err == nil && isResourceSync(p.header) {
				att.Found = []string{p.final}
			}
			x.d.Attempts = append(x.d.Attempts, att)
		}
		if p.err != nil || p.header == nil {
			return nil, nil
		}
		chain = append(chain, p.final)
		if p.header.MD.Capability == model.CapDescription {
			return chain, p
		}
		ups := linksWithRel(p.header, "up", p.final)
		if len(ups) == 0 {
			return nil, nil
		}
		cur = ups[0]
	}
	return nil, nil
}

// htmlLinks returns the targets of <link rel="resourcesync"> elements in
// the head of an HTML page, resolved against <base href> and the page URL.
func htmlLinks(body io.Reader, contentType, pageURL string) (targets, notes []string, err error) {
	r, cerr := charset.NewReader(body, contentType)
	if cerr != nil {
		notes = append(notes, "character set not understood, read as UTF-8: "+cerr.Error())
		r = body
	}
	doc, err := goquery.NewDocumentFromReader(r)
	if err != nil {
		return nil, notes, fmt.Errorf("parse HTML %s: %w", pageURL, err)
	}
	base := pageURL
	if href, ok := doc.Find("head base[href]").First().Attr("href"); ok {
		base = model.ResolveHref(pageURL, href)
	}
	var found targetSet
	var nl noteList
	nl.list = notes
	doc.Find(`head link[rel~="resourcesync" i][href]`).Each(func(_ int, s *goquery.Selection) {
		href, _ := s.Attr("href")
		if strings.TrimSpace(href) == "" {
			nl.add(`<link rel="resourcesync"> with an empty href ignored`)
			return
		}
		found.add(model.ResolveHref(base, href))
	})
	doc.Find(`body link[rel~="resourcesync" i][href]`).Each(func(_ int, s *goquery.Selection) {
		href, _ := s.Attr("href")
		nl.add(fmt.Sprintf(`<link rel="resourcesync" href=%q> outside <head> ignored (section 6.3.3 puts it in the head)`, href))
	})
	return found.list, nl.done(), nil
}

// isHTMLType tells whether a Content-Type is that of an HTML page.
func isHTMLType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(ct))
	}
	return mt == "text/html" || mt == "application/xhtml+xml"
}

// describeHeader names what a non-ResourceSync document is.
func describeHeader(h *model.Header) string {
	switch {
	case h == nil:
		return "unreadable"
	case h.Root == model.RootUnknown:
		if h.RootLocal != "" {
			return "root element <" + h.RootLocal + ">"
		}
		return "not a Sitemap"
	default:
		return "a Sitemap without a capability"
	}
}

// targetSet collects URLs once each, in the order first seen.
type targetSet struct {
	list []string
	seen map[string]bool
}

func (t *targetSet) add(u string) {
	if t.seen == nil {
		t.seen = map[string]bool{}
	}
	if !t.seen[u] {
		t.seen[u] = true
		t.list = append(t.list, u)
	}
}

// noteList keeps the first maxNotes remarks and counts the rest.
type noteList struct {
	list  []string
	extra int
}

func (n *noteList) add(s string) {
	if len(n.list) >= maxNotes {
		n.extra++
		return
	}
	n.list = append(n.list, s)
}

func (n *noteList) done() []string {
	if n.extra > 0 {
		return append(n.list, fmt.Sprintf("… and %s more remarks like these", display.Count(n.extra)))
	}
	return n.list
}

// cap orders the resourcesync targets found in a page's kind of links
// (Link header, HTML <link>) likeliest first and keeps at most max, noting
// what was left out. A target that is not an http(s) URL is never tried: a
// page from the network may point only at documents on the network.
func (x *discoverer) cap(page string, targets []string, max int, kind string, notes []string) ([]string, []string) {
	var web []string
	for _, t := range targets {
		if model.IsHTTPURL(t) {
			web = append(web, t)
		} else {
			notes = append(notes, fmt.Sprintf("%s target %s not tried: only http(s) URLs are followed from a page", kind, t))
		}
	}
	if len(web) <= max {
		return likeliestFirst(page, web), notes
	}
	kept := likeliestFirst(page, web)[:max]
	notes = append(notes, fmt.Sprintf("%d %s targets with rel=\"resourcesync\": only the %d likeliest are tried (on the page's own host, named like a ResourceSync document); %d not tried",
		len(web), kind, max, len(web)-max))
	return kept, notes
}

// likeliestFirst orders discovery targets by how likely they are to be the
// page's Capability List, keeping the page's order among equals: on the
// page's own scheme and host first, then a path that names a ResourceSync
// document (capabilitylist, resourcesync, description …), then an .xml
// document.
func likeliestFirst(page string, targets []string) []string {
	host := ""
	if u, err := url.Parse(page); err == nil {
		host = strings.ToLower(u.Scheme + "://" + u.Host)
	}
	score := func(t string) int {
		n := 0
		u, err := url.Parse(t)
		if err != nil {
			return n
		}
		if strings.ToLower(u.Scheme+"://"+u.Host) == host {
			n += 4
		}
		p := strings.ToLower(u.Path)
		for _, w := range []string{"capabilitylist", "capability", "resourcesync", "description"} {
			if strings.Contains(p, w) {
				n += 2
				break
			}
		}
		if strings.HasSuffix(p, ".xml") || strings.HasSuffix(p, ".xml.gz") {
			n++
		}
		return n
	}
	out := slices.Clone(targets)
	scores := make(map[string]int, len(out))
	for _, t := range out {
		scores[t] = score(t)
	}
	slices.SortStableFunc(out, func(a, b string) int { return scores[b] - scores[a] })
	return out
}

// noteOn adds a remark to the first attempt of method.
func (x *discoverer) noteOn(method, note string) {
	for i := range x.d.Attempts {
		if x.d.Attempts[i].Method == method {
			x.d.Attempts[i].Notes = append(x.d.Attempts[i].Notes, note)
			return
		}
	}
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
