package cli

import (
	"fmt"
	"strings"

	"rsx/dest/engine"
	"rsx/display"
)

// Refusals say the command that would do what was meant, with the DEST and
// URL the user gave, ready to paste: never "rsx sync --dest DEST URL" with
// placeholders when both are known.

// shellArg is s as one word of a POSIX shell (display.ShellWord).
func shellArg(s string) string { return display.ShellWord(s) }

// command is the command line of args, each a shell word (display.Command).
func command(args ...string) string { return display.Command(args...) }

// noCopyError is audit --dest of a DEST that holds no copy of the Source:
// a usage error (a mistyped URL or DEST in a cron line), naming what DEST
// holds and the commands that audit it or make the copy.
func noCopyError(e *engine.NoCopyError, dest, target string) error {
	msg := fmt.Sprintf("audit: %s holds no copy of %s", dest, e.Source)
	switch len(e.Holds) {
	case 0:
		msg += " nor of any Source"
	case 1:
		msg += fmt.Sprintf("; it holds %s (%s audits that copy)", e.Holds[0], command("rsx", "audit", "--dest", dest, e.Holds[0]))
	default:
		msg += "; it holds: " + strings.Join(e.Holds, ", ")
	}
	return fmt.Errorf("%s; %s makes a copy of this one", msg, command("rsx", "sync", "--dest", dest, target))
}
