package cli

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// openTerminal opens a pseudo-terminal: its follower side, which
// isTerminal tells as a terminal.
func openTerminal(t *testing.T) *os.File {
	t.Helper()
	leader, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { leader.Close() })
	fd := int(leader.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlock the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Skipf("name the pseudo-terminal: %v", err)
	}
	follower, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open the pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { follower.Close() })
	return follower
}

// --document never writes a Source's bytes raw to a terminal: it refuses,
// saying how to save them.
func TestLogDocumentRefusesATerminal(t *testing.T) {
	dest, target := syncDemo(t, 1)
	tty := openTerminal(t)
	if !isTerminal(tty) {
		t.Skip("the pseudo-terminal is no terminal here")
	}
	var errb strings.Builder
	code := run([]string{"log", "--run", "1", "--document", target, dest}, streams{in: strings.NewReader(""), out: tty, err: &errb})
	if code != 2 || !strings.Contains(errb.String(), "-o FILE") {
		t.Errorf("--document to a terminal: exit %d: %s", code, errb.String())
	}
}
