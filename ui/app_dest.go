package ui

import (
	"errors"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"rsx/dest/engine"
	"rsx/display"
	"rsx/model"
	"rsx/session"
	"rsx/ui/components"
	"rsx/ui/pages"
)

// The root's side of syncs and audits (:sync DIR, :audit DIR, typed at the
// prompt, app_prompt.go): what they act on (the marked entries, else those
// shown), the pages they open, and what those pages ask of the root.

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
	// capList is the Capability List selected in a Source Description,
	// which target is: the pages name it in their title.
	capList string
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
			return a.descriptionScope(d)
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
		sc.what = fmt.Sprintf("the %s marked of %s", components.Count(len(rows)), display.Plural(n, "entry", "entries"))
	case !all:
		sc.what = fmt.Sprintf("the %s shown (filter %q) of %s", display.Plural(len(rows), "entry", "entries"), a.dv.query.raw, display.Plural(n, "entry", "entries"))
	case whole && d.capability() != model.CapResourceList:
		// All entries of a Change List Index: changes, not the Source's
		// resources (the audit counts those, from the Resource List and
		// the changes since).
		sc.what = "every resource of the Source, not the " + display.Plural(n, "change", "changes") + " listed here"
		return sc, nil
	case whole:
		sc.what = "every resource of the Source's Resource List (" + display.Plural(n, "entry", "entries") + ")"
		return sc, nil
	default:
		sc.what = "the " + display.Plural(n, "resource", "resources") + " of this " + d.title()
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

// descriptionScope is what a sync or an audit of a Source Description
// acts on: the Capability List selected in it, named, as rsx sync must be
// given one when the Source Description lists several (it refuses the
// Source Description's URL then).
func (a *App) descriptionScope(d *document) (syncScope, error) {
	n := d.entries.Len()
	i := a.dv.Selected()
	if n == 0 || i < 0 {
		return syncScope{}, errors.New("this Source Description lists no Capability List")
	}
	capList := model.ResolveHref(d.base(), d.entries.Loc(i))
	sc := syncScope{target: capList, capList: capList}
	if n == 1 {
		sc.what = "every resource of the Source Description's only Capability List"
	} else {
		sc.what = fmt.Sprintf("the Capability List selected (1 of the Source Description's %d: rsx sync takes one, by its URL)", n)
	}
	if d.marked() > 0 {
		sc.what += "; the marks are left aside"
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
	if sc.capList != "" {
		p.Of(sc.capList)
	}
	return a.showPage(p)
}

// pages.NewSync prepares the sync of req through the backend.
func (a *App) newSyncPage(req session.SyncRequest, what string) *pages.Sync {
	job := a.backend.NewSync(req)
	if job == nil {
		a.flashError(":sync: this explorer cannot sync (no backend)")
		return nil
	}
	return pages.NewSync(a.c, job, what, a.resourceOpener().open)
}

// destRequest acts on the requests of the sync, audit and spot check
// pages; ok is false for any other message.
func (a *App) destRequest(msg tea.Msg) (cmd tea.Cmd, ok bool) {
	switch msg := msg.(type) {
	case syncDiffsMsg:
		if p := a.newSyncPage(msg.Req, msg.What); p != nil {
			return a.pushPage(p), true
		}
		return nil, true
	case copyChangedMsg:
		// The pages hear of it too: the fleet page goes on to the next
		// marked Source.
		var cmds []tea.Cmd
		for i, p := range a.pages {
			var cmd tea.Cmd
			a.pages[i], cmd = p.Update(msg)
			cmds = append(cmds, cmd)
		}
		if a.dest != "" && a.doc != nil {
			cmds = append(cmds, a.computeLocal(a.doc))
		}
		return tea.Batch(cmds...), true
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
	return a.showPage(pages.NewAudit(a.c, a.backend, req, sc.what, a.resourceOpener().open))
}
