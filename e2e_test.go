package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The end-to-end tests build the real rsx binary, run it in a detached tmux
// session against the demo Source, type keys with send-keys and read the
// screen with capture-pane, as a person at a terminal would.

// tmuxSession is one detached tmux server and session private to a test.
type tmuxSession struct {
	t      *testing.T
	socket string
	name   string
}

func buildRSX(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "rsx")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build rsx: %v\n%s", err, out)
	}
	return bin
}

func requireTmux(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed; the end-to-end test needs it (apt-get install tmux)")
	}
}

// startTmux runs command (a shell command line) in a new 120×40 session. The
// command is followed by an "EXIT n" marker so the test can see how it ended.
func startTmux(t *testing.T, command string, env []string) *tmuxSession {
	t.Helper()
	s := &tmuxSession{
		t:      t,
		socket: fmt.Sprintf("rsx-e2e-%d-%d", os.Getpid(), time.Now().UnixNano()),
		name:   "e2e",
	}
	line := fmt.Sprintf("%s %s; echo EXIT $?; sleep 600", strings.Join(env, " "), command)
	s.tmux("new-session", "-d", "-s", s.name, "-x", "120", "-y", "40", "sh", "-c", line)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	return s
}

func (s *tmuxSession) tmux(args ...string) string {
	s.t.Helper()
	full := append([]string{"-L", s.socket, "-f", "/dev/null"}, args...)
	out, err := exec.Command("tmux", full...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (s *tmuxSession) screen() string {
	return s.tmux("capture-pane", "-p", "-t", s.name)
}

func (s *tmuxSession) keys(keys ...string) {
	s.t.Helper()
	s.tmux(append([]string{"send-keys", "-t", s.name}, keys...)...)
}

// typeText sends literal text (no key-name interpretation).
func (s *tmuxSession) typeText(text string) {
	s.t.Helper()
	s.tmux("send-keys", "-t", s.name, "-l", text)
}

// waitFor polls the screen until every want string is on it.
func (s *tmuxSession) waitFor(timeout time.Duration, want ...string) string {
	s.t.Helper()
	return s.waitUntil(timeout, fmt.Sprintf("%q", want), func(scr string) bool {
		for _, w := range want {
			if !strings.Contains(scr, w) {
				return false
			}
		}
		return true
	})
}

// waitUntil polls the screen until ok says it is the one expected.
func (s *tmuxSession) waitUntil(timeout time.Duration, what string, ok func(screen string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(timeout)
	var scr string
	for time.Now().Before(deadline) {
		scr = s.screen()
		if ok(scr) {
			return scr
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.t.Fatalf("screen never showed %s within %s; last screen:\n%s", what, timeout, scr)
	return ""
}

func e2eEnv(t *testing.T) []string {
	home := t.TempDir()
	return []string{
		"HOME=" + home,
		"XDG_CACHE_HOME=" + filepath.Join(home, "cache"),
		"TERM=xterm-256color",
		"NO_COLOR=",
	}
}

// TestE2EExplorerOnBuiltInDemo is the README's first command: rsx with no
// argument opens the explorer on the built-in demo Source.
func TestE2EExplorerOnBuiltInDemo(t *testing.T) {
	requireTmux(t)
	bin := buildRSX(t)
	// --demo-port 0: a free port, as every e2e test's demo; the default
	// port (127.0.0.1:8753) is left to the people using this machine.
	s := startTmux(t, bin+" --demo-port 0", e2eEnv(t))

	// The Source Description with its two Capability Lists.
	s.waitFor(20*time.Second, "Source Description", "/dataset1/capabilitylist.xml", "/dataset2/capabilitylist.xml")

	// Open the first Capability List: its four capabilities.
	s.keys("Enter")
	s.waitFor(15*time.Second, "Capability List", "resourcelist", "changelist", "resourcedump", "changedump")

	// Open the Resource List Index (the first entry), then its first part.
	s.keys("Enter")
	s.waitFor(15*time.Second, "Resource List Index", "resourcelist-0001.xml")
	s.keys("Enter")
	scr := s.waitFor(15*time.Second, "Resource List", "/dataset1/res/")
	if !strings.Contains(scr, "md5") && !strings.Contains(scr, "sha-256") {
		t.Errorf("a Resource List should show declared hashes; screen:\n%s", scr)
	}

	// Filter incrementally, apply with Enter, clear with esc.
	s.keys("/")
	s.typeText("000010")
	s.keys("Enter")
	s.waitUntil(10*time.Second, "only entries matching 000010", func(scr string) bool {
		return strings.Contains(scr, "/dataset1/res/000010") && !strings.Contains(scr, "/dataset1/res/000020")
	})
	s.keys("Escape")
	s.waitFor(10*time.Second, "/dataset1/res/000020")

	// The raw XML of the document.
	s.keys("x")
	s.waitFor(10*time.Second, "<urlset", "rs:md")
	s.keys("Escape")

	// Help is generated from the keymap.
	s.keys("?")
	s.waitFor(10*time.Second, "filter", "quit")
	s.keys("Escape")

	// u follows the up link to the Capability List.
	s.keys("u")
	s.waitFor(15*time.Second, "Capability List", "changedump")

	// w subscribes to the demo's notification channels; they stay live
	// when the page is closed.
	s.keys("w")
	s.waitFor(15*time.Second, "Notifications", "● live (4 channels)")
	s.keys("Escape")
	s.waitFor(10*time.Second, "● live")

	// The Change List Index (the third entry) and the coverage of its
	// history with the archive.
	s.keys("3", "g", "Enter")
	s.waitFor(15*time.Second, "Change List Index", "t/0002.xml")
	s.keys("C")
	s.waitFor(15*time.Second, "Coverage", "archive 0001.xml", "Holes and overlaps")
	s.keys("Escape")

	s.keys("q")
	s.waitFor(10*time.Second, "EXIT 0")
}

// TestE2EDiscoveryFromSiteRoot starts the demo with rsx serve, opens the site
// root (an HTML page, not a ResourceSync document) and expects discovery.
func TestE2EDiscoveryFromSiteRoot(t *testing.T) {
	requireTmux(t)
	bin := buildRSX(t)

	base := startServe(t, bin)
	s := startTmux(t, bin+" "+base+"/", e2eEnv(t))
	s.waitFor(20*time.Second, "well-known", "robots", "/dataset1/capabilitylist.xml")
	// Picking the first found document opens it.
	s.keys("Enter")
	s.waitFor(15*time.Second, "entries")
	s.keys("q")
	s.waitFor(10*time.Second, "EXIT 0")
}

// startServe runs rsx serve (with extra flags) on a free loopback port for
// the rest of the test and returns its base URL.
func startServe(t *testing.T, bin string, flags ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	serve := exec.CommandContext(ctx, bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, flags...)...)
	serve.Env = append(os.Environ(), e2eEnv(t)...)
	stdout, err := serve.StdoutPipe()
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if err := serve.Start(); err != nil {
		cancel()
		t.Fatalf("start rsx serve: %v", err)
	}
	t.Cleanup(func() { cancel(); _ = serve.Wait() })
	base, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("read rsx serve's base URL: %v", err)
	}
	base = strings.TrimSpace(base)
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("rsx serve printed %q, want its base URL", base)
	}
	return base
}

// problemCounts reads "✗ N error(s)" and "N warning(s)" from a line: the
// status bar's or the problems page's.
func problemCounts(line string) (errs, warns string) {
	errs, warns = "0", "0"
	if m := regexp.MustCompile(`✗ ?(\d+) errors?`).FindStringSubmatch(line); m != nil {
		errs = m[1]
	}
	if m := regexp.MustCompile(`(\d+) warnings?`).FindStringSubmatch(line); m != nil {
		warns = m[1]
	}
	return errs, warns
}

// lineWith is the first line of screen that contains want.
func lineWith(screen, want string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, want) {
			return l
		}
	}
	return ""
}

// TestE2EBrokenDemoProblemsAndVersions walks the broken demo as a newcomer
// would: the status bar and the Problems page count the same problems; a
// problem opens its entry and esc comes back to the same place in the
// list; a resource's versions open (the demo serves TimeMaps, TimeGates and
// mementos); q quits.
func TestE2EBrokenDemoProblemsAndVersions(t *testing.T) {
	requireTmux(t)
	bin := buildRSX(t)
	base := startServe(t, bin, "--broken")
	s := startTmux(t, bin+" --no-cache "+base+"/dataset1/resourcelist-0001.xml", e2eEnv(t))

	// The document, loaded and checked: its counts in the status bar.
	scr := s.waitFor(20*time.Second, "Resource List", "/dataset1/res/", "error")
	status := lineWith(scr, "resourcelist ")
	if strings.Contains(status, "valid") {
		t.Fatalf("the broken document is called valid: %q", status)
	}
	errs, warns := problemCounts(status)
	if errs == "0" {
		t.Fatalf("no errors in the status bar of the broken demo: %q\n%s", status, scr)
	}

	// The Problems page counts the same.
	s.keys("p")
	scr = s.waitFor(10*time.Second, "Problems", "rules")
	pe, pw := problemCounts(lineWith(scr, "Problems  "))
	if pe != errs || pw != warns {
		t.Fatalf("status bar %s errors, %s warnings; Problems page %s, %s\n%s", errs, warns, pe, pw, scr)
	}

	// Open the first group, go to its second problem, and open it: its entry.
	if !strings.Contains(scr, "▾") {
		s.keys("Enter")
		s.waitFor(5*time.Second, "▾")
	}
	s.keys("j", "j")
	time.Sleep(300 * time.Millisecond)
	// The document's checks against the documents above it run in the
	// background (the spinner turns in the title); the place is taken once
	// they ended, so that the screen it is compared with is a settled one.
	place := s.waitUntil(30*time.Second, "the checks across documents ended", func(scr string) bool {
		title, _, _ := strings.Cut(scr, "\n")
		return !strings.ContainsAny(title, "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")
	})
	s.keys("Enter")
	s.waitFor(10*time.Second, "back to Problems")
	// esc: the Problems page again, at the same place.
	s.keys("Escape")
	s.waitUntil(10*time.Second, "the problems page as it was left", func(scr string) bool { return scr == place })

	// Back to the document; a resource with versions (entry 5 of the demo
	// links its memento, TimeGate and TimeMap), and its Versions page.
	s.keys("Escape")
	s.waitFor(10*time.Second, "/dataset1/res/")
	s.keys("5", "g", "v")
	s.waitFor(15*time.Second, "Versions", "TimeMap", "memento", "/versions/v1/")

	s.keys("q")
	s.waitFor(10*time.Second, "EXIT 0")
}

// copyFiles lists the files of a destination folder, its .rsx folder aside.
func copyFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".rsx" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return out
}

// TestE2ESyncAndAuditFromTheExplorer: an archivist marks three entries,
// plans a sync into a folder (nothing is written yet), runs it (the three
// files are there), then, after the Source changed, audits the folder
// against the document and sees what is missing; then spot-checks the
// three (K), clears the marks (-) and marks every entry shown (+).
func TestE2ESyncAndAuditFromTheExplorer(t *testing.T) {
	requireTmux(t)
	bin := buildRSX(t)
	base := startServe(t, bin)
	dir := filepath.Join(t.TempDir(), "copy")
	s := startTmux(t, bin+" --no-cache "+base+"/dataset1/resourcelist-0001.xml", e2eEnv(t))
	s.waitFor(20*time.Second, "Resource List", "/dataset1/res/000001")

	// Three marks: space marks and moves on.
	s.keys("Space", "Space", "Space")
	s.waitFor(5*time.Second, "3 marked")

	// :sync DIR: the plan, and nothing written yet.
	s.keys(":")
	s.typeText("sync " + dir)
	s.keys("Enter")
	scr := s.waitFor(20*time.Second, "Sync plan", "nothing is written until enter", "+ 3 create", "/dataset1/res/000003")
	if !strings.Contains(scr, "the 3 marked of") {
		t.Errorf("the plan does not say what it syncs:\n%s", scr)
	}
	if files := copyFiles(t, dir); len(files) != 0 {
		t.Fatalf("the plan wrote %q", files)
	}

	// enter runs it: the result, and the three files.
	s.keys("Enter")
	s.waitFor(30*time.Second, "Sync result", "3 created", "0 failed")
	files := copyFiles(t, dir)
	if len(files) != 3 {
		t.Fatalf("files after the sync: %q", files)
	}
	for i, f := range files {
		if want := fmt.Sprintf("/dataset1/res/%06d.", i+1); !strings.Contains(f, want) {
			t.Errorf("file %d is %s, want one of %s*", i, f, want)
		}
	}

	// The Source changes; :audit DIR compares the folder with the
	// document's resources: the three are compared, the rest is out of the
	// copy's selection (it never claimed them), not missing.
	resp, err := http.Post(base+"/demo/advance?steps=8", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	s.keys("Escape")
	s.waitFor(10*time.Second, "3 marked")
	s.keys(":")
	s.typeText("audit " + dir)
	s.keys("Enter")
	scr = s.waitFor(30*time.Second, "Audit", "out of the copy's selection", "missing 0", "unannounced 0")
	m := regexp.MustCompile(`(\d[\d,]*) out of the copy's selection`).FindStringSubmatch(scr)
	if m == nil {
		t.Fatalf("no count of the resources out of the copy's selection:\n%s", scr)
	}
	out, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
	if out < 400 {
		t.Errorf("%d out of the copy's selection, want the document's resources but the three copied:\n%s", out, scr)
	}
	if !strings.Contains(scr, "▸ /dataset1/res/00000") || strings.Contains(scr, "incomplete") {
		t.Errorf("the three copied are not listed, or the audit is incomplete:\n%s", scr)
	}

	// K spot-checks the three marked against their claims; - clears the
	// marks, and + marks every entry shown.
	s.keys("Escape")
	s.waitFor(10*time.Second, "3 marked")
	s.keys("K")
	s.waitFor(30*time.Second, "Spot check", "of the 3 marked", "3 checked")
	s.keys("Escape", "-")
	s.waitUntil(10*time.Second, "the marks cleared", func(scr string) bool {
		return strings.Contains(scr, "/dataset1/res/000001") && !strings.Contains(scr, "marked")
	})
	s.keys("+")
	all := regexp.MustCompile(`([\d,]+) entries · ■ ([\d,]+) marked`)
	s.waitUntil(10*time.Second, "every entry marked", func(scr string) bool {
		m := all.FindStringSubmatch(scr)
		return m != nil && m[1] == m[2]
	})

	s.keys("q")
	s.waitFor(10*time.Second, "EXIT 0")
}

// TestE2EBrokenIndexAndAllParts walks the broken demo's Resource List Index
// of dataset1, whose part 3 is a Resource Dump: the index's row 3 carries
// the cross-document problem index-child-capability (as rsx validate
// --recursive and the sync plan report it), the status bar counts it and
// the problems page lists it; then the view of all parts (a): every part's
// entries in part order, n jumping to the next entry with a problem, P
// opening its problems and p the problems page, counted as the status bar
// counts them.
func TestE2EBrokenIndexAndAllParts(t *testing.T) {
	requireTmux(t)
	bin := buildRSX(t)
	base := startServe(t, bin, "--broken")
	s := startTmux(t, bin+" --no-cache "+base+"/dataset1/resourcelist.xml", e2eEnv(t))

	// The index, its checks across documents ended: row 3 is marked.
	scr := s.waitUntil(30*time.Second, "the index with its checks across documents", func(scr string) bool {
		title, _, _ := strings.Cut(scr, "\n")
		return strings.Contains(scr, "Resource List Index") && strings.Contains(scr, "resourcelist-0003.xml") &&
			strings.Contains(scr, "✗ 3 errors") && !strings.ContainsAny(title, "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")
	})
	if row := lineWith(scr, "resourcelist-0003.xml"); !strings.Contains(row, "✗") {
		t.Errorf("row 3 (the Resource Dump) has no mark: %q\n%s", row, scr)
	}
	status := lineWith(scr, "resourcelist ")
	errs, warns := problemCounts(status)

	// The problems page lists it, counted as the status bar counts.
	s.keys("p")
	scr = s.waitFor(10*time.Second, "Problems", "index-child-capability", "entry 3")
	if pe, pw := problemCounts(lineWith(scr, "Problems  ")); pe != errs || pw != warns {
		t.Errorf("status bar %s errors, %s warnings; problems page %s, %s\n%s", errs, warns, pe, pw, scr)
	}
	s.keys("Escape")
	// P on row 3: its own problems, the cross-document one among them.
	s.keys("3", "g", "P")
	s.waitFor(10*time.Second, "Problems", "index-child-capability", "this is a Resource Dump")
	s.keys("Escape")
	s.waitFor(10*time.Second, "Resource List Index", "✗ 3 errors")

	// The view of all parts, loaded to its end.
	s.keys("a")
	scr = s.waitFor(60*time.Second, "All entries of Resource List Index", "6/6 parts")
	rowRE := regexp.MustCompile(`^\s*(\d+)\s+(\d+)\s+/dataset1/`)
	// rows reads the row number and part of each table row shown.
	rows := func(scr string) (nums, parts []int) {
		for _, l := range strings.Split(scr, "\n") {
			if m := rowRE.FindStringSubmatch(l); m != nil {
				n, _ := strconv.Atoi(m[1])
				p, _ := strconv.Atoi(m[2])
				nums, parts = append(nums, n), append(parts, p)
			}
		}
		return nums, parts
	}
	nums, parts := rows(scr)
	if len(nums) < 5 || nums[0] != 1 || parts[0] != 1 || !strings.Contains(lineWith(scr, "   1      1 "), "/dataset1/res/000001.") {
		t.Fatalf("the view of all parts does not begin with part 1's first entry:\n%s", scr)
	}
	// Part order throughout: the rows at the end come from the last part
	// read, and the part never goes back.
	s.keys("G")
	scr = s.waitUntil(10*time.Second, "the end of the view", func(scr string) bool {
		_, parts := rows(scr)
		return len(parts) > 0 && parts[len(parts)-1] >= 5
	})
	nums, parts = rows(scr)
	for i := 1; i < len(nums); i++ {
		if nums[i] != nums[i-1]+1 || parts[i] < parts[i-1] {
			t.Fatalf("rows out of part order at row %d (part %d after part %d):\n%s", nums[i], parts[i], parts[i-1], scr)
		}
	}
	allStatus := lineWith(scr, "parts ·")
	if !strings.Contains(allStatus, "✗") {
		t.Fatalf("the view of all parts counts no problem: %q", allStatus)
	}

	// n from the top: the first entry with a problem; P opens its problems,
	// named by part.
	s.keys("g", "g", "n", "P")
	s.waitFor(10*time.Second, "Problems", "part 1: entry ")
	s.keys("Escape")
	s.waitFor(10*time.Second, "All entries of Resource List Index")
	// p: the problems page of the whole view, counted as its status bar.
	s.keys("p")
	scr = s.waitFor(10*time.Second, "Problems", "rules")
	m := regexp.MustCompile(`✗(\d+) !(\d+)`).FindStringSubmatch(allStatus)
	pe, pw := problemCounts(lineWith(scr, "Problems  "))
	if m == nil || pe != m[1] || pw != m[2] {
		t.Errorf("status bar %q; problems page %s errors, %s warnings\n%s", allStatus, pe, pw, scr)
	}

	s.keys("q")
	s.waitFor(10*time.Second, "EXIT 0")
}
