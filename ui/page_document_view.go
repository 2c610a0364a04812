package ui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"

	"rsx/display"
	"rsx/model"
	"rsx/ui/common"
	"rsx/ui/components"
)

// View draws the page: breadcrumbs, title, the table and the detail pane
// (or the loading, error or empty screen), the status bar and the footer.
func (v *docPage) View() string {
	st := v.c.Styles
	w := v.width
	var b strings.Builder
	b.WriteString(v.crumbsLine())
	b.WriteByte('\n')
	b.WriteString(v.titleLine())
	b.WriteByte('\n')

	body := max(v.height-docChromeLines, 3)
	var bodyView string
	switch {
	case v.doc.err != nil && v.doc.entries.Len() == 0:
		bodyView = v.errorView(w, body)
	case v.doc.entries.Len() == 0 && v.doc.loading:
		bodyView = v.loadingView(w, body)
	case v.doc.entries.Len() == 0:
		bodyView = v.cells().PlaceCenter(w, body, st.Dim.Render("This document has no entries."))
	default:
		tbl := v.tbl.View()
		det := v.detailView()
		if v.detailRight {
			bodyView = components.JoinColumns(tbl, indentLines(det, strings.Repeat(" ", paneGutter)))
		} else {
			bodyView = tbl + "\n" + det
		}
	}
	// Exactly body lines, so that the status bar and the footer stay at the
	// bottom whatever the panes made of the room.
	b.WriteString(v.cells().FitBlock(bodyView, w, body))
	b.WriteByte('\n')
	b.WriteString(v.statusLine())
	b.WriteByte('\n')
	b.WriteString(v.footer())
	return b.String()
}

// indentLines puts prefix before every line of s.
func indentLines(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// trailCrumb is a breadcrumb: a document on the path from the Source
// Description, and its place among the document's crumbs.
type trailCrumb struct {
	label   string
	pos     int  // index into the document's crumbs; -1 for the document shown or an unknown one
	unknown bool // ancestors that could not be found: the path starts below them
}

// crumbs are the breadcrumbs: the path from the Source Description down to
// the document (App.setTrail), then the document itself.
func (v *docPage) crumbs() []trailCrumb {
	out := append([]trailCrumb(nil), v.path...)
	label := v.selfLabel
	if label == "" {
		label = docLabel(v.doc)
	}
	if v.doc.stale {
		label += staleMark
	}
	return append(out, trailCrumb{label: label, pos: -1})
}

// staleMark follows the name of a document that a framework notification
// said changed since it was loaded.
const staleMark = " ⟳"

// docLabel names a document in the breadcrumbs: its type, or its URL when
// it is not a ResourceSync document.
func docLabel(d *document) string {
	switch {
	case d.header != nil && d.isResourceSync():
		return components.Escape(d.title())
	case d.discoveryPage != nil:
		return "Discovery from " + components.Escape(shortURL(d.url))
	case d.loading && d.header == nil:
		return "Loading…"
	}
	return components.Escape(shortURL(d.url))
}

// crumbLabel names an ancestor (on the document pane's path from the
// Source Description).
func crumbLabel(c Crumb) string {
	if c.Capability == "" && c.Root == model.RootUnknown {
		return components.Escape(shortURL(c.URL))
	}
	return components.Escape(c.Title())
}

const crumbSep = " › "

// fittedCrumbs returns the breadcrumbs and the first one shown: the oldest
// are dropped when they do not fit the width. Drawing and clicking both use
// it, so a click lands on the crumb drawn there.
func (v *docPage) fittedCrumbs() (cs []trailCrumb, first int) {
	cs = v.crumbs()
	plain := 0
	for _, c := range cs {
		plain += v.cells().Width(c.label) + v.cells().Width(crumbSep)
	}
	for plain > v.width && first < len(cs)-1 {
		plain -= v.cells().Width(cs[first].label) + v.cells().Width(crumbSep)
		first++
	}
	return cs, first
}

func (v *docPage) crumbsLine() string {
	st := v.c.Styles
	cs, first := v.fittedCrumbs()
	var b strings.Builder
	if first > 0 {
		b.WriteString(st.Breadcrumb.Render("…"))
		b.WriteString(st.BreadSep.Render(crumbSep))
	}
	for i := first; i < len(cs); i++ {
		if i > first {
			b.WriteString(st.BreadSep.Render(crumbSep))
		}
		switch {
		case i == len(cs)-1:
			b.WriteString(st.BreadActive.Render(cs[i].label))
		case cs[i].unknown:
			b.WriteString(st.Warning.Render(cs[i].label))
		default:
			b.WriteString(st.Breadcrumb.Render(cs[i].label))
		}
	}
	if v.returnTo != "" {
		b.WriteString(st.Flash.Render("   ⟵ esc: back to " + v.returnTo))
	}
	return v.cells().Fit(b.String(), v.width)
}

// crumbAt returns the history position of the breadcrumb at column x, -1
// for none or the document shown.
func (v *docPage) crumbAt(x int) int {
	cs, first := v.fittedCrumbs()
	col := 0
	if first > 0 {
		col = 1 + v.cells().Width(crumbSep)
	}
	for i := first; i < len(cs); i++ {
		if i > first {
			col += v.cells().Width(crumbSep)
		}
		wd := v.cells().Width(cs[i].label)
		if x >= col && x < col+wd {
			return cs[i].pos
		}
		col += wd
	}
	return -1
}

// titleLine shows the document's type and URL.
func (v *docPage) titleLine() string {
	st := v.c.Styles
	d := v.doc
	var b strings.Builder
	b.WriteString(st.Title.Render(components.Escape(d.title())))
	b.WriteString("  ")
	b.WriteString(st.URL.Render(components.Escape(d.base())))
	if d.final != "" && d.final != d.url && !model.IsLocal(d.url) {
		b.WriteString(st.Dim.Render("  (redirected from " + components.Escape(d.url) + ")"))
	}
	return v.cells().Fit(b.String(), v.width)
}

// statusLine is the bar at the bottom: capability, time, count, filter,
// sort, HTTP status, cache, problems and progress. When the bar is too
// narrow the least useful fields go first (the "completed" time, then the
// times, the sort …).
func (v *docPage) statusLine() string {
	n := v.doc.entries.Len()
	segs := presentSegs([]statusSeg{
		v.capabilitySeg(),
		v.snapshotTimeSeg(),
		v.intervalSeg(),
		v.entryCountSeg(n),
		v.partsSeg(),
		v.marksSeg(),
		v.localCopySeg(n),
		v.filterSeg(),
		v.unknownColumnSeg(),
		v.sortSeg(),
		v.httpSeg(),
		v.validitySeg(),
		v.crossFailedSeg(),
		v.staleSeg(),
		v.notificationsSeg(),
		v.throttleSeg(),
		v.progressSeg(n),
	})
	return v.fitStatus(segs)
}

// statusSeg is one field of the status line; a field with no text is not
// shown.
type statusSeg struct {
	text  string
	short string // used when the bar is too narrow ("" keeps text)
	drop  int    // 0: never dropped; higher numbers go first
}

// presentSegs keeps the fields that have something to say.
func presentSegs(segs []statusSeg) []statusSeg {
	kept := segs[:0]
	for _, s := range segs {
		if s.text != "" {
			kept = append(kept, s)
		}
	}
	return kept
}

// capabilitySeg is the badge of the document's capability.
func (v *docPage) capabilitySeg() statusSeg {
	c := v.doc.capability()
	if c == "" {
		return statusSeg{}
	}
	return statusSeg{text: v.c.Styles.StatusBadge.Render(components.Escape(string(c)))}
}

// timeValue renders a time as the document writes it, which may be anything.
func (v *docPage) timeValue(s string) string {
	return v.c.Styles.StatusValue.Render(components.Escape(s))
}

// snapshotTimeSeg is when the snapshot began and completed (at, completed).
func (v *docPage) snapshotTimeSeg() statusSeg {
	h := v.doc.header
	if h == nil {
		return statusSeg{}
	}
	at, completed := h.MD.At.Raw, h.MD.Completed.Raw
	switch {
	case at != "" && completed != "":
		end := sameDayShort(at, completed)
		return statusSeg{v.timeValue("at " + at + " completed " + end), v.timeValue(at + "–" + end), 3}
	case at != "":
		return statusSeg{v.timeValue("at " + at), v.timeValue(at), 3}
	case completed != "":
		return statusSeg{v.timeValue("completed " + completed), "", 3}
	}
	return statusSeg{}
}

// intervalSeg is the interval of changes the document covers (from, until).
func (v *docPage) intervalSeg() statusSeg {
	h := v.doc.header
	if h == nil {
		return statusSeg{}
	}
	from, until := h.MD.From.Raw, h.MD.Until.Raw
	switch {
	case from != "" && until != "":
		end := sameDayShort(from, until)
		return statusSeg{v.timeValue("from " + from + " until " + end), v.timeValue(from + "–" + end), 3}
	case from != "":
		return statusSeg{v.timeValue("from " + from + " (open)"), v.timeValue(from + "– (open)"), 3}
	case until != "":
		return statusSeg{v.timeValue("until " + until), "", 3}
	}
	return statusSeg{}
}

// entryCountSeg is how many entries the document has (so far).
func (v *docPage) entryCountSeg(n int) statusSeg {
	return statusSeg{text: v.c.Styles.StatusValue.Render(display.Plural(n, "entry", "entries"))}
}

// partsSeg is how many parts of an index have been read.
func (v *docPage) partsSeg() statusSeg {
	d := v.doc
	if d.parts == nil {
		return statusSeg{}
	}
	return statusSeg{v.c.Styles.StatusValue.Render(fmt.Sprintf("%s/%s parts", display.Count(d.partsDone), display.Count(len(d.parts)))), "", 1}
}

// marksSeg is how many entries are marked.
func (v *docPage) marksSeg() statusSeg {
	full, short := v.doc.marksText()
	if full == "" {
		return statusSeg{}
	}
	st := v.c.Styles
	glyph := st.BarMarked.Render(components.MarkedGlyph + " ")
	return statusSeg{glyph + st.StatusValue.Render(full), glyph + st.StatusValue.Render(short), 0}
}

// localCopySeg is how the entries compare with a local copy.
func (v *docPage) localCopySeg(n int) statusSeg {
	l := v.doc.local
	if !l.shown() {
		return statusSeg{}
	}
	full, short := l.statusText(n)
	st := v.c.Styles
	return statusSeg{st.StatusValue.Render(full), st.StatusValue.Render(short), 1}
}

// filterSeg is the filter and how many entries it matches.
func (v *docPage) filterSeg() statusSeg {
	if v.query.raw == "" {
		return statusSeg{}
	}
	f := fmt.Sprintf("filter %q: %s", v.query.raw, components.Count(len(v.filtered)))
	if v.filterBusy {
		f = fmt.Sprintf("filter %q: …", v.query.raw)
	}
	return statusSeg{text: v.c.Styles.StatusKey.Render(components.Escape(f))}
}

// unknownColumnSeg warns that the filter named a column there is not.
func (v *docPage) unknownColumnSeg() statusSeg {
	c := v.query.unknownCol
	if v.query.raw == "" || c == "" {
		return statusSeg{}
	}
	st := v.c.Styles
	return statusSeg{st.BarWarning.Render(components.Escape(fmt.Sprintf("no column %q: searched as text", c))),
		st.BarWarning.Render(components.Escape(fmt.Sprintf("no column %q", c))), 0}
}

// sortSeg is the column the entries are sorted by, and its direction.
func (v *docPage) sortSeg() statusSeg {
	if v.sortCol < 0 || v.sortCol >= len(v.kinds) {
		return statusSeg{}
	}
	dir := "↑"
	if v.sortDesc {
		dir = "↓"
	}
	name := v.kinds[v.sortCol].name() + dir
	busy := ""
	if v.sortRunning {
		busy = " …"
	}
	st := v.c.Styles
	return statusSeg{st.StatusKey.Render("sorted by " + name + busy), st.StatusKey.Render(name + busy), 2}
}

// httpSeg is the HTTP status of the response, and whether it came from the cache.
func (v *docPage) httpSeg() statusSeg {
	ex := v.doc.exchange
	if ex == nil || ex.Status == 0 {
		return statusSeg{}
	}
	st := v.c.Styles
	s := st.BarHTTPStatus(ex.Status).Render(fmt.Sprintf("HTTP %d", ex.Status))
	if ex.FromCache {
		s += st.StatusKey.Render(" cached")
	}
	return statusSeg{s, "", 5}
}

// checked reports whether the document's own checks have run: it is loaded
// and has a header.
func (v *docPage) checked() bool {
	return !v.doc.loading && v.doc.header != nil
}

// validitySeg is the verdict of the checks: valid, or how many errors and
// warnings, and whether the checks across documents still run.
func (v *docPage) validitySeg() statusSeg {
	if !v.checked() {
		return statusSeg{}
	}
	d := v.doc
	st := v.c.Styles
	errs, warns := d.problemCounts()
	switch {
	case errs == 0 && warns == 0 && d.crossChecking():
		return statusSeg{st.StatusValue.Render("checking across documents…"), st.StatusValue.Render("checking…"), 2}
	case errs == 0 && warns == 0 && d.err == nil && d.crossState != crossFailed:
		// Valid only when it loaded whole and every check ran.
		return statusSeg{st.BarOK.Render("✓ valid"), st.BarOK.Render("✓"), 2}
	case errs == 0 && warns == 0:
		return statusSeg{}
	}
	var full, short []string
	if errs > 0 {
		full = append(full, st.BarError.Render("✗ "+display.Plural(errs, "error", "errors")))
		short = append(short, st.BarError.Render("✗"+display.Count(errs)))
	}
	if warns > 0 {
		full = append(full, st.BarWarning.Render("! "+display.Plural(warns, "warning", "warnings")))
		short = append(short, st.BarWarning.Render("!"+display.Count(warns)))
	}
	if d.crossChecking() {
		full = append(full, st.StatusValue.Render("checking…"))
		short = append(short, st.StatusValue.Render("…"))
	}
	sp := st.StatusBar.Render(" ")
	return statusSeg{strings.Join(full, sp), strings.Join(short, sp), 2}
}

// crossFailedSeg says that the checks across documents could not run.
func (v *docPage) crossFailedSeg() statusSeg {
	if !v.checked() || v.doc.crossState != crossFailed {
		return statusSeg{}
	}
	st := v.c.Styles
	return statusSeg{st.BarWarning.Render("? cross-document checks failed"), st.BarWarning.Render("? cross"), 1}
}

// staleSeg says that the document changed since it was read.
func (v *docPage) staleSeg() statusSeg {
	if !v.doc.stale {
		return statusSeg{}
	}
	st := v.c.Styles
	return statusSeg{st.BarWarning.Render("⟳ stale: r reloads"), st.BarWarning.Render("⟳ stale"), 0}
}

// notificationsSeg is the state of the live notification channels.
func (v *docPage) notificationsSeg() statusSeg {
	full, short := v.notes.statusSegment(v.c.Styles)
	return statusSeg{full, short, 1}
}

// throttleSeg says that the politeness towards a host (its rate, its
// robots.txt Crawl-delay) holds the fetching back just now, so that a slow
// load is not taken for a slow network.
func (v *docPage) throttleSeg() statusSeg {
	if v.throttle == "" {
		return statusSeg{}
	}
	st := v.c.Styles
	return statusSeg{st.BarWarning.Render(v.throttle), st.BarWarning.Render(v.throttleShort), 1}
}

// progressSeg is how the loading goes: waiting, bytes read, or how it ended
// when it failed.
func (v *docPage) progressSeg(n int) statusSeg {
	d := v.doc
	st := v.c.Styles
	switch {
	case d.loading && d.wait.waiting():
		w := d.wait.text(v.c.Clock())
		return statusSeg{v.c.Spinner.View() + st.BarWarning.Render(" "+w+" · esc cancels"), v.c.Spinner.View() + st.BarWarning.Render(" "+w), 0}
	case d.loading:
		prog := v.c.Spinner.View() + st.StatusValue.Render(" loading "+display.Size(d.bytes))
		if d.total > 0 {
			prog += st.StatusValue.Render(progressOf(d.bytes, d.total))
		}
		return statusSeg{text: prog}
	case d.err != nil && n > 0:
		if full, short := sizeLimitNote(d.err); full != "" {
			return statusSeg{st.BarError.Render("incomplete: " + full), st.BarError.Render("incomplete: " + short), 0}
		}
		return statusSeg{st.BarError.Render("incomplete: " + components.Escape(d.err.Error())), st.BarError.Render("incomplete"), 0}
	case d.err != nil:
		if _, short := sizeLimitNote(d.err); short != "" {
			return statusSeg{text: st.BarError.Render("failed: " + short)}
		}
		return statusSeg{text: st.BarError.Render("failed")}
	}
	return statusSeg{}
}

// fitStatus joins the fields into a bar of the page's width: the short forms
// when the full ones do not fit, then without the fields that go first, and
// pads it to the width.
func (v *docPage) fitStatus(segs []statusSeg) string {
	badge := v.doc.capability() != ""
	line := v.joinStatus(segs, badge)
	if v.cells().Width(line) > v.width {
		for i := range segs {
			if segs[i].short != "" {
				segs[i].text = segs[i].short
			}
		}
		line = v.joinStatus(segs, badge)
	}
	for level := 5; level > 0 && v.cells().Width(line) > v.width; level-- {
		kept := segs[:0:0]
		for _, s := range segs {
			if s.drop < level {
				kept = append(kept, s)
			}
		}
		segs = kept
		line = v.joinStatus(segs, badge)
	}
	st := v.c.Styles
	line = v.cells().Fit(line, v.width)
	if pad := v.width - v.cells().Width(line); pad > 0 {
		line += st.StatusBar.Render(strings.Repeat(" ", pad))
	}
	return line
}

// joinStatus writes the fields with " · " between them; after the
// capability badge (badge), a space does.
func (v *docPage) joinStatus(segs []statusSeg, badge bool) string {
	st := v.c.Styles
	sep := st.StatusBar.Render(" · ")
	var b strings.Builder
	b.WriteString(st.StatusBar.Render(" "))
	for i, s := range segs {
		if i > 0 {
			if i == 1 && badge {
				b.WriteString(st.StatusBar.Render(" ")) // after the badge
			} else {
				b.WriteString(sep)
			}
		}
		b.WriteString(s.text)
	}
	return b.String()
}

// sameDayShort writes the second of two datetimes without its date when
// both fall on the same day ("2026-01-05T05:30:00Z" after one of
// 2026-01-05 gives "05:30:00Z").
func sameDayShort(first, second string) string {
	if len(first) > 11 && len(second) > 11 && first[:11] == second[:11] && first[10] == 'T' {
		return second[11:]
	}
	return second
}

// footer is the filter input while filtering, else the short help.
func (v *docPage) footer() string {
	st := v.c.Styles
	k := &v.c.Keys
	if v.filtering {
		hints := components.ShortHelp(st, []key.Binding{common.Short(k.Submit, "apply"), common.Short(k.Cancel, "clear")}, " · ", 0)
		if c := v.query.unknownCol; c != "" && v.query.raw == v.filterInput.Value() {
			// Said where the user looks while typing: the filter line.
			names := make([]string, len(v.kinds))
			for i, k := range v.kinds {
				names[i] = k.name()
			}
			warn := fmt.Sprintf("no column %q (columns: %s): searched as text", c, strings.Join(names, ", "))
			return v.cells().Fit(v.filterInput.View()+"  "+st.Warning.Render(components.Escape(warn)), v.width)
		}
		return v.cells().Fit(v.filterInput.View()+"  "+hints+st.Dim.Render(" · name:value for one column"), v.width)
	}
	return components.Footer(st, v.footerBindings(), 2, " · ", v.width)
}

// footerBindings are the footer's keys in the document's state, from the
// key map the help reads (keysNow): a key that would only say why not on
// this document (no entries, no up link, no XML) is left out.
func (v *docPage) footerBindings() []key.Binding {
	k := v.keysNow()
	d := v.doc
	bs := k.DocumentFooter(d.isIndex(), v.failed())
	if v.returnTo != "" {
		for i, b := range bs {
			if slices.Equal(b.Keys(), k.Back.Keys()) {
				bs[i] = common.Short(k.Back, "back to "+v.returnTo)
			}
		}
	}
	return bs
}

// keysNow is the key map in the state of the page (App.keysNow), the
// key map itself when the page is drawn on its own.
func (v *docPage) keysNow() common.KeyMap {
	if v.keys != nil {
		return v.keys()
	}
	return v.c.Keys
}

// failed tells that the document failed to load and shows the error in
// place of its entries.
func (v *docPage) failed() bool {
	return v.doc.err != nil && v.doc.entries.Len() == 0 && !v.doc.loading
}

// loadingView is shown while a document without entries yet streams in.
func (v *docPage) loadingView(w, h int) string {
	st := v.c.Styles
	d := v.doc
	progress := st.Value.Render(display.Size(d.bytes)+" read") + st.Dim.Render(progressOf(d.bytes, d.total))
	if d.parts != nil {
		progress = st.Value.Render(fmt.Sprintf("%s of %s parts read", display.Count(d.partsDone), display.Count(len(d.parts))))
	}
	if d.wait.waiting() {
		progress += "\n\n" + st.Warning.Render(d.wait.text(v.c.Clock()))
	}
	lines := []string{
		st.Title.Render("Loading ") + st.URL.Render(components.Escape(shortURL(d.url))),
		"",
		progress,
		"",
		st.Dim.Render(v.c.Keys.Cancel.Help().Key + " cancels"),
	}
	return v.cells().PlaceCenter(w, h, strings.Join(lines, "\n"))
}

func progressOf(done, total int64) string {
	if total <= 0 {
		return ""
	}
	return fmt.Sprintf(" of %s (%d%%)", display.Size(total), done*100/max(total, 1))
}

// errorView shows a failed load with what can be done about it.
func (v *docPage) errorView(w, h int) string {
	st := v.c.Styles
	inner := max(min(w-6, 100), 20)
	block := func(s string) string { // s wrapped and padded to the box's inner width
		lines := v.cells().Wrap(s, inner)
		for i, l := range lines {
			lines[i] = v.cells().PadRight(l, inner)
		}
		return strings.Join(lines, "\n")
	}
	why := components.Escape(v.doc.err.Error())
	// :example.org, typed as one types it in a browser, is no file: the
	// error says the URL meant (fetch.Open).
	msg := block(st.Error.Render(why))
	k := v.keysNow()
	hints := block(components.ShortHelp(st, k.LoadErrorHints(model.IsLocal(v.doc.url)), " · ", 0))
	text := st.ErrorTitle.Render("Could not load this document") + "\n\n" + msg + "\n\n" + hints
	return v.cells().PlaceCenter(w, h, st.ErrorBox.Render(text))
}

// detailView is the pane with every attribute and link of the selected
// entry (or of the document, when toggled).
func (v *docPage) detailView() string {
	st := v.c.Styles
	w, h := v.detailW, v.detailH
	if w < 4 || h < 3 {
		return ""
	}
	title := "Entry"
	if v.showDocInfo {
		title = "Document"
	} else if i := v.tbl.Selected(); i >= 0 {
		title = fmt.Sprintf("Entry %s of %s", components.Count(i+1), components.Count(v.doc.entries.Len()))
	}
	lines := v.detailLines(w - 4)
	bodyH := h - 3 // border (2) and title
	scroll := components.Clamp(v.detail.Offset(), 0, len(lines)-bodyH)
	end := min(scroll+bodyH, len(lines))
	more := ""
	if end < len(lines) {
		more = fmt.Sprintf("↓ %s more", display.Count(len(lines)-end))
	}
	return v.cells().Box(st, v.focus == focusDetail, title, more, lines[scroll:end], w, h)
}

// detailLines are the detail pane's lines, w cells wide at most.
func (v *docPage) detailLines(w int) []string {
	if v.showDocInfo {
		return v.docInfoLines(w)
	}
	i := v.tbl.Selected()
	if i < 0 {
		return nil
	}
	e, state, err := v.doc.wholeEntry(i)
	lines := entryLines(v.c.Styles, v.cells(), &e, v.doc.base(), w, v.partName(i))
	if note, style := v.partialNote(i, state, err); note != "" {
		// In words, whole: an error names a URL the user may need.
		lines = append(lines, "")
		lines = append(lines, valueLines(v.c.Styles, v.cells(), note, style, w)...)
	}
	if l := v.doc.local; l != nil {
		if s := l.state(i); s != 0 {
			lines = append(kvLines(v.c.Styles, v.cells(), "", "copy", 11, s.String()+" ("+l.dest+")", v.c.Styles.Value, w), lines...)
		}
	}
	lines = append(v.problemLines(i, w), lines...)
	if v.doc.picked.has(i) {
		lines = append([]string{v.c.Styles.Marked.Render(components.MarkedGlyph + " marked")}, lines...)
	}
	return lines
}

// partialNote says why the detail pane shows less than the whole entry i:
// its links are being read back from its document, or could not be.
func (v *docPage) partialNote(i int, state wholeState, err error) (string, lipgloss.Style) {
	st := v.c.Styles
	d := v.doc
	what := "the rest of the entry"
	if n := d.entries.LinkCount(i); n > 0 {
		what = "its " + display.Plural(n, "link", "links")
	}
	switch state {
	case entryReading:
		if d.loading {
			return what + " are read once the document has loaded", st.Dim
		}
		return "reading " + what + " from the document…", st.Dim
	case entryChanged:
		return "the document changed since it was loaded (" + what + " are not shown): r reloads", st.Warning
	case entryFailed:
		return "could not read " + what + ": " + components.Escape(err.Error()), st.Error
	}
	return "", lipgloss.Style{}
}

// maxDetailProblems bounds the problems of one entry the detail pane lists;
// the problems page has them all.
const maxDetailProblems = 3

// problemLines list entry i's problems at the top of the detail pane (rule,
// severity, section and the whole message), as the problems page has them,
// with the key that shows them there; nil when it has none.
func (v *docPage) problemLines(i, w int) []string {
	ps := v.doc.problemsOf(i)
	if len(ps) == 0 {
		return nil
	}
	st := v.c.Styles
	errs, warns := model.CountProblems(ps)
	var counts []string
	if errs > 0 {
		counts = append(counts, st.Error.Render(display.Plural(errs, "error", "errors")))
	}
	if warns > 0 {
		counts = append(counts, st.Warning.Render(display.Plural(warns, "warning", "warnings")))
	}
	if hints := len(ps) - errs - warns; hints > 0 {
		counts = append(counts, st.Dim.Render(display.Plural(hints, "hint", "hints")))
	}
	out := []string{v.cells().Fit(st.Title.Render("Problems")+" "+strings.Join(counts, st.Dim.Render(", "))+
		st.Dim.Render(" · "+v.c.Keys.EntryProblems.Help().Key+": on the problems page"), w)}
	for n := range ps {
		if n == maxDetailProblems {
			out = append(out, st.Dim.Render(fmt.Sprintf("… and %s more", display.Count(len(ps)-n))))
			break
		}
		p := &ps[n]
		_, mark := severityMark(st, p.Severity)
		where := p.Severity.String() + " · §" + p.Section
		if p.Line > 0 {
			where += fmt.Sprintf(" · line %d", p.Line)
		}
		out = append(out, v.cells().Fit(mark+" "+st.Rel.Render(components.Escape(p.Rule))+"  "+st.Dim.Render(components.Escape(where)), w))
		for _, l := range v.cells().Wrap(components.Escape(strings.Join(strings.Fields(withoutEntryPrefix(p)), " ")), max(w-2, 8)) {
			out = append(out, "  "+st.Value.Render(l))
		}
	}
	return append(out, "")
}

// partName names the part an entry of a combined view came from.
func (v *docPage) partName(i int) string {
	p := v.doc.partOf(i)
	if p >= 0 {
		return fmt.Sprintf("%d: %s", p+1, v.doc.parts[p])
	}
	return ""
}

// docInfoLines describe the document's own metadata, links and extras,
// then where it came from.
func (v *docPage) docInfoLines(w int) []string {
	st := v.c.Styles
	d := v.doc
	var out []string
	add := func(label, value string) {
		out = append(out, kvLines(st, v.cells(), "", label, 11, value, st.Value, w)...)
	}
	if len(d.crumbs) > 0 {
		// Where the document sits, found through its up and index links (the
		// breadcrumbs name the way back instead).
		path := make([]string, len(d.crumbs))
		for i, c := range d.crumbs {
			path[i] = crumbLabel(c)
		}
		add("path", strings.Join(path, crumbSep)+crumbSep+docLabel(d))
	}
	if h := d.header; h != nil {
		out = append(out, mdLines(st, v.cells(), &h.MD, w)...)
		out = append(out, linkLines(st, v.cells(), h.Links, d.base(), w)...)
		out = append(out, extraLines(st, h.Extra)...)
		for _, l := range h.Legacy {
			out = append(out, st.Warning.Render("legacy: "+components.Escape(l.What))+st.Dim.Render(fmt.Sprintf(" (line %d)", l.Line)))
		}
		out = append(out, "")
		add("root", h.RootLocal)
		for _, ns := range h.Namespaces {
			name := "xmlns"
			if ns.Prefix != "" {
				name += ":" + ns.Prefix
			}
			add(name, ns.URI)
		}
		add("encoding", h.XMLEncoding)
	}
	add("url", d.base())
	if d.final != "" && d.final != d.url {
		add("asked", d.url)
	}
	add("bytes", strconv.FormatInt(d.bytes, 10))
	if d.parts != nil {
		add("parts", strconv.Itoa(len(d.parts)))
		for _, e := range d.partErrs {
			out = append(out, st.Error.Render(components.Escape(e)))
		}
	}
	return out
}
