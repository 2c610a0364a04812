package pages

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"rsx/claims"
	"rsx/fetch"
	"rsx/memento"
	"rsx/model"
	"rsx/session"
	"rsx/ui/internal/uitest"
	"rsx/ui/nav"
)

const ivOriginal = "http://example.com/res1.txt"

// ivVersionBodies are the bodies of the versions and of the resource now.
var ivVersionBodies = map[string]string{
	"http://example.com/versions/v1/res1.txt": "title: first\nbody: one\nend\n",
	"http://example.com/versions/v2/res1.txt": "title: second\nbody: one\nend\n",
	"http://example.com/versions/v3/res1.txt": "title: second\nbody: two\nend\n",
	ivOriginal:             "title: second\nbody: two\nend\n",
	"http://example.com/p": "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
}

// ivVersions is a backend of versions answered from memory.
type ivVersions struct {
	asked *[]string
}

func newIVVersions() ivVersions { return ivVersions{asked: &[]string{}} }

func (b ivVersions) TimeMap(_ context.Context, url string) (*memento.TimeMap, *fetch.Exchange, error) {
	*b.asked = append(*b.asked, "timemap "+url)
	if url != "http://example.com/timemap/res1.txt" {
		return nil, nil, fmt.Errorf("fetch the TimeMap: %s: 404 Not Found", url)
	}
	tm, err := memento.ParseTimeMap([]byte(uitest.TimeMap), url)
	return tm, nil, err
}

func (b ivVersions) TimeGate(_ context.Context, gate string, at time.Time) (session.TimeGateAnswer, error) {
	*b.asked = append(*b.asked, "timegate "+memento.FormatHTTPDate(at))
	tm, _ := memento.ParseTimeMap([]byte(uitest.TimeMap), "http://example.com/timemap/res1.txt")
	m := tm.Mementos[tm.At(at)]
	return session.TimeGateAnswer{Asked: at, Memento: m.URL, Datetime: m.Datetime, TimeMap: "http://example.com/timemap/res1.txt", Status: 200}, nil
}

func (b ivVersions) CompareVersions(ctx context.Context, version, current string) session.VersionDiff {
	d := ivVersionsDownloader()
	out := session.VersionDiff{}
	for _, side := range []struct {
		url  string
		body *session.Body
	}{{version, &out.Version}, {current, &out.Current}} {
		in := session.Inspect(ctx, d, claims.Options{}, claims.Target{URL: side.url}, nil)
		*side.body = session.Body{URL: side.url, FinalURL: side.url, Status: in.Received.Status, MediaType: in.MediaType, Bytes: in.Received.Bytes, Digests: in.Digests, Text: in.Text}
	}
	out.Same = ivVersionBodies[version] == ivVersionBodies[current]
	if !out.Same {
		out.Diff = "--- version\n+++ current\n@@ -1,3 +1,3 @@\n title: second\n-body: one\n+body: two\n end\n"
	}
	return out
}

func (b ivVersions) InspectResource(ctx context.Context, t claims.Target, p func(int64, int64)) session.Inspection {
	return session.Inspect(ctx, ivVersionsDownloader(), claims.Options{}, t, p)
}

func ivVersionsDownloader() *ivFakeDownloader {
	f := &ivFakeDownloader{answers: map[string]ivAnswer{}}
	for u, body := range ivVersionBodies {
		ct := "text/plain"
		if strings.HasSuffix(u, "/p") {
			ct = "image/png"
		}
		f.answers[u] = ivAnswer{status: 200, body: body, header: http.Header{"Content-Type": {ct}, "Content-Length": {fmt.Sprint(len(body))}, "Memento-Datetime": {"Mon, 05 Jan 2026 06:00:00 GMT"}}}
	}
	return f
}

// ivVersionRefs are the version links of an entry of ivOriginal.
func ivVersionRefs() VersionRefs {
	d, _ := model.ParseDatetime("2026-01-05T06:00:00Z")
	return VersionRefs{Original: ivOriginal, TimeMap: "http://example.com/timemap/res1.txt", TimeGate: "http://example.com/timegate/res1.txt",
		Mementos: []model.Link{{Rel: "memento", Href: "http://example.com/versions/v2/res1.txt", Modified: d}}}
}

// The versions page: the TimeMap as a table, the TimeGate asked for a
// datetime typed, a version's resource view and its diff with now.
func TestVersionsPageGolden(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		w, h := size[0], size[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			b := newIVVersions()
			v := NewVersions(ivTestCommon(), b, "", ivVersionRefs())
			v.SetSize(w, h)
			ivDrive(v, ivRunCmd(v.Init())...)
			if len(v.rows) != 3 || v.tbl.Selected() != 2 {
				t.Fatalf("%d versions, the latest selected: %d", len(v.rows), v.tbl.Selected())
			}
			ivGolden(t, fmt.Sprintf("view_versions_%dx%d", w, h), v.View())

			// t, a datetime, enter: the TimeGate's answer is selected.
			msgs := ivDrive(v, ivKey("t"))
			if !v.InputActive() || len(msgs) != 0 {
				t.Fatal("t did not open the datetime input")
			}
			var keys []tea.Msg
			for _, r := range "2026-01-05T07:00" {
				keys = append(keys, ivKey(string(r)))
			}
			ivDrive(v, append(keys, ivKey("enter"))...)
			if v.gate == nil || v.tbl.Selected() != 1 || (*b.asked)[len(*b.asked)-1] != "timegate Mon, 05 Jan 2026 07:00:00 GMT" {
				t.Fatalf("TimeGate answer %+v, selected %d, asked %v", v.gate, v.tbl.Selected(), *b.asked)
			}
			ivGolden(t, fmt.Sprintf("view_versions_timegate_%dx%d", w, h), v.View())

			// A datetime that is none says so and asks nothing.
			n := len(*b.asked)
			ivDrive(v, ivKey("t"), ivKey("x"), ivKey("enter"), ivKey("esc"))
			if len(*b.asked) != n || v.gateErr == nil || !strings.Contains(v.gateErr.Error(), "not a datetime") {
				t.Errorf("a bad datetime: asked %v, error %v", *b.asked, v.gateErr)
			}

			// enter: the version's resource view, held to the document's memento link.
			msgs = ivDrive(v, ivKey("enter"))
			pp, ok := msgs[0].(nav.PushMsg)
			rp, ok2 := pp.Page.(*Resource)
			if len(msgs) != 1 || !ok || !ok2 || rp.entry.Loc != "http://example.com/versions/v2/res1.txt" || !rp.entry.Lastmod.OK {
				t.Fatalf("enter sent %v", msgs)
			}
			rp.SetSize(w, h)
			ivDrive(rp, ivRunCmd(rp.Init())...)
			ivGolden(t, fmt.Sprintf("view_resource_memento_%dx%d", w, h), rp.View())

			// c: the diff of the version with the resource now.
			msgs = ivDrive(v, ivKey("c"))
			dp := msgs[0].(nav.PushMsg).Page.(*Diff)
			dp.SetSize(w, h)
			ivDrive(dp, ivRunCmd(dp.Init())...)
			screen := strings.Join(ivLines(dp.View()), "\n")
			for _, want := range []string{"-body: one", "+body: two", "✗ they differ · 1 line added, 1 line removed", "md5"} {
				if !strings.Contains(screen, want) {
					t.Errorf("diff page lacks %q:\n%s", want, screen)
				}
			}
			ivGolden(t, fmt.Sprintf("view_diff_%dx%d", w, h), dp.View())
		})
	}
}

// Only a TimeGate: its answer leads to the TimeMap. Only memento links:
// they are the versions known.
func TestVersionsPageWithoutTimeMap(t *testing.T) {
	b := newIVVersions()
	refs := ivVersionRefs()
	refs.TimeMap = ""
	v := NewVersions(ivTestCommon(), b, "", refs)
	v.SetSize(120, 40)
	ivDrive(v, ivRunCmd(v.Init())...)
	if len(v.rows) != 3 || v.gate == nil || len(*b.asked) != 2 || !strings.HasPrefix((*b.asked)[0], "timegate ") {
		t.Errorf("through the TimeGate: %d rows, asked %v", len(v.rows), *b.asked)
	}
	refs.TimeGate = ""
	v = NewVersions(ivTestCommon(), b, "", refs)
	v.SetSize(120, 40)
	if v.Init() != nil || len(v.rows) != 1 || !strings.Contains(v.View(), "none linked") {
		t.Errorf("memento links only: %d rows\n%s", len(v.rows), v.View())
	}
	// A TimeMap that cannot be read says why.
	refs = ivVersionRefs()
	refs.TimeMap = "http://example.com/timemap/missing"
	v = NewVersions(ivTestCommon(), b, "", refs)
	v.SetSize(120, 40)
	ivDrive(v, ivRunCmd(v.Init())...)
	if !strings.Contains(v.View(), "404 Not Found") {
		t.Errorf("a missing TimeMap:\n%s", v.View())
	}
}

func TestKindOfLink(t *testing.T) {
	for rel, want := range map[string]linkKind{
		"up": linkDocument, "index": linkDocument, "contents": linkDocument, "resourcesync": linkDocument,
		"timemap": linkVersions, "timegate": linkVersions, "TimeGate": linkVersions,
		"memento": linkResource, "duplicate": linkResource, "describedby": linkResource, "alternate canonical": linkResource,
		"http://www.openarchives.org/rs/terms/patch": linkResource,
	} {
		if got := kindOfLink(rel); got != want {
			t.Errorf("kindOfLink(%q) = %d, want %d", rel, got, want)
		}
	}
	// A document link is opened as a link from the document the resource
	// came from, which the root holds to Backend.FollowLink
	// (TestLinksFromTheNetworkDoNotOpenLocalFiles).
	e := model.Entry{Loc: "http://example.com/r"}
	msgs := ivRunCmd(openLinkCmd(ivTestCommon(), ivNop{}, "http://example.com/doc.xml", e, model.Link{Rel: "up"}, "file:///etc/passwd"))
	if want := (nav.OpenURLMsg{URL: "file:///etc/passwd", From: "http://example.com/doc.xml"}); len(msgs) != 1 || msgs[0] != want {
		t.Errorf("an up link: %v, want %v", msgs, want)
	}
}

// The resource view of a link's target that is not a ResourceSync
// document: status, headers, type, size, every digest, and a note for a
// binary body; "nothing checked" says why.
func TestResourceViewOfALink(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		w, h := size[0], size[1]
		b := newIVVersions()
		e := model.Entry{Loc: "http://example.com/res1", Links: []model.Link{{Rel: "describedby", Href: "http://example.com/p", HasRel: true, HasHref: true}}}
		msgs := ivRunCmd(openLinkCmd(ivTestCommon(), b, "http://example.com/doc.xml", e, e.Links[0], "http://example.com/p"))
		rp := msgs[0].(nav.PushMsg).Page.(*Resource)
		rp.SetSize(w, h)
		ivDrive(rp, ivRunCmd(rp.Init())...)
		all, _ := rp.lines(rp.c.Styles, w) // the whole page, which scrolls
		screen := strings.Join(ivLines(strings.Join(all, "\n")), "\n")
		for _, want := range []string{"Via       describedby link of example.com/res1", "HTTP 200 OK · image/png", "sha-512", "binary (image/png, 16 B): not shown",
			"nothing could be checked", "length not declared"} {
			if !strings.Contains(screen, want) {
				t.Errorf("%dx%d: the resource view of a link lacks %q:\n%s", w, h, want, screen)
			}
		}
		if rp.Title() != "Resource (describedby)" {
			t.Errorf("title %q", rp.Title())
		}
		ivGolden(t, fmt.Sprintf("view_resource_link_%dx%d", w, h), rp.View())
	}
}
