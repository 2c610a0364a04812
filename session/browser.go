package session

import (
	"errors"
	"fmt"
	"net/url"
	"os/exec"
	"runtime"
	"strings"

	"rsx/display"
)

// ErrSchemeNotOpened is wrapped by OpenBrowser's error for a URL whose scheme
// it does not hand to the system's opener.
var ErrSchemeNotOpened = errors.New("only http and https URLs are opened in a browser (allow another scheme with --open-scheme or RSX_OPEN_SCHEMES)")

// OpenBrowser opens url in the user's web browser and returns once the
// browser's launcher has started, without waiting for it. Nothing it starts
// writes to the terminal: its output goes to the null device.
//
// Only http and https URLs are opened, and those of the schemes the user
// allowed (Options.BrowserSchemes): a document can hold file:,
// javascript: or a custom handler's URL, and the system's opener would act
// on any of them.
func (s *Session) OpenBrowser(url string) error {
	return openBrowser(runtime.GOOS, url, s.opts.BrowserSchemes)
}

// openBrowser runs the launcher of operating system goos.
func openBrowser(goos, url string, allowed []string) error {
	name, args, err := browserCommand(goos, url, allowed)
	if err != nil {
		return err
	}
	cmd := exec.Command(name, args...)
	// Stdout and stderr stay nil (the null device): nothing may write to the
	// terminal while the explorer runs.
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}

// browserCommand is the launcher that opens raw on operating system goos.
// A URL of a scheme that is neither http(s) nor allowed is refused, and so
// is one that the launcher could take for an option or that holds control
// characters.
func browserCommand(goos, raw string, allowed []string) (string, []string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" || strings.HasPrefix(raw, "-") || strings.ContainsFunc(raw, display.Unsafe) {
		return "", nil, errors.New("not a URL to open: " + display.Escape(raw))
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return "", nil, fmt.Errorf("not a URL to open: %s", display.Escape(raw))
	}
	if !schemeAllowed(u.Scheme, allowed) {
		return "", nil, fmt.Errorf("%s: %w", display.Escape(raw), ErrSchemeNotOpened)
	}
	switch goos {
	case "darwin":
		return "open", []string{raw}, nil
	case "windows":
		return "rundll32", []string{"url.dll,FileProtocolHandler", raw}, nil
	}
	return "xdg-open", []string{raw}, nil
}

// schemeAllowed tells whether URLs of scheme may be opened: http, https and
// those the user allowed (compared without case, a trailing ":" ignored).
func schemeAllowed(scheme string, allowed []string) bool {
	if strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "https") {
		return true
	}
	for _, a := range allowed {
		if strings.EqualFold(strings.TrimSuffix(strings.TrimSpace(a), ":"), scheme) {
			return true
		}
	}
	return false
}
