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

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"

	"rsx/demo"
	"rsx/dest/job"
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
		srv, err := startExplorerDemo(ctx, a.broken)
		if err != nil {
			return failed(err)
		}
		defer srv.Close()
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
		// The demo lives on a new port each run: caching it would only fill
		// the cache with documents nobody asks for again.
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
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(a.in), tea.WithOutput(a.out))
	if _, err := p.Run(); err != nil && ctx.Err() == nil {
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

// startExplorerDemo starts the built-in demo Source the explorer opens when
// it is given no TARGET, on a free loopback port: with errors seeded when
// broken (rsx --broken, as rsx serve --broken).
func startExplorerDemo(ctx context.Context, broken bool) (*demo.Server, error) {
	srv, err := demo.Start(ctx, "127.0.0.1:0", demo.Options{Broken: broken})
	if err != nil {
		return nil, fmt.Errorf("start the demo Source: %w", err)
	}
	return srv, nil
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
