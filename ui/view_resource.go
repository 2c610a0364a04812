package ui

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"rsx/fetch"
	"rsx/model"
)

// The resource view fetches an entry's resource and compares what arrives
// with what the document declares: HTTP status, length, media type, last
// modification and every declared digest. Its links (rs:ln) are listed with
// their relation explained; mirrors (rel="duplicate") can be fetched and
// compared the same way, in pri order. Nothing but a short preview of a body
// is kept: the bytes go through a model.Verifier and are dropped.

// resourceMirrorConcurrency bounds the mirror downloads this view runs at
// once; the fetch client's per-host limits apply on top.
const resourceMirrorConcurrency = 2

// resourcePreviewBytes is how much of a body is kept to show.
const resourcePreviewBytes = 512

// checkMark is the outcome of one comparison.
type checkMark uint8

const (
	markNone     checkMark = iota // – not declared
	markMatch                     // ✓
	markMismatch                  // ✗
	markUnknown                   // ? cannot compare (unsupported, absent in the response, incomplete)
)

func (m checkMark) String() string {
	switch m {
	case markMatch:
		return "✓"
	case markMismatch:
		return "✗"
	case markUnknown:
		return "?"
	}
	return "–"
}

func (m checkMark) render(st viewStyles) string {
	switch m {
	case markMatch:
		return st.MarkOK.Render(m.String())
	case markMismatch:
		return st.MarkBad.Render(m.String())
	case markUnknown:
		return st.MarkUnknown.Render(m.String())
	}
	return st.MarkNone.Render(m.String())
}

// resourceCheck is one row of a comparison.
type resourceCheck struct {
	Field    string // "status", "length", "type", "lastmod", or a hash algorithm
	Mark     checkMark
	Declared string
	Actual   string
	Short    string // the compact table's cell, e.g. "200" or "1234"
}

// resourceDeclared is what a document says about a resource.
type resourceDeclared struct {
	Hash      model.HashList
	Length    int64
	LengthRaw string
	LengthOK  bool
	Type      string
	Lastmod   model.Datetime
}

// declaredOfEntry is what an entry declares about its resource.
func declaredOfEntry(e model.Entry) resourceDeclared {
	return resourceDeclared{
		Hash: e.MD.Hash, Length: e.MD.Length, LengthRaw: e.MD.LengthRaw, LengthOK: e.MD.LengthOK,
		Type: e.MD.Type, Lastmod: e.Lastmod,
	}
}

// declaredOfMirror is what a mirror is expected to match: its link's own
// attributes where given, the entry's otherwise (section 14.2: the metadata
// of mirrors is the resource's and should be omitted from the links).
func declaredOfMirror(e model.Entry, l model.Link) resourceDeclared {
	d := declaredOfEntry(e)
	if l.HashRaw != "" {
		d.Hash = l.Hash
	}
	if l.LengthRaw != "" {
		d.Length, d.LengthRaw, d.LengthOK = l.Length, l.LengthRaw, l.LengthOK
	}
	if l.Type != "" {
		d.Type = l.Type
	}
	if l.Modified.Present() {
		d.Lastmod = l.Modified
	}
	return d
}

// resourceOutcome is what a download gave.
type resourceOutcome struct {
	Exchange *fetch.Exchange // nil when the request never started
	Err      error
	Bytes    int64              // body bytes received (after any Content-Encoding is undone)
	Hashes   []model.HashResult // one per declared hash
}

// compareResource compares a download with the declarations, one row per
// field and per declared hash.
func compareResource(d resourceDeclared, o resourceOutcome) []resourceCheck {
	var status int
	var statusText string
	var h http.Header
	if o.Exchange != nil {
		status, statusText, h = o.Exchange.Status, o.Exchange.StatusText, o.Exchange.ResponseHeader
	}
	complete := o.Err == nil && status >= 200 && status <= 299
	why := "no body"
	switch {
	case errors.Is(o.Err, context.Canceled):
		why = "cancelled"
	case status != 0 && (status < 200 || status > 299):
		why = "no body (status " + strconv.Itoa(status) + ")"
	case o.Err != nil && status != 0:
		why = "incomplete body"
	}
	rows := make([]resourceCheck, 0, 4+len(d.Hash))

	// Status.
	st := resourceCheck{Field: "status", Declared: "2xx"}
	switch {
	case status == 0 && o.Err != nil:
		st.Mark, st.Actual, st.Short = markMismatch, o.Err.Error(), "error"
		if errors.Is(o.Err, context.Canceled) {
			st.Mark, st.Actual, st.Short = markUnknown, "cancelled", "cancelled"
		}
	default:
		if statusText == "" {
			statusText = http.StatusText(status)
		}
		st.Actual, st.Short = strings.TrimSpace(fmt.Sprintf("%d %s", status, statusText)), strconv.Itoa(status)
		st.Mark = markMatch
		if status < 200 || status > 299 {
			st.Mark = markMismatch
		}
		if o.Err != nil && status >= 200 && status <= 299 {
			// The response started but the body did not arrive whole.
			st.Mark = markUnknown
			if errors.Is(o.Err, context.Canceled) {
				st.Actual, st.Short = st.Actual+" · cancelled", "cancelled"
			} else {
				st.Actual += " · " + o.Err.Error()
			}
		}
	}
	rows = append(rows, st)

	// Length: the bytes received, and Content-Length when the body was not
	// transfer-coded.
	ln := resourceCheck{Field: "length", Declared: d.LengthRaw}
	contentLength := h.Get("Content-Length")
	coded := !strings.EqualFold(strings.TrimSpace(h.Get("Content-Encoding")), "identity") && h.Get("Content-Encoding") != ""
	switch {
	case d.LengthRaw == "":
		ln.Mark, ln.Declared = markNone, "not declared"
		if complete {
			ln.Actual, ln.Short = fmt.Sprintf("%d bytes", o.Bytes), strconv.FormatInt(o.Bytes, 10)
		}
	case !d.LengthOK:
		ln.Mark, ln.Actual, ln.Short = markUnknown, "the declared length is not a number", "invalid"
	case !complete:
		ln.Mark, ln.Actual, ln.Short = markUnknown, why, ""
	default:
		ln.Actual = fmt.Sprintf("%d bytes", o.Bytes)
		ln.Short = strconv.FormatInt(o.Bytes, 10)
		ln.Mark = markMatch
		if o.Bytes != d.Length {
			ln.Mark = markMismatch
		}
		if contentLength != "" {
			ln.Actual += " (Content-Length " + contentLength + ")"
			if n, err := strconv.ParseInt(strings.TrimSpace(contentLength), 10, 64); !coded && (err != nil || n != d.Length) {
				ln.Mark = markMismatch
			}
		}
	}
	rows = append(rows, ln)

	// Media type, parameters ignored.
	ty := resourceCheck{Field: "type", Declared: d.Type}
	ct := h.Get("Content-Type")
	switch {
	case d.Type == "":
		ty.Mark, ty.Declared, ty.Actual = markNone, "not declared", ct
		ty.Short = mediaType(ct)
	case status < 200 || status > 299: // an error page's type says nothing
		ty.Mark, ty.Actual = markUnknown, why
	case ct == "":
		ty.Mark, ty.Actual, ty.Short = markUnknown, "no Content-Type in the response", "none"
	default:
		ty.Actual, ty.Short = ct, mediaType(ct)
		ty.Mark = markMatch
		if mediaType(ct) != mediaType(d.Type) {
			ty.Mark = markMismatch
		}
	}
	rows = append(rows, ty)

	// Last modification: Last-Modified (whole seconds) must fall in the
	// period the declared datetime denotes.
	lm := resourceCheck{Field: "lastmod", Declared: d.Lastmod.Raw}
	lmHeader := h.Get("Last-Modified")
	switch {
	case !d.Lastmod.Present():
		lm.Mark, lm.Declared, lm.Actual = markNone, "not declared", lmHeader
	case !d.Lastmod.OK:
		lm.Mark, lm.Actual = markUnknown, "the declared datetime is not valid"
	case status < 200 || status > 299:
		lm.Mark, lm.Actual = markUnknown, why
	case lmHeader == "":
		lm.Mark, lm.Actual, lm.Short = markUnknown, "no Last-Modified in the response", "none"
	default:
		lm.Declared = d.Lastmod.Format()
		t, err := http.ParseTime(lmHeader)
		if err != nil {
			lm.Mark, lm.Actual = markUnknown, "Last-Modified is not an HTTP date: "+lmHeader
			break
		}
		lm.Actual = model.FormatDatetime(t) + " (" + lmHeader + ")"
		lm.Short = model.FormatDatetime(t)
		lm.Mark = markMismatch
		if lastmodMatches(d.Lastmod, t) {
			lm.Mark = markMatch
		}
	}
	rows = append(rows, lm)

	// Digests.
	if len(d.Hash) == 0 {
		rows = append(rows, resourceCheck{Field: "hash", Mark: markNone, Declared: "not declared"})
	}
	for i, dh := range d.Hash {
		r := resourceCheck{Field: dh.Alg, Declared: dh.Value}
		var res model.HashResult
		if i < len(o.Hashes) {
			res = o.Hashes[i]
		}
		switch {
		case !model.SupportedHash(dh.Alg):
			r.Mark, r.Actual, r.Short = markUnknown, "unsupported algorithm", "unsupported"
		case !complete:
			r.Mark, r.Actual = markUnknown, why
		case dh.Digest == nil:
			r.Mark, r.Actual = markMismatch, res.Actual+" (the declared digest cannot be decoded)"
		case res.Match:
			r.Mark, r.Actual = markMatch, res.Actual
		default:
			r.Mark, r.Actual = markMismatch, res.Actual
		}
		if dh.Encoding == model.HashBase64 {
			r.Declared += " (base64 = " + dh.Hex() + ")"
		}
		rows = append(rows, r)
	}
	return rows
}

// lastmodMatches reports whether an HTTP time (whole seconds) falls in the
// period a declared datetime denotes: the second of a time with a fraction,
// the day of a date, and so on.
func lastmodMatches(d model.Datetime, t time.Time) bool {
	lo := d.Time.Truncate(time.Second)
	hi := d.End()
	if !hi.After(lo) {
		hi = lo.Add(time.Second)
	}
	return !t.Before(lo) && t.Before(hi)
}

// mediaType returns the media type of a Content-Type or type attribute
// without parameters, lower-cased.
func mediaType(s string) string {
	if mt, _, err := mime.ParseMediaType(s); err == nil {
		return mt
	}
	mt, _, _ := strings.Cut(s, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// resourceLink is an rs:ln of the entry as the view lists it.
type resourceLink struct {
	model.Link
	URL    string // Href resolved against the resource's URI
	Mirror int    // 1-based mirror number; 0 for other relations
}

// hasRel reports whether a rel attribute has the relation type among its
// space-separated tokens.
func hasRel(rel, want string) bool {
	for _, r := range strings.Fields(rel) {
		if strings.EqualFold(r, want) {
			return true
		}
	}
	return false
}

// linkPri is a link's priority: 999999 when absent or invalid (section 7).
func linkPri(l model.Link) int {
	if l.PriRaw == "" || !l.PriOK {
		return model.MaxPri
	}
	return l.Pri
}

// orderedMirrors returns the indexes into links of the duplicate links, by
// pri (lowest first), ties in document order.
func orderedMirrors(links []model.Link) []int {
	var idx []int
	for i, l := range links {
		if hasRel(l.Rel, "duplicate") {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return linkPri(links[idx[a]]) < linkPri(links[idx[b]]) })
	return idx
}

// resolveRef resolves href against base, or returns href when it cannot.
func resolveRef(base, href string) string {
	b, err := url.Parse(base)
	if err != nil {
		return href
	}
	r, err := url.Parse(href)
	if err != nil {
		return href
	}
	return b.ResolveReference(r).String()
}

// fetchable reports whether a URL is one this view downloads: http and https
// only, so that a document cannot make it read local files or other schemes.
func fetchable(u string) bool {
	p, err := url.Parse(u)
	return err == nil && (p.Scheme == "http" || p.Scheme == "https") && p.Host != ""
}

type targetState uint8

const (
	targetIdle targetState = iota
	targetQueued
	targetRunning
	targetDone
	targetUnfetchable
)

// resourceTarget is the primary resource or a mirror, and its download.
type resourceTarget struct {
	Label    string // "primary", "mirror 1 pri 1"
	URL      string
	Declared resourceDeclared

	state       targetState
	gen         int
	cancel      context.CancelFunc
	done, total int64
	outcome     resourceOutcome
	checks      []resourceCheck
	preview     []byte
}

// resourceView is the resource view.
type resourceView struct {
	c     *Common
	keys  inspectKeys
	d     downloader
	entry model.Entry

	session *resourceSession
	targets []resourceTarget // [0] is the primary resource, then mirrors by pri
	links   []resourceLink

	width, height int
	ivList        // selected link, first line shown
}

// resourceSession identifies one resource view for its asynchronous results
// by its address. It must not be zero-sized: pointers to distinct zero-size
// values may compare equal.
type resourceSession struct{ _ byte }

// newResourceView returns the view of entry's resource. Downloads go through
// d (c.Backend when d is nil). Init starts fetching the resource. For a bare
// URL, pass model.Entry{Index: -1, Loc: url}.
func newResourceView(c *Common, d downloader, entry model.Entry) resourceView {
	if d == nil && c != nil && c.Backend != nil {
		d = c.Backend
	}
	v := resourceView{c: c, keys: defaultInspectKeys(), d: d, entry: entry, session: &resourceSession{}}
	v.targets = append(v.targets, resourceTarget{Label: "primary", URL: entry.Loc, Declared: declaredOfEntry(entry)})
	mirrorNo := map[int]int{}
	for n, i := range orderedMirrors(entry.Links) {
		l := entry.Links[i]
		mirrorNo[i] = n + 1
		v.targets = append(v.targets, resourceTarget{
			Label:    fmt.Sprintf("mirror %d pri %d", n+1, linkPri(l)),
			URL:      resolveRef(entry.Loc, l.Href),
			Declared: declaredOfMirror(entry, l),
		})
	}
	for i, l := range entry.Links {
		v.links = append(v.links, resourceLink{Link: l, URL: resolveRef(entry.Loc, l.Href), Mirror: mirrorNo[i]})
	}
	for i := range v.targets {
		if !fetchable(v.targets[i].URL) {
			v.targets[i].state = targetUnfetchable
		}
	}
	return v
}

// fromDocument reports whether the entry came from a document (rather than
// being made up for a bare URL, e.g. a mirror link opened on its own).
func (v resourceView) fromDocument() bool {
	return v.entry.Index >= 0 && (v.entry.HasLoc || v.entry.Line > 0)
}

// Init starts fetching the primary resource.
func (v resourceView) Init() tea.Cmd {
	return v.start(0)
}

// start returns the command that fetches target i, and marks it running.
// It is called on the view's own copy (targets are shared by copies, so the
// state change is seen by the next Update).
func (v resourceView) start(i int) tea.Cmd {
	t := &v.targets[i]
	if t.state == targetUnfetchable || v.d == nil {
		if v.d == nil && t.state != targetUnfetchable {
			t.state = targetDone
			t.outcome = resourceOutcome{Err: errors.New("this build cannot fetch")}
			t.checks = compareResource(t.Declared, t.outcome)
		}
		return nil
	}
	if t.cancel != nil {
		t.cancel()
	}
	t.gen++
	ctx, cancel := context.WithCancel(context.Background())
	t.cancel = cancel
	t.state = targetRunning
	t.done, t.total = 0, -1
	t.checks, t.preview, t.outcome = nil, nil, resourceOutcome{}
	return fetchResourceCmd(ctx, v.d, resourceFetchKey{v.session, i, t.gen}, t.URL, t.Declared.Hash)
}

// Busy reports whether a download is running (esc then cancels it rather
// than leaving the view).
func (v resourceView) Busy() bool {
	for _, t := range v.targets {
		if t.state == targetRunning || t.state == targetQueued {
			return true
		}
	}
	return false
}

// Close cancels every download.
func (v resourceView) Close() {
	for i := range v.targets {
		v.cancelTarget(i)
	}
}

func (v resourceView) cancelTarget(i int) {
	t := &v.targets[i]
	if t.state == targetQueued {
		t.state = targetIdle
	}
	if t.cancel != nil {
		t.cancel()
	}
}

// InputActive is always false: the view has no text input.
func (v resourceView) InputActive() bool { return false }

// SetSize sets the size the view draws in.
func (v *resourceView) SetSize(w, h int) { v.width, v.height = w, h }

// KeyBindings are the view's own bindings, for the help screen.
func (v resourceView) KeyBindings() []key.Binding {
	k := ivKeys(v.c)
	open := key.NewBinding(key.WithKeys(k.Open.Keys()...), key.WithHelp(k.Open.Help().Key, "open the selected link"))
	refetch := key.NewBinding(key.WithKeys(k.Retry.Keys()...), key.WithHelp(k.Retry.Help().Key, "fetch and compare again"))
	cancel := key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel the downloads"))
	return []key.Binding{open, refetch, v.keys.Mirrors, cancel, k.Copy, k.Browser}
}

// Update handles keys and download results.
func (v resourceView) Update(msg tea.Msg) (resourceView, tea.Cmd) {
	k := ivKeys(v.c)
	switch msg := msg.(type) {
	case resourceProgressMsg:
		t := v.target(msg.key)
		if t == nil {
			return v, nil
		}
		t.done, t.total = msg.done, msg.total
		return v, msg.next
	case resourceDoneMsg:
		t := v.target(msg.key)
		if t == nil {
			return v, nil
		}
		t.state = targetDone
		t.cancel = nil
		t.outcome = msg.outcome
		t.done = msg.outcome.Bytes
		t.preview = msg.preview
		t.checks = compareResource(t.Declared, t.outcome)
		return v, v.startQueued()
	case tea.MouseWheelMsg:
		v.navigate(msg, k, len(v.links), v.height, v.layout)
	case tea.KeyPressMsg:
		if msg.String() == "esc" && v.Busy() {
			v.Close()
			return v, nil
		}
		if v.navigate(msg, k, len(v.links), v.height, v.layout) {
			return v, nil
		}
		switch {
		case key.Matches(msg, k.Open):
			if l := v.selectedLink(); l != nil {
				return v, ivCmd(openURLMsg{URL: l.URL})
			}
		case key.Matches(msg, k.Copy):
			if l := v.selectedLink(); l != nil {
				return v, ivCmd(copyMsg{Text: l.URL, What: "URL"})
			}
			return v, ivCmd(copyMsg{Text: v.entry.Loc, What: "URL"})
		case key.Matches(msg, k.Browser):
			if l := v.selectedLink(); l != nil {
				return v, ivCmd(openBrowserMsg{URL: l.URL})
			}
			return v, ivCmd(openBrowserMsg{URL: v.entry.Loc})
		case key.Matches(msg, k.Retry):
			return v, v.start(0)
		case key.Matches(msg, v.keys.Mirrors):
			return v, v.fetchMirrors()
		}
	}
	return v, nil
}

// target returns the target a result is for, nil when it is stale.
func (v resourceView) target(k resourceFetchKey) *resourceTarget {
	if k.session != v.session || k.target < 0 || k.target >= len(v.targets) {
		return nil
	}
	t := &v.targets[k.target]
	if t.gen != k.gen || t.state != targetRunning {
		return nil
	}
	return t
}

// fetchMirrors queues every fetchable mirror and starts the first ones.
func (v resourceView) fetchMirrors() tea.Cmd {
	if len(v.targets) < 2 {
		return ivCmd(flashMsg{Text: "this resource declares no mirror (rel=\"duplicate\")"})
	}
	for i := 1; i < len(v.targets); i++ {
		if t := &v.targets[i]; t.state != targetUnfetchable && t.state != targetRunning {
			t.state = targetQueued
		}
	}
	return v.startQueued()
}

// startQueued starts queued mirrors while fewer than
// resourceMirrorConcurrency run.
func (v resourceView) startQueued() tea.Cmd {
	running := 0
	for i := 1; i < len(v.targets); i++ {
		if v.targets[i].state == targetRunning {
			running++
		}
	}
	var cmds []tea.Cmd
	for i := 1; i < len(v.targets) && running < resourceMirrorConcurrency; i++ {
		if v.targets[i].state == targetQueued {
			cmds = append(cmds, v.start(i))
			running++
		}
	}
	return tea.Batch(cmds...)
}

// selectLink selects link i and scrolls to show it.
func (v *resourceView) selectLink(i int) {
	v.selectItem(i, len(v.links), v.height, v.layout)
}

// layout gives the view's line count and the selected link's line.
func (v *resourceView) layout() (total, selLine int) {
	lines, sel := v.lines(ivStyles(v.c), max(v.width, 1))
	return len(lines), sel
}

func (v resourceView) selectedLink() *resourceLink {
	if v.sel < 0 || v.sel >= len(v.links) {
		return nil
	}
	return &v.links[v.sel]
}

// View draws the comparison, the links, the mirrors and a preview.
func (v resourceView) View() string {
	st := ivStyles(v.c)
	w := max(v.width, 1)
	lines, _ := v.lines(st, w)
	h := max(v.height, 1)
	out := ivWindow(lines, ivClamp(v.top, 0, len(lines)-h), h)
	for i, l := range out {
		out[i] = ivFit(l, w)
	}
	return strings.Join(out, "\n")
}

func (v resourceView) lines(st viewStyles, w int) ([]string, int) {
	var out []string
	add := func(s string) { out = append(out, s) }
	label := func(s string) string { return st.Section.Render(fmt.Sprintf("%-9s", s)) + " " }
	p := &v.targets[0]

	head := st.Title.Render("Resource") + "  " + st.URL.Render(ivSanitize(v.entry.Loc))
	if v.fromDocument() {
		head += st.Dim.Render(fmt.Sprintf("  entry %d", v.entry.Index+1))
	}
	add(head)
	add(label("Declared") + st.Value.Render(declaredSummary(p.Declared)))
	if len(p.Declared.Hash) > 0 {
		add(label("") + st.Value.Render(ivSanitize(p.Declared.Hash.String())))
	}
	add(label("Fetch") + v.fetchLine(st, p, w-10))
	add("")

	// The primary comparison in full.
	out = append(out, checkLines(st, p.checks)...)
	add("")

	// Links.
	selLine := -1
	add(st.Section.Render(fmt.Sprintf("Links (%d)", len(v.links))) + st.Dim.Render("  enter opens · y copies · o browser"))
	if len(v.links) == 0 {
		add(st.Dim.Render("  none"))
	}
	rels := make([]string, len(v.links))
	relW := 11
	for i, l := range v.links {
		rels[i] = ivSanitize(l.Rel)
		if l.Mirror > 0 {
			rels[i] = fmt.Sprintf("%s pri %d", rels[i], linkPri(l.Link))
		}
		relW = max(relW, min(len(rels[i]), 32))
	}
	for i, l := range v.links {
		line := ivPad(rels[i], relW) + "  "
		desc := model.RelationDescription(l.Rel)
		if l.Type != "" {
			desc = "type " + ivSanitize(l.Type) + " · " + desc
		}
		if i == v.sel {
			selLine = len(out)
			add(st.Selected.Render(ivPad("▸ "+line+ivSanitize(l.URL)+"  "+desc, w)))
			continue
		}
		add("  " + st.Rel.Render(line) + st.URL.Render(ivSanitize(l.URL)) + "  " + st.Explain.Render(desc))
	}

	// Mirrors.
	if len(v.targets) > 1 {
		add("")
		add(st.Section.Render("Mirrors") + st.Dim.Render(fmt.Sprintf("  m fetches and compares all (%d at a time)", resourceMirrorConcurrency)))
		out = append(out, v.mirrorTable(st)...)
	}

	if len(p.preview) > 0 {
		add("")
		add(st.Section.Render("Preview") + st.Dim.Render(fmt.Sprintf("  first %d bytes", len(p.preview))))
		for i, l := range strings.Split(strings.TrimRight(string(p.preview), "\n"), "\n") {
			if i == 4 {
				break
			}
			add("  " + st.Code.Render(ivSanitize(strings.TrimRight(l, "\r"))))
		}
	}
	return out, selLine
}

// checkLines draws a comparison: a row per field with the declared and the
// received value; a digest row gives the declared digest whole and the
// received one on a line of its own when they differ.
func checkLines(st viewStyles, checks []resourceCheck) []string {
	const declW = 24
	out := []string{st.Header.Render(fmt.Sprintf("   %-9s %-*s %s", "Check", declW, "Declared", "Received"))}
	if checks == nil {
		return append(out, st.Dim.Render("   (not fetched yet)"))
	}
	indent := strings.Repeat(" ", 13)
	for _, c := range checks {
		lead := " " + c.Mark.render(st) + " " + st.Label.Render(fmt.Sprintf("%-9s", ivSanitize(c.Field))) + " "
		declared, actual := ivSanitize(c.Declared), ivSanitize(c.Actual)
		switch c.Field {
		case "status", "length", "type", "lastmod", "hash":
			out = append(out, lead+st.Value.Render(ivPad(declared, declW))+" "+st.Value.Render(actual))
			continue
		}
		switch c.Mark {
		case markMatch:
			out = append(out, lead+st.Value.Render(declared)+st.Dim.Render("  received the same"))
		case markMismatch:
			out = append(out, lead+st.Value.Render(declared)+st.Dim.Render("  declared"))
			out = append(out, indent+st.MarkBad.Render(actual)+st.Dim.Render("  received"))
		default:
			out = append(out, lead+st.Value.Render(declared)+st.Dim.Render("  ")+st.MarkUnknown.Render(actual))
		}
	}
	return out
}

// declaredSummary says in one line what an entry declares.
func declaredSummary(d resourceDeclared) string {
	var parts []string
	if d.LengthRaw != "" {
		parts = append(parts, "length "+ivSanitize(d.LengthRaw))
	}
	if d.Type != "" {
		parts = append(parts, "type "+ivSanitize(d.Type))
	}
	if d.Lastmod.Present() {
		parts = append(parts, "lastmod "+ivSanitize(d.Lastmod.Format()))
	}
	if len(d.Hash) > 0 {
		algs := make([]string, len(d.Hash))
		for i, h := range d.Hash {
			algs[i] = h.Alg
		}
		parts = append(parts, "hash "+strings.Join(algs, ", "))
	}
	if len(parts) == 0 {
		return "nothing (no length, type, lastmod or hash)"
	}
	return strings.Join(parts, " · ")
}

// fetchLine is the state of a target's download.
func (v resourceView) fetchLine(st viewStyles, t *resourceTarget, w int) string {
	switch t.state {
	case targetUnfetchable:
		return st.Warning.Render("not fetched: only http and https URLs are")
	case targetIdle:
		return st.Dim.Render("not fetched · r fetches")
	case targetQueued:
		return st.Dim.Render("queued")
	case targetRunning:
		return progressBar(st, t.done, t.total, min(w, 100)) + st.Dim.Render("  esc cancels")
	}
	o := t.outcome
	switch {
	case errors.Is(o.Err, context.Canceled):
		return st.Warning.Render(fmt.Sprintf("cancelled after %s", fetch.FormatSize(t.done))) + st.Dim.Render(" · r fetches again")
	case o.Err != nil && (o.Exchange == nil || o.Exchange.Status == 0):
		return st.Error.Render(ivSanitize(o.Err.Error()))
	}
	ok, bad := 0, 0
	for _, c := range t.checks {
		switch c.Mark {
		case markMatch:
			ok++
		case markMismatch:
			bad++
		}
	}
	verdict := st.MarkOK.Render("✓ everything declared matches")
	if bad > 0 {
		verdict = st.MarkBad.Render(fmt.Sprintf("✗ %s", ivPlural(bad, "mismatch", "mismatches")))
	} else if ok <= 1 {
		verdict = st.MarkUnknown.Render("? nothing could be compared")
	}
	return verdict + st.Dim.Render(fmt.Sprintf(" · %s received · r fetches again", fetch.FormatSize(o.Bytes)))
}

// progressBar draws done of total (total -1: unknown) in about w cells.
func progressBar(st viewStyles, done, total int64, w int) string {
	if total <= 0 {
		return st.Dim.Render(fmt.Sprintf("downloading… %s", fetch.FormatSize(done)))
	}
	text := fmt.Sprintf(" %3d%% %s of %s", min(done*100/total, 100), fetch.FormatSize(done), fetch.FormatSize(total))
	barW := max(w-len(text)-14, 10)
	filled := int(min(done*int64(barW)/total, int64(barW)))
	return st.ProgressDone.Render(strings.Repeat("█", filled)) + st.ProgressTodo.Render(strings.Repeat("░", barW-filled)) + st.Value.Render(text)
}

// mirrorTable is the compact table: one row per source, one column per
// compared field and declared hash algorithm.
func (v resourceView) mirrorTable(st viewStyles) []string {
	var algs []string
	seen := map[string]bool{}
	for _, t := range v.targets {
		for _, h := range t.Declared.Hash {
			if !seen[h.Alg] {
				seen[h.Alg] = true
				algs = append(algs, h.Alg)
			}
		}
	}
	labelW := 6
	for _, t := range v.targets {
		labelW = max(labelW, len(t.Label))
	}
	cols := []string{"status", "length", "type", "lastmod"}
	widths := []int{9, 10, 15, 7}
	cols = append(cols, algs...)
	for _, a := range algs {
		widths = append(widths, max(len(a)+2, 4))
	}
	var hdr strings.Builder
	fmt.Fprintf(&hdr, "  %-*s ", labelW, "Source")
	for i, c := range cols {
		fmt.Fprintf(&hdr, "%-*s ", widths[i], ivFit(c, widths[i]))
	}
	out := []string{st.Header.Render(strings.TrimRight(hdr.String(), " "))}
	for _, t := range v.targets {
		row := "  " + fmt.Sprintf("%-*s ", labelW, t.Label)
		switch t.state {
		case targetUnfetchable:
			out = append(out, row+st.Warning.Render("? not fetched (not http/https): ")+st.URL.Render(ivSanitize(t.URL)))
			continue
		case targetIdle:
			out = append(out, row+st.Dim.Render("not fetched  ")+st.URL.Render(ivSanitize(t.URL)))
			continue
		case targetQueued:
			out = append(out, row+st.Dim.Render("queued       ")+st.URL.Render(ivSanitize(t.URL)))
			continue
		case targetRunning:
			out = append(out, row+st.Dim.Render(fmt.Sprintf("%-11s ", "fetching"))+st.Dim.Render(fetch.FormatSize(t.done)))
			continue
		}
		byField := map[string]resourceCheck{}
		for _, c := range t.checks {
			byField[c.Field] = c
		}
		for i, col := range cols {
			c, ok := byField[col]
			cell := "  "
			if ok {
				cell = c.Mark.String() + " " + c.Short
				if i >= 4 { // hashes: the mark says it all
					cell = c.Mark.String()
				}
				if col == "lastmod" {
					cell = c.Mark.String()
				}
			}
			cell = ivSanitize(cell)
			if i < len(cols)-1 {
				cell = ivPad(cell, widths[i])
			}
			if ok {
				cell = markStyle(st, c.Mark).Render(cell)
			}
			row += cell + " "
		}
		out = append(out, strings.TrimRight(row, " "))
	}
	return out
}

func markStyle(st viewStyles, m checkMark) interface{ Render(...string) string } {
	switch m {
	case markMatch:
		return st.MarkOK
	case markMismatch:
		return st.MarkBad
	case markUnknown:
		return st.MarkUnknown
	}
	return st.MarkNone
}
