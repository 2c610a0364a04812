package ui

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"

	"rsx/crawl"
	"rsx/dump"
	"rsx/memento"
	"rsx/model"
	"rsx/session"
	"rsx/ui/common"
	"rsx/ui/internal/uitest"
	"rsx/ui/nav"
	"rsx/ui/pages"
)

// everyPage is one of each page shown over the document, for the tests
// that read their bindings.
func everyPage(c *common.Common) []Page {
	return []Page{
		pages.NewRaw(c, "x", []byte("<a/>")),
		pages.NewHTTP(c, nil),
		pages.NewProblems(c, nil, nil),
		pages.NewResource(c, NopBackend{}, "", model.Entry{Loc: "http://example.org/r"}),
		pages.NewDiscovery(c, &crawl.Discovery{}),
		pages.NewVersions(c, NopBackend{}, "", pages.VersionRefs{Original: "http://example.org/r", TimeMap: "http://example.org/tm"}),
		pages.NewDiff(c, NopBackend{}, memento.Memento{URL: "http://example.org/v1"}, "http://example.org/r"),
		pages.NewPackage(c, NopBackend{}, dump.PackageRef{URL: "http://example.org/p.zip", Contents: "http://example.org/m.xml"}, true, dump.Options{}),
		pages.NewCoverage(c, NopBackend{}, "http://example.org/cl.xml", "http://example.org/cl.xml"),
		pages.NewNotifications(c, NopBackend{}, &notifyFeed{}, ""),
		pages.NewSync(c, &uitest.SyncJob{}, "the entries", nil),
		pages.NewAudit(c, NopBackend{}, session.AuditRequest{}, "the entries", nil),
		pages.NewSpot(c, NopBackend{}, session.SpotRequest{}, "the entries", nil),
		pages.NewFleet(c, nil, "fleet.toml", nil, nil),
	}
}

// helpBindingsOf are every binding a page's help may list (enabled or not).
func helpBindingsOf(p Page) []key.Binding {
	if h, ok := p.(nav.KeyHelper); ok {
		return h.HelpBindings()
	}
	return p.KeyBindings()
}

// readmeTable returns the rows of docs/explorer.md's table whose header row is
// header: each row's first cell, and the code spans of its cell col.
func readmeTable(t *testing.T, readme, header string, col int) map[string][]string {
	t.Helper()
	i := strings.Index(readme, header+"\n")
	if i < 0 {
		t.Fatalf("docs/explorer.md has no table %q", header)
	}
	span := regexp.MustCompile("`([^`]+)`")
	rows := map[string][]string{}
	for _, line := range strings.Split(readme[i:], "\n")[2:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if len(cells) < 2 || col >= len(cells) {
			t.Fatalf("docs/explorer.md table %q: row %q has no second cell", header, line)
		}
		name := strings.TrimSpace(cells[0])
		var spans []string
		for _, m := range span.FindAllStringSubmatch(cells[col], -1) {
			spans = append(spans, m[1])
		}
		rows[name] = spans
	}
	return rows
}

// diffKeys says what docs/explorer.md lists that help does not and the reverse.
func diffKeys(t *testing.T, where string, readme, help []string) {
	t.Helper()
	slices.Sort(readme)
	slices.Sort(help)
	readme, help = slices.Compact(readme), slices.Compact(help)
	for _, k := range readme {
		if !slices.Contains(help, k) {
			t.Errorf("%s: docs/explorer.md lists `%s`, the help (?) does not", where, k)
		}
	}
	for _, k := range help {
		if !slices.Contains(readme, k) {
			t.Errorf("%s: the help (?) lists `%s`, docs/explorer.md does not", where, k)
		}
	}
}

// TestReadmeKeysMatchHelp: the keys table of docs/explorer.md (the README's
// until issue 36 moved the explorer's reference there) lists the keys of the
// document page's help (global ones included), written as the help writes
// them, and its table of the pages each page's own keys: no more, no less.
func TestReadmeKeysMatchHelp(t *testing.T) {
	b, err := os.ReadFile("../docs/explorer.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	c := common.New(true, func() time.Time { return exTime })

	var got []string
	for _, spans := range readmeTable(t, readme, "| keys | action |", 0) {
		got = append(got, spans...)
	}
	var want []string
	for _, g := range append(c.Keys.Groups(), c.Keys.GlobalGroups()...) {
		for _, b := range g.Bindings {
			want = append(want, b.Help().Key)
		}
	}
	diffKeys(t, "document page", got, want)

	rows := readmeTable(t, readme, "| page | its own keys |", 1)
	seen := map[string]bool{}
	for _, p := range everyPage(c) {
		title := p.Title()
		var spans []string
		found := false
		for name, s := range rows {
			if strings.TrimSpace(strings.Split(name, "(")[0]) == title {
				spans, found = s, true
				seen[name] = true
			}
		}
		if !found {
			t.Errorf("docs/explorer.md's table of the pages has no row %q", title)
			continue
		}
		var keys []string
		for _, b := range helpBindingsOf(p) {
			keys = append(keys, b.Help().Key)
		}
		diffKeys(t, title+" page", spans, keys)
	}
	for name := range rows {
		if !seen[name] {
			t.Errorf("docs/explorer.md's table of the pages has a row %q that is no page", name)
		}
	}
}
