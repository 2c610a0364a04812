package ui

import (
	"reflect"
	"strings"
	"testing"
)

func TestClipboardText(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		n        int
	}{
		{"http://example.org/a b", "http://example.org/a b", 0},
		{"http://example.org/ré", "http://example.org/ré", 0},
		{"http://example.org/a\nrm -rf ~", "http://example.org/a%0Arm -rf ~", 1},
		{"http://example.org/a\r\n\tb", "http://example.org/a%0D%0A%09b", 3},
		{"x\x1b[2J\x7f", "x%1B[2J%7F", 2},
		{"x\u009by", "x%C2%9By", 1},
		{"x\u202eevil\u2066", "x%E2%80%AEevil%E2%81%A6", 2},
		{"x\xffy", "x%FFy", 1},
	} {
		got, n := clipboardText(tc.in)
		if got != tc.want || n != tc.n {
			t.Errorf("clipboardText(%q) = %q, %d; want %q, %d", tc.in, got, n, tc.want, tc.n)
		}
	}
}

// clipboardOf is the text a command puts on the clipboard (OSC 52), or
// "" when it is not tea.SetClipboard's.
func clipboardOf(t *testing.T, a *App, msg copyMsg) string {
	t.Helper()
	_, cmd := a.Update(msg)
	if cmd == nil {
		t.Fatal("no command")
	}
	m := reflect.ValueOf(cmd())
	if m.Kind() != reflect.String || !strings.Contains(m.Type().Name(), "Clipboard") {
		t.Fatalf("not a clipboard command: %T", cmd())
	}
	return m.String()
}

// y on an entry whose loc holds "&#10;" copies one line: the line feed
// escaped as %0A, and the status bar says so.
func TestCopyNeverPutsAControlCharacter(t *testing.T) {
	g := newExGetter()
	g.docs["/nl/rl.xml"] = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>
<url><loc>` + exHost + `/res/a&#10;touch /tmp/pwned</loc></url>
</urlset>
`
	a, d := exApp(t, g, "/nl/rl.xml", 120, 30)
	// The key goes through the page to the root, as the user's y does.
	_, cmd := a.Update(exKey("y"))
	if cmd == nil {
		t.Fatalf("y did nothing:\n%s", d.screen())
	}
	msg, ok := cmd().(copyMsg)
	if !ok {
		t.Fatalf("y: %T", msg)
	}
	copied := clipboardOf(t, a, msg)
	if want := exHost + "/res/a%0Atouch /tmp/pwned"; copied != want {
		t.Errorf("clipboard %q, want %q", copied, want)
	}
	if s := d.screen(); !strings.Contains(s, "copied entry URL, 1 control character escaped (%XX): "+exHost+"/res/a%0Atouch /tmp/pwned") {
		t.Errorf("the status bar does not say the copy was cleaned:\n%s", s)
	}
	// A clean URL is copied as it is.
	if got := clipboardOf(t, a, copyMsg{Text: exHost + "/res/b", What: "URL"}); got != exHost+"/res/b" {
		t.Errorf("a clean URL: %q", got)
	}
}
