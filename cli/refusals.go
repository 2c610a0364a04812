package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"rsx/dest/engine"
	"rsx/dest/store"
)

// Refusals say the command that would do what was meant, with the DEST and
// URL the user gave, ready to paste: never "rsx sync --dest DEST URL" with
// placeholders when both are known.

// shellArg is s as one word of a POSIX shell: as it is when it holds no
// character the shell reads, else in single quotes (an s3:// URL's ? and &).
func shellArg(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=@%+,-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// command is the command line of args, each a shell word.
func command(args ...string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if strings.HasPrefix(a, "-") || a == "rsx" {
			out[i] = a
			continue
		}
		out[i] = shellArg(a)
	}
	return strings.Join(out, " ")
}

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

// lockWaitPoll is how often audit --dest --wait asks for DEST's lock again.
const lockWaitPoll = time.Second

// openDestWaiting is openDestForAudit, which, while another run holds DEST
// (a *store.LockedError: a sync that cron started before the audit), asks
// again every lockWaitPoll for up to wait, saying once on standard error
// that it waits. Without wait it refuses at once, as ever.
func (a *app) openDestWaiting(ctx context.Context, cmd *cobra.Command, target, dest string, wait time.Duration) (*openedDest, error) {
	deadline := time.Now().Add(wait)
	said := false
	for {
		d, err := a.openDestForAudit(ctx, cmd, target, dest)
		var locked *store.LockedError
		if err == nil || wait <= 0 || !errors.As(err, &locked) {
			return d, err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil, fmt.Errorf("%w (waited %s for it, --wait)", err, wait)
		}
		if !said {
			fmt.Fprintf(a.err, "rsx: audit: %s is in use by %s; waiting up to %s for it (--wait)\n", esc(dest), esc(locked.Holder.String()), wait)
			said = true
		}
		t := time.NewTimer(min(left, lockWaitPoll))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("audit: waiting for %s: %w", dest, ctx.Err())
		case <-t.C:
		}
	}
}
