package pages

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"rsx/session"
	"rsx/ui/internal/uitest"
	"rsx/ui/nav"
)

// oddWidths are characters that terminals count differently by code point
// and by grapheme cluster: a ZWJ family, flags, a skin tone, Hangul
// fillers, and CJK (wide by both).
var oddWidths = []string{"👨\u200d👩\u200d👧", "🇫🇷🇩🇪", "👍🏽", "\u3164\u3164", "漢字"}

// oddURI is resource i's URI, long and full of odd characters.
func oddURI(i int) string {
	o := oddWidths[i%len(oddWidths)]
	return fmt.Sprintf("http://example.org/%s/%s-%02d.html", strings.Repeat(o, 12), o, i)
}

// TestOddWidthsOnDestinationPages draws the sync plan, progress and
// result, the audit and the fleet with URIs, names and messages full of
// odd characters, under both counts a terminal may use, at 120, 100 and 80
// columns: every line the page pads or draws to its width (uitest.OverPadded)
// is that wide as the terminal counts.
func TestOddWidthsOnDestinationPages(t *testing.T) {
	for _, m := range []ansi.Method{ansi.WcWidth, ansi.GraphemeWidth} {
		for _, sz := range []struct{ w, h int }{{120, 40}, {100, 30}, {80, 24}} {
			c := ivTestCommon()
			c.WidthMethod = m
			check := func(name string, p nav.Page) {
				t.Helper()
				p.SetSize(sz.w, sz.h)
				view := p.View()
				for _, e := range uitest.OverPadded(view, m, sz.w) {
					t.Errorf("%s, method %d, %dx%d: %s", name, m, sz.w, sz.h, e)
				}
				if testing.Verbose() {
					t.Logf("%s, method %d, %dx%d:\n%s", name, m, sz.w, sz.h, ansi.Strip(view))
				}
			}

			job := uitest.NewSyncJob()
			job.PlanAnswer.Plan.Notes = append(job.PlanAnswer.Plan.Notes, "a note about "+oddURI(3))
			for i := range job.PlanAnswer.Items {
				job.PlanAnswer.Items[i].Entry.URI = oddURI(i)
				job.PlanAnswer.Items[i].Reason = "the copy " + oddURI(i) + " is missing"
			}
			job.Res.Failed[0].URL, job.Res.Failed[0].Err = oddURI(1), errors.New("md5 of "+oddURI(1)+": declared 1584abdf…")
			sp := NewSync(c, job, "the marked "+oddWidths[0]+" entries", nil)
			sp.SetSize(sz.w, sz.h)
			ivDrive(sp, ivRunCmd(sp.Init())...)
			check("sync plan", sp)
			u := uitest.Progress()
			for i := range u.Progress.InFlight {
				u.Progress.InFlight[i] = oddURI(i)
			}
			for i := range u.Failures {
				u.Failures[i].URL, u.Failures[i].Err = oddURI(i), errors.New("fetch "+oddURI(i)+": 404 Not Found")
			}
			sp.stage = syncRunning
			sp.progressed(u)
			sp.layout()
			check("sync progress", sp)
			sp.stage = syncPlanned
			ivDrive(sp, ivKey("enter"))
			if sp.stage != syncDone {
				t.Fatalf("stage %d after enter", sp.stage)
			}
			check("sync result", sp)

			rep := uitest.Audit()
			for i := range rep.Missing {
				rep.Missing[i] = oddURI(i)
			}
			rep.Warnings = append(rep.Warnings, "a warning about "+oddURI(2))
			b := &fakeDestBackend{audit: rep}
			ap := NewAudit(c, b, session.AuditRequest{Dest: "/tmp/" + oddWidths[1], Target: "http://example.org/dataset1/resourcelist-1.xml"}, "the resources of "+oddWidths[0], nil)
			ap.SetSize(sz.w, sz.h)
			ivDrive(ap, ivRunCmd(ap.Init())...)
			check("audit", ap)

			srcs := fleetSources()
			for i := range srcs {
				srcs[i].Name = strings.Repeat(oddWidths[i%len(oddWidths)], 3)
				srcs[i].Dest = "/archive/" + strings.Repeat(oddWidths[(i+1)%len(oddWidths)], 10)
			}
			fp := NewFleet(c, fakeFleet{}, "fleet-"+oddWidths[0]+".toml", srcs, ivTestTime)
			fp.SetSize(sz.w, sz.h)
			ivDrive(fp, ivRunCmd(fp.Init())...)
			check("fleet", fp)
		}
	}
}
