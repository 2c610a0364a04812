package common

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"

	"rsx/internal/suggest"
)

// A key in the configuration file is compared, as every binding is
// (key.Matches), with the name bubbletea gives a key press
// (tea.KeyPressMsg.String()): the character it types ("q", "G", "?"), or
// its modifiers in a fixed order and the key's name, all in lower case
// ("ctrl+q", "shift+tab", "f1"). A name written otherwise ("F1", "Ctrl-Q")
// is never reported, so the action it replaces would never fire, while the
// footer showed it: the file is refused, naming the spelling that works.
// It is not rewritten to that spelling: "Ctrl+Q" may mean ctrl+q or
// ctrl+shift+q, and a file that says one thing while rsx does another is
// how "help = F1" hid the help.

// keyModifiers are the modifiers in the order bubbletea writes them.
var keyModifiers = []string{"ctrl", "alt", "shift", "meta", "hyper", "super"}

// KeyNames are the names bubbletea gives the keys that type no character
// (enter, esc, f1, pgdown, …), sorted: taken from bubbletea itself, so that
// they cannot drift from what a key press reports.
func KeyNames() []string {
	var names []string
	add := func(code rune) {
		n := tea.Key{Code: code}.Keystroke()
		if utf8.RuneCountInString(n) > 1 && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	for _, c := range []rune{tea.KeyEnter, tea.KeyTab, tea.KeyBackspace, tea.KeyEscape, tea.KeySpace} {
		add(c)
	}
	for c := tea.KeyExtended + 1; c <= tea.KeyExtended+512; c++ {
		add(c)
	}
	slices.Sort(names)
	return names
}

// keyNameAliases are names other programs give keys, and what bubbletea
// calls them.
var keyNameAliases = map[string]string{
	"escape": "esc", "return": "enter", "ret": "enter", "cr": "enter",
	"pagedown": "pgdown", "pgdn": "pgdown", "page_down": "pgdown", "pagedn": "pgdown",
	"pageup": "pgup", "page_up": "pgup",
	"del": "delete", "ins": "insert", "bs": "backspace", "bksp": "backspace", "spc": "space",
}

// modifierAliases are the ways modifiers are written elsewhere (Emacs's
// C-x and M-x, a Mac's cmd and option, ^Q).
var modifierAliases = map[string]string{
	"ctrl": "ctrl", "control": "ctrl", "ctl": "ctrl", "c": "ctrl", "^": "ctrl",
	"alt": "alt", "option": "alt", "opt": "alt", "m": "alt",
	"shift": "shift", "meta": "meta", "hyper": "hyper",
	"super": "super", "cmd": "super", "command": "super", "win": "super",
}

// keyNamesNote says how keys are named, once after the first key refused.
const keyNamesNote = "keys are named in lower case: f1, ctrl+q, shift+tab, pgdown; a character is itself: q, G, ?"

// CheckKeyName reports whether name is one a key press is reported as;
// when it is not, meant is the name it most likely meant, when one is
// certain or near ("" when none is).
func CheckKeyName(name string, names []string) (ok bool, meant string) {
	if keyNameOK(name, names) {
		return true, ""
	}
	return false, suggestKeyName(name, names)
}

// keyNameOK tells whether a key press is ever reported as name.
func keyNameOK(name string, names []string) bool {
	if r, n := utf8.DecodeRuneInString(name); n == len(name) && r != utf8.RuneError {
		return unicode.IsPrint(r) && r != ' '
	}
	rest, mods := name, 0
	for i, m := range keyModifiers {
		if after, ok := strings.CutPrefix(rest, m+"+"); ok && after != "" {
			rest, mods = after, mods|1<<i
		}
	}
	if slices.Contains(names, rest) {
		return true
	}
	r, n := utf8.DecodeRuneInString(rest)
	if mods == 0 || n != len(rest) || r == utf8.RuneError || !unicode.IsPrint(r) || r == ' ' {
		return false
	}
	// A character with modifiers: its lower case (bubbletea writes shift
	// apart), and never shift alone, which reports the character it types.
	return !unicode.IsUpper(r) && mods != 1<<slices.Index(keyModifiers, "shift")
}

// suggestKeyName is the name a key written as name was most likely meant
// by: its modifiers and key as bubbletea names them ("Ctrl-Q" ctrl+q, "F1"
// f1, "C-x" ctrl+x, "shift+a" A), or the nearest key name ("entr" enter);
// "" when none is.
func suggestKeyName(name string, names []string) string {
	if name == " " {
		return "space"
	}
	parts := splitKeyName(name)
	base := parts[len(parts)-1]
	var mods []string
	for _, p := range parts[:len(parts)-1] {
		m, ok := modifierAliases[strings.ToLower(p)]
		if !ok {
			return ""
		}
		if !slices.Contains(mods, m) {
			mods = append(mods, m)
		}
	}
	slices.SortFunc(mods, func(a, b string) int { return slices.Index(keyModifiers, a) - slices.Index(keyModifiers, b) })
	if utf8.RuneCountInString(base) > 1 {
		base = strings.ToLower(base)
		if a, ok := keyNameAliases[base]; ok {
			base = a
		} else if !slices.Contains(names, base) {
			base = suggest.Nearest(base, names)
		}
	} else if a, ok := keyNameAliases[base]; ok {
		base = a
	}
	if base == "" {
		return ""
	}
	if r, n := utf8.DecodeRuneInString(base); n == len(base) && unicode.IsLetter(r) {
		if slices.Equal(mods, []string{"shift"}) {
			return string(unicode.ToUpper(r)) // shift+a types A
		}
		if len(mods) > 0 {
			base = string(unicode.ToLower(r))
		}
	}
	s := strings.Join(append(mods, base), "+")
	if s == name || !keyNameOK(s, names) {
		return ""
	}
	return s
}

// splitKeyName cuts a key written with modifiers ("Ctrl-Q", "C-x", "^Q",
// "alt+shift+x") into its parts, the key last; a key that is itself + or -
// ("ctrl++") stays whole.
func splitKeyName(name string) []string {
	if rest, ok := strings.CutPrefix(name, "^"); ok && rest != "" {
		return append([]string{"^"}, splitKeyName(rest)...)
	}
	var parts []string
	start := 0
	for i := 0; i < len(name); i++ {
		if (name[i] == '+' || name[i] == '-') && i > start && i < len(name)-1 {
			parts = append(parts, name[start:i])
			start = i + 1
		}
	}
	return append(parts, name[start:])
}
