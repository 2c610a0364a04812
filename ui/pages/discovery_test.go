package pages

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"rsx/crawl"
	"rsx/model"
	"rsx/ui/nav"
)

func ivDiscovery() *crawl.Discovery {
	return &crawl.Discovery{
		Input:        "http://example.com/collection/page.html",
		InputReached: true,
		Attempts: []crawl.Attempt{
			{Method: crawl.MethodInput, URL: "http://example.com/collection/page.html", Status: 200},
			{Method: crawl.MethodLinkHeader, URL: "http://example.com/collection/page.html", Status: 200,
				Found: []string{"http://example.com/collection/capabilitylist.xml"}},
			{Method: crawl.MethodHTMLLink, URL: "http://example.com/collection/page.html", Status: 200,
				Notes: []string{"a <link rel=\"resourcesync\"> outside <head> was ignored"}},
			{Method: crawl.MethodWellKnown, URL: "http://example.com/collection/.well-known/resourcesync", Status: 404,
				Err: "GET http://example.com/collection/.well-known/resourcesync: 404 Not Found"},
			{Method: crawl.MethodWellKnown, URL: "http://example.com/.well-known/resourcesync", Status: 200,
				Found: []string{"http://example.com/.well-known/resourcesync"}},
			{Method: crawl.MethodRobots, URL: "http://example.com/robots.txt", Status: 0, Err: "dial tcp: i/o timeout"},
			{Method: crawl.MethodUp, URL: "http://example.com/collection/capabilitylist.xml", Status: 200,
				Found: []string{"http://example.com/.well-known/resourcesync"}},
		},
		Found: []crawl.Found{
			{Method: crawl.MethodLinkHeader, URL: "http://example.com/collection/capabilitylist.xml", Capability: model.CapCapabilityList, Root: model.RootURLSet},
			{Method: crawl.MethodWellKnown, URL: "http://example.com/.well-known/resourcesync", Capability: model.CapDescription, Root: model.RootURLSet},
		},
		SourceDescription: "http://example.com/.well-known/resourcesync",
		UpChain:           []string{"http://example.com/collection/capabilitylist.xml", "http://example.com/.well-known/resourcesync"},
		CapabilityLists:   []string{"http://example.com/collection/capabilitylist.xml", "http://example.com/other/capabilitylist.xml"},
	}
}

func TestDiscoveryViewGolden(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		w, h := size[0], size[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			tm, rec := ivRun(t, NewDiscovery(ivTestCommon(), ivDiscovery()), w, h)
			ivWaitScreen(t, rec, func(s string) bool { return strings.Contains(s, "Source Description found") })
			ivGolden(t, fmt.Sprintf("view_discovery_%dx%d", w, h), rec.Screen())
			tm.Type("G")
			tm.Send(ivKey("enter"))
			ivWaitScreen(t, rec, func(s string) bool {
				return strings.Contains(s, "▸ ↑  http://example.com/.well-known/resourcesync")
			})
			ivGolden(t, fmt.Sprintf("view_discovery_last_%dx%d", w, h), rec.Screen())
		})
	}
}

func TestDiscoveryViewPick(t *testing.T) {
	v := NewDiscovery(ivTestCommon(), ivDiscovery())
	v.SetSize(100, 12)
	if got := v.Selected(); got != "http://example.com/.well-known/resourcesync" {
		t.Errorf("initial selection %q", got)
	}
	// What discovery found is opened as a link from where it started.
	from := ivDiscovery().Input
	steps := []struct {
		key  string
		want tea.Msg
	}{
		{"j", nav.OpenURLMsg{URL: "http://example.com/collection/capabilitylist.xml", From: from}},
		{"j", nav.OpenURLMsg{URL: "http://example.com/other/capabilitylist.xml", From: from}},
		{"G", nav.OpenURLMsg{URL: "http://example.com/.well-known/resourcesync", From: from}}, // the end of the up chain
		{"k", nav.OpenURLMsg{URL: "http://example.com/collection/capabilitylist.xml", From: from}},
		{"g", nav.OpenURLMsg{URL: "http://example.com/.well-known/resourcesync", From: from}},
	}
	for _, s := range steps {
		msgs := ivDrive(v, ivKey(s.key), ivKey("enter"))
		if len(msgs) != 1 || msgs[0] != s.want {
			t.Errorf("%s enter: %v, want %v", s.key, msgs, s.want)
		}
		// The selection is always on screen.
		if !strings.Contains(v.View(), "▸ ") {
			t.Errorf("after %s the selection is off screen:\n%s", s.key, v.View())
		}
	}
	msgs := ivDrive(v, ivKey("y"))
	if len(msgs) != 1 || msgs[0] != (nav.CopyMsg{Text: "http://example.com/.well-known/resourcesync", What: "URL"}) {
		t.Errorf("y: %v", msgs)
	}
}

func TestDiscoveryViewNothingFound(t *testing.T) {
	d := &crawl.Discovery{
		Input: "http://nowhere.example/", InputReached: false,
		Attempts: []crawl.Attempt{{Method: crawl.MethodInput, URL: "http://nowhere.example/", Err: "dial tcp: no such host"}},
	}
	v := NewDiscovery(ivTestCommon(), d)
	v.SetSize(80, 20)
	screen := strings.Join(ivLines(v.View()), "\n")
	for _, want := range []string{"✗ the input URL did not answer", "dial tcp: no such host", "no ResourceSync document", "not reached"} {
		if !strings.Contains(screen, want) {
			t.Errorf("missing %q:\n%s", want, screen)
		}
	}
	if msgs := ivDrive(v, ivKey("enter")); len(msgs) != 0 {
		t.Errorf("enter with nothing to open sent %v", msgs)
	}
	nilView := NewDiscovery(ivTestCommon(), nil)
	nilView.SetSize(40, 5)
	_ = nilView.View()
}
