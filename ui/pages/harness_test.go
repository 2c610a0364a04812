package pages

import (
	"strings"
	"sync"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"rsx/ui/common"
	"rsx/ui/nav"
)

// Test helpers of the pages: the same harness as rsx/ui's tests of the
// pages still there (page_harness_test.go), which the tests moved here use
// unchanged. Names start with iv as there.

// ivTestTime is the fixed clock of the inspector tests.
func ivTestTime() time.Time { return time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC) }

func ivTestCommon() *common.Common { return common.New(true, ivTestTime) }

// ivHarness runs one page as a whole program, the way the root model drives
// it: it gets the window size through SetSize, esc through Back (unless its
// input has the keyboard) and every other message through Update. The
// latest rendered screen is kept for the test to poll.
type ivHarness struct {
	p       nav.Page
	emitted *ivRecorder
}

type ivRecorder struct {
	mu     sync.Mutex
	screen string
	msgs   []tea.Msg
}

func (r *ivRecorder) record(msg tea.Msg) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, msg)
}

func (r *ivRecorder) setScreen(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.screen = s
}

func (r *ivRecorder) Screen() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.screen
}

// Msgs returns the messages the page sent up (those the harness does not
// know, e.g. nav.OpenURLMsg).
func (r *ivRecorder) Msgs() []tea.Msg {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]tea.Msg(nil), r.msgs...)
}

func (h ivHarness) Init() tea.Cmd { return h.p.Init() }

func (h ivHarness) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		h.p.SetSize(msg.Width, msg.Height)
		return h, nil
	case nav.OpenURLMsg, nav.JumpToEntryMsg, nav.ShowRawLineMsg, nav.PushMsg:
		h.emitted.record(msg) // and the page sees it too, as the root would forward it
	case tea.KeyPressMsg:
		if msg.String() == "ctrl+c" {
			return h, tea.Quit
		}
		if key.Matches(msg, ivTestCommon().Keys.Back) && !h.p.InputActive() {
			_, cmd := h.p.Back()
			return h, cmd
		}
	}
	_, cmd := h.p.Update(msg)
	return h, cmd
}

func (h ivHarness) View() tea.View {
	s := h.p.View()
	h.emitted.setScreen(s)
	return tea.NewView(s)
}

// ivRun starts page p at w×h.
// It returns the program and the recorder of its screens and messages.
func ivRun(t *testing.T, p nav.Page, w, hgt int) (*teatest.TestModel, *ivRecorder) {
	t.Helper()
	rec := &ivRecorder{}
	h := ivHarness{p: p, emitted: rec}
	tm := teatest.NewTestModel(t, h, teatest.WithInitialTermSize(w, hgt))
	t.Cleanup(func() { _ = tm.Quit() })
	return tm, rec
}

// ivWaitScreen polls the rendered screen until cond holds.
func ivWaitScreen(t *testing.T, rec *ivRecorder, cond func(string) bool) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := ansi.Strip(rec.Screen())
		if cond(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("screen never matched; last screen:\n%s", s)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// ivWaitMsgs waits until the view has sent n messages up and returns them.
func ivWaitMsgs(t *testing.T, rec *ivRecorder, n int) []tea.Msg {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		msgs := rec.Msgs()
		if len(msgs) >= n || time.Now().After(deadline) {
			return msgs
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// ivNamed gives golden.RequireEqual a file name of our choosing.
type ivNamed struct {
	testing.TB
	name string
}

func (n ivNamed) Name() string { return n.name }

// ivGolden compares a screen, ANSI stripped, with testdata/<name>.golden
// (go test -update rewrites it).
func ivGolden(t *testing.T, name, screen string) {
	t.Helper()
	golden.RequireEqual(ivNamed{t, name}, ansi.Strip(screen))
}

// ivKey is a key press as the terminal sends it.
func ivKey(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	}
	r := []rune(s)
	return tea.KeyPressMsg{Code: r[0], Text: s}
}

// ivDrive feeds messages to a page directly (no program), as the root
// would (esc through Back), running the commands it returns synchronously,
// and returns the messages it emitted that it did not consume itself.
func ivDrive(p nav.Page, msgs ...tea.Msg) []tea.Msg {
	var out []tea.Msg
	back := ivTestCommon().Keys.Back
	queue := append([]tea.Msg(nil), msgs...)
	for len(queue) > 0 {
		msg := queue[0]
		queue = queue[1:]
		var cmd tea.Cmd
		if k, ok := msg.(tea.KeyPressMsg); ok && key.Matches(k, back) && !p.InputActive() {
			_, cmd = p.Back()
		} else {
			_, cmd = p.Update(msg)
		}
		for _, m := range ivRunCmd(cmd) {
			switch m.(type) {
			case nav.OpenURLMsg, nav.JumpToEntryMsg, nav.DiscoverMsg, nav.CopyMsg, nav.OpenBrowserMsg, nav.ShowRawLineMsg, nav.PushMsg, nav.FlashMsg:
				out = append(out, m)
			default:
				queue = append(queue, m)
			}
		}
	}
	return out
}

// ivRunCmd runs a command and the batches it returns.
func ivRunCmd(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if batch, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range batch {
			out = append(out, ivRunCmd(c)...)
		}
		return out
	}
	if msg == nil {
		return nil
	}
	return []tea.Msg{msg}
}

// ivLines splits a stripped screen into lines with trailing spaces removed.
func ivLines(s string) []string {
	lines := strings.Split(ansi.Strip(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return lines
}
