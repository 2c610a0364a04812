package pages

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"rsx/claims"
	"rsx/display"
	"rsx/dump"
	"rsx/model"
	"rsx/session"
	"rsx/ui/common"
	"rsx/ui/components"
	"rsx/ui/nav"
)

// The package page opens a Resource Dump or Change Dump package (a ZIP): it
// downloads it into a temporary file with progress, compares the bytes with
// what the dump entry declares (type, length, hashes), lists the manifest's
// entries, verifies every bitstream against the manifest, and compares the
// manifest with the copy the entry's contents link points at. Enter on an
// entry opens the resource page for its loc, x the manifest's XML; both are
// shown over the package page, and esc comes back to it. The temporary file
// lives exactly as long as the page (or a newer download replaces it).

// packagePhase is where a package page is.
type packagePhase uint8

const (
	pkgDownloading packagePhase = iota
	pkgFailed                   // download or open failed: err
	pkgRefused                  // downloaded, but it differs from its dump entry (mism): refused whole
	pkgCancelled                // download cancelled by esc
	pkgVerifying
	pkgVerified        // verification done: res
	pkgVerifyCancelled // verification cancelled by esc; the package stays open
)

// rowMark is the symbol and the mark a package row's verdict is drawn
// with; ok is false while the row is not judged.
func rowMark(k session.RowKind) (sym string, m CheckMark, ok bool) {
	switch k {
	case session.RowVerified:
		return "✓", MarkMatch, true
	case session.RowDeleted:
		return "–", MarkNone, true
	case session.RowMissing:
		return "?", MarkUnknown, true
	case session.RowUnlisted:
		return "+", MarkUnknown, true
	case session.RowMismatch, session.RowRefused:
		return "✗", MarkMismatch, true
	case session.RowUnverifiable:
		// Read, but its entry declares nothing to hold it to: not verified.
		return "~", MarkUnknown, true
	}
	return "·", MarkNone, false
}

// rowShort is a judged row's table cell: "✓ verified".
func rowShort(r session.PackageRow) string {
	sym, _, _ := rowMark(r.Kind)
	return sym + " " + r.Summary
}

// Package is the package page.
type Package struct {
	c         *common.Common
	backend   PackageBackend
	ref       dump.PackageRef
	fromEntry bool // ref came from a dump entry: its declarations are compared
	opts      dump.Options

	load  *session.PackageLoad // nil when packages cannot be downloaded
	phase packagePhase
	err   error

	done, total int64                // download progress
	wait        components.RetryWait // the download waits to try again
	complete    bool
	mism        []dump.Mismatch
	pkg         *dump.Package
	// manifestProblems: how manifest.xml departs from the specification
	// (what rsx dump reports as manifest_problems), beside the verification.
	manifestProblems []model.Problem

	run         *packageRun // verification in flight or done
	vdone, vtot int64
	res         *dump.Result

	contentsBusy  bool
	contentsErr   error
	contentsDiffs []string
	contentsDone  bool

	rows []session.PackageRow
	tbl  components.Table

	width, height int
	tableTop      int // line of the table's header in the last layout

	beside string // the local file the package was read from, "" when downloaded
}

// errNoBackend is the error of a package page whose backend cannot
// download packages (OpenPackage gave none), in rsx/ui's NopBackend's words.
var errNoBackend = errors.New("no backend: this build cannot fetch")

// PackageBackend downloads packages and checks the resources they hold
// (and their versions, from the resource page).
type PackageBackend interface {
	// OpenPackage prepares the download of the package ref describes; nil
	// when packages cannot be downloaded.
	OpenPackage(ref dump.PackageRef, opts dump.Options) *session.PackageLoad
	// FollowLink tells whether a link to target, found in the document
	// from, may be followed (the manifest copy's link is shown only then).
	FollowLink(from, target string) error
	ExchangeSource // for a wait before a retry of the download
	ResourceBackend
}

// NewPackage returns the page of the package ref describes; Init
// starts the download through b. fromEntry tells that ref carries a dump
// entry's declarations.
func NewPackage(c *common.Common, b PackageBackend, ref dump.PackageRef, fromEntry bool, opts dump.Options) *Package {
	v := &Package{c: c, backend: b, ref: ref, fromEntry: fromEntry, opts: opts, tbl: components.NewTable(c)}
	v.tbl.SetColumns(v.columns())
	return v
}

// Init starts the download.
func (v *Package) Init() tea.Cmd {
	cmd := v.startDownload()
	v.layout()
	return cmd
}

// startDownload downloads the package afresh, closing a previous download
// (and removing its file) first.
func (v *Package) startDownload() tea.Cmd {
	v.closeLoad()
	v.load = v.backend.OpenPackage(v.ref, v.opts)
	v.phase, v.err = pkgDownloading, nil
	v.done, v.total, v.complete, v.mism = 0, -1, false, nil
	v.res, v.vdone, v.vtot = nil, 0, 0
	v.contentsBusy, v.contentsErr, v.contentsDiffs, v.contentsDone = false, nil, nil, false
	v.rows = nil
	v.tbl.SetCount(0)
	if v.load == nil {
		v.phase, v.err = pkgFailed, errNoBackend
		return nil
	}
	return fetchPackageCmd(v.load)
}

// startVerify verifies the loaded package (again).
func (v *Package) startVerify() tea.Cmd {
	if v.pkg == nil || v.load == nil {
		return nil
	}
	if v.run != nil {
		v.run.cancel()
	}
	ctx, cancel := context.WithCancel(context.Background()) // the load's end ends it too
	v.run = &packageRun{ctx: ctx, cancel: cancel}
	v.phase, v.res, v.vdone, v.vtot = pkgVerifying, nil, 0, 0
	v.buildRows()
	return verifyPackageCmd(v.load, v.run)
}

// closeLoad cancels everything in flight and removes the temporary file.
func (v *Package) closeLoad() {
	if v.run != nil {
		v.run.cancel()
		v.run = nil
	}
	if v.load != nil {
		v.load.Close()
	}
	v.pkg = nil
}

// Close is called when the page is left: nothing of it may remain.
func (v *Package) Close() { v.closeLoad() }

// Busy reports whether a download, a verification or a fetch of the
// manifest copy is running (the spinner turns, esc cancels).
func (v *Package) Busy() bool {
	return v.phase == pkgDownloading || v.phase == pkgVerifying || v.contentsBusy
}

// SetSize sets the size the page draws in.
func (v *Package) SetSize(w, h int) {
	v.width, v.height = w, h
	v.layout()
}

// manifest is the package's manifest, nil before it is read.
func (v *Package) manifest() *model.Document {
	if v.pkg == nil {
		return nil
	}
	return v.pkg.Manifest
}

func (v *Package) changeDump() bool {
	m := v.manifest()
	return m != nil && m.MD.Capability == model.CapChangeDumpManifest
}

// columns are the table's columns; cells read v's rows on demand.
func (v *Package) columns() []components.Column {
	st := func() *common.Styles { return v.c.Styles } // read at draw time: the theme may change
	markPaint := func(i int) common.Paint {
		if i >= len(v.rows) {
			return common.Paint{}
		}
		_, mark, _ := rowMark(v.rows[i].Kind)
		switch {
		case v.rows[i].Kind.Bad():
			return st().Paint.MarkBad
		case mark == MarkMatch:
			return st().Paint.MarkOK
		case mark == MarkUnknown:
			return st().Paint.MarkUnknown
		}
		return st().Paint.Dim
	}
	cols := []components.Column{
		{Title: " ", Min: 1, Max: 1, Value: func(i int) string {
			if i < len(v.rows) {
				sym, _, _ := rowMark(v.rows[i].Kind)
				return sym
			}
			return "·"
		}, Paint: markPaint},
		{Title: "path", Min: 12, Max: 48, Flex: 2, Value: func(i int) string {
			if e := v.entryAt(i); e != nil {
				if !e.MD.HasPath {
					return "(no path)"
				}
				return e.MD.Path
			}
			if i < len(v.rows) && v.rows[i].Member != "" {
				return v.rows[i].Member
			}
			return "(package)"
		}},
		{Title: "loc", Min: 14, Flex: 3, Trunc: components.TruncMiddle, Value: func(i int) string {
			if e := v.entryAt(i); e != nil {
				return components.DisplayLoc(components.OriginOf(v.ref.URL), v.entryURL(e))
			}
			if i < len(v.rows) && v.rows[i].Member != "" {
				return "not in the manifest"
			}
			return ""
		}, Paint: func(i int) common.Paint {
			if v.entryAt(i) == nil {
				return st().Paint.Dim
			}
			return st().Paint.URL
		}},
	}
	if v.changeDump() {
		cols = append(cols, components.Column{Title: "change", Min: 7, Max: 8, Value: func(i int) string {
			if e := v.entryAt(i); e != nil {
				return string(e.MD.Change)
			}
			return ""
		}, Paint: func(i int) common.Paint {
			if e := v.entryAt(i); e != nil {
				return st().ChangePaint(string(e.MD.Change))
			}
			return common.Paint{}
		}})
	}
	cols = append(cols,
		components.Column{Title: "length", Min: 7, Max: 12, Right: true, Value: func(i int) string {
			if e := v.entryAt(i); e != nil {
				return e.MD.LengthRaw
			}
			return ""
		}},
		components.Column{Title: "hash", Min: 10, Max: 40, Flex: 1, Value: func(i int) string {
			if e := v.entryAt(i); e != nil {
				if len(e.MD.Hash) > 0 {
					return e.MD.Hash.String()
				}
				return e.MD.HashRaw
			}
			return ""
		}},
		components.Column{Title: "verification", Min: 14, Flex: 3, Value: func(i int) string {
			if i >= len(v.rows) {
				return ""
			}
			if r := v.rows[i]; r.Kind != session.RowPending {
				return rowShort(r)
			}
			if v.phase == pkgVerifying {
				return "verifying…"
			}
			return ""
		}, Paint: markPaint},
	)
	return cols
}

// buildRows lays out the rows: one per manifest entry, then the members the
// manifest does not list and the refusals about the whole package, with
// the verdicts of the verification when there is one.
func (v *Package) buildRows() {
	v.rows = session.PackageRows(v.manifest(), v.res)
	if v.rows == nil {
		v.tbl.SetCount(0)
		return
	}
	v.tbl.SetColumns(v.columns())
	v.tbl.SetCount(len(v.rows))
}

// InputActive is false: the page has no text input.
func (v *Package) InputActive() bool { return false }

// Title names the page.
func (v *Package) Title() string { return "Package" }

// KeyBindings are the page's own bindings.
func (v *Package) KeyBindings() []key.Binding {
	k := &v.c.Keys
	copyKey := common.Short(k.Manifest, "manifest copy")
	copyKey.SetEnabled(v.ref.Contents != "")
	return []key.Binding{common.Short(k.Open, "resource"), common.Short(k.Raw, "manifest XML"), copyKey, common.Short(k.Retry, "retry"), k.Copy}
}

// HelpBindings are the page's keys that work just now (nav.KeyHelper).
func (v *Package) HelpBindings() []key.Binding {
	k := &v.c.Keys
	return append(k.MoveKeys(v.tbl.Len() > 1), common.When(v.selectedEntry() != nil, common.Short(k.Open, "resource")),
		common.When(v.pkg != nil, common.Short(k.Raw, "manifest XML")), common.When(v.ref.Contents != "", common.Short(k.Manifest, "manifest copy")),
		common.Short(k.Retry, "retry"), k.Copy)
}

// Back cancels the download or the verification that runs; it reports
// false when there is nothing left to cancel and the page may be left.
func (v *Package) Back() (bool, tea.Cmd) {
	switch v.phase {
	case pkgDownloading:
		v.closeLoad()
		v.phase, v.err = pkgCancelled, nil
		v.layout()
		return true, nil
	case pkgVerifying:
		if v.run != nil {
			v.run.cancel()
		}
		v.phase = pkgVerifyCancelled
		v.layout()
		return true, nil
	}
	return false, nil
}

// Update handles the page's results and keys, then lays the page out for
// what changed (the header grows as results arrive), so View only draws.
func (v *Package) Update(msg tea.Msg) (nav.Page, tea.Cmd) {
	cmd := v.update(msg)
	v.layout()
	return v, cmd
}

func (v *Package) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case spinner.TickMsg:
		v.wait = components.RetryWait{}
		if v.phase == pkgDownloading {
			v.wait = components.WaitOf(v.backend.Exchanges(), func(u string) bool { return u == v.ref.URL })
		}
	case packageProgressMsg:
		if msg.load != v.load || msg.run != v.run {
			return nil
		}
		if msg.run == nil {
			if v.phase == pkgDownloading {
				v.done, v.total = msg.done, msg.total
			}
		} else if v.phase == pkgVerifying {
			v.vdone, v.vtot = msg.done, msg.total
		}
		return msg.next
	case packageFetchedMsg:
		if msg.load != v.load {
			return nil
		}
		return v.fetched(msg)
	case packageVerifiedMsg:
		if msg.load != v.load || msg.run != v.run || v.phase != pkgVerifying {
			return nil
		}
		if msg.err != nil {
			v.phase = pkgVerifyCancelled
			return nil
		}
		v.res, v.phase = msg.res, pkgVerified
		v.buildRows()
		return nil
	case packageContentsMsg:
		if msg.load != v.load {
			return nil
		}
		v.contentsBusy, v.contentsDone = false, true
		v.contentsErr, v.contentsDiffs = msg.err, msg.diffs
		return nil
	case tea.KeyPressMsg:
		return v.key(msg)
	case tea.MouseWheelMsg:
		v.tbl.Update(msg, &v.c.Keys)
	case tea.MouseClickMsg:
		if pos := v.tbl.PosAt(msg.Y - v.tableTop); pos >= 0 {
			if pos == v.tbl.Cursor() {
				return v.openSelected()
			}
			v.tbl.MoveTo(pos)
		}
	}
	return nil
}

// fetched takes the end of a download.
func (v *Package) fetched(msg packageFetchedMsg) tea.Cmd {
	v.mism, v.complete, v.beside = msg.Mismatches, msg.Complete, msg.Beside
	if msg.Bytes > 0 {
		v.done = msg.Bytes
	}
	if msg.Err != nil {
		switch {
		case errors.Is(msg.Err, context.Canceled):
			v.phase = pkgCancelled
		case errors.Is(msg.Err, dump.ErrEntryMismatch):
			// Not the package the Source published: nothing of it is
			// opened, verified or used (its file is gone already).
			v.phase, v.err = pkgRefused, msg.Err
		default:
			v.phase, v.err = pkgFailed, msg.Err
		}
		v.layout()
		return nil
	}
	v.pkg = msg.Package
	v.manifestProblems = nil
	if v.pkg != nil && v.pkg.Manifest != nil {
		v.manifestProblems = model.CheckDocument(v.pkg.Manifest)
	}
	v.tbl.SetColumns(v.columns())
	cmds := []tea.Cmd{v.startVerify()}
	if u := v.ref.Contents; u != "" {
		if err := v.backend.FollowLink(v.from(), u); err == nil {
			v.contentsBusy = true
			cmds = append(cmds, contentsCmd(v.load, u))
		} else {
			v.contentsDone, v.contentsErr = true, fmt.Errorf("not fetched: %w", err)
		}
	}
	v.layout()
	return tea.Batch(cmds...)
}

// key handles a key press.
func (v *Package) key(msg tea.KeyPressMsg) tea.Cmd {
	k := &v.c.Keys
	switch {
	case key.Matches(msg, k.Open):
		return v.openSelected()
	case key.Matches(msg, k.Raw):
		if v.pkg == nil {
			return nav.Cmd(nav.FlashMsg{Text: "the manifest is shown once the package has downloaded", Err: true})
		}
		title := components.Escape(dump.ManifestName + " · " + components.ShortURL(v.ref.URL))
		return nav.Push(NewRawReader(v.c, title, v.load.Manifest(), -1))
	case key.Matches(msg, k.Manifest):
		if v.ref.Contents == "" {
			return nav.Cmd(nav.FlashMsg{Text: "this package has no contents link (manifest copy)", Err: true})
		}
		return nav.Cmd(nav.OpenURLMsg{URL: v.ref.Contents, From: v.from()})
	case key.Matches(msg, k.Retry):
		if v.pkg != nil {
			return v.startVerify()
		}
		return v.startDownload()
	case key.Matches(msg, k.Copy):
		u := v.ref.URL
		if e := v.selectedEntry(); e != nil {
			u = v.entryURL(e)
		}
		return nav.Cmd(nav.CopyMsg{Text: u, What: "URL"})
	}
	v.tbl.Update(msg, k)
	return nil
}

// selectedEntry is the manifest entry under the cursor, nil when none.
func (v *Package) selectedEntry() *model.Entry { return v.entryAt(v.tbl.Selected()) }

// entryAt is the manifest entry of row i, nil when the row has none.
func (v *Package) entryAt(i int) *model.Entry {
	m := v.manifest()
	if i < 0 || i >= len(v.rows) || m == nil {
		return nil
	}
	if r := v.rows[i]; r.Entry >= 0 && r.Entry < len(m.Entries) {
		return &m.Entries[r.Entry]
	}
	return nil
}

// from is the document the package's links were found in: the dump, or
// the package itself when it was opened on its own.
func (v *Package) from() string {
	if v.ref.Dump != "" {
		return v.ref.Dump
	}
	return v.ref.URL
}

// entryURL is an entry's loc resolved against the dump (or the package).
func (v *Package) entryURL(e *model.Entry) string {
	return model.ResolveHref(v.from(), e.Loc)
}

// openSelected shows the resource page of the selected entry over this page.
func (v *Package) openSelected() tea.Cmd {
	e := v.selectedEntry()
	if e == nil {
		return nil
	}
	entry := *e
	entry.Loc = v.entryURL(e)
	return nav.Push(NewResource(v.c, v.backend, v.from(), entry))
}

// ---------------------------------------------------------------------------
// Rendering

// headerLines are the lines above the table.
func (v *Package) headerLines(st *common.Styles, w int) []string {
	var out []string
	add := func(s string) { out = append(out, s) }
	label := func(s string) string { return st.Section.Render(fmt.Sprintf("%-9s", s)) + " " }

	head := st.Title.Render("Package") + "  " + st.URL.Render(components.Escape(v.ref.URL))
	if v.pkg != nil {
		head += st.Dim.Render("  " + display.Size(v.pkg.Size))
	}
	add(head)
	if v.fromEntry {
		add(label("Declared") + v.declaredLine(st))
	}
	if v.beside != "" {
		add(label("Read") + st.Flash.Render("from the file beside the dump: ") + st.URL.Render(components.Escape(v.beside)) + st.Dim.Render(" (not downloaded)"))
	}
	switch v.phase {
	case pkgDownloading:
		if v.wait.Waiting() {
			add(label("Download") + st.Warning.Render(v.wait.Text(v.c.Clock())) + st.Dim.Render("  esc cancels"))
			return out
		}
		add(label("Download") + components.ProgressBar(st, v.done, v.total, min(w-10, 100)) + st.Dim.Render("  esc cancels"))
		return out
	case pkgCancelled:
		add(label("Download") + st.Warning.Render("cancelled after "+display.Size(v.done)) + st.Dim.Render(" · r downloads again · esc back"))
		return out
	case pkgRefused:
		out = append(out, v.refusedLines(st, w, label)...)
		add(label("") + st.Dim.Render("r downloads again · esc back"))
		return out
	case pkgFailed:
		for i, l := range cellsOf(v.c).Wrap(components.Escape(v.err.Error()), max(w-12, 20)) {
			if i == 3 {
				break
			}
			lab := ""
			if i == 0 {
				lab = "Error"
			}
			add(label(lab) + st.Error.Render(l))
		}
		add(label("") + st.Dim.Render("r downloads again · esc back"))
		return out
	}
	m := v.manifest()
	add(label("Manifest") + st.Value.Render(v.manifestSummary(m)))
	out = append(out, v.manifestProblemLines(st, label)...)
	out = append(out, v.contentsLines(st, w, label)...)
	add(label("Verify") + v.verifyLine(st, w))
	add("")
	return out
}

// refusedLines say that the package was refused whole, and each way it
// differs from its dump entry, declared and received values whole.
func (v *Package) refusedLines(st *common.Styles, w int, label func(string) string) []string {
	out := []string{label("Refused") + st.MarkBad.Render("✗ the package differs from its dump entry,") +
		st.Dim.Render(" so nothing of it is used")}
	if len(v.mism) == 0 { // the error says what differs
		for _, l := range cellsOf(v.c).Wrap(components.Escape(v.err.Error()), max(w-12, 20)) {
			out = append(out, label("")+st.Error.Render(l))
		}
		return out
	}
	fieldW := 6
	for _, m := range v.mism {
		fieldW = max(fieldW, cellsOf(v.c).Width(components.Escape(m.What)))
	}
	room := max(w-10-fieldW-11, 16)
	for _, m := range v.mism {
		field := cellsOf(v.c).PadRight(components.Escape(m.What), fieldW)
		for i, l := range cellsOf(v.c).HardWrap(components.Escape(m.Expected), room) {
			lead := strings.Repeat(" ", fieldW+11)
			if i == 0 {
				lead = field + st.Dim.Render("  declared ")
			}
			out = append(out, label("")+st.Label.Render(lead)+st.Value.Render(l))
		}
		for i, l := range cellsOf(v.c).HardWrap(components.Escape(m.Actual), room) {
			lead := strings.Repeat(" ", fieldW+11)
			if i == 0 {
				lead = strings.Repeat(" ", fieldW) + st.Dim.Render("  received ")
			}
			out = append(out, label("")+lead+st.MarkBad.Render(l))
		}
	}
	return out
}

// declaredLine compares the downloaded package with the dump entry: its
// type, length and each hash, marked once the download is complete.
func (v *Package) declaredLine(st *common.Styles) string {
	known := v.complete
	mark := func(m CheckMark) string {
		if !known {
			return ""
		}
		return " " + m.Render(st)
	}
	var parts []string
	for _, c := range session.PackageClaims(v.ref.MD, session.PackageFetched{Package: v.pkg, Mismatches: v.mism, Complete: v.complete}) {
		m := CheckMarkOf(c.Verdict)
		got := ""
		if c.Verdict == claims.Mismatch && c.Actual != "" && known {
			got = c.Actual
		}
		switch c.Field {
		case "type":
			parts = append(parts, "type "+components.Escape(c.Declared)+mark(m))
		case "length":
			s := "length " + components.Escape(c.Declared) + mark(m)
			if got != "" {
				s += st.MarkBad.Render(" got " + components.Escape(got))
			}
			parts = append(parts, s)
		default:
			// The digest's head tells it apart; the marks matter more than
			// the rest of it on a narrow terminal.
			s := components.Escape(c.Field+":"+cellsOf(v.c).Fit(c.Declared, 13)) + mark(m)
			if got != "" {
				s += st.MarkBad.Render(" got " + cellsOf(v.c).Fit(components.Escape(got), 13))
			}
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 {
		return st.Dim.Render("nothing (no type, length or hash)")
	}
	return st.Value.Render(strings.Join(parts, " · "))
}

// manifestProblemLines say how manifest.xml departs from the specification,
// as rsx dump does: the counts, then one line per rule (its count and first
// message), as many rules as the height leaves room for.
func (v *Package) manifestProblemLines(st *common.Styles, label func(string) string) []string {
	errs, warns := model.CountProblems(v.manifestProblems)
	if errs+warns == 0 {
		return nil
	}
	mark := st.Warning.Render("!")
	if errs > 0 {
		mark = st.MarkBad.Render("✗")
	}
	out := []string{label("Problems") + mark + " " + st.Value.Render("manifest.xml does not conform: "+
		display.Plural(errs, "error", "errors")+", "+display.Plural(warns, "warning", "warnings")) +
		st.Dim.Render(" (beside the verification)")}
	order := model.ProblemsByRule(v.manifestProblems)
	shown := 1
	if v.height >= 30 {
		shown = 3
	}
	for i, rule := range order {
		if i == shown {
			out = append(out, label("")+st.Dim.Render(fmt.Sprintf("  and %s", display.Plural(len(order)-shown, "more rule", "more rules"))))
			break
		}
		p := rule.First
		m := st.Warning.Render("!")
		if p.Severity == model.SeverityError {
			m = st.MarkBad.Render("✗")
		}
		times := ""
		if rule.Count > 1 {
			times = fmt.Sprintf(" ×%s, the first", display.Count(rule.Count))
		}
		out = append(out, label("")+"  "+m+" "+st.Label.Render(components.Escape(p.Rule)+times+": ")+st.Value.Render(components.Escape(p.Message)))
	}
	return out
}

// manifestSummary is the manifest's capability, times and size.
func (v *Package) manifestSummary(m *model.Document) string {
	if m == nil {
		return ""
	}
	parts := []string{components.Escape(model.DocumentTitle(m.MD.Capability, m.Root))}
	for _, t := range []struct {
		name string
		d    model.Datetime
	}{{"at", m.MD.At}, {"completed", m.MD.Completed}, {"from", m.MD.From}, {"until", m.MD.Until}} {
		if t.d.Present() {
			parts = append(parts, t.name+" "+components.Escape(t.d.Format()))
		}
	}
	parts = append(parts, display.Plural(len(m.Entries), "entry", "entries"), display.Plural(len(v.pkg.Members), "member", "members"))
	return strings.Join(parts, " · ")
}

// contentsLines say how the manifest copy compares with the manifest in
// the package.
func (v *Package) contentsLines(st *common.Styles, w int, label func(string) string) []string {
	lab := label("Contents")
	u := v.ref.Contents
	switch {
	case u == "":
		if v.fromEntry {
			return []string{lab + st.Dim.Render("no contents link (manifest copy) on the dump entry")}
		}
		return nil
	case v.contentsBusy:
		return []string{lab + st.Dim.Render("fetching the manifest copy ") + st.URL.Render(components.Escape(u))}
	case v.contentsErr != nil:
		return []string{lab + st.Warning.Render("? "+components.Escape(v.contentsErr.Error()))}
	case !v.contentsDone:
		return nil
	case len(v.contentsDiffs) == 0:
		return []string{lab + st.MarkOK.Render("✓ contents copy matches") + st.Dim.Render(" the manifest in the package · ") + st.URL.Render(components.Escape(u))}
	}
	n := len(v.contentsDiffs)
	out := []string{lab + st.MarkBad.Render(fmt.Sprintf("✗ contents copy differs (%s)", display.Plural(n, "difference", "differences"))) + st.Dim.Render(" · ") + st.URL.Render(components.Escape(u))}
	show := 1
	if v.height >= 30 {
		show = 3
	}
	for i, d := range v.contentsDiffs {
		if i == show {
			out = append(out, label("")+st.Dim.Render(fmt.Sprintf("… %s more · M opens the copy", display.Count(n-show))))
			break
		}
		out = append(out, label("")+st.Value.Render(cellsOf(v.c).Fit(components.Escape(d), max(w-10, 10))))
	}
	return out
}

// verifyLine is the verification's progress or its tally.
func (v *Package) verifyLine(st *common.Styles, w int) string {
	switch v.phase {
	case pkgVerifying:
		return components.ProgressBar(st, v.vdone, v.vtot, min(w-10, 100)) + st.Dim.Render("  esc cancels")
	case pkgVerifyCancelled:
		return st.Warning.Render("cancelled") + st.Dim.Render(" · r verifies again")
	case pkgVerified:
	default:
		return ""
	}
	r := v.res
	var parts []string
	if r.OK() && len(r.Unverifiable) == 0 {
		parts = append(parts, st.MarkOK.Render("✓ every bitstream matches the manifest"))
	}
	parts = append(parts, st.MarkOK.Render("✓ "+display.Count(r.Verified)+" verified"))
	if n := len(r.Unverifiable); n > 0 {
		parts = append(parts, st.MarkUnknown.Render("~ "+display.Count(n)+" unverifiable"))
	}
	if n := session.MismatchedBitstreams(r); n > 0 {
		parts = append(parts, st.MarkBad.Render("✗ "+display.Count(n)+" mismatched"))
	}
	if n := len(r.Missing); n > 0 {
		parts = append(parts, st.MarkUnknown.Render("? "+display.Count(n)+" missing"))
	}
	if n := len(r.Deleted); n > 0 {
		parts = append(parts, st.Dim.Render("– "+display.Count(n)+" deleted"))
	}
	if n := len(r.Unlisted); n > 0 {
		parts = append(parts, st.MarkUnknown.Render("+ "+display.Count(n)+" unlisted"))
	}
	if n := len(r.Refused); n > 0 {
		parts = append(parts, st.MarkBad.Render("✗ "+display.Count(n)+" refused"))
	}
	return strings.Join(parts, st.Dim.Render(" · ")) + st.Dim.Render(" · "+display.Size(r.Bytes)+" read")
}

// detailLines describe the selected row in full.
func (v *Package) detailLines(st *common.Styles, w int) []string {
	i := v.tbl.Selected()
	if i < 0 || i >= len(v.rows) {
		return nil
	}
	r := v.rows[i]
	lab := func(s string) string { return st.Label.Render(fmt.Sprintf("%-8s", s)) + " " }
	var out []string
	if _, mark, judged := rowMark(r.Kind); judged {
		s := st.Value
		switch {
		case r.Kind.Bad():
			s = st.MarkBad
		case mark == MarkMatch:
			s = st.MarkOK
		case mark == MarkUnknown:
			s = st.MarkUnknown
		}
		for j, l := range cellsOf(v.c).Wrap(components.Escape(r.Detail), max(w-10, 20)) {
			if j == 2 {
				break
			}
			name := ""
			if j == 0 {
				name = "result"
			}
			out = append(out, lab(name)+s.Render(l))
		}
	}
	if e := v.selectedEntry(); e != nil {
		out = append(out, lab("loc")+st.URL.Render(components.Escape(v.entryURL(e))))
		var parts []string
		if e.MD.HasPath {
			parts = append(parts, "path "+components.Escape(e.MD.Path))
		}
		if e.MD.Change != "" {
			parts = append(parts, "change "+components.Escape(string(e.MD.Change)))
		}
		if e.MD.Datetime.Present() {
			parts = append(parts, "datetime "+components.Escape(e.MD.Datetime.Format()))
		}
		if e.Lastmod.Present() {
			parts = append(parts, "lastmod "+components.Escape(e.Lastmod.Format()))
		}
		if e.MD.Type != "" {
			parts = append(parts, "type "+components.Escape(e.MD.Type))
		}
		if e.MD.LengthRaw != "" {
			parts = append(parts, "length "+components.Escape(e.MD.LengthRaw))
		}
		out = append(out, lab("declared")+st.Value.Render(strings.Join(parts, " · ")))
		if e.MD.HashRaw != "" {
			out = append(out, lab("hash")+st.Value.Render(components.Escape(e.MD.HashRaw)))
		}
	} else if r.Member != "" {
		out = append(out, lab("member")+st.Value.Render(components.Escape(r.Member)))
	}
	return out
}

// detailHeight is the lines kept under the table for the selected row.
func (v *Package) detailHeight() int {
	if v.height >= 30 {
		return 5
	}
	return 3
}

// layout sizes the table to the room the header leaves.
func (v *Package) layout() {
	st := v.c.Styles
	w := max(v.width, 1)
	top := len(v.headerLines(st, w))
	v.tableTop = top
	v.tbl.SetSize(w, max(v.height-top-v.detailHeight()-1, 2))
}

// View draws the header, the table of entries and the selected row's detail.
func (v *Package) View() string {
	st := v.c.Styles
	w := max(v.width, 1)
	lines := v.headerLines(st, w)
	if v.pkg != nil {
		lines = append(lines, strings.Split(v.tbl.View(), "\n")...)
		lines = append(lines, "")
		detail := v.detailLines(st, w)
		if len(detail) > v.detailHeight() {
			detail = detail[:v.detailHeight()]
		}
		lines = append(lines, detail...)
	}
	h := max(v.height, 1)
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		lines[i] = cellsOf(v.c).Fit(l, w)
	}
	return strings.Join(lines, "\n")
}
