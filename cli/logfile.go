package cli

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"

	"github.com/spf13/cobra"

	"rsx/fetch"
	"rsx/internal/version"
)

// The log file (--log-file PATH, or RSX_LOG_FILE): what a long-running rsx
// (sync --follow, sync or audit --sources with --every or --follow, the
// explorer) decided on its own, as JSON lines (log/slog), for an operator
// who reads it later: the retries and their waits, the locks (a bucket's
// lease) taken over from an interrupted run, the notifications not applied
// alone (the Source's lists read instead) and those rejected, the
// notification channels that dropped, the runs the fleet's hold bound cut
// short. Appended to; made when missing (mode 0600: it names URLs and
// destinations). The standard streams say what they said before.

// logEnv names the log file when --log-file is not given.
const logEnv = "RSX_LOG_FILE"

// openLog opens the log file, when one is asked for, before the command
// runs (the root's PersistentPreRunE): a path that cannot be written
// stops the command at once.
func (a *app) openLog(cmd *cobra.Command) error {
	path := a.logPath
	if path == "" {
		path = a.getenv(logEnv)
	}
	if path == "" || a.logOut != nil {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("--log-file: %w", err)
	}
	a.logOut = f
	a.logger = slog.New(slog.NewJSONHandler(f, nil)).With("pid", os.Getpid())
	a.logger.Info("started", "command", cmd.CommandPath(), "version", version.String())
	return nil
}

// closeLog closes the log file, if one was opened.
func (a *app) closeLog() {
	if a.logOut == nil {
		return
	}
	a.logger.Info("ended")
	if err := a.logOut.Close(); err != nil {
		fmt.Fprintln(a.err, "rsx: warning:", esc(errors.Unwrap(err).Error()))
	}
	a.logOut, a.logger = nil, nil
}

// log is the log file's logger; one that writes nothing without one.
func (a *app) log() *slog.Logger {
	if a.logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return a.logger
}

// logWait logs a wait before a retry.
func (a *app) logWait(w fetch.Wait) {
	a.log().Info("retry", "url", redactURL(w.URL), "status", w.Status, "reason", w.Reason, "wait", w.Duration.String(),
		"asked", w.Asked.String(), "try", w.Try)
}

// redactURL is u without the password of its userinfo.
func redactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.User == nil {
		return u
	}
	return p.Redacted()
}
