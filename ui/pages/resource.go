package pages

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"rsx/claims"
	"rsx/display"
	"rsx/fetch"
	"rsx/memento"
	"rsx/model"
	"rsx/session"
	"rsx/ui/common"
	"rsx/ui/components"
	"rsx/ui/nav"
)

// The resource page shows how an entry's resource compares with what the
// document declares: HTTP status, length, media type, last modification and
// every declared digest, as the claims package judges them. Its links
// (rs:ln) are listed with their relation explained; mirrors
// (rel="duplicate") can be fetched and compared the same way, in pri order.
// Nothing but a short preview of a body is kept.

// resourceMirrorConcurrency bounds the mirror downloads this page runs at
// once; the fetch client's per-host limits apply on top.
const resourceMirrorConcurrency = 2

// CheckMark is the outcome of one comparison.
type CheckMark uint8

const (
	MarkNone     CheckMark = iota // – not declared
	MarkMatch                     // ✓
	MarkMismatch                  // ✗
	MarkUnknown                   // ? cannot compare (unsupported, absent in the response, incomplete)
	MarkWarning                   // ! differs where servers may (lastmod)
)

// CheckMarkOf is the mark of a verdict.
func CheckMarkOf(v claims.Verdict) CheckMark {
	switch v {
	case claims.OK:
		return MarkMatch
	case claims.Mismatch:
		return MarkMismatch
	case claims.Unchecked:
		return MarkUnknown
	case claims.Warning:
		return MarkWarning
	}
	return MarkNone
}

func (m CheckMark) String() string {
	switch m {
	case MarkMatch:
		return "✓"
	case MarkMismatch:
		return "✗"
	case MarkUnknown:
		return "?"
	case MarkWarning:
		return "!"
	}
	return "–"
}

func (m CheckMark) Render(st *common.Styles) string {
	return markStyle(st, m).Render(m.String())
}

// checkText is what a check shows as received: the value, and why it could
// not be compared or what else to know of it.
func checkText(c claims.Check) string {
	switch {
	case c.Actual == "":
		return c.Reason
	case c.Reason == "":
		return c.Actual
	}
	return c.Actual + " · " + c.Reason
}

// resourceLink is an rs:ln of the entry as the page lists it.
type resourceLink struct {
	model.Link
	URL    string // Href resolved against the resource's URI
	Mirror int    // 1-based mirror number; 0 for other relations
	Pri    int    // a mirror's priority
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
	Label string // "primary", "mirror 1 pri 1"
	claims.Target

	state       targetState
	gen         int
	cancel      context.CancelFunc
	done, total int64
	result      claims.Result      // once done
	insp        session.Inspection // result, with every digest and the text flag
	checks      []claims.Check     // result.Checks once done, nil before
}

// Inspector checks a resource against what its document claims (rsx/ui's
// Backend has it).
type Inspector interface {
	// InspectResource fetches t once and judges it against t.Claims,
	// reporting the body bytes received (total -1 when unknown), with
	// every digest of the body and whether it is text.
	InspectResource(ctx context.Context, t claims.Target, progress func(done, total int64)) session.Inspection
}

// Mementos reads the versions of a resource through Memento (rsx/ui's
// Backend has it).
type Mementos interface {
	// TimeMap fetches and reads the TimeMap at url.
	TimeMap(ctx context.Context, url string) (*memento.TimeMap, *fetch.Exchange, error)
	// TimeGate asks the TimeGate gate for the version in effect at at.
	TimeGate(ctx context.Context, gate string, at time.Time) (session.TimeGateAnswer, error)
	// CompareVersions compares a version with the current resource.
	CompareVersions(ctx context.Context, version, current string) session.VersionDiff
}

// ResourceBackend is what the resource page fetches through: the resource
// and, for the pages it opens, versions.
type ResourceBackend interface {
	Inspector
	Mementos
}

// ResourceOpener shows the page of the resource at uri over the page that
// asks, held to the claims of its entry in the document shown (the root
// gives it, as it knows the document); nil opens nothing.
type ResourceOpener func(uri string) tea.Cmd

// orNone is o, or a function that opens nothing when o is nil.
func (o ResourceOpener) orNone() func(uri string) tea.Cmd {
	if o == nil {
		return func(string) tea.Cmd { return nil }
	}
	return o
}

// Resource shows how an entry's resource compares with its claims.
type Resource struct {
	c      *common.Common
	r      ResourceBackend
	entry  model.Entry
	origin string // the document the entry or link came from (NewResource)
	via    string // what links here when the page is of a link's target ("memento link of …")

	session *resourceSession
	targets []resourceTarget // [0] is the primary resource, then mirrors by pri
	links   []resourceLink

	width, height int
	list          components.List // the selected link and the first line shown
}

// resourceSession identifies one resource page for its asynchronous results
// by its address. It must not be zero-sized: pointers to distinct zero-size
// values may compare equal.
type resourceSession struct{ _ byte }

// NewResource returns the page of entry's resource, checked through r.
// Init starts fetching the resource. For a bare URL, pass
// model.Entry{Index: -1, Loc: url}. origin is the document the entry (or
// the link to the resource) was found in: the links of the page that lead
// to documents are followed only as far as it may lead (nav.OpenURLMsg.From).
func NewResource(c *common.Common, r ResourceBackend, origin string, entry model.Entry) *Resource {
	v := &Resource{c: c, r: r, origin: origin, entry: entry, session: &resourceSession{}, list: components.NewList(components.Links)}
	mirrors := map[int]claims.Target{}
	for _, t := range claims.Targets(entry) {
		label := "primary"
		if t.Mirror > 0 {
			label = fmt.Sprintf("mirror %d pri %d", t.Mirror, t.Pri)
			mirrors[t.Link] = t
		}
		v.targets = append(v.targets, resourceTarget{Label: label, Target: t})
	}
	for i, l := range entry.Links {
		m := mirrors[i]
		v.links = append(v.links, resourceLink{Link: l, URL: model.ResolveHref(entry.Loc, l.Href), Mirror: m.Mirror, Pri: m.Pri})
	}
	for i := range v.targets {
		if !claims.Fetchable(v.targets[i].URL) {
			v.targets[i].state = targetUnfetchable
		}
	}
	return v
}

// Entry is the entry the page holds the resource to (its Loc absolute).
func (v *Resource) Entry() model.Entry { return v.entry }

// SetVia says what links to the resource when the page is of a link's
// target ("memento link of …", "change notification"): the title line
// shows it.
func (v *Resource) SetVia(via string) { v.via = via }

// fromDocument reports whether the entry came from a document (rather than
// being made up for a bare URL, e.g. a mirror link opened on its own).
func (v *Resource) fromDocument() bool {
	return v.entry.Index >= 0 && (v.entry.HasLoc || v.entry.Line > 0)
}

// Init starts fetching the primary resource.
func (v *Resource) Init() tea.Cmd {
	return v.start(0)
}

// start returns the command that fetches target i, and marks it running.
func (v *Resource) start(i int) tea.Cmd {
	t := &v.targets[i]
	if t.state == targetUnfetchable || v.r == nil {
		if v.r == nil && t.state != targetUnfetchable {
			t.state = targetDone
			t.result = claims.Failed(t.Target, errors.New("this build cannot fetch"))
			t.checks = t.result.Checks
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
	t.checks, t.result = nil, claims.Result{}
	return checkResourceCmd(ctx, v.r, resourceFetchKey{v.session, i, t.gen}, t.Target)
}

// Busy reports whether a download is running (esc then cancels it rather
// than leaving the page).
func (v *Resource) Busy() bool {
	for _, t := range v.targets {
		if t.state == targetRunning || t.state == targetQueued {
			return true
		}
	}
	return false
}

// Close cancels every download.
func (v *Resource) Close() {
	for i := range v.targets {
		v.cancelTarget(i)
	}
}

func (v *Resource) cancelTarget(i int) {
	t := &v.targets[i]
	if t.state == targetQueued {
		t.state = targetIdle
	}
	if t.cancel != nil {
		t.cancel()
	}
}

// Title names the page; the target of a link by the link's relation.
func (v *Resource) Title() string {
	if v.via != "" {
		rel, _, _ := strings.Cut(v.via, " link of ")
		return "Resource (" + rel + ")"
	}
	return "Resource"
}

// looksLikeDocument tells whether the body fetched is a Sitemap document,
// which enter opens as a document.
func (v *Resource) looksLikeDocument() bool {
	t := &v.targets[0]
	if t.state != targetDone || !t.insp.Text {
		return false
	}
	head := string(t.result.Preview[:min(len(t.result.Preview), 1024)])
	return strings.Contains(head, "<urlset") || strings.Contains(head, "<sitemapindex")
}
func (v *Resource) InputActive() bool { return false }

// Back cancels the downloads while they run; then esc leaves the page.
func (v *Resource) Back() (bool, tea.Cmd) {
	if !v.Busy() {
		return false, nil
	}
	v.Close()
	v.relayout()
	return true, nil
}

// SetSize sets the size the page draws in.
func (v *Resource) SetSize(w, h int) {
	v.width, v.height = w, h
	v.list.SetHeight(h)
	v.relayout()
}

// KeyBindings are the page's own bindings, for the help screen.
func (v *Resource) KeyBindings() []key.Binding {
	k := &v.c.Keys
	cancel := common.Short(k.Cancel, "cancel the downloads")
	cancel.SetEnabled(v.Busy()) // otherwise esc goes back
	// First, so that the footer shows what esc does while it replaces "esc back".
	return []key.Binding{cancel, common.Short(k.Open, "open the selected link"), common.Short(k.Retry, "fetch and compare again"), k.Mirrors,
		k.Versions, k.Copy, k.Browser}
}

// HelpBindings are the page's keys (nav.KeyHelper): the footer's, with
// every movement key where there is somewhere to move.
func (v *Resource) HelpBindings() []key.Binding {
	return withMoves(v.c.Keys, v.KeyBindings(), v.list.Len() > 1)
}

// Update handles keys and download results, then lays the page out for
// what changed, so that View only draws.
func (v *Resource) Update(msg tea.Msg) (nav.Page, tea.Cmd) {
	cmd := v.update(msg)
	v.relayout()
	return v, cmd
}

func (v *Resource) update(msg tea.Msg) tea.Cmd {
	k := &v.c.Keys
	switch msg := msg.(type) {
	case resourceProgressMsg:
		t := v.target(msg.key)
		if t == nil {
			return nil
		}
		t.done, t.total = msg.done, msg.total
		return msg.next
	case resourceDoneMsg:
		t := v.target(msg.key)
		if t == nil {
			return nil
		}
		t.state = targetDone
		t.cancel = nil
		t.insp = msg.result
		t.result = msg.result.Result
		t.done = msg.result.Received.Bytes
		t.checks = msg.result.Checks
		return v.startQueued()
	case tea.MouseWheelMsg:
		v.list.Update(msg, k)
	case tea.KeyPressMsg:
		if v.list.Update(msg, k) {
			return nil
		}
		switch {
		case key.Matches(msg, k.Open):
			if l := v.selectedLink(); l != nil {
				return openLinkCmd(v.c, v.r, v.origin, v.entry, l.Link, l.URL)
			}
			if v.looksLikeDocument() {
				return nav.Cmd(nav.OpenURLMsg{URL: v.entry.Loc, From: v.origin})
			}
		case key.Matches(msg, k.Versions):
			refs, ok := VersionRefsOf(v.entry)
			if !ok {
				return nav.Flash("this resource links to no versions (memento, timegate or timemap)", false)
			}
			return nav.Push(NewVersions(v.c, v.r, v.origin, refs))
		case key.Matches(msg, k.Copy):
			if l := v.selectedLink(); l != nil {
				return nav.Cmd(nav.CopyMsg{Text: l.URL, What: "URL"})
			}
			return nav.Cmd(nav.CopyMsg{Text: v.entry.Loc, What: "URL"})
		case key.Matches(msg, k.Browser):
			if l := v.selectedLink(); l != nil {
				return nav.Cmd(nav.OpenBrowserMsg{URL: l.URL})
			}
			return nav.Cmd(nav.OpenBrowserMsg{URL: v.entry.Loc})
		case key.Matches(msg, k.Retry):
			return v.start(0)
		case key.Matches(msg, k.Mirrors):
			return v.fetchMirrors()
		}
	}
	return nil
}

// target returns the target a result is for, nil when it is stale.
func (v *Resource) target(k resourceFetchKey) *resourceTarget {
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
func (v *Resource) fetchMirrors() tea.Cmd {
	if len(v.targets) < 2 {
		return nav.Cmd(nav.FlashMsg{Text: "this resource declares no mirror (rel=\"duplicate\")"})
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
func (v *Resource) startQueued() tea.Cmd {
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

// relayout tells the list where the links are: the page's lines change
// as downloads progress.
func (v *Resource) relayout() {
	lines, items := v.lines(v.c.Styles, max(v.width, 1))
	v.list.SetItems(items, len(lines))
}

func (v *Resource) selectedLink() *resourceLink {
	i := v.list.Cursor()
	if i < 0 || i >= len(v.links) {
		return nil
	}
	return &v.links[i]
}

// View draws the comparison, the links, the mirrors and a preview.
func (v *Resource) View() string {
	lines, _ := v.lines(v.c.Styles, max(v.width, 1))
	return cellsOf(v.c).Scrolled(lines, v.list.Offset(), v.width, v.height)
}

// lines draws the whole page (a resource has a few dozen lines at most) and
// says on which line each link is.
func (v *Resource) lines(st *common.Styles, w int) ([]string, []int) {
	var out []string
	add := func(s string) { out = append(out, s) }
	label := func(s string) string { return st.Section.Render(fmt.Sprintf("%-9s", s)) + " " }
	p := &v.targets[0]

	head := st.Title.Render("Resource") + "  " + st.URL.Render(components.Escape(v.entry.Loc))
	if v.fromDocument() {
		head += st.Dim.Render(fmt.Sprintf("  entry %d", v.entry.Index+1))
	}
	add(head)
	if v.via != "" {
		add(label("Via") + st.Rel.Render(components.Escape(v.via)))
	}
	decl := declaredSummary(p.Claims)
	if v.via != "" && decl == declaredNothing {
		decl = "nothing (the link gives no length, type, modified or hash)"
	}
	add(label("Declared") + st.Value.Render(decl))
	if len(p.Claims.Hash) > 0 {
		add(label("") + st.Value.Render(components.Escape(p.Claims.Hash.String())))
	}
	add(label("Fetch") + v.fetchLine(st, p, w-10))
	if p.state == targetDone {
		if why := p.result.Explain(); why != "" && p.result.Received.Status != 0 {
			for _, l := range cellsOf(v.c).Wrap(components.Escape(why), max(w-12, 20)) {
				add(label("") + st.MarkUnknown.Render(l))
			}
		}
	}
	add("")

	// The primary comparison in full.
	out = append(out, checkLines(cellsOf(v.c), st, p.checks, p.Claims.Hash)...)
	add("")

	// Links.
	linkLines := make([]int, len(v.links))
	sel := v.list.Cursor()
	add(st.Section.Render(fmt.Sprintf("Links (%d)", len(v.links))) + st.Dim.Render("  enter opens · y copies · o browser"))
	if len(v.links) == 0 {
		add(st.Dim.Render("  none"))
	}
	rels := make([]string, len(v.links))
	relW := 11
	for i, l := range v.links {
		rels[i] = components.Escape(l.Rel)
		if l.Mirror > 0 {
			rels[i] = fmt.Sprintf("%s pri %d", rels[i], l.Pri)
		}
		relW = max(relW, min(len(rels[i]), 32))
	}
	for i, l := range v.links {
		line := cellsOf(v.c).Pad(rels[i], relW) + "  "
		desc := model.RelationDescription(l.Rel)
		if l.Type != "" {
			desc = "type " + components.Escape(l.Type) + " · " + desc
		}
		linkLines[i] = len(out)
		if i == sel {
			add(st.Selected.Render(cellsOf(v.c).Pad("▸ "+line+components.Escape(l.URL)+"  "+desc, w)))
			continue
		}
		add("  " + st.Rel.Render(line) + st.URL.Render(components.Escape(l.URL)) + "  " + st.Explain.Render(desc))
	}

	out = append(out, provenanceLines(cellsOf(v.c), st, v.entry, w)...)

	// Mirrors.
	if len(v.targets) > 1 {
		add("")
		add(st.Section.Render("Mirrors") + st.Dim.Render(fmt.Sprintf("  m fetches and compares all (%d at a time)", resourceMirrorConcurrency)))
		out = append(out, v.mirrorTable(st)...)
	}

	if p.state == targetDone {
		if rl := receivedLines(cellsOf(v.c), st, &p.insp, p.Claims.Hash, w); len(rl) > 0 {
			add("")
			out = append(out, rl...)
		}
		out = append(out, previewLines(st, &p.insp, v.looksLikeDocument(), len(v.links) == 0)...)
	}
	return out, linkLines
}

// previewLines show the body: the first lines of a text, or a note for a
// binary body.
func previewLines(st *common.Styles, in *session.Inspection, document, enterOpens bool) []string {
	preview := in.Preview
	if len(preview) == 0 {
		return nil
	}
	out := []string{""}
	mt := in.MediaType
	if mt == "" {
		mt = "no type given"
	}
	if !in.Text {
		return append(out, st.Section.Render("Preview")+st.Dim.Render(fmt.Sprintf("  binary (%s, %s): not shown", components.Escape(mt), display.Size(in.Received.Bytes))))
	}
	head := st.Section.Render("Preview") + st.Dim.Render(fmt.Sprintf("  %s, first %s", components.Escape(mt), display.Size(int64(len(preview)))))
	if document && enterOpens {
		head += st.Flash.Render("  a Sitemap document: enter opens it as a document")
	}
	out = append(out, head)
	lines := strings.Split(strings.TrimRight(string(preview), "\n"), "\n")
	for i, l := range lines {
		if i == resourcePreviewLines {
			out = append(out, st.Dim.Render(fmt.Sprintf("  … %s more in the preview", display.Plural(len(lines)-i, "line", "lines"))))
			break
		}
		out = append(out, "  "+st.Code.Render(components.EscapeLine(strings.TrimRight(l, "\r"))))
	}
	return out
}

// resourcePreviewLines is how many lines of a text body the page shows.
const resourcePreviewLines = 12

// resourceHeaderLines is how many response headers the page lists.
const resourceHeaderLines = 12

// receivedLines describe what came back: the response, every digest of the
// body (those declared marked) and the response headers.
func receivedLines(cells components.Cells, st *common.Styles, in *session.Inspection, declared model.HashList, w int) []string {
	r := in.Received
	var out []string
	if r.Status != 0 || r.Local {
		resp := st.Section.Render("Received") + "  "
		if r.Status != 0 {
			text := r.StatusText
			if text == "" {
				text = session.StatusText(r.Status)
			}
			resp += st.HTTPStatus(r.Status).Render(fmt.Sprintf("HTTP %d %s", r.Status, components.Escape(text))) + st.Dim.Render(" · ")
		}
		mt := in.MediaType
		if mt == "" {
			mt = "no type"
		}
		resp += st.Value.Render(components.Escape(mt)) + st.Dim.Render(" · ") + st.Value.Render(display.Size(r.Bytes))
		if r.Truncated {
			resp += st.Warning.Render(" (read no further)")
		}
		out = append(out, resp)
		if r.FinalURL != "" && len(r.Redirects) > 0 {
			out = append(out, "  "+st.Label.Render("after redirects ")+st.URL.Render(components.Escape(r.FinalURL)))
		}
	}
	if len(in.Digests) > 0 {
		what := "of the body"
		if r.Truncated || r.Err != nil {
			what = "of the part read"
		}
		out = append(out, "", st.Section.Render("Digests")+st.Dim.Render("  "+what+" · hex, then base64"))
		for _, d := range in.Digests {
			note := ""
			if h, ok := declared.Get(d.Alg); ok {
				if h.Hex() == d.Hex {
					note = st.MarkOK.Render("  ✓ declared")
				} else {
					note = st.MarkBad.Render("  ✗ declared " + components.Escape(h.Hex()))
				}
			}
			line := "  " + st.Label.Render(fmt.Sprintf("%-8s", d.Alg)) + st.Value.Render(d.Hex) + note
			if cells.Width(line)+2+len(d.Base64) <= w {
				line += "  " + st.Dim.Render(d.Base64)
			}
			out = append(out, line)
		}
	}
	if len(r.Header) > 0 {
		names := make([]string, 0, len(r.Header))
		for n := range r.Header {
			names = append(names, n)
		}
		sort.Strings(names)
		out = append(out, "", st.Section.Render("Headers")+st.Dim.Render(fmt.Sprintf("  %s, of the final response", display.Count(len(names)))))
		for i, n := range names {
			if i == resourceHeaderLines {
				out = append(out, st.Dim.Render(fmt.Sprintf("  … %s more", display.Count(len(names)-i))))
				break
			}
			out = append(out, "  "+st.Label.Render(components.Escape(n)+": ")+st.Value.Render(components.Escape(strings.Join(r.Header[n], ", "))))
		}
	}
	return out
}

// checkLines draws a comparison: a row per field with the declared and the
// received value; a digest row gives the declared digest whole (and its hex
// form when declared in base64, as hashes says) and the received one on a
// line of its own when they differ.
func checkLines(cells components.Cells, st *common.Styles, checks []claims.Check, hashes model.HashList) []string {
	const declW = 24
	out := []string{st.Header.Render(fmt.Sprintf("   %-9s %-*s %s", "Check", declW, "Declared", "Received"))}
	if checks == nil {
		return append(out, st.Dim.Render("   (not fetched yet)"))
	}
	indent := strings.Repeat(" ", 13)
	for _, c := range checks {
		mark := CheckMarkOf(c.Verdict)
		lead := " " + mark.Render(st) + " " + st.Label.Render(fmt.Sprintf("%-9s", components.Escape(c.Field))) + " "
		declared, actual := c.Declared, checkText(c)
		if c.Verdict == claims.NotDeclared {
			declared = "not declared"
		}
		if h, ok := hashes.Get(c.Field); ok && h.Encoding == model.HashBase64 && c.Field != "hash" {
			declared += " (base64 = " + h.Hex() + ")"
		}
		declared, actual = components.Escape(declared), components.Escape(actual)
		switch c.Field {
		case "status", "length", "type", "lastmod", "hash":
			out = append(out, lead+st.Value.Render(cells.Pad(declared, declW))+" "+st.Value.Render(actual))
			continue
		}
		switch mark {
		case MarkMatch:
			out = append(out, lead+st.Value.Render(declared)+st.Dim.Render("  received the same"))
		case MarkMismatch:
			out = append(out, lead+st.Value.Render(declared)+st.Dim.Render("  declared"))
			out = append(out, indent+st.MarkBad.Render(actual)+st.Dim.Render("  received"))
		default:
			out = append(out, lead+st.Value.Render(declared)+st.Dim.Render("  ")+st.MarkUnknown.Render(actual))
		}
	}
	return out
}

// declaredNothing is what declaredSummary says of no claim at all.
const declaredNothing = "nothing (no length, type, lastmod or hash)"

// declaredSummary says in one line what an entry declares.
func declaredSummary(d claims.Claims) string {
	var parts []string
	if d.LengthRaw != "" {
		parts = append(parts, "length "+components.Escape(d.LengthRaw))
	}
	if d.Type != "" {
		parts = append(parts, "type "+components.Escape(d.Type))
	}
	if d.Lastmod.Present() {
		parts = append(parts, "lastmod "+components.Escape(d.Lastmod.Format()))
	}
	if len(d.Hash) > 0 {
		algs := make([]string, len(d.Hash))
		for i, h := range d.Hash {
			algs[i] = h.Alg
		}
		parts = append(parts, "hash "+components.Escape(strings.Join(algs, ", ")))
	}
	if len(parts) == 0 {
		return declaredNothing
	}
	return strings.Join(parts, " · ")
}

// fetchLine is the state of a target's download.
func (v *Resource) fetchLine(st *common.Styles, t *resourceTarget, w int) string {
	switch t.state {
	case targetUnfetchable:
		return st.Warning.Render("not fetched: only http and https URLs are")
	case targetIdle:
		return st.Dim.Render("not fetched · r fetches")
	case targetQueued:
		return st.Dim.Render("queued")
	case targetRunning:
		return components.ProgressBar(st, t.done, t.total, min(w, 100)) + st.Dim.Render("  esc cancels")
	}
	o := t.result
	switch err := o.Err(); {
	case errors.Is(err, context.Canceled):
		return st.Warning.Render(fmt.Sprintf("cancelled after %s", display.Size(t.done))) + st.Dim.Render(" · r fetches again")
	case err != nil && o.Received.Status == 0:
		return st.Error.Render(components.Escape(err.Error()))
	}
	bad, warn := o.Count(claims.Mismatch), o.Count(claims.Warning)
	var verdict string
	switch {
	case bad > 0:
		verdict = st.MarkBad.Render(fmt.Sprintf("✗ %s", display.Plural(bad, "mismatch", "mismatches")))
		if warn > 0 {
			verdict += st.Warning.Render(fmt.Sprintf(" · ! %s", display.Plural(warn, "warning", "warnings")))
		}
	case o.NothingChecked():
		verdict = st.MarkUnknown.Render("? nothing could be compared (below: why)")
	case warn > 0:
		verdict = st.Warning.Render(fmt.Sprintf("! %s, everything else declared matches", display.Plural(warn, "warning", "warnings")))
	default:
		verdict = st.MarkOK.Render("✓ everything declared matches")
	}
	return verdict + st.Dim.Render(fmt.Sprintf(" · %s received · r fetches again", display.Size(o.Received.Bytes)))
}

// mirrorTable is the compact table: one row per source, one column per
// compared field and declared hash algorithm.
func (v *Resource) mirrorTable(st *common.Styles) []string {
	var algs []string
	seen := map[string]bool{}
	for _, t := range v.targets {
		for _, h := range t.Claims.Hash {
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
		// An algorithm rsx does not know is named as the entry writes it.
		fmt.Fprintf(&hdr, "%-*s ", widths[i], cellsOf(v.c).Fit(components.Escape(c), widths[i]))
	}
	out := []string{st.Header.Render(strings.TrimRight(hdr.String(), " "))}
	for _, t := range v.targets {
		row := "  " + fmt.Sprintf("%-*s ", labelW, t.Label)
		switch t.state {
		case targetUnfetchable:
			out = append(out, row+st.Warning.Render("? not fetched (not http/https): ")+st.URL.Render(components.Escape(t.URL)))
			continue
		case targetIdle:
			out = append(out, row+st.Dim.Render("not fetched  ")+st.URL.Render(components.Escape(t.URL)))
			continue
		case targetQueued:
			out = append(out, row+st.Dim.Render("queued       ")+st.URL.Render(components.Escape(t.URL)))
			continue
		case targetRunning:
			out = append(out, row+st.Dim.Render(fmt.Sprintf("%-11s ", "fetching"))+st.Dim.Render(display.Size(t.done)))
			continue
		}
		byField := map[string]claims.Check{}
		for _, c := range t.checks {
			byField[c.Field] = c
		}
		for i, col := range cols {
			c, ok := byField[col]
			mark := CheckMarkOf(c.Verdict)
			cell := "  "
			if ok {
				cell = mark.String() + " " + c.Short
				if i >= 4 { // hashes: the mark says it all
					cell = mark.String()
				}
				if col == "lastmod" {
					cell = mark.String()
				}
			}
			cell = components.Escape(cell)
			if i < len(cols)-1 {
				cell = cellsOf(v.c).Pad(cell, widths[i])
			}
			if ok {
				cell = markStyle(st, mark).Render(cell)
			}
			row += cell + " "
		}
		out = append(out, strings.TrimRight(row, " "))
	}
	return out
}

func markStyle(st *common.Styles, m CheckMark) interface{ Render(...string) string } {
	switch m {
	case MarkMatch:
		return st.MarkOK
	case MarkMismatch:
		return st.MarkBad
	case MarkUnknown, MarkWarning:
		return st.MarkUnknown
	}
	return st.MarkNone
}
