package ui

import (
	tea "charm.land/bubbletea/v2"

	"rsx/dest/engine"
	"rsx/dump"
	"rsx/model"
	"rsx/ui/pages"
)

// Opening pages over the document: those a key opens (pageOpeners), and
// those the root opens when a page asks, with what they may read of the
// document shown.

// entryLookup finds the entry of the document shown whose resource is uri,
// for a resource view held to its claims (none: a bare one).
func (a *App) entryLookup() func(uri string) model.Entry {
	d := a.doc
	return func(uri string) model.Entry {
		if d != nil {
			for i, n := 0, d.entries.Len(); i < n; i++ {
				if engine.ResolveLoc(d.base(), d.entries.Loc(i)) == uri {
					e, _, _ := d.wholeEntry(i)
					e.Loc = uri
					return e
				}
			}
		}
		return model.Entry{Loc: uri, HasLoc: true}
	}
}

func (a *App) resourceOpener() resourceOpener {
	o := resourceOpener{c: a.c, b: a.backend, entry: a.entryLookup()}
	if a.doc != nil {
		o.origin = a.doc.base()
	}
	return o
}

// context is what a page opener may read.
func (a *App) context() pageContext {
	pc := pageContext{c: a.c, backend: a.backend, doc: a.doc, view: a.dv, selected: -1, notes: a.notes, notesHint: a.opts.NotificationsHint}
	if a.dv != nil {
		pc.selected = a.dv.Selected()
	}
	return pc
}

// openWith opens the page of an opener over the document.
func (a *App) openWith(o pageOpener) tea.Cmd {
	p, cmd, err := o.open(a.context())
	if err != nil {
		a.flashError(err.Error())
		return nil
	}
	if p == nil {
		return cmd
	}
	return tea.Batch(a.showPage(p), cmd)
}

// pageOpeners are the pages a key opens over the document: one line each.
func (a *App) pageOpeners() []pageOpener {
	k := &a.c.Keys
	return []pageOpener{
		{k.Raw, openRaw, rawReady},
		{k.HTTP, openHTTPPage, httpReady},
		{k.Problems, openProblemsPage, problemsReady},
		{k.EntryProblems, openEntryProblemsPage, entryProblemsReady},
		{k.Discovery, openDiscovery, discoveryReady},
		{k.Versions, openVersionsPage, versionsReady},
		{k.Coverage, openCoveragePage, coverageReady},
		{k.Notify, openNotificationsPage, nil},
		{k.SpotCheck, openSpotPage, spotReady},
	}
}

// packageRefOfEntry is the package dump entry i of the current document
// describes.
func (a *App) packageRefOfEntry(i int) (dump.PackageRef, bool) {
	d := a.doc
	if d == nil || i < 0 || i >= d.entries.Len() {
		return dump.PackageRef{}, false
	}
	e, _, _ := d.wholeEntry(i)
	ref := dump.PackageRef{URL: model.ResolveHref(d.base(), e.Loc), Dump: d.base(), MD: e.MD}
	for _, l := range e.Links {
		if model.HasRel(l.Rel, "contents") && l.Href != "" {
			ref.Contents = model.ResolveHref(d.base(), l.Href)
			break
		}
	}
	return ref, true
}

// openPackage shows the package page of ref over the current document.
func (a *App) openPackage(ref dump.PackageRef, fromEntry bool) tea.Cmd {
	if ref.Dump != "" && !a.mayFollow(ref.Dump, ref.URL) {
		return nil
	}
	return a.showPage(pages.NewPackage(a.c, a.backend, ref, fromEntry, dump.Options{}))
}

// openSelectedPackage opens the package of the selected dump entry.
func (a *App) openSelectedPackage() tea.Cmd {
	if a.dv == nil {
		return nil
	}
	ref, ok := a.packageRefOfEntry(a.dv.Selected())
	if !ok {
		return nil
	}
	return a.openPackage(ref, true)
}

// openSelectedManifestCopy opens the manifest copy of the selected dump
// entry (its contents link) as a document, without downloading the package.
func (a *App) openSelectedManifestCopy() tea.Cmd {
	if a.dv == nil {
		return nil
	}
	ref, ok := a.packageRefOfEntry(a.dv.Selected())
	if !ok {
		return nil
	}
	if ref.Contents == "" {
		a.flashError("this package has no contents link (manifest copy)")
		return nil
	}
	if !a.mayFollow(ref.Dump, ref.Contents) {
		return nil
	}
	return a.open(place{url: ref.Contents, crumbs: a.childCrumbs(), selected: -1}, true)
}

// openResource shows the resource page for entry i of the current document
// (or for a resource without an entry, i < 0).
func (a *App) openResource(url string, i int) tea.Cmd {
	var e model.Entry
	if d := a.doc; d != nil && i >= 0 && i < d.entries.Len() {
		e, _, _ = d.wholeEntry(i)
	}
	e.Loc = url // resolved: relative links resolve against it
	origin := url
	if a.doc != nil {
		origin = a.doc.base()
	}
	return a.showPage(pages.NewResource(a.c, a.backend, origin, e))
}
