package session

import (
	"errors"
	"os/exec"
	"runtime"
	"strings"
)

// OpenBrowser opens url in the user's web browser and returns once the
// browser's launcher has started, without waiting for it. Nothing it starts
// writes to the terminal: its output goes to the null device.
func (s *Session) OpenBrowser(url string) error { return openBrowser(runtime.GOOS, url) }

// openBrowser runs the launcher of operating system goos.
func openBrowser(goos, url string) error {
	name, args, err := browserCommand(goos, url)
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

// browserCommand is the launcher that opens url on operating system goos.
// A URL that the launcher could take for an option is refused.
func browserCommand(goos, url string) (string, []string, error) {
	url = strings.TrimSpace(url)
	if url == "" || strings.HasPrefix(url, "-") {
		return "", nil, errors.New("not a URL to open: " + url)
	}
	switch goos {
	case "darwin":
		return "open", []string{url}, nil
	case "windows":
		return "rundll32", []string{"url.dll,FileProtocolHandler", url}, nil
	}
	return "xdg-open", []string{url}, nil
}
