package ui

import (
	"slices"

	"charm.land/bubbles/v2/key"

	"rsx/model"
	"rsx/ui/common"
	"rsx/ui/nav"
)

// The help (?) of the page shown: the key map's bindings that work there
// just now, each once. The handlers and the help read the same bindings
// (common.KeyMap); what a key does on a page decides whether it is listed.

// keysNow is the key map as it works on the page shown just now: the
// global bindings that would only say why not are disabled, and, on the
// document page, those its document has no use for (documentKeys). The
// help (?) and the footers are both drawn from it, so that neither lists a
// key that does nothing there.
func (a *App) keysNow() common.KeyMap {
	k := a.c.Keys
	k.HistBack.SetEnabled(a.hist.canBack())
	k.HistFwd.SetEnabled(a.hist.canForward())
	k.FleetCmd.SetEnabled(a.opts.Fleet != nil) // an explorer without one refuses :fleet
	if len(a.pages) == 0 && a.dv != nil && a.doc != nil {
		a.documentKeys(&k)
	}
	return k
}

// helpGroups are the help's groups over the active page: a page shown over
// the document lists its own keys (nav.KeyHelper, else its footer's) and
// the global ones; the document page the key map's groups, less the keys
// that the document shown has no use for.
func (a *App) helpGroups() []common.KeyGroup {
	k := a.keysNow()
	if n := len(a.pages); n > 0 {
		p := a.pages[n-1]
		bs := p.KeyBindings()
		if h, ok := p.(nav.KeyHelper); ok {
			bs = h.HelpBindings()
		}
		return k.PageHelp(a.pageTitle(), bs)
	}
	if a.dv == nil || a.doc == nil {
		return k.GlobalGroups()
	}
	return k.Groups()
}

// footerBindings are the footer's bindings over the active page, from the
// same key map as the help in the same state: a page's own choice of its
// keys (Page.KeyBindings, which follow its state), or the document page's
// in the state of its document (loaded, loading, failed, empty). Disabled
// bindings are not drawn.
func (a *App) footerBindings() []key.Binding {
	k := a.keysNow()
	if n := len(a.pages); n > 0 {
		p := a.pages[n-1]
		footer := p.KeyBindings()
		if h, ok := p.(nav.KeyHelper); ok {
			footer = common.Within(footer, h.HelpBindings())
		}
		return k.PageFooter(footer)
	}
	if a.dv == nil {
		return nil
	}
	return a.dv.footerBindings()
}

// documentKeys disables in k the document page's bindings that would only
// say why not on the document shown: a link it does not have, all parts of
// what is no index, the pages that refuse it.
func (a *App) documentKeys(k *common.KeyMap) {
	d := a.doc
	hasLink := func(rel string) bool { return d.header != nil && d.link(rel) != "" }
	k.UpLink.SetEnabled(hasLink("up"))
	k.IndexLink.SetEnabled(hasLink("index"))
	k.Archives.SetEnabled(hasLink(model.RelArchives))
	k.LoadAll.SetEnabled(d.isIndex() && !d.loading)
	k.Manifest.SetEnabled(d.entriesArePackages())
	noProblems := !d.loading && d.marks == nil && d.crossState != crossChecking
	k.NextProblem.SetEnabled(!noProblems)
	k.PrevProblem.SetEnabled(!noProblems)
	n := d.entries.Len()
	for _, b := range []*key.Binding{&k.Open, &k.JumpTo, &k.Mark, &k.MarkShown, &k.InvertMarks} {
		b.SetEnabled(n > 0)
	}
	for _, b := range []*key.Binding{&k.Filter, &k.SortNext, &k.SortReverse} {
		b.SetEnabled(n > 0 || d.loading) // nothing to filter or sort in a document that failed or is empty
	}
	for _, b := range []*key.Binding{&k.Up, &k.Down, &k.PageUp, &k.PageDown, &k.HalfUp, &k.HalfDown, &k.Top, &k.Bottom} {
		b.SetEnabled(n > 1) // one entry: nowhere to move
	}
	marked, _ := d.marksText()
	k.UnmarkAll.SetEnabled(marked != "")
	pc := a.context()
	for _, o := range a.pageOpeners() {
		if o.ready == nil {
			continue
		}
		if err := o.ready(pc); err != nil {
			for _, b := range []*key.Binding{&k.Raw, &k.HTTP, &k.Problems, &k.EntryProblems, &k.Discovery, &k.Versions, &k.Coverage, &k.Notify, &k.SpotCheck} {
				if sameKeys(*b, o.key) {
					b.SetEnabled(false)
				}
			}
		}
	}
}

// sameKeys tells whether a and b answer to the same keys.
func sameKeys(a, b key.Binding) bool { return slices.Equal(a.Keys(), b.Keys()) }
