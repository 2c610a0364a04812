package components

import (
	"testing"
	"time"

	"rsx/fetch"
)

// TestURLHelpers: the scheme dropped for display, the origin of a URL, and
// a loc shown from its path on the document's own host only.
func TestURLHelpers(t *testing.T) {
	for _, tt := range []struct{ in, short, origin string }{
		{"https://example.org/a/b.xml", "example.org/a/b.xml", "https://example.org"},
		{"http://example.org:8080", "example.org:8080", "http://example.org:8080"},
		{"/local/file.xml", "/local/file.xml", ""},
		{"://x/y", "x/y", ""},
	} {
		if got := ShortURL(tt.in); got != tt.short {
			t.Errorf("ShortURL(%q) = %q, want %q", tt.in, got, tt.short)
		}
		if got := OriginOf(tt.in); got != tt.origin {
			t.Errorf("OriginOf(%q) = %q, want %q", tt.in, got, tt.origin)
		}
	}
	for _, tt := range []struct{ origin, loc, want string }{
		{"https://example.org", "https://example.org/res/1.html", "/res/1.html"},
		{"https://example.org", "https://example.org.evil/res", "https://example.org.evil/res"},
		{"https://example.org", "https://other.org/res", "https://other.org/res"},
		{"https://example.org", "https://example.org", "https://example.org"},
		{"", "https://example.org/res", "https://example.org/res"},
	} {
		if got := DisplayLoc(tt.origin, tt.loc); got != tt.want {
			t.Errorf("DisplayLoc(%q, %q) = %q, want %q", tt.origin, tt.loc, got, tt.want)
		}
	}
}

// TestRetryWait: the newest unfinished exchange of ours that waits is the
// wait, said in whole seconds with its reason; none when there is none.
func TestRetryWait(t *testing.T) {
	now := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	ours := func(u string) bool { return u == "http://example.org/a.xml" }
	exs := []*fetch.Exchange{
		{URL: "http://example.org/a.xml", WaitingUntil: now.Add(time.Hour), WaitReason: "back-off"},
		{URL: "http://example.org/b.xml", WaitingUntil: now.Add(2 * time.Hour), WaitReason: "back-off"}, // not ours
		{URL: "http://example.org/a.xml", WaitingUntil: now.Add(42 * time.Second), WaitReason: "Retry-After"},
		{URL: "http://example.org/a.xml", Done: true, WaitingUntil: now.Add(time.Minute)}, // done
		nil,
	}
	w := WaitOf(exs, ours)
	if !w.Waiting() || w.Text(now) != "waiting 42s to try again (Retry-After)" {
		t.Errorf("wait %v %q", w.Waiting(), w.Text(now))
	}
	if got := w.Text(now.Add(41*time.Second + 600*time.Millisecond)); got != "waiting 1s to try again (Retry-After)" {
		t.Errorf("under a second left: %q", got)
	}
	if got := w.Text(now.Add(time.Minute)); got != "trying again (Retry-After)" {
		t.Errorf("past the wait: %q", got)
	}
	if w := WaitOf(exs[1:2], ours); w.Waiting() {
		t.Errorf("a wait of another URL: %q", w.Text(now))
	}
}
