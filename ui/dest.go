package ui

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"

	tea "charm.land/bubbletea/v2"

	"rsx/dest/engine"
	"rsx/model"
	"rsx/session"
	"rsx/ui/common"
	"rsx/ui/components"
)

// The root's side of syncs, audits and spot checks: the commands typed at
// the ":" prompt (:sync DIR, :audit DIR, :dest DIR), what they act on (the
// marked entries, else those shown), and the pages they open.

// promptCommand runs a command typed at the ":" prompt; ok is false when
// val is not one (then it is a URL or a file to open).
func (a *App) promptCommand(val string) (cmd tea.Cmd, ok bool) {
	word, arg, _ := strings.Cut(val, " ")
	arg = strings.TrimSpace(arg)
	switch word {
	case "sync", "audit":
		if arg == "" {
			a.flashError(":" + word + " needs a destination: :" + word + " DIR (a folder, or s3://bucket/prefix)")
			return nil, true
		}
		if a.doc == nil || a.dv == nil {
			a.flashError("nothing is open to " + word)
			return nil, true
		}
		if word == "sync" {
			return a.openSync(arg), true
		}
		return a.openAudit(arg), true
	case "dest":
		return a.attachDest(arg), true
	}
	return nil, false
}

// guardedPage is a page whose work leaving it would stop (a sync running):
// the root neither navigates away nor quits while it says why not.
type guardedPage interface {
	LeaveGuard() string
}

// leaveGuard is why the pages shown may not be left now, "" when they may.
func (a *App) leaveGuard() string {
	for _, p := range a.pages {
		if g, ok := p.(guardedPage); ok {
			if why := g.LeaveGuard(); why != "" {
				return why
			}
		}
	}
	return ""
}

// syncScope is what a sync, an audit or a spot check of the document
// shown acts on, in words and as the target and URIs the backend takes.
type syncScope struct {
	target string   // the document (or the Capability List selected in a Source Description)
	only   []string // the resources chosen; nil: the whole Source
	rows   []int32  // their entries (nil with only nil)
	what   string   // "the 3 marked entries", "the 12 entries shown", …
}

// scope works out what the marked (or shown) entries of the document
// amount to. forAudit compares the document's resources, marks aside.
func (a *App) scope(forAudit bool) (syncScope, error) {
	d := a.doc
	if d == nil || a.dv == nil {
		return syncScope{}, errors.New("nothing is open")
	}
	if d.loading {
		return syncScope{}, errors.New("wait for the document to load")
	}
	sc := syncScope{target: d.base()}
	if d.entriesAreDocuments() || d.entriesArePackages() {
		// A Source Description, a Capability List, an index, a dump: the
		// whole Source (of the Capability List selected in a Source
		// Description).
		if d.capability() == model.CapDescription {
			if i := a.dv.Selected(); i >= 0 {
				sc.target = model.ResolveHref(d.base(), d.entries.Loc(i))
			}
		}
		sc.what = "every resource of the Source (this document lists " + docListsWhat(d) + ")"
		if d.marked() > 0 {
			sc.what += "; the marks are left aside"
		}
		return sc, nil
	}
	n := d.entries.Len()
	var (
		rows        []int32
		marked, all = false, true // an audit compares the document's resources
	)
	if !forAudit {
		var err error
		if rows, marked, all, err = a.dv.chosenRows(); err != nil {
			return syncScope{}, err
		}
	}
	whole := d.parts != nil || (d.capability() == model.CapResourceList && d.link("index") == "")
	switch {
	case marked:
		sc.what = fmt.Sprintf("the %s marked of %s", components.Count(len(rows)), components.Plural(n, "entry", "entries"))
	case !all:
		sc.what = fmt.Sprintf("the %s shown (filter %q) of %s", components.Plural(len(rows), "entry", "entries"), a.dv.query.raw, components.Plural(n, "entry", "entries"))
	case whole:
		sc.what = "every resource of the Source's Resource List (" + components.Plural(n, "entry", "entries") + ")"
		return sc, nil
	default:
		sc.what = "the " + components.Plural(n, "resource", "resources") + " of this " + d.title()
	}
	if all {
		rows = make([]int32, n)
		for i := range rows {
			rows[i] = int32(i)
		}
	}
	if len(rows) == 0 {
		return sc, errors.New("no entry is shown: clear the filter (esc) or mark some (space)")
	}
	sc.rows = rows
	sc.only = make([]string, len(rows))
	for k, i := range rows {
		sc.only[k] = engine.ResolveLoc(d.base(), d.entries.Loc(int(i)))
	}
	return sc, nil
}

// docListsWhat names what a document of documents lists.
func docListsWhat(d *document) string {
	if d.entriesArePackages() {
		return "packages"
	}
	return "documents"
}

// entryLookup finds the entry of the document shown whose resource is uri,
// for a resource view held to its claims (none: a bare one).
func (a *App) entryLookup() func(uri string) model.Entry {
	d := a.doc
	return func(uri string) model.Entry {
		if d != nil {
			for i, n := 0, d.entries.Len(); i < n; i++ {
				if engine.ResolveLoc(d.base(), d.entries.Loc(i)) == uri {
					e := d.entries.Entry(i)
					e.Loc = uri
					return e
				}
			}
		}
		return model.Entry{Loc: uri, HasLoc: true}
	}
}

// resourceOpener opens a resource's view over the page that asks, held to
// the claims of its entry in the document (when it has one).
type resourceOpener struct {
	c      *common.Common
	b      resourceBackend
	origin string
	entry  func(uri string) model.Entry
}

func (a *App) resourceOpener() resourceOpener {
	o := resourceOpener{c: a.c, b: a.backend, entry: a.entryLookup()}
	if a.doc != nil {
		o.origin = a.doc.base()
	}
	return o
}

// open shows uri's resource view; esc comes back.
func (o resourceOpener) open(uri string) tea.Cmd {
	if o.b == nil || uri == "" {
		return nil
	}
	e := model.Entry{Loc: uri, HasLoc: true}
	if o.entry != nil {
		e = o.entry(uri)
	}
	origin := o.origin
	if origin == "" {
		origin = uri
	}
	return pushPage(newResourcePage(o.c, o.b, origin, e))
}

// openSync opens the sync page for the marked (or shown) entries.
func (a *App) openSync(dest string) tea.Cmd {
	sc, err := a.scope(false)
	if err != nil {
		a.flashError(":sync: " + err.Error())
		return nil
	}
	p := a.newSyncPage(session.SyncRequest{Dest: dest, Target: sc.target, Only: sc.only}, sc.what)
	if p == nil {
		return nil
	}
	return a.showPage(p)
}

// newSyncPage prepares the sync of req through the backend.
func (a *App) newSyncPage(req session.SyncRequest, what string) *syncPage {
	job := a.backend.NewSync(req)
	if job == nil {
		a.flashError(":sync: this explorer cannot sync (no backend)")
		return nil
	}
	return newSyncPage(a.c, job, what, a.resourceOpener())
}

// syncDiffsMsg asks to plan a sync of what an audit found different; the
// plan page opens over the audit page, and esc comes back to it.
type syncDiffsMsg struct {
	req  session.SyncRequest
	what string
}

// copyChangedMsg tells that a sync ran into Dest: the states of the copy
// attached are computed again.
type copyChangedMsg struct{ Dest string }

// destRequest acts on the requests of the sync, audit and spot check
// pages; ok is false for any other message.
func (a *App) destRequest(msg tea.Msg) (cmd tea.Cmd, ok bool) {
	switch msg := msg.(type) {
	case syncDiffsMsg:
		if p := a.newSyncPage(msg.req, msg.what); p != nil {
			return a.pushPage(p), true
		}
		return nil, true
	case copyChangedMsg:
		if a.dest == "" || a.doc == nil {
			return nil, true
		}
		return a.computeLocal(a.doc), true
	}
	return nil, false
}

// openAudit opens the audit page: the copy in dest against the document.
func (a *App) openAudit(dest string) tea.Cmd {
	sc, err := a.scope(true)
	if err != nil {
		a.flashError(":audit: " + err.Error())
		return nil
	}
	req := session.AuditRequest{Dest: dest, Target: sc.target, Only: sc.only}
	return a.showPage(newAuditPage(a.c, a.backend, req, sc.what, a.resourceOpener()))
}

// spotSample is how many entries a spot check of the shown entries draws
// when nothing is marked; marked entries are all checked, up to spotMax.
const (
	spotSample = 100
	spotMax    = 1000
)

// openSpotPage spot-checks the marked (or shown) entries' claims.
func openSpotPage(pc pageContext) (Page, tea.Cmd, error) {
	d, v := pc.doc, pc.view
	if d == nil || v == nil {
		return nil, nil, errors.New("nothing is open")
	}
	if d.loading {
		return nil, nil, errors.New("wait for the document to load")
	}
	if d.entriesAreDocuments() || d.entriesArePackages() {
		return nil, nil, errors.New("a spot check checks resources; this document lists " + docListsWhat(d))
	}
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
		what = "the " + components.Plural(len(rows), "entry", "entries") + " shown"
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
	entries := make([]model.Entry, len(rows))
	for k, i := range rows {
		e := d.entries.Entry(int(i))
		e.Loc = engine.ResolveLoc(d.base(), e.Loc)
		entries[k] = e
	}
	o := resourceOpener{c: pc.c, b: pc.backend, origin: d.base(), entry: func(uri string) model.Entry {
		for _, e := range entries {
			if e.Loc == uri {
				return e
			}
		}
		return model.Entry{Loc: uri, HasLoc: true}
	}}
	req := session.SpotRequest{From: d.base(), Entries: entries}
	p := newSpotPage(pc.c, pc.backend, req, what, o)
	return p, nil, nil
}
