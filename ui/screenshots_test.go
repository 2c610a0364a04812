package ui

import (
	"context"
	"io"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"rsx/demo"
	"rsx/fetch"
	"rsx/notify"
	"rsx/session"
	"rsx/ui/pages"
)

// What the sync page says of its run: "120 of 300 resources", and
// "Failures (2), then in flight (8)".
var (
	shSyncProgress = regexp.MustCompile(`([0-9,]+) of ([0-9,]+) resources`)
	shSyncFailures = regexp.MustCompile(`Failures \(([0-9,]+)\), then in flight \(([0-9]+)\)`)
)

// TestScreenshots draws the explorer's screens for the README. It runs only
// when RSX_SCREENSHOTS names a directory (scripts/screenshots sets it), and
// writes there one NAME.ansi file per screen: View().Content with its
// colours, as the program draws it at 120×40 on a dark terminal.
// RSX_SCREENSHOTS_ADDR, RSX_SCREENSHOTS_BROKEN_ADDR and
// RSX_SCREENSHOTS_LIVE_ADDR fix the loopback addresses of the three demo
// Sources (the third's clock steps for the notifications page), so that
// URLs stay the same from one run to the next; RSX_SCREENSHOTS_VERSION is
// the version rsx reports.
//
// The screens are the real program's: the explorer is built as cmd_explore.go
// builds it (the live backend over a fetch client, against the built-in demo
// Source on loopback) and reaches each screen through key presses, with every
// load run to its end before the screen is taken.
func TestScreenshots(t *testing.T) {
	dir := os.Getenv("RSX_SCREENSHOTS")
	if dir == "" {
		t.Skip("set RSX_SCREENSHOTS=DIR to write the explorer's screens to DIR (see scripts/screenshots)")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// net/http complains through the standard logger; the explorer silences
	// it too (cmd_explore.go).
	prev := log.Writer()
	log.SetOutput(io.Discard)
	t.Cleanup(func() { log.SetOutput(prev) })

	clean := shDemo(t, os.Getenv("RSX_SCREENSHOTS_ADDR"), demo.Options{})
	broken := shDemo(t, os.Getenv("RSX_SCREENSHOTS_BROKEN_ADDR"), demo.Options{Broken: true})

	const sd = "/.well-known/resourcesync"
	shots := []struct {
		name   string
		base   string // demo base URL
		target string // path opened first
		keys   string // then typed, as exDriver.keys takes them
		want   string // text the screen must show
	}{
		// The Source Description, its first Capability List in the detail pane.
		{"source-description", clean, sd, "", "Source Description"},
		{"capability-list", clean, sd, "enter", "Capability List"},
		// A Resource List part, entry 10 selected (a Dublin Core record: it
		// describes entry 9 and has a profile), the detail pane focused and
		// scrolled to its hashes and links.
		{"resource-list", clean, sd, "enter enter enter 1 0 g tab j j", "Resource List"},
		// dataset2's open Change List: created, updated and deleted.
		{"change-list", clean, sd, "j enter 3 g enter", "Change List"},
		{"change-list-index", clean, sd, "enter j j enter", "Change List Index"},
		{"filter", clean, sd, "enter enter enter / t y p e : j s o n enter", "Resource List"},
		{"raw-xml", clean, sd, "j enter 3 g enter x", "Raw XML"},
		{"http", clean, sd, "enter enter enter h", "HTTP"},
		// The broken demo's first Resource List part carries most of the
		// seeded entry faults.
		{"problems", broken, sd, "enter enter enter p", "Problems"},
		// Entry 1 has two mirrors; the broken demo's second one is stale.
		{"resource", broken, sd, "enter enter enter enter m", "Resource"},
		// The first package of dataset1's Resource Dump, downloaded, checked
		// against its entry and verified; the broken demo put a manifest path
		// and a member that climb out of the package in it.
		{"package", broken, sd, "enter j enter enter j", "refused"},
		// The versions of a resource (entry 128 of dataset1's second Resource
		// List part has two), its TimeGate asked for a datetime typed.
		{"versions", clean, sd, "enter enter j enter 1 2 8 g v t 2 0 2 5 - 1 2 - 2 4 enter", "TimeGate"},
		// Its first version against the resource now.
		{"diff", clean, sd, "enter enter j enter 1 2 8 g v k c", "they differ"},
		// A link that is not a ResourceSync document opens as a resource:
		// entry 9's describedby link, a Dublin Core record.
		{"resource-link", clean, sd, "enter enter enter 9 g enter enter", "Resource (describedby)"},
		{"discovery", clean, "/", "", "Discovery"},
		{"help", clean, sd, "enter enter enter ?", "rsx — keys"},
		// The coverage of dataset1's change history: the broken demo's
		// archive says its first list ends 7 minutes after the next begins,
		// and its Change Lists declare periods that leave holes and overlap.
		{"coverage", broken, "/dataset1/changelist.xml", "C", "Holes and overlaps"},
	}
	for _, s := range shots {
		t.Run(s.name, func(t *testing.T) {
			a, d := shApp(t, s.base+s.target)
			d.keys(s.keys)
			if a.busy() {
				t.Errorf("still busy after every command ended")
			}
			shWrite(t, dir, s.name, a, s.want)
		})
	}
	// The notifications of a third demo Source, whose clock steps while the
	// page is open: four steps, in which a Change List closes (a framework
	// notification) and the next opens.
	t.Run("notifications", func(t *testing.T) {
		live := shDemo(t, os.Getenv("RSX_SCREENSHOTS_LIVE_ADDR"), demo.Options{})
		a, d := shApp(t, live+"/dataset1/changelist.xml")
		d.idle = 300 * time.Millisecond // the subscription's Cmd waits for ever
		d.keys("w")
		shWait(t, d, "every channel live", func() bool { return a.notes.live() == 4 })
		resp, err := http.Post(live+"/demo/advance?steps=4", "text/plain", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		shWait(t, d, "a framework notification", func() bool {
			for _, r := range a.notes.rows {
				if r.Event.Kind() == notify.KindFramework {
					return true
				}
			}
			return false
		})
		n := -1
		shWait(t, d, "the notifications of the four steps", func() bool {
			settled := len(a.notes.rows) == n // none came for a while
			n = len(a.notes.rows)
			return settled
		})
		// The cursor on the newest framework notification: the detail
		// names the Change List that closed and its index, now stale.
		if _, ok := a.active().(*pages.Notifications); ok {
			rows := a.notes.rows // the page lists them newest first
			for i := 0; i < len(rows); i++ {
				if r := rows[len(rows)-1-i]; r.Event.Kind() == notify.KindFramework {
					d.keys(strings.TrimSpace(strings.Repeat("j ", i)))
					break
				}
			}
		}
		shWrite(t, dir, "notifications", a, "● live (4 channels)")
	})
}

// shWait runs the explorer's commands until cond holds.
func shWait(t *testing.T, d *exDriver, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 15s for %s", what)
		}
		d.run(nil)
	}
}

// shWrite checks the explorer's screen and writes it to dir/name.ansi.
func shWrite(t *testing.T, dir, name string, a *App, want string) {
	t.Helper()
	screen := a.View().Content
	plain := ansi.Strip(screen)
	if !strings.Contains(plain, want) {
		t.Errorf("screen does not show %q:\n%s", want, plain)
	}
	if n := strings.Count(plain, "\n") + 1; n != shHeight {
		t.Errorf("screen has %d lines, want %d", n, shHeight)
	}
	for i, l := range strings.Split(plain, "\n") {
		if w := ansi.StringWidth(l); w > shWidth {
			t.Errorf("line %d is %d cells wide, more than %d", i+1, w, shWidth)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, name+".ansi"), []byte(screen+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s:\n%s", name, plain)
}

// The size of the screenshots.
const shWidth, shHeight = 120, 40

// shDemo serves a demo Source on addr (a free loopback port when empty or
// taken) for the rest of the test and returns its base URL.
func shDemo(t *testing.T, addr string, o demo.Options) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	srv, err := demo.Start(ctx, shAddr(addr), o)
	if err != nil && addr != "" {
		t.Logf("demo Source on %s: %v; on a free port instead", addr, err)
		srv, err = demo.Start(ctx, "127.0.0.1:0", o)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv.URL
}

// shAddr is addr, or any free loopback port when it is empty.
func shAddr(addr string) string {
	if addr == "" {
		return "127.0.0.1:0"
	}
	return addr
}

// shApp opens the explorer on target the way cmd_explore.go does, sized
// shWidth×shHeight, and runs its loads to the end.
func shApp(t *testing.T, target string) (*App, *exDriver) {
	t.Helper()
	opts := fetch.DefaultOptions()
	opts.NoCache = true
	opts.Netrc = "-"
	if v := os.Getenv("RSX_SCREENSHOTS_VERSION"); v != "" {
		opts.Version = v // as main sets it: the User-Agent on the HTTP page
	}
	client, err := fetch.NewClient(opts)
	if err != nil {
		t.Fatal(err)
	}
	a := New(Options{
		Target:  target,
		Backend: session.New(client, session.Options{}),
		Dark:    true,
	})
	// The spinner's ticks would keep the driver busy for ever; a settled
	// screen has no spinner anyway.
	a.noTick = true
	d := &exDriver{t: t, a: a, msgs: make(chan tea.Msg, 64)}
	d.send(tea.WindowSizeMsg{Width: shWidth, Height: shHeight})
	d.run(a.Init())
	t.Cleanup(func() { a.quit() })
	return a, d
}

// TestScreenshotsSync draws the sync, audit and local-copy screens for the
// README: the broken demo's first Resource List part, the entries a filter
// keeps marked, synced into "copy" (a folder of the test's own, shown by
// that name) with a client slow enough that the progress can be caught;
// then the clean demo's copy audited after the Source changed, and the
// copy's column. RSX_SCREENSHOTS_SYNC_ADDR fixes the demo Sources' address
// (the clean one on the next port).
func TestScreenshotsSync(t *testing.T) {
	dir := os.Getenv("RSX_SCREENSHOTS")
	if dir == "" {
		t.Skip("set RSX_SCREENSHOTS=DIR to write the explorer's screens to DIR (see scripts/screenshots)")
	}
	prev := log.Writer()
	log.SetOutput(io.Discard)
	t.Cleanup(func() { log.SetOutput(prev) })
	// The copy is "copy", as an archivist types it, in a folder whose name
	// does not change from one run to the next (it is in the pictures).
	work := filepath.Join(os.TempDir(), "rsx-screenshots")
	if err := os.RemoveAll(work); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(work) })
	t.Chdir(work)

	addr := os.Getenv("RSX_SCREENSHOTS_SYNC_ADDR")
	broken := shDemo(t, addr, demo.Options{Broken: true})
	cleanAddr := ""
	if addr != "" {
		host, port, _ := strings.Cut(addr, ":")
		if n, err := strconv.Atoi(port); err == nil {
			cleanAddr = host + ":" + strconv.Itoa(n+1)
		}
	}
	clean := shDemo(t, cleanAddr, demo.Options{})

	save := func(name string, a *App, want string) {
		t.Helper()
		screen := a.View().Content
		plain := ansi.Strip(screen)
		if !strings.Contains(plain, want) {
			t.Errorf("%s: the screen does not show %q:\n%s", name, want, plain)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".ansi"), []byte(screen+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s:\n%s", name, plain)
	}

	// The plan, the progress and the result, on the broken demo.
	slow := fetch.DefaultOptions()
	slow.NoCache, slow.Netrc, slow.PerHostRate, slow.PerHostConcurrency = true, "-", 12, 2
	slow.Near = nil // the demo is on loopback: slow it as a remote host
	a, d := shAppWith(t, broken+"/dataset1/resourcelist-0001.xml", slow)
	d.keys("/ 0 0 0 0 enter + esc")
	d.keys(":")
	d.typeText("sync copy")
	d.keys("enter")
	save("sync-plan", a, "What will change")
	d.handle(exKey("enter")) // (without waiting for the run)
	d.handleUntil(t, func() bool {
		p, ok := a.active().(*pages.Sync)
		if !ok || p.Title() != "Syncing" {
			return false
		}
		// 2/5 done, with requests in flight, as the page says (the broken
		// demo's failures come late: its damaged bodies are fetched again
		// before they count as failed).
		screen := ansi.Strip(a.View().Content)
		m := shSyncProgress.FindStringSubmatch(screen)
		f := shSyncFailures.FindStringSubmatch(screen)
		if m == nil || f == nil {
			return false
		}
		done, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
		total, _ := strconv.Atoi(strings.ReplaceAll(m[2], ",", ""))
		return done >= total*2/5 && f[2] != "0"
	})
	save("sync-progress", a, "Syncing")
	d.run(nil)
	save("sync-result", a, "Sync result")

	// The audit, on the clean demo: a few resources copied, then the Source
	// moves on.
	a, d = shAppWith(t, clean+"/dataset1/resourcelist-0001.xml", fetch.Options{NoCache: true, Netrc: "-", PerHostConcurrency: 8})
	d.keys("/ 0 0 0 0 enter + esc")
	d.keys(":")
	d.typeText("sync copy2")
	d.keys("enter enter")
	if p, ok := a.active().(*pages.Sync); !ok || p.Title() != "Sync result" || !strings.Contains(ansi.Strip(a.View().Content), "✓ done") {
		t.Fatalf("the sync for the audit: %s", ansi.Strip(a.View().Content))
	}
	d.keys("esc")
	resp, err := http.Post(clean+"/demo/advance?steps=40", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	d.keys(":")
	d.typeText("audit copy2")
	d.keys("enter")
	save("audit", a, "not in sync")

	// The copy's column: one file edited by hand.
	d.keys("esc - r") // (the document as the Source serves it now)
	if err := os.WriteFile(filepath.Join("copy2", strings.TrimPrefix(clean, "http://"), "dataset1", "res", "000003.json"), []byte("{}"), 0o644); err != nil {
		// (the folder is named by host and port: 127.0.0.1+PORT)
		host := strings.ReplaceAll(strings.TrimPrefix(clean, "http://"), ":", "+")
		if err := os.WriteFile(filepath.Join("copy2", host, "dataset1", "res", "000003.json"), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d.keys(":")
	d.typeText("dest copy2")
	d.keys("enter 3 g")
	save("dest-column", a, "modified")
}

// shAppWith is shApp with the client syncs and checks fetch with.
func shAppWith(t *testing.T, target string, dest fetch.Options) (*App, *exDriver) {
	t.Helper()
	opts := fetch.DefaultOptions()
	opts.NoCache, opts.Netrc = true, "-"
	client, err := fetch.NewClient(opts)
	if err != nil {
		t.Fatal(err)
	}
	dc, err := fetch.NewClient(dest)
	if err != nil {
		t.Fatal(err)
	}
	a := New(Options{Target: target, Backend: session.New(client, session.Options{Dest: session.DestOptions{Client: dc, Concurrency: 4}}), Dark: true})
	a.noTick = true
	d := &exDriver{t: t, a: a, msgs: make(chan tea.Msg, 64)}
	d.send(tea.WindowSizeMsg{Width: shWidth, Height: shHeight})
	d.run(a.Init())
	t.Cleanup(func() { a.quit() })
	return a, d
}

// handleUntil handles messages until cond holds (or fails after 30 s),
// leaving the commands still running to the next run.
func (d *exDriver) handleUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for !cond() {
		select {
		case msg := <-d.msgs:
			d.pending--
			d.handle(msg)
		case <-deadline:
			t.Fatalf("the screen never came:\n%s", ansi.Strip(d.a.View().Content))
		}
	}
}

// TestScreenshotsFleet draws the fleet page (rsx --sources FILE): three
// demo Sources, the first copied and in step, the second (broken) copied
// with failures and then moved on, the third never copied.
func TestScreenshotsFleet(t *testing.T) {
	dir := os.Getenv("RSX_SCREENSHOTS")
	if dir == "" {
		t.Skip("set RSX_SCREENSHOTS=DIR to write the explorer's screens to DIR (see scripts/screenshots)")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	prev := log.Writer()
	log.SetOutput(io.Discard)
	t.Cleanup(func() { log.SetOutput(prev) })
	work := filepath.Join(os.TempDir(), "rsx-screenshots-fleet")
	if err := os.RemoveAll(work); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(work) })
	clean := shDemo(t, os.Getenv("RSX_SCREENSHOTS_FLEET_ADDR"), demo.Options{})
	broken := shDemo(t, "", demo.Options{Broken: true})
	opts := fetch.DefaultOptions()
	opts.NoCache, opts.Netrc = true, "-"
	client, err := fetch.NewClient(opts)
	if err != nil {
		t.Fatal(err)
	}
	sess := session.New(client, session.Options{})
	ctx := context.Background()
	for _, c := range []struct{ url, dest string }{
		{clean + "/dataset1/capabilitylist.xml", filepath.Join(work, "archive")},
		{broken + "/dataset1/capabilitylist.xml", filepath.Join(work, "broken")},
	} {
		j := sess.NewSync(session.SyncRequest{Dest: c.dest, Target: c.url})
		if _, err := j.Plan(ctx, false); err != nil {
			t.Fatal(err)
		}
		if _, err := j.Run(ctx); err != nil {
			t.Fatal(err)
		}
		j.Close()
	}
	if _, err := http.Post(broken+"/demo/advance?steps=3", "text/plain", nil); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(work, "fleet.toml")
	if err := os.WriteFile(file, []byte(`dest = "`+filepath.Join(work, "archive")+`"

[[source]]
name = "datasets"
url = "`+clean+`/dataset1/capabilitylist.xml"

[[source]]
name = "broken demo"
url = "`+broken+`/dataset1/capabilitylist.xml"
dest = "`+filepath.Join(work, "broken")+`"

[[source]]
name = "images (new)"
url = "`+clean+`/dataset2/capabilitylist.xml"
dest = "`+filepath.Join(work, "images")+`"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	a := New(Options{Target: clean + "/dataset1/capabilitylist.xml", Backend: sess, Fleet: sess, FleetFile: file, Dark: true})
	a.noTick = true
	d := &exDriver{t: t, a: a, msgs: make(chan tea.Msg, 64)}
	d.send(tea.WindowSizeMsg{Width: shWidth, Height: shHeight})
	d.run(a.Init())
	t.Cleanup(func() { a.quit() })
	d.handleUntil(t, func() bool {
		s := ansi.Strip(a.View().Content)
		return strings.Contains(s, "3 Sources") && strings.Contains(s, "1 behind") && strings.Contains(s, "no copy")
	})
	shWrite(t, dir, "fleet", a, "datasets")
}
