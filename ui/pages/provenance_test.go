package pages

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"rsx/model"
)

// The page of an entry an aggregator republished shows its origin (the via
// link) and the origin's claims beside the entry's own; an entry without a
// via link shows no such section.
func TestResourceViewProvenance(t *testing.T) {
	e := model.Entry{Loc: "http://agg.example.org/res1.html", Lastmod: ivDatetime(t, "2013-01-03T20:00:00Z"),
		MD: model.Metadata{Type: "text/html", Length: 8876, LengthRaw: "8876", LengthOK: true,
			Hash: ivHashes(t, "md5:1584abdf8ebdc9802ac0c6a7402c03b6 sha-256:"+ivSHA256("x"))}}
	e.Links = []model.Link{{Rel: "via", Href: "http://original.example.com/res1.html", Modified: ivDatetime(t, "2013-01-03T07:00:00Z"),
		Hash: ivHashes(t, "md5:1584abdf8ebdc9802ac0c6a7402c03b6 sha-256:"+ivSHA256("y")), LengthRaw: "8876", Length: 8876, LengthOK: true, Type: "text/html"}}
	v := NewResource(ivTestCommon(), ivChecker(&ivFakeDownloader{}), "", e)
	lines, _ := v.lines(v.c.Styles, 120)
	text := ansi.Strip(strings.Join(lines, "\n"))
	for _, want := range []string{
		"Provenance",
		"origin    http://original.example.com/res1.html",
		"2013-01-03T07:00:00Z",
		"2013-01-03T20:00:00Z (the copy's own time)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q on the page:\n%s", want, text)
		}
	}
	for _, row := range []struct{ field, mark string }{{"length", "✓ same"}, {"type", "✓ same"}, {"md5", "✓ same"}, {"sha-256", "≠ differs"}} {
		found := false
		for _, l := range strings.Split(text, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), row.field+" ") && strings.HasSuffix(l, row.mark) {
				found = true
			}
		}
		if !found {
			t.Errorf("no %s row marked %q:\n%s", row.field, row.mark, text)
		}
	}
	e.Links = nil
	v = NewResource(ivTestCommon(), ivChecker(&ivFakeDownloader{}), "", e)
	lines, _ = v.lines(v.c.Styles, 120)
	if text := ansi.Strip(strings.Join(lines, "\n")); strings.Contains(text, "Provenance") {
		t.Errorf("a page without a via link shows provenance:\n%s", text)
	}
}
