package ui

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"

	"rsx/display"
	"rsx/model"
	"rsx/ui/common"
	"rsx/ui/components"
)

// The detail pane's lines: an entry's (or a document's) every attribute
// and link, each relation explained in words.

// entryLines describe one entry: loc, every attribute, every link with its
// relation in words, and unknown elements.
func entryLines(st *common.Styles, cells components.Cells, e *model.Entry, base string, w int, part string) []string {
	var out []string
	add := func(label, value string, vs lipgloss.Style) {
		out = append(out, kvLines(st, cells, "", label, 11, value, vs, w)...)
	}
	if part != "" {
		add("part", part, st.Value)
	}
	add("loc", e.Loc, st.URL)
	if resolved := model.ResolveHref(base, e.Loc); resolved != e.Loc && e.Loc != "" {
		add("resolved", resolved, st.URL)
	}
	if e.LocRaw != "" {
		add("loc (raw)", strconv.Quote(e.LocRaw), st.Dim)
	}
	if !e.HasLoc {
		out = append(out, st.Error.Render("no <loc>"))
	}
	if e.LocCount > 1 {
		out = append(out, st.Error.Render(fmt.Sprintf("%s <loc> elements", display.Count(e.LocCount))))
	}
	if e.MDCount > 1 {
		out = append(out, st.Error.Render(fmt.Sprintf("%s <rs:md> elements (the first is shown)", display.Count(e.MDCount))))
	}
	add("lastmod", e.Lastmod.Raw, st.Value)
	add("changefreq", e.Changefreq, st.Value)
	out = append(out, mdLines(st, cells, &e.MD, w)...)
	out = append(out, linkLines(st, cells, e.Links, base, w)...)
	out = append(out, extraLines(st, e.Extra)...)
	if e.Line > 0 {
		if len(e.Links) > 0 {
			out = append(out, "")
		}
		add("line", strconv.Itoa(e.Line), st.Dim)
	}
	return out
}

// mdLines describe an <rs:md> element.
func mdLines(st *common.Styles, cells components.Cells, md *model.Metadata, w int) []string {
	if !md.Present {
		return nil
	}
	var out []string
	add := func(label, value string, vs lipgloss.Style) {
		out = append(out, kvLines(st, cells, "", label, 11, value, vs, w)...)
	}
	add("capability", string(md.Capability), st.Value)
	add("change", string(md.Change), st.ChangeStyle(string(md.Change)))
	add("datetime", md.Datetime.Raw, st.Value)
	add("at", md.At.Raw, st.Value)
	add("completed", md.Completed.Raw, st.Value)
	add("from", md.From.Raw, st.Value)
	add("until", md.Until.Raw, st.Value)
	if md.LengthRaw != "" {
		l := md.LengthRaw
		if md.LengthOK && md.Length >= 1024 {
			l += " (" + display.Size(md.Length) + ")"
		}
		add("length", l, st.Value)
	}
	for _, h := range strings.Fields(md.HashRaw) {
		add("hash", h, st.Value)
	}
	add("type", md.Type, st.Value)
	add("encoding", md.Encoding, st.Value)
	if md.HasPath {
		add("path", md.Path, st.Value)
	}
	for _, a := range md.Extra {
		add(attrName(a), a.Value, st.Value)
	}
	return out
}

func attrName(a model.Attr) string {
	if a.Prefix != "" {
		return a.Prefix + ":" + a.Local
	}
	return a.Local
}

// linkLines describe <rs:ln> elements, each relation explained in words.
func linkLines(st *common.Styles, cells components.Cells, links []model.Link, base string, w int) []string {
	var out []string
	for _, l := range links {
		href := l.Href
		if href != "" {
			href = model.ResolveHref(base, href)
		}
		out = append(out, "")
		rel := components.Escape(l.Rel)
		if !l.HasRel {
			rel = "(no rel)"
		}
		if href == "" {
			href = "(no href)"
		}
		out = append(out, kvLinesL(st, cells, st.Rel, "", "↳ "+rel, cells.Width(rel)+3, href, st.URL, w)...)
		for _, rel := range strings.Fields(l.Rel) {
			if desc := model.RelationDescription(rel); desc != "" {
				for _, line := range cells.Wrap(desc, max(w-4, 10)) {
					out = append(out, "  "+st.Explain.Render(line))
				}
			}
		}
		add := func(label, value string) {
			out = append(out, kvLines(st, cells, "  ", label, 9, value, st.Value, w)...)
		}
		add("pri", l.PriRaw)
		add("type", l.Type)
		add("length", l.LengthRaw)
		add("hash", l.HashRaw)
		add("modified", l.Modified.Raw)
		add("encoding", l.Encoding)
		if l.HasPath {
			add("path", l.Path)
		}
		for _, a := range l.Extra {
			add(attrName(a), a.Value)
		}
	}
	return out
}

// extraLines describe elements the model keeps verbatim.
func extraLines(st *common.Styles, els []model.Element) []string {
	var out []string
	for _, e := range els {
		name := e.Local
		if e.Prefix != "" {
			name = e.Prefix + ":" + e.Local
		}
		s := "<" + name
		for _, a := range e.Attrs {
			s += " " + attrName(a) + "=" + strconv.Quote(a.Value)
		}
		s += ">"
		if e.Text != "" {
			s += " " + e.Text
		}
		out = append(out, st.Dim.Render(components.Escape(s)))
	}
	return out
}

// kvLines draws "label value", the value broken over as many lines as it
// needs (at most maxValueLines) under its first line.
func kvLines(st *common.Styles, cells components.Cells, indent, label string, labelW int, value string, vs lipgloss.Style, w int) []string {
	return kvLinesL(st, cells, st.Label, indent, label, labelW, value, vs, w)
}

// kvLinesL is kvLines with the label's style. Label and value may be a
// Source's (an attribute's name and value): both are escaped. A label
// wider than half the pane (a long relation, an unknown attribute's name)
// takes a line of its own, and the value goes under it.
//
// The value wraps at spaces; a URL or a digest too long for the pane is
// broken after a '/', '?', '&' or '=', or else cut with a dim
// ContinuationMark (components.Cells.WrapValue), never in the middle of a
// word that fits on a line. y copies the value whole, from the model.
func kvLinesL(st *common.Styles, cells components.Cells, ls lipgloss.Style, indent, label string, labelW int, value string, vs lipgloss.Style, w int) []string {
	if value == "" {
		return nil
	}
	label = components.Escape(label)
	labelW = max(labelW, cells.Width(label)+1)
	var out []string
	first := indent + ls.Render(cells.PadRight(label, labelW))
	pad := strings.Repeat(" ", labelW)
	if labelW > w/2 {
		out = append(out, indent+ls.Render(cells.Fit(label, max(w-len(indent), 1))))
		first, pad = indent+"    ", "    "
		labelW = 4
	}
	room := max(w-len(indent)-labelW, 8)
	lines := cells.WrapValue(components.Escape(value), room)
	if len(lines) > maxValueLines {
		lines = lines[:maxValueLines]
		last := &lines[maxValueLines-1]
		// The ellipsis says the value goes on: in the last cell when the
		// line is full.
		last.Text = cells.Truncate(last.Text+"…", room, components.TruncEnd)
		last.Cut = false
	}
	for i, l := range lines {
		s := vs.Render(l.Text)
		if l.Cut {
			s += st.Dim.Render(components.ContinuationMark)
		}
		if i == 0 {
			out = append(out, first+s)
		} else {
			out = append(out, indent+pad+s)
		}
	}
	return out
}

const maxValueLines = 8

// valueLines draws plain, escaped text in lines of at most w cells, broken
// as kvLines breaks a value, every line in style vs.
func valueLines(st *common.Styles, cells components.Cells, text string, vs lipgloss.Style, w int) []string {
	var out []string
	for _, l := range cells.WrapValue(text, w) {
		s := vs.Render(l.Text)
		if l.Cut {
			s += st.Dim.Render(components.ContinuationMark)
		}
		out = append(out, s)
	}
	return out
}
