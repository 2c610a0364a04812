package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"

	tea "charm.land/bubbletea/v2"

	"rsx/dest/engine"
	"rsx/display"
	"rsx/model"
	"rsx/session"
	"rsx/ui/components"
	"rsx/ui/pages"
)

// The openers of the pages of rsx/ui/pages: what each reads of the document
// shown, which those pages never see.

// openHTTPPage opens the HTTP exchanges, with the document's own request
// selected.
func openHTTPPage(pc pageContext) (Page, tea.Cmd, error) {
	if err := httpReady(pc); err != nil {
		return nil, nil, err
	}
	d := pc.doc
	ex := pc.backend.Exchanges()
	if len(ex) == 0 && d.exchange != nil {
		ex = append(ex, d.exchange)
	}
	p := pages.NewHTTP(pc.c, ex)
	p.SetSource(pc.backend)
	if d.exchange != nil {
		// Select this document's request rather than the newest one.
		for i := len(ex) - 1; i >= 0; i-- {
			if ex[i] != nil && ex[i].URL == d.exchange.URL && ex[i].Started.Equal(d.exchange.Started) {
				p.Select(i)
				break
			}
		}
	}
	return p, nil, nil
}

// httpReady says why the HTTP page cannot open, nil when it can.
func httpReady(pc pageContext) error {
	d := pc.doc
	if d == nil {
		return errors.New("nothing is open")
	}
	if d.exchange == nil && len(pc.backend.Exchanges()) == 0 {
		return errors.New("no HTTP exchange yet (a local file has none)")
	}
	return nil
}

// openDiscovery runs discovery from the document's URL; the page opens
// when it is done (discoveryMsg).
func openDiscovery(pc pageContext) (Page, tea.Cmd, error) {
	if err := discoveryReady(pc); err != nil {
		return nil, nil, err
	}
	return nil, msgCmd(discoverMsg{URL: pc.doc.url}), nil
}

// discoveryReady says why discovery cannot run from the document, nil
// when it can.
func discoveryReady(pc pageContext) error {
	if pc.doc == nil {
		return errors.New("nothing is open")
	}
	if model.IsLocal(pc.doc.url) {
		return errors.New("discovery needs an http(s) URL")
	}
	return nil
}

// openCoveragePage opens the coverage of the change history around the
// document shown.
func openCoveragePage(pc pageContext) (Page, tea.Cmd, error) {
	if err := coverageReady(pc); err != nil {
		return nil, nil, err
	}
	d := pc.doc
	return pages.NewCoverage(pc.c, pc.backend, d.url, d.base()), nil, nil
}

// coverageReady says why the document has no coverage page, nil when it
// has one.
func coverageReady(pc pageContext) error {
	d := pc.doc
	if d == nil || d.header == nil {
		return errors.New("nothing is open")
	}
	if c := d.capability(); !(c.IsChange() && !c.IsManifest()) && !(c.IsArchive() && c.Archived().IsChange()) {
		//lint:ignore ST1005 the message starts with the key the user pressed, C, which is a capital.
		return fmt.Errorf("C is for Change Lists, Change Dumps and archives; this is a %s", d.title())
	}
	return nil
}

// openRaw is openRawPage for pageOpeners.
func openRaw(pc pageContext) (Page, tea.Cmd, error) {
	p, cmd, err := openRawPage(pc)
	if err != nil {
		return nil, nil, err
	}
	return p, cmd, nil
}

// openRawPage opens the raw XML of the document shown, or says why there
// is none. A document too large to have been kept is read again, in the
// command returned, through a pipe the page reads from.
func openRawPage(pc pageContext) (*pages.Raw, tea.Cmd, error) {
	if err := rawReady(pc); err != nil {
		return nil, nil, err
	}
	d := pc.doc
	title := components.Escape(d.title() + " · " + shortURL(d.base()))
	if d.raw == nil {
		pr, pw := io.Pipe()
		b, u := pc.backend, d.base()
		read := func() tea.Msg {
			rc, _, err := b.OpenRaw(context.Background(), u)
			if err != nil {
				pw.CloseWithError(err)
				return nil
			}
			defer rc.Close()
			_, err = io.Copy(pw, rc) // stops when the page closes its end
			pw.CloseWithError(err)
			return nil
		}
		return pages.NewRawReader(pc.c, title, pr, d.bytes), read, nil
	}
	p := pages.NewRaw(pc.c, title, d.raw)
	var se *model.SyntaxError
	if errors.As(d.err, &se) && se.Line > 0 {
		p.GotoLine(se.Line) // show where the document breaks
	}
	return p, nil, nil
}

// rawReady says why the document has no raw XML to show, nil when it has.
func rawReady(pc pageContext) error {
	d := pc.doc
	switch {
	case d == nil:
		return errors.New("nothing is open")
	case d.loading:
		return errors.New("the raw XML is shown once the document has loaded")
	case d.raw == nil && d.parts != nil:
		return errors.New("a combined view has no XML of its own: open a part")
	case d.raw == nil && d.bytes == 0:
		return errors.New("no XML was received for this document")
	}
	return nil
}

// openVersionsPage opens the versions of the selected entry's resource.
func openVersionsPage(pc pageContext) (Page, tea.Cmd, error) {
	refs, err := versionRefs(pc)
	if err != nil {
		return nil, nil, err
	}
	return pages.NewVersions(pc.c, pc.backend, pc.doc.base(), refs), nil, nil
}

// versionRefs are the links to the selected entry's versions, or why it
// has none.
func versionRefs(pc pageContext) (pages.VersionRefs, error) {
	d := pc.doc
	if d == nil || pc.selected < 0 || pc.selected >= d.entries.Len() {
		return pages.VersionRefs{}, errors.New("select an entry to see its versions")
	}
	e, _, _ := d.wholeEntry(pc.selected)
	e.Loc = model.ResolveHref(d.base(), e.Loc)
	refs, ok := pages.VersionRefsOf(e)
	if !ok {
		return pages.VersionRefs{}, errors.New("this entry links to no versions (memento, timegate or timemap)")
	}
	return refs, nil
}

// versionsReady is versionRefs for the help.
func versionsReady(pc pageContext) error {
	_, err := versionRefs(pc)
	return err
}

// spotSample is how many entries a spot check of the shown entries draws
// when nothing is marked; marked entries are all checked, up to spotMax.
const (
	spotSample = 100
	spotMax    = 1000
)

// openSpotPage spot-checks the marked (or shown) entries' claims.
func openSpotPage(pc pageContext) (Page, tea.Cmd, error) {
	if err := spotReady(pc); err != nil {
		return nil, nil, err
	}
	d, v := pc.doc, pc.view
	rows, marked, all, err := v.chosenRows()
	if err != nil {
		return nil, nil, err
	}
	n := d.entries.Len()
	if all {
		rows = make([]int32, n)
		for i := range rows {
			rows[i] = int32(i)
		}
	}
	if len(rows) == 0 {
		return nil, nil, errors.New("no entry is shown: clear the filter (esc) or mark some (space)")
	}
	limit, what := spotMax, ""
	if marked {
		what = "the " + components.Count(len(rows)) + " marked"
	} else {
		limit = spotSample
		what = "the " + display.Plural(len(rows), "entry", "entries") + " shown"
	}
	if len(rows) > limit {
		// A uniform sample, drawn here so that only it is copied.
		rows = append([]int32(nil), rows...)
		r := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
		for i := 0; i < limit; i++ {
			j := i + r.IntN(len(rows)-i)
			rows[i], rows[j] = rows[j], rows[i]
		}
		rows = rows[:limit]
		what = fmt.Sprintf("a sample of %s of %s", components.Count(limit), what)
	}
	// The entries whole (their mirrors are checked too): read back from
	// their documents, then the page opens.
	from := d.base()
	return nil, wholeEntriesCmd(pc.backend, d, rows, func(entries []model.Entry, _ error) func() Page {
		for k := range entries {
			entries[k].Loc = engine.ResolveLoc(from, entries[k].Loc)
		}
		o := resourceOpener{c: pc.c, b: pc.backend, origin: from, entry: func(uri string) model.Entry {
			for _, e := range entries {
				if e.Loc == uri {
					return e
				}
			}
			return model.Entry{Loc: uri, HasLoc: true}
		}}
		req := session.SpotRequest{From: from, Entries: entries}
		return func() Page { return pages.NewSpot(pc.c, pc.backend, req, what, o.open) }
	}), nil
}

// spotReady says why the document's entries cannot be spot-checked, nil
// when they can (if some are shown).
func spotReady(pc pageContext) error {
	d, v := pc.doc, pc.view
	if d == nil || v == nil {
		return errors.New("nothing is open")
	}
	if d.loading {
		return errors.New("wait for the document to load")
	}
	if d.entriesAreDocuments() || d.entriesArePackages() {
		return errors.New("a spot check checks resources; this document lists " + docListsWhat(d))
	}
	return nil
}

// openNotificationsPage subscribes to the notifications of the document's
// Source, unless the root does already, and shows them.
func openNotificationsPage(pc pageContext) (Page, tea.Cmd, error) {
	if pc.doc == nil || pc.notes == nil {
		return nil, nil, errors.New("nothing is open")
	}
	cmd := pc.notes.start(pc.backend, sourceOf(pc.doc))
	return pages.NewNotifications(pc.c, pc.backend, pc.notes, pc.notesHint), cmd, nil
}

// openProblemsPage opens the problems of the document shown.
func openProblemsPage(pc pageContext) (Page, tea.Cmd, error) {
	if err := problemsReady(pc); err != nil {
		return nil, nil, err
	}
	return pages.NewSourceProblems(pc.c, docProblems{pc.doc}, -1), nil, nil
}

// problemsReady says why the problems page cannot open yet, nil when it
// can.
func problemsReady(pc pageContext) error {
	switch {
	case pc.doc == nil:
		return errors.New("nothing is open")
	case pc.doc.loading:
		return errors.New("the problems are known once the document has loaded")
	}
	return nil
}

// openEntryProblemsPage opens the problems of the document shown on the
// selected entry's first problem (P).
func openEntryProblemsPage(pc pageContext) (Page, tea.Cmd, error) {
	if err := entryProblemsReady(pc); err != nil {
		return nil, nil, err
	}
	return pages.NewSourceProblems(pc.c, docProblems{pc.doc}, pc.selected), nil, nil
}

// entryProblemsReady says why the selected entry's problems cannot be
// shown, nil when they can.
func entryProblemsReady(pc pageContext) error {
	switch {
	case pc.doc == nil:
		return errors.New("nothing is open")
	case pc.selected < 0:
		return errors.New("no entry is selected")
	case len(pc.doc.problemsOf(pc.selected)) == 0:
		return fmt.Errorf("entry %d has no problems (p lists the document's)", pc.selected+1)
	}
	return problemsReady(pc)
}
