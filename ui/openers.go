package ui

import (
	"errors"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"rsx/model"
	"rsx/ui/pages"
)

// The openers of the pages of rsx/ui/pages: what each reads of the document
// shown, which those pages never see.

// openHTTPPage opens the HTTP exchanges, with the document's own request
// selected.
func openHTTPPage(pc pageContext) (Page, tea.Cmd, error) {
	d := pc.doc
	if d == nil {
		return nil, nil, errors.New("nothing is open")
	}
	ex := pc.backend.Exchanges()
	if len(ex) == 0 && d.exchange != nil {
		ex = append(ex, d.exchange)
	}
	if len(ex) == 0 {
		return nil, nil, errors.New("no HTTP exchange yet (a local file has none)")
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

// openDiscovery runs discovery from the document's URL; the page opens
// when it is done (discoveryMsg).
func openDiscovery(pc pageContext) (Page, tea.Cmd, error) {
	if pc.doc == nil {
		return nil, nil, errors.New("nothing is open")
	}
	if model.IsLocal(pc.doc.url) {
		return nil, nil, errors.New("discovery needs an http(s) URL")
	}
	return nil, msgCmd(discoverMsg{URL: pc.doc.url}), nil
}

// openCoveragePage opens the coverage of the change history around the
// document shown.
func openCoveragePage(pc pageContext) (Page, tea.Cmd, error) {
	d := pc.doc
	if d == nil || d.header == nil {
		return nil, nil, errors.New("nothing is open")
	}
	if c := d.capability(); !(c.IsChange() && !c.IsManifest()) && !(c.IsArchive() && c.Archived().IsChange()) {
		return nil, nil, fmt.Errorf("C is for Change Lists, Change Dumps and archives; this is a %s", d.title())
	}
	return pages.NewCoverage(pc.c, pc.backend, d.url, d.base()), nil, nil
}
