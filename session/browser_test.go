package session

import (
	"errors"
	"strings"
	"testing"
)

func TestBrowserCommand(t *testing.T) {
	tests := []struct {
		goos, url string
		allowed   []string
		want      string
	}{
		{"linux", "http://example.com/a b", nil, "xdg-open|http://example.com/a b"},
		{"freebsd", " http://example.com/ ", nil, "xdg-open|http://example.com/"},
		{"darwin", "HTTPS://example.com/", nil, "open|HTTPS://example.com/"},
		{"windows", "https://example.com/?a=1&b=2", nil, "rundll32|url.dll,FileProtocolHandler|https://example.com/?a=1&b=2"},
		{"linux", "--help", nil, ""},
		{"linux", "  ", nil, ""},
		// Anything but http(s) is refused, unless the user allowed its scheme.
		{"linux", "file:///etc/passwd", nil, ""},
		{"linux", "javascript:alert(1)", nil, ""},
		{"linux", "vscode://file/etc/passwd", nil, ""},
		{"linux", "smb://host/share", nil, ""},
		{"linux", "/etc/passwd", nil, ""},
		{"linux", "ftp://example.com/f", []string{"FTP:"}, "xdg-open|ftp://example.com/f"},
		{"linux", "mailto:a@example.com", []string{"ftp", "mailto"}, "xdg-open|mailto:a@example.com"},
		{"linux", "file:///etc/passwd", []string{"ftp"}, ""},
		// Control characters never reach the opener.
		{"linux", "http://example.com/\u009b2J", nil, ""},
		{"linux", "http://example.com/\x1b]0;x", nil, ""},
	}
	for _, tt := range tests {
		name, args, err := browserCommand(tt.goos, tt.url, tt.allowed)
		got := ""
		if err == nil {
			got = strings.Join(append([]string{name}, args...), "|")
		}
		if got != tt.want {
			t.Errorf("%s %q %v: %q (%v), want %q", tt.goos, tt.url, tt.allowed, got, err, tt.want)
		}
	}
	if err := openBrowser("linux", "-x", nil); err == nil {
		t.Error("an option was opened as a URL")
	}
	s := NewWithGetter(nil, Options{})
	if err := s.OpenBrowser("file:///etc/passwd"); !errors.Is(err, ErrSchemeNotOpened) || !strings.Contains(err.Error(), "http and https") {
		t.Errorf("file: URL: %v", err)
	}
}
