package ui

import (
	"image/color"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"rsx/session"
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
	if err == nil || !strings.Contains(err.Error(), "unknown action Quit, quitt") || !strings.Contains(err.Error(), "hist_back") {
		t.Errorf("CheckKeys with unknown actions: %v", err)
	}
}
