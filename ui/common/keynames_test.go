package common

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// The names are bubbletea's own: what a key press of each is reported as.
func TestKeyNamesAreWhatKeyPressesReport(t *testing.T) {
	names := KeyNames()
	for _, want := range []string{"f1", "f12", "esc", "enter", "tab", "space", "backspace", "pgup", "pgdown", "home", "end", "up", "delete", "insert"} {
		if !slices.Contains(names, want) {
			t.Errorf("KeyNames lacks %q: %v", want, names)
		}
	}
	for _, never := range []string{"F1", "escape", "Enter", "pagedown", "return"} {
		if slices.Contains(names, never) {
			t.Errorf("KeyNames has %q, which no key press is reported as", never)
		}
	}
	for _, m := range []tea.KeyPressMsg{{Code: tea.KeyF1}, {Code: tea.KeyEscape}, {Code: 'q', Mod: tea.ModCtrl}, {Code: tea.KeyTab, Mod: tea.ModShift}, {Code: 'g', ShiftedCode: 'G', Mod: tea.ModShift, Text: "G"}} {
		if ok, _ := CheckKeyName(m.String(), names); !ok {
			t.Errorf("a key press reported as %q is refused", m.String())
		}
	}
}

// Every key an action has by default is a name a key press is reported
// as: the check refuses none of rsx's own.
func TestDefaultKeysAreKeyNames(t *testing.T) {
	names := KeyNames()
	km := DefaultKeyMap()
	v := reflect.ValueOf(km)
	for i := range v.NumField() {
		action := snake(v.Type().Field(i).Name)
		if !slices.Contains(ActionNames(), action) {
			continue
		}
		for _, k := range v.Field(i).Interface().(key.Binding).Keys() {
			if ok, _ := CheckKeyName(k, names); !ok {
				t.Errorf("%s's default key %q is refused", action, k)
			}
		}
	}
}

func TestCheckKeyName(t *testing.T) {
	names := KeyNames()
	for _, c := range []struct {
		in    string
		ok    bool
		meant string
	}{
		{"q", true, ""}, {"G", true, ""}, {"?", true, ""}, {"é", true, ""}, {"+", true, ""}, {"-", true, ""},
		{"f1", true, ""}, {"ctrl+q", true, ""}, {"shift+tab", true, ""}, {"ctrl+alt+x", true, ""}, {"alt+shift+a", true, ""},
		{"ctrl++", true, ""}, {"space", true, ""}, {"pgdown", true, ""},
		{"F1", false, "f1"},
		{"Ctrl-Q", false, "ctrl+q"},
		{"Ctrl+Q", false, "ctrl+q"},
		{"ctrl+Q", false, "ctrl+q"},
		{"C-x", false, "ctrl+x"},
		{"M-x", false, "alt+x"},
		{"^Q", false, "ctrl+q"},
		{"alt+ctrl+x", false, "ctrl+alt+x"},
		{"Shift+Tab", false, "shift+tab"},
		{"shift+a", false, "A"},
		{"Escape", false, "esc"},
		{"return", false, "enter"},
		{"PageDown", false, "pgdown"},
		{"pgdn", false, "pgdown"},
		{"entr", false, "enter"},
		{" ", false, "space"},
		{"shift+1", false, ""},
		{"hello world", false, ""},
		{"ctrl+", false, ""},
		{"\x01", false, ""},
	} {
		ok, meant := CheckKeyName(c.in, names)
		if ok != c.ok || meant != c.meant {
			t.Errorf("CheckKeyName(%q) = %v, %q; want %v, %q", c.in, ok, meant, c.ok, c.meant)
		}
	}
}

// A [keys] table's problems are named all at once: the key F1 with the
// name meant (f1), an unknown action with the one meant, the prompt's
// commands, which are no keys.
func TestKeyProblems(t *testing.T) {
	if p := KeyProblems(map[string][]string{"quit": {"x", "ctrl+q"}, "help": {"f1"}, "prompt_prev": {"ctrl+p"}}); p != nil {
		t.Errorf("good keys: %v", p)
	}
	p := KeyProblems(map[string][]string{"help": {"F1"}, "quit": {"Ctrl-Q"}, "hlp": {"h"}, "sync_cmd": {":s"}, "prompt_keys": {"x"}, "quit_cmd": {":x"}})
	all := strings.Join(p, "\n")
	for _, want := range []string{
		`keys.help: "F1" is no key name (did you mean "f1"?`,
		`keys.quit: "Ctrl-Q" is no key name (did you mean "ctrl+q"?)`,
		"keys.hlp: no such action (did you mean help?)",
		"keys.sync_cmd: :sync is a command typed at the : prompt",
		"keys.prompt_keys:",
		"keys.quit_cmd: :q is a command",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("problems lack %q:\n%s", want, all)
		}
	}
	if len(p) != 6 {
		t.Errorf("%d problems, want 6:\n%s", len(p), all)
	}
	km := DefaultKeyMap()
	if err := km.Rebind(map[string][]string{"help": {"F1"}}); err == nil || km.Help.Keys()[0] != "?" {
		t.Errorf("Rebind of help to F1: %v, help keys %v", err, km.Help.Keys())
	}
}

// The prompt's keys are actions: rebound, the help's line for them says
// the new keys.
func TestRebindPromptKeys(t *testing.T) {
	km := DefaultKeyMap()
	if h := km.PromptKeys.Help().Key; h != ": ↑/↓ tab" {
		t.Fatalf("default prompt keys help %q", h)
	}
	if err := km.Rebind(map[string][]string{"prompt_prev": {"ctrl+p"}, "complete": {"ctrl+i"}}); err != nil {
		t.Fatal(err)
	}
	if h := km.PromptKeys.Help().Key; h != ": ctrl+p/↓ ctrl+i" {
		t.Errorf("prompt keys help after rebinding: %q", h)
	}
	for _, fixed := range []string{"sync_cmd", "audit_cmd", "dest_cmd", "fleet_cmd", "quit_cmd", "prompt_keys"} {
		if slices.Contains(ActionNames(), fixed) {
			t.Errorf("ActionNames offers %s, which cannot be rebound", fixed)
		}
	}
}
