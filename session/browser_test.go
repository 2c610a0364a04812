package session

import (
	"strings"
	"testing"
)

func TestBrowserCommand(t *testing.T) {
	tests := []struct {
		goos, url, want string
	}{
		{"linux", "http://example.com/a b", "xdg-open|http://example.com/a b"},
		{"freebsd", " http://example.com/ ", "xdg-open|http://example.com/"},
		{"darwin", "https://example.com/", "open|https://example.com/"},
		{"windows", "https://example.com/?a=1&b=2", "rundll32|url.dll,FileProtocolHandler|https://example.com/?a=1&b=2"},
		{"linux", "--help", ""},
		{"linux", "  ", ""},
	}
	for _, tt := range tests {
		name, args, err := browserCommand(tt.goos, tt.url)
		got := ""
		if err == nil {
			got = strings.Join(append([]string{name}, args...), "|")
		}
		if got != tt.want {
			t.Errorf("%s %q: %q (%v), want %q", tt.goos, tt.url, got, err, tt.want)
		}
	}
	if err := openBrowser("linux", "-x"); err == nil {
		t.Error("an option was opened as a URL")
	}
}
