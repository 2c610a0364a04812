package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"rsx/crawl"
	"rsx/model"
)

// discoveryView shows how a Source was discovered from a URL: every method
// tried (well-known URI, robots.txt, HTML link, Link header, the input
// itself, up links) with its URL, status, error and what it pointed at; the
// documents found; the up chain; the Source Description and its Capability
// Lists. The documents can be picked (j/k) and opened (Enter → openURLMsg).
type discoveryView struct {
	c *Common
	d *crawl.Discovery

	items []discoveryItem // the documents that can be opened, in screen order

	width, height int
	ivList        // selected document, first line shown
}

// discoveryItem is a document the user can open.
type discoveryItem struct {
	URL   string
	Label string // capability or role, e.g. "Capability List", "Source Description"
}

// newDiscoveryView returns a view of d with the Source Description (or the
// first document found) selected.
func newDiscoveryView(c *Common, d *crawl.Discovery) discoveryView {
	if d == nil {
		d = &crawl.Discovery{}
	}
	v := discoveryView{c: c, d: d}
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
func (v discoveryView) Selected() string {
	if v.sel < 0 || v.sel >= len(v.items) {
		return ""
	}
	return v.items[v.sel].URL
}

// InputActive is always false: the view has no text input.
func (v discoveryView) InputActive() bool { return false }

// SetSize sets the size the view draws in.
func (v *discoveryView) SetSize(w, h int) {
	v.width, v.height = w, h
	v.selectItem(v.sel)
}

// KeyBindings are the view's own bindings, for the help screen.
func (v discoveryView) KeyBindings() []key.Binding {
	k := ivKeys(v.c)
	open := key.NewBinding(key.WithKeys(k.Open.Keys()...), key.WithHelp(k.Open.Help().Key, "open the selected document"))
	return []key.Binding{k.Up, k.Down, open, k.Copy, k.Browser}
}

// Update handles keys and the mouse wheel.
func (v discoveryView) Update(msg tea.Msg) (discoveryView, tea.Cmd) {
	k := ivKeys(v.c)
	if v.navigate(msg, k, len(v.items), v.height, v.layout) {
		return v, nil
	}
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, k.Open):
			if u := v.Selected(); u != "" {
				return v, ivCmd(openURLMsg{URL: u})
			}
		case key.Matches(msg, k.Copy):
			if u := v.Selected(); u != "" {
				return v, ivCmd(copyMsg{Text: u, What: "URL"})
			}
		case key.Matches(msg, k.Browser):
			if u := v.Selected(); u != "" {
				return v, ivCmd(openBrowserMsg{URL: u})
			}
		}
	}
	return v, nil
}

func (v *discoveryView) selectItem(i int) {
	v.ivList.selectItem(i, len(v.items), v.height, v.layout)
}

// layout gives the report's line count and the selected document's line.
func (v *discoveryView) layout() (total, selLine int) {
	lines, sel := v.lines(ivStyles(v.c), max(v.width, 1))
	return len(lines), sel
}

// View draws the visible part of the report.
func (v discoveryView) View() string {
	st := ivStyles(v.c)
	w := max(v.width, 1)
	lines, _ := v.lines(st, w)
	h := max(v.height, 1)
	out := ivWindow(lines, ivClamp(v.top, 0, len(lines)-h), h)
	for i, l := range out {
		out[i] = ivFit(l, w)
	}
	return strings.Join(out, "\n")
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
// dozen requests at most) and says on which line the selection is.
func (v discoveryView) lines(st viewStyles, w int) ([]string, int) {
	d := v.d
	var out []string
	add := func(s string) { out = append(out, s) }
	selLine := -1
	item := 0
	// itemLine draws the next openable document.
	itemLine := func(prefix, text, url string) {
		if text != "" {
			text = "  " + ivSanitize(text)
		}
		if item == v.sel {
			selLine = len(out)
			add(st.Selected.Render(ivPad("▸ "+prefix+ivSanitize(url)+text, w)))
		} else {
			add("  " + st.Label.Render(prefix) + st.URL.Render(ivSanitize(url)) + st.Dim.Render(text))
		}
		item++
	}

	head := st.Title.Render("Discovery")
	switch {
	case d.SourceDescription != "":
		head += "  " + st.OK.Render("✓ Source Description found")
	case len(d.CapabilityLists) > 0:
		head += "  " + st.OK.Render("✓ "+ivPlural(len(d.CapabilityLists), "Capability List", "Capability Lists")+" found")
	case !d.InputReached && d.Input != "":
		head += "  " + st.Error.Render("✗ the input URL did not answer")
	default:
		head += "  " + st.Error.Render("✗ no ResourceSync document found")
	}
	add(head + "  " + st.Label.Render("from ") + st.URL.Render(ivSanitize(d.Input)))
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
		itemLine(fmt.Sprintf("%-*s ", methodW, ivSanitize(f.Method)), model.DocumentTitle(f.Capability, f.Root), f.URL)
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
	add(st.Section.Render(fmt.Sprintf("Tried (%d)", len(d.Attempts))))
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
		line := "  " + st.Rel.Render(ivPad(ivSanitize(a.Method), methodW)) + " " + style.Render(ivPad(status, 6)) + " " + st.URL.Render(ivSanitize(a.URL))
		switch {
		case a.Err != "":
			// The method and URL are on the line already.
			msg := strings.TrimPrefix(a.Err, "GET "+a.URL+": ")
			line += "  " + st.Error.Render(ivSanitize(msg))
		case len(a.Found) == 0:
			line += "  " + st.Dim.Render("nothing found")
		}
		add(line)
		indent := "  " + strings.Repeat(" ", methodW+8)
		for _, f := range a.Found {
			add(indent + st.Dim.Render("→ ") + st.URL.Render(ivSanitize(f)))
		}
		for _, n := range a.Notes {
			add(indent + st.Explain.Render(ivSanitize(n)))
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
		add("  " + st.Rel.Render(ivPad(ivSanitize(a.Method), methodW)) + " " + st.Explain.Render(discoveryMethodText(a.Method)))
	}
	return out, selLine
}
