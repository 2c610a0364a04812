package pages

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"rsx/crawl"
	"rsx/display"
	"rsx/model"
	"rsx/ui/common"
	"rsx/ui/components"
	"rsx/ui/nav"
)

// Discovery shows how a Source was discovered from a URL: every method
// tried (well-known URI, robots.txt, HTML link, Link header, the input
// itself, up links) with its URL, status, error and what it pointed at; the
// documents found; the up chain; the Source Description and its Capability
// Lists. The documents can be picked (j/k) and opened (Enter → nav.OpenURLMsg).
type Discovery struct {
	c *common.Common
	d *crawl.Discovery

	items []discoveryItem // the documents that can be opened, in screen order

	width, height int
	list          components.List // the selected document and the first line shown
}

// discoveryItem is a document the user can open.
type discoveryItem struct {
	URL   string
	Label string // capability or role, e.g. "Capability List", "Source Description"
}

// NewDiscovery returns a page of d with the Source Description (or the
// first document found) selected.
func NewDiscovery(c *common.Common, d *crawl.Discovery) *Discovery {
	if d == nil {
		d = &crawl.Discovery{}
	}
	v := &Discovery{c: c, d: d, list: components.NewList(components.Links)}
	// The same order as on screen: the result first, then how it was found.
	if d.SourceDescription != "" {
		v.items = append(v.items, discoveryItem{URL: d.SourceDescription, Label: "Source Description"})
	}
	for _, u := range d.CapabilityLists {
		v.items = append(v.items, discoveryItem{URL: u, Label: "Capability List"})
	}
	for _, f := range d.Found {
		v.items = append(v.items, discoveryItem{URL: f.URL, Label: model.DocumentTitle(f.Capability, f.Root)})
	}
	for _, u := range d.UpChain {
		v.items = append(v.items, discoveryItem{URL: u, Label: "up chain"})
	}
	return v
}

// Selected returns the URL of the selected document, "" when none.
func (v *Discovery) Selected() string {
	i := v.list.Cursor()
	if i < 0 || i >= len(v.items) {
		return ""
	}
	return v.items[i].URL
}

func (v *Discovery) Init() tea.Cmd         { return nil }
func (v *Discovery) Title() string         { return "Discovery" }
func (v *Discovery) InputActive() bool     { return false }
func (v *Discovery) Busy() bool            { return false }
func (v *Discovery) Back() (bool, tea.Cmd) { return false, nil }
func (v *Discovery) Close()                {}

// SetSize lays the report out for w×h cells.
func (v *Discovery) SetSize(w, h int) {
	v.width, v.height = w, h
	lines, items := v.lines(v.c.Styles, max(w, 1))
	v.list.SetHeight(h)
	v.list.SetItems(items, len(lines))
	v.list.Select(v.list.Cursor())
}

// KeyBindings are the page's own bindings, for the help screen.
func (v *Discovery) KeyBindings() []key.Binding {
	k := &v.c.Keys
	moves, sel := v.list.Len() > 1, v.Selected() != "" // nothing to select when discovery found nothing
	return []key.Binding{common.When(moves, k.Up), common.When(moves, k.Down), common.When(sel, common.Short(k.Open, "open the selected document")),
		common.When(sel, k.Copy), common.When(sel, k.Browser)}
}

// HelpBindings are the page's keys (nav.KeyHelper): the footer's, with
// every movement key where there is somewhere to move.
func (v *Discovery) HelpBindings() []key.Binding {
	return withMoves(v.c.Keys, v.KeyBindings(), v.list.Len() > 1)
}

// Update handles keys and the mouse wheel.
func (v *Discovery) Update(msg tea.Msg) (nav.Page, tea.Cmd) {
	k := &v.c.Keys
	if v.list.Update(msg, k) {
		return v, nil
	}
	if msg, ok := msg.(tea.KeyPressMsg); ok {
		u := v.Selected()
		switch {
		case u == "":
		case key.Matches(msg, k.Open):
			return v, nav.Cmd(nav.OpenURLMsg{URL: u, From: v.d.Input})
		case key.Matches(msg, k.Copy):
			return v, nav.Cmd(nav.CopyMsg{Text: u, What: "URL"})
		case key.Matches(msg, k.Browser):
			return v, nav.Cmd(nav.OpenBrowserMsg{URL: u})
		}
	}
	return v, nil
}

// View draws the visible part of the report.
func (v *Discovery) View() string {
	lines, _ := v.lines(v.c.Styles, max(v.width, 1))
	return cellsOf(v.c).Scrolled(lines, v.list.Offset(), v.width, v.height)
}

// discoveryMethodText explains a discovery method.
func discoveryMethodText(m string) string {
	switch m {
	case crawl.MethodWellKnown:
		return "the well-known URI " + crawl.WellKnownPath
	case crawl.MethodRobots:
		return "Sitemap lines of robots.txt"
	case crawl.MethodHTMLLink:
		return `<link rel="resourcesync"> in an HTML page`
	case crawl.MethodLinkHeader:
		return `an HTTP Link header rel="resourcesync"`
	case crawl.MethodInput:
		return "the input URL itself"
	case crawl.MethodUp:
		return "an up link followed"
	}
	return m
}

// lines renders the whole report (its size is that of the discovery, a few
// dozen requests at most) and says on which line each document is.
func (v *Discovery) lines(st *common.Styles, w int) ([]string, []int) {
	d := v.d
	var out []string
	add := func(s string) { out = append(out, s) }
	itemLines := make([]int, 0, len(v.items))
	sel := v.list.Cursor()
	item := 0
	// itemLine draws the next openable document.
	itemLine := func(prefix, text, url string) {
		if text != "" {
			text = "  " + components.Escape(text)
		}
		itemLines = append(itemLines, len(out))
		if item == sel {
			add(st.Selected.Render(cellsOf(v.c).Pad("▸ "+prefix+components.Escape(url)+text, w)))
		} else {
			add("  " + st.Label.Render(prefix) + st.URL.Render(components.Escape(url)) + st.Dim.Render(text))
		}
		item++
	}

	head := st.Title.Render("Discovery")
	switch {
	case d.SourceDescription != "":
		head += "  " + st.OK.Render("✓ Source Description found")
	case len(d.CapabilityLists) > 0:
		head += "  " + st.OK.Render("✓ "+display.Plural(len(d.CapabilityLists), "Capability List", "Capability Lists")+" found")
	case !d.InputReached && d.Input != "":
		head += "  " + st.Error.Render("✗ the input URL did not answer")
	default:
		head += "  " + st.Error.Render("✗ no ResourceSync document found")
	}
	add(head + "  " + st.Label.Render("from ") + st.URL.Render(components.Escape(d.Input)))
	add("")
	methodW := 11
	for _, a := range d.Attempts {
		methodW = max(methodW, min(len(a.Method), 16))
	}

	// The result.
	add(st.Section.Render("Source Description"))
	if d.SourceDescription == "" {
		add(st.Dim.Render("  not reached"))
	} else {
		itemLine("", "", d.SourceDescription)
	}

	add("")
	add(st.Section.Render(fmt.Sprintf("Capability Lists (%d)", len(d.CapabilityLists))))
	if len(d.CapabilityLists) == 0 {
		add(st.Dim.Render("  none"))
	}
	for _, u := range d.CapabilityLists {
		itemLine("", "", u)
	}

	// How it was found: the documents found, the up chain, every request.
	add("")
	add(st.Section.Render(fmt.Sprintf("Found (%d)", len(d.Found))) + st.Dim.Render("  enter opens · y copies · o browser"))
	if len(d.Found) == 0 {
		add(st.Dim.Render("  no ResourceSync document"))
	}
	for _, f := range d.Found {
		itemLine(fmt.Sprintf("%-*s ", methodW, components.Escape(f.Method)), model.DocumentTitle(f.Capability, f.Root), f.URL)
	}

	if len(d.UpChain) > 0 {
		add("")
		add(st.Section.Render("Up chain") + st.Dim.Render("  from the document found to the Source Description"))
		for i, u := range d.UpChain {
			prefix := "   "
			if i > 0 {
				prefix = "↑  "
			}
			itemLine(prefix, "", u)
		}
	}

	add("")
	add(st.Section.Render(fmt.Sprintf("Tried (%s)", display.Count(len(d.Attempts)))))
	if len(d.Attempts) > 0 {
		add(st.Header.Render(fmt.Sprintf("  %-*s %-6s %s", methodW, "method", "status", "URL")))
	}
	for _, a := range d.Attempts {
		status := "–"
		style := st.Dim
		if a.Status != 0 {
			status = fmt.Sprint(a.Status)
			style = st.HTTPStatus(a.Status)
		}
		line := "  " + st.Rel.Render(cellsOf(v.c).Pad(components.Escape(a.Method), methodW)) + " " + style.Render(cellsOf(v.c).Pad(status, 6)) + " " + st.URL.Render(components.Escape(a.URL))
		switch {
		case a.Err != "":
			// The method and URL are on the line already.
			msg := strings.TrimPrefix(a.Err, "GET "+a.URL+": ")
			line += "  " + st.Error.Render(components.Escape(msg))
		case len(a.Found) == 0:
			line += "  " + st.Dim.Render("nothing found")
		}
		add(line)
		indent := "  " + strings.Repeat(" ", methodW+8)
		for _, f := range a.Found {
			add(indent + st.Dim.Render("→ ") + st.URL.Render(components.Escape(f)))
		}
		for _, n := range a.Notes {
			add(indent + st.Explain.Render(components.Escape(n)))
		}
	}

	// A legend of the methods tried.
	seen := map[string]bool{}
	for _, a := range d.Attempts {
		if seen[a.Method] {
			continue
		}
		if len(seen) == 0 {
			add("")
			add(st.Section.Render("Methods"))
		}
		seen[a.Method] = true
		add("  " + st.Rel.Render(cellsOf(v.c).Pad(components.Escape(a.Method), methodW)) + " " + st.Explain.Render(discoveryMethodText(a.Method)))
	}
	return out, itemLines
}
