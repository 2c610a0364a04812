package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"

	"rsx/demo"
	"rsx/dest/job"
	"rsx/dest/state"
	"rsx/display"
	"rsx/fetch"
	"rsx/fleet"
	"rsx/model"
	"rsx/notify"
	"rsx/session"
	"rsx/ui"
)

// runExplorer opens the terminal explorer on TARGET (a URL or a local
// file), or on the built-in demo Source, served on a free loopback port for
// as long as the explorer runs, when there is none.
func (a *app) runExplorer(cmd *cobra.Command, args []string) error {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	// Nothing may write to the terminal while the explorer draws on it: the
	// standard logger (which net/http's servers and clients use for their
	// complaints) is silenced until the explorer ends.
	prevLog := log.Writer()
	log.SetOutput(io.Discard)
	defer log.SetOutput(prevLog)

	target := ""
	if len(args) == 1 {
		target = strings.TrimSpace(args[0])
	}
	if a.broken && target != "" {
		return failed(errors.New("--broken opens the built-in demo Source with errors seeded: give no TARGET (rsx --broken), or serve it with rsx serve --broken"))
	}
	if cmd.Flags().Changed("demo-port") && (target != "" || strings.TrimSpace(a.exploreFleet) != "") {
		return failed(errors.New("--demo-port is the port of the built-in demo Source, opened when no TARGET is given: give no TARGET (rsx --demo-port 9000), or serve it with rsx serve --addr 127.0.0.1:9000"))
	}
	fleetFile := strings.TrimSpace(a.exploreFleet)
	if fleetFile != "" {
		if a.broken {
			return failed(errors.New("--broken and --sources: the fleet page shows the Sources of the file; give one or the other"))
		}
		f, err := fleet.Read(fleetFile)
		if err != nil {
			return failed(err)
		}
		if target == "" {
			target = f.Sources[0].URL // the document under the fleet page
		}
	}
	if err := a.explorerPreflight(cmd, target); err != nil {
		return failed(err)
	}
	demoSource := target == ""
	notificationsHint := ""
	if demoSource {
		addr, fallback, err := demoPortAddr(a.demoPort, cmd.Flags().Changed("demo-port"))
		if err != nil {
			return failed(err)
		}
		srv, note, err := startExplorerDemo(ctx, addr, fallback, a.broken)
		if err != nil {
			return failed(err)
		}
		defer srv.Close()
		if note != "" {
			// Said when the explorer has left the screen, where it stays.
			defer fmt.Fprintln(a.err, "rsx: "+esc(note))
		}
		target = srv.URL + "/.well-known/resourcesync"
		// Its clock stands still, so w would wait for ever without this.
		notificationsHint = "The built-in demo changes only when its clock moves; from another terminal:\n" +
			"curl -X POST '" + srv.URL + "/demo/advance?steps=4'"
	}

	opts, err := a.http.options(target)
	if err != nil {
		return failed(err)
	}
	// Nothing may write to the terminal the explorer draws on: a wait
	// before a retry shows on the exchange (Exchange.WaitingUntil), the
	// throttled hosts are the client's (Client.Throttled).
	opts.OnWait, opts.OnThrottle = a.logWait, nil
	if demoSource {
		// The demo makes its documents anew each run, its clock at its
		// start: a cache would only keep what the next run makes again.
		opts.NoCache = true
	}
	client, err := fetch.NewClient(opts)
	if err != nil {
		return failed(fmt.Errorf("set up HTTP client: %w", err))
	}
	// Syncs, audits of a copy and spot checks fetch as rsx sync does, with
	// the same politeness policy (fetch.Options.Near), on a client of their
	// own: their requests do not crowd the exchanges of the browsing.
	destClient, err := fetch.NewClient(opts)
	if err != nil {
		return failed(fmt.Errorf("set up HTTP client: %w", err))
	}

	sess := session.New(client, session.Options{TempDir: a.tempDir(), LocalFiles: !demoSource && model.IsLocal(target),
		// --max-bytes bounds every document, local files too, and is
		// what the status says when a document reaches it (issue 27).
		Decoder: documentDecoder(), MaxBytes: a.http.localDocumentLimit(),
		BrowserSchemes: a.browserSchemes(),
		// The notifications page connects as rsx watch does.
		Notify: notify.Options{DialTimeout: opts.ConnectTimeout, HTTPClient: watchHTTPClient(opts),
			Header: func(u string) http.Header { return watchHeader(opts, u) }},
		Log: a.log(),
		Dest: session.DestOptions{Client: destClient, Concurrency: job.Workers(destClient, target),
			Resolve: a.sessionResolve, Runner: a.explorerRunner(demoSource)}})
	dark, fixedTheme := a.exploreTheme()
	m := ui.New(ui.Options{
		Target: target,
		// Local files are read only when the user opened one: a
		// document from the network cannot make rsx read them.
		Backend:           sess,
		Fleet:             sess,
		FleetFile:         fleetFile,
		Dark:              dark,
		FixedTheme:        fixedTheme,
		Keys:              a.cfg.KeyBindings(),
		Dest:              strings.TrimSpace(a.exploreDest),
		NotificationsHint: notificationsHint,
	})
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(a.in), tea.WithOutput(plainWriter(a.out).(io.Writer)))
	_, err = p.Run()
	// The screen is gone: a sync still going on is stopped, and recorded
	// with what it wrote, before the process ends.
	a.stopSyncs(ctx, sess)
	if err != nil && ctx.Err() == nil {
		return failed(fmt.Errorf("explorer: %w", err))
	}
	return nil
}

// explorerRunner is the runner of the explorer's syncs and audits of a
// copy, the fleet page's included: the runner of the command line
// (dest/job), but that nothing it does may write to the terminal the
// explorer draws on (a wait before a retry shows on the exchanges).
func (a *app) explorerRunner(demoSource bool) *job.Runner {
	return &job.Runner{
		HTTP: func(target string) (fetch.Options, error) {
			o, err := a.http.options(target)
			o.OnWait, o.OnThrottle = a.logWait, nil
			if demoSource {
				o.NoCache = true // the demo lives on a new port each run
			}
			return o, err
		},
		Resolve: a.sessionResolve,
		TempDir: a.tempDir,
		Version: historyVersion(),
		Log:     a.log(),
	}
}

// syncStopWait bounds how long the explorer, as it ends, waits for its
// syncs to record what they wrote.
const syncStopWait = 2 * time.Minute

// stopSyncs stops the explorer's syncs once its screen is gone (q, ctrl+c,
// SIGTERM during a run), waits until each has recorded what it wrote and
// that it was interrupted, and says so on standard error. A signal while it
// waits (when none ended the explorer) ends the wait: the next run on that
// DEST then marks the run interrupted.
func (a *app) stopSyncs(ctx context.Context, sess *session.Session) {
	if running := sess.RunningSyncs(); len(running) > 0 {
		fmt.Fprintf(a.err, "rsx: stopping the sync into %s: recording what it wrote…\n", esc(strings.Join(running, ", ")))
	}
	wctx := context.Background()
	if ctx.Err() == nil {
		wctx = ctx
	}
	wctx, cancel := context.WithTimeout(wctx, syncStopWait)
	defer cancel()
	stopped, err := sess.StopSyncs(wctx)
	for _, st := range stopped {
		fmt.Fprintln(a.err, "rsx: "+stoppedSyncLine(st))
	}
	if err != nil {
		fmt.Fprintln(a.err, "rsx: a sync did not record its end in time: rsx log shows what its last batch recorded, and its next run continues")
	}
}

// stoppedSyncLine says what a sync stopped as the explorer ended wrote.
func stoppedSyncLine(st session.StoppedSync) string {
	r := st.Result
	what := "was interrupted"
	if r.Stopped != state.StoppedInterrupted {
		what = "stopped (" + esc(r.Stopped) + ")"
	}
	done := display.Count(r.Created+r.Updated) + " written"
	if r.Deleted > 0 {
		done += ", " + display.Count(r.Deleted) + " deleted"
	}
	if r.FailedCount > 0 {
		done += ", " + display.Count(r.FailedCount) + " failed"
	}
	return fmt.Sprintf("the sync into %s %s: %s; the next run continues (rsx log %s)", esc(st.Dest), what, done, esc(st.Dest))
}

// startExplorerDemo starts the built-in demo Source the explorer opens when
// it is given no TARGET, on addr (startDemoAt): with errors seeded when
// broken (rsx --broken, as rsx serve --broken).
func startExplorerDemo(ctx context.Context, addr string, fallback, broken bool) (*demo.Server, string, error) {
	srv, note, err := startDemoAt(ctx, addr, "--demo-port", fallback, demo.Options{Broken: broken})
	if err != nil {
		return nil, "", fmt.Errorf("start the demo Source: %w", err)
	}
	return srv, note, nil
}

// browserSchemes are the URL schemes besides http and https the user allows
// the explorer to open in a browser: --open-scheme, then RSX_OPEN_SCHEMES
// (comma-separated).
func (a *app) browserSchemes() []string {
	out := append([]string(nil), a.openSchemes...)
	for _, s := range strings.Split(os.Getenv("RSX_OPEN_SCHEMES"), ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
