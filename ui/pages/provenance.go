package pages

import (
	"encoding/hex"

	"rsx/model"
	"rsx/ui/common"
	"rsx/ui/components"
)

// Provenance (§12.7): an aggregator that republishes a resource links each
// entry to the resource it copied (rs:ln rel="via"), with what that
// resource's Source declared of it. The resource page shows the origin and
// its claims beside the entry's own: where they agree, the copy is what the
// original Source said it served; the times differ by nature (the entry's
// lastmod is when the aggregator's copy changed).

// provenanceLines are the lines of the provenance section: none when the
// entry has no via link.
func provenanceLines(cells components.Cells, st *common.Styles, e model.Entry, w int) []string {
	var via *model.Link
	for i := range e.Links {
		if model.HasRel(e.Links[i].Rel, "via") {
			via = &e.Links[i]
			break
		}
	}
	if via == nil {
		return nil
	}
	out := []string{"", st.Section.Render("Provenance") + st.Dim.Render("  rel=\"via\": the original, and what its Source declared (§12.7)"),
		"  " + st.Rel.Render(cells.Pad("origin", 10)) + st.URL.Render(components.Escape(model.ResolveHref(e.Loc, via.Href)))}
	colW := max(16, min(40, (w-14)/2))
	out = append(out, "  "+cells.Pad("", 10)+st.Dim.Render(cells.Pad("the origin declared", colW)+"  this entry declares"))
	row := func(name, origin, own string, compare bool) {
		mark := ""
		switch {
		case !compare || origin == "" || own == "":
		case origin == own:
			mark = "  " + MarkMatch.Render(st) + " same"
		default:
			mark = "  " + st.MarkBad.Render("≠ differs")
		}
		if origin == "" {
			origin = "–"
		}
		if own == "" {
			own = "–"
		}
		out = append(out, "  "+st.Rel.Render(cells.Pad(name, 10))+st.Value.Render(cells.Pad(components.Escape(origin), colW))+"  "+
			st.Value.Render(components.Escape(own))+mark)
	}
	row("length", via.LengthRaw, e.MD.LengthRaw, true)
	row("type", via.Type, e.MD.Type, true)
	row("modified", via.Modified.Format(), e.Lastmod.Format()+lastmodNote(e), false)
	origin, own := digestsByAlg(via.Hash), digestsByAlg(e.MD.Hash)
	var algs []string
	for _, h := range via.Hash {
		algs = append(algs, h.Alg)
	}
	for _, h := range e.MD.Hash {
		if _, ok := origin[h.Alg]; !ok {
			algs = append(algs, h.Alg)
		}
	}
	for _, alg := range algs {
		row(alg, origin[alg], own[alg], true)
	}
	return out
}

// lastmodNote says what the entry's lastmod is, beside the origin's.
func lastmodNote(e model.Entry) string {
	if e.Lastmod.Present() {
		return " (the copy's own time)"
	}
	return ""
}

// digestsByAlg is a hash list's hex digests by algorithm.
func digestsByAlg(h model.HashList) map[string]string {
	out := map[string]string{}
	for _, x := range h {
		if x.Digest != nil {
			out[x.Alg] = hex.EncodeToString(x.Digest)
		}
	}
	return out
}
