package cli

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"

	"rsx/demo"
	"rsx/fetch"
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
	if err := a.explorerPreflight(cmd, target); err != nil {
		return failed(err)
	}
	demoSource := target == ""
	notificationsHint := ""
	if demoSource {
		srv, err := demo.Start(ctx, "127.0.0.1:0", demo.Options{})
		if err != nil {
			return failed(fmt.Errorf("start the demo Source: %w", err))
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
	// before a retry shows on the exchange (Exchange.WaitingUntil).
	opts.OnWait = nil
	if demoSource {
		// The demo lives on a new port each run: caching it would only fill
		// the cache with documents nobody asks for again.
		opts.NoCache = true
	}
	client, err := fetch.NewClient(opts)
	if err != nil {
		return failed(fmt.Errorf("set up HTTP client: %w", err))
	}
	// Syncs, audits of a copy and spot checks fetch as rsx sync does: fast
	// on this machine's or this network's own Source.
	hf := a.http.forTarget(cmd, target)
	dopts, err := hf.options(target)
	if err != nil {
		return failed(err)
	}
	dopts.OnWait, dopts.NoCache = nil, opts.NoCache
	destClient, err := fetch.NewClient(dopts)
	if err != nil {
		return failed(fmt.Errorf("set up HTTP client: %w", err))
	}

	m := ui.New(ui.Options{
		Target: target,
		// Local files are read only when the user opened one: a
		// document from the network cannot make rsx read them.
		Backend: session.New(client, session.Options{TempDir: a.tempDir(), LocalFiles: !demoSource && model.IsLocal(target),
			// --max-bytes bounds every document, local files too, and is
			// what the status says when a document reaches it (issue 27).
			Decoder: documentDecoder(), MaxBytes: a.http.localDocumentLimit(),
			BrowserSchemes: a.browserSchemes(),
			// The notifications page connects as rsx watch does.
			Notify: notify.Options{DialTimeout: opts.ConnectTimeout, HTTPClient: watchHTTPClient(opts),
				Header: func(u string) http.Header { return watchHeader(opts, u) }},
			Dest: session.DestOptions{Client: destClient, Concurrency: 2 * hf.concurrency}}),
		Dark:              true,
		Dest:              strings.TrimSpace(a.exploreDest),
		NotificationsHint: notificationsHint,
	})
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(a.in), tea.WithOutput(a.out))
	if _, err := p.Run(); err != nil && ctx.Err() == nil {
		return failed(fmt.Errorf("explorer: %w", err))
	}
	return nil
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
