package ui

import (
	"image/color"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"rsx/session"
	"rsx/ui/common"
)

// exAppOpts is exAppOn with the options of the configuration file.
func exAppOpts(t *testing.T, o Options) (*App, *exDriver) {
	t.Helper()
	o.Target = exHost + "/dataset1/changelist.xml"
	o.Backend = session.NewWithGetter(newExGetter(), session.Options{BatchSize: 16})
	o.Now = func() time.Time { return exTime }
	o.PartConcurrency = 1
	a := New(o)
	a.noTick = true
	d := &exDriver{t: t, a: a, msgs: make(chan tea.Msg, 64)}
	d.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	d.run(a.Init())
	return a, d
}

// TestExplorerFixedTheme: theme = "dark" keeps the dark styles on a light
// terminal (theme = "auto" follows it: TestExplorerLightTerminal).
func TestExplorerFixedTheme(t *testing.T) {
	a, d := exAppOpts(t, Options{Dark: true, FixedTheme: true})
	d.send(tea.BackgroundColorMsg{Color: color.White})
	if !a.c.Styles.IsDark {
		t.Fatal("theme = dark turned light on a white background")
	}
	a, d = exAppOpts(t, Options{Dark: false, FixedTheme: true})
	d.send(tea.BackgroundColorMsg{Color: color.Black})
	if a.c.Styles.IsDark {
		t.Fatal("theme = light turned dark on a black background")
	}
}

// TestExplorerKeysRebound: [keys] quit = ["x"] quits on x, and q no longer
// does; the help shows the new key.
func TestExplorerKeysRebound(t *testing.T) {
	a, d := exAppOpts(t, Options{Dark: true, Keys: map[string][]string{"quit": {"x"}}})
	d.keys("q")
	if d.quit {
		t.Fatal("q still quits")
	}
	if h := a.c.Keys.Quit.Help(); h.Key != "x" {
		t.Errorf("help of quit: %q", h.Key)
	}
	d.keys("x")
	if !d.quit {
		t.Fatal("x does not quit")
	}
}

func TestCheckKeys(t *testing.T) {
	if err := CheckKeys(map[string][]string{"quit": {"x"}, "hist_back": {"H"}, "open_url": {"O"}, "http": {"w"}}); err != nil {
		t.Errorf("CheckKeys: %v", err)
	}
	err := CheckKeys(map[string][]string{"quitt": {"x"}, "Quit": {"y"}})
	if err == nil || !strings.Contains(err.Error(), "keys.Quit: no such action (did you mean quit?)") || !strings.Contains(err.Error(), "keys.quitt: no such action (did you mean quit?)") {
		t.Errorf("CheckKeys with unknown actions: %v", err)
	}
}

// TestExplorerPromptKeysRebound: prompt_prev, prompt_next and complete,
// rebound, are the prompt's keys (the prompt's line and the help say so);
// ↑ no longer recalls.
func TestExplorerPromptKeysRebound(t *testing.T) {
	a, d := exAppOpts(t, Options{Dark: true, Keys: map[string][]string{"prompt_prev": {"ctrl+p"}, "prompt_next": {"ctrl+n"}}})
	d.keys(":")
	d.typeText("dest")
	d.keys("enter")
	d.keys(":")
	if line := ansi.Strip(a.promptLine()); !strings.Contains(line, "ctrl+p earlier") {
		t.Errorf("prompt line: %q", line)
	}
	d.keys("up")
	if got := promptText(a); got != "" {
		t.Errorf("↑ recalled %q though prompt_prev is ctrl+p", got)
	}
	d.keys("ctrl+p")
	if got := promptText(a); got != "dest" {
		t.Errorf("ctrl+p recalled %q, want dest", got)
	}
	d.keys("ctrl+n")
	if got := promptText(a); got != "" {
		t.Errorf("ctrl+n gave %q, want the empty line being typed", got)
	}
	if h := a.c.Keys.PromptKeys.Help().Key; h != ": ctrl+p/ctrl+n tab" {
		t.Errorf("help's line for the prompt: %q", h)
	}
}

// TestConfigDocListsEveryAction: docs/config.md's table of actions is the
// key map's actions, both ways, each with its default keys and its help
// (which the doc may explain further).
func TestConfigDocListsEveryAction(t *testing.T) {
	b, err := os.ReadFile("../docs/config.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	const header = "| action | default keys | what it does |"
	keysCol := readmeTable(t, doc, header, 1)
	actions := common.ActionNames()
	km := common.DefaultKeyMap()
	byAction := km.ByAction()
	rows := map[string]bool{}
	for name, keys := range keysCol {
		action := strings.Trim(name, "`")
		rows[action] = true
		b, ok := byAction[action]
		if !ok {
			t.Errorf("docs/config.md lists %s, which is no action of the key map", name)
			continue
		}
		if !slices.Equal(keys, b.Keys()) {
			t.Errorf("docs/config.md gives %s the keys %v; its default keys are %v", name, keys, b.Keys())
		}
	}
	for _, action := range actions {
		if !rows[action] {
			t.Errorf("docs/config.md does not list the action %s", action)
		}
	}
	descCol := tableCells(t, doc, header, 2)
	for action, desc := range descCol {
		if b, ok := byAction[strings.Trim(action, "`")]; ok && !strings.HasPrefix(desc, b.Help().Desc) {
			t.Errorf("docs/config.md says %s does %q; the help says %q (the doc may say more after it)", action, desc, b.Help().Desc)
		}
	}
}

// tableCells are the rows of a Markdown table under header: each row's
// first cell and its cell col, as written.
func tableCells(t *testing.T, doc, header string, col int) map[string]string {
	t.Helper()
	i := strings.Index(doc, header+"\n")
	if i < 0 {
		t.Fatalf("no table %q", header)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(doc[i:], "\n")[2:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if col < len(cells) {
			rows[strings.TrimSpace(cells[0])] = strings.TrimSpace(cells[col])
		}
	}
	return rows
}
