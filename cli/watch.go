package cli

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/spf13/cobra"

	"rsx/display"
	"rsx/fetch"
	"rsx/internal/version"
	"rsx/model"
	"rsx/notify"
)

// watchFlags are the options of rsx watch.
type watchFlags struct {
	json        bool
	websub      bool
	callback    string
	callbackURL string
	lease       int
	maxMessage  byteSize
	count       int
	checkDocs   bool
}

func newWatchCmd(a *app) *cobra.Command {
	f := watchFlags{maxMessage: notify.DefaultMaxMessageBytes}
	cmd := &cobra.Command{
		Use: "watch [--json] URL",
		Example: `  rsx serve --addr 127.0.0.1:8080 --tick 2s &    # the demo Source, its clock advancing every 2 seconds
  rsx watch http://127.0.0.1:8080/.well-known/resourcesync
  rsx watch --json --count 5 http://127.0.0.1:8080/dataset1/capabilitylist.xml`,
		Annotations: map[string]string{annotationEndsOnSignal: "yes"},
		Short:       "Print a Source's change and framework notifications as they arrive",
		Long: `Subscribe to the change and framework notification channels that URL
advertises (ResourceSync Notification draft: Capability List entries with
capability="change-notification" or "framework-notification") and print each
notification as it arrives. URL is a Capability List, a Source Description
(every Capability List it lists), or any URL from which discovery reaches them.

Channels with ws:// or wss:// URLs are WebSockets; channels with http(s) URLs
are WebSub topics (W3C WebSub). --websub subscribes to ws(s) channels through
WebSub too, at the http(s) form of their URL: the hub is found from the
topic's Link headers, and the hub delivers to a callback server that rsx
runs on --callback (a loopback port by default).

Each notification is checked (the draft's rules and the Change List rules);
its problems go to standard error. With --check-documents, the documents a
framework notification names are fetched too: the draft never sends framework
notifications at the index level, and requires an index link for a document
that resides under an index. A readable line per change goes to
standard output, or with --json one JSON object per line:
{"channel", "kind": "change"|"framework", "url", "change", "datetime", …},
written at once. Dropped connections are reconnected with growing, jittered
waits; drops and reconnections are reported on standard error.

Runs until interrupted (or until --count changes were printed). Exit status:
0 interrupted, nothing wrong; 1 some notification had errors; 2 no channel
advertised, or URL could not be reached.`,
		Args: oneArg("URL", "a Capability List, a Source Description, or a page from which discovery finds them"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runWatch(cmd.Context(), f, args[0])
		},
	}
	fs := cmd.Flags()
	fs.BoolVar(&f.json, "json", false, "print one JSON object per change, one per line")
	fs.BoolVar(&f.websub, "websub", false, "subscribe to ws(s):// channels through WebSub instead of WebSockets")
	fs.StringVar(&f.callback, "callback", "127.0.0.1:0", "address the WebSub callback server listens on")
	fs.StringVar(&f.callbackURL, "callback-url", "", "base URL at which the hub reaches the callback server (default: http:// and the --callback address)")
	fs.IntVar(&f.lease, "lease", notify.DefaultLeaseSeconds, "WebSub lease to ask for, in seconds (renewed before it ends)")
	fs.Var(&f.maxMessage, "max-message", "largest notification accepted, e.g. 4MiB")
	fs.IntVar(&f.count, "count", 0, "stop after this many changes (0: run until interrupted)")
	fs.BoolVar(&f.checkDocs, "check-documents", false, "fetch the documents framework notifications name, to check they are not indexes and that the index they reside under is named")
	return cmd
}

func (a *app) runWatch(ctx context.Context, f watchFlags, target string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if !model.IsHTTPURL(target) {
		return failed(fmt.Errorf("watch: %q is not an http(s) URL%s", target, schemeHint(target)))
	}
	if f.count < 0 || f.lease <= 0 || f.maxMessage <= 0 {
		return failed(errors.New("watch: --count must not be negative, --lease and --max-message must be positive"))
	}
	client, err := a.http.client(target)
	if err != nil {
		return failed(err)
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	found, err := notify.Find(ctx, client, target)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return failed(fmt.Errorf("watch: %w", err))
	}
	fo := client.Options()
	opts := notify.Options{
		MaxMessageBytes: int64(f.maxMessage),
		DialTimeout:     fo.ConnectTimeout,
		HTTPClient:      watchHTTPClient(fo),
		Header:          func(u string) http.Header { return watchHeader(fo, u) },
		UseWebSub:       f.websub,
		WebSub:          &notify.WebSubOptions{CallbackAddr: f.callback, CallbackURL: f.callbackURL, LeaseSeconds: f.lease},
	}
	if f.checkDocs {
		opts.CheckDocuments = notify.HTTPHeaderFetcher(opts.HTTPClient, opts.Header, int64(f.maxMessage))
	}
	st := newTextStyles(useColor(a.err))
	fmt.Fprintf(a.err, "%s %s:\n", st.title("watching"), display.Plural(len(found.Channels), "channel", "channels"))
	for _, ch := range found.Channels {
		// What is subscribed to: with --websub, a ws(s) channel's WebSub
		// topic, not the URL the Capability List gives.
		u, webSub := notify.Endpoint(ch, f.websub)
		how := "WebSocket"
		if webSub {
			how = "WebSub topic"
		}
		fmt.Fprintf(a.err, "  %-9s %s  %s\n", ch.Kind, esc(u), st.dim("("+how+")"))
	}

	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := watchPrinter{w: a.out, json: f.json, color: useColor(a.out)}
	printed, withErrors := 0, 0
	for e := range notify.Watch(wctx, found.Channels, opts) {
		switch e.Type {
		case notify.EventConnected:
			if e.Reconnect {
				fmt.Fprintf(a.err, "%s %s\n", st.warn("reconnected"), esc(e.Channel.URL))
			}
		case notify.EventDisconnected:
			fmt.Fprintf(a.err, "%s %s; %s in %s (attempt %d)\n", st.warn("dropped:"), esc(errText(e.Err)),
				"reconnecting", e.Retry.Round(time.Millisecond), e.Attempt)
		case notify.EventNotification:
			for _, p := range e.Problems {
				label := st.warn("warning")
				if p.Severity == model.SeverityError {
					label = st.err("error")
				}
				where := ""
				if p.Entry >= 0 {
					where = " entry " + model.EntryNumber(p.Entry)
				}
				fmt.Fprintf(a.err, "%s %s %s%s: %s\n", label, st.rule(p.Rule), esc(e.Channel.URL), where, esc(p.Message))
			}
			if e.Errors() > 0 {
				withErrors++
			}
			for i := range e.Items {
				if f.count > 0 && printed >= f.count {
					break
				}
				if err := out.item(&e, i); err != nil {
					return failed(fmt.Errorf("watch: write: %w", err))
				}
				printed++
			}
			if f.count > 0 && printed >= f.count {
				cancel()
			}
		}
	}
	if withErrors > 0 {
		fmt.Fprintf(a.err, "%s with errors\n", display.Plural(withErrors, "notification", "notifications"))
		return foundProblems()
	}
	return nil
}

// watchHTTPClient makes the WebSocket handshakes and WebSub requests with the
// TLS setting of the HTTP options.
func watchHTTPClient(o fetch.Options) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	if o.Insecure {
		t.TLSClientConfig = &tls.Config{InsecureSkipVerify: true}
	}
	return &http.Client{Transport: t}
}

// watchHeader gives the User-Agent, and the -H headers and --user
// credentials bound to a channel's host, as fetch would send them.
func watchHeader(o fetch.Options, raw string) http.Header {
	h := http.Header{}
	ua := o.UserAgent
	if ua == "" {
		ua = "rsx/" + version.String()
	}
	h.Set("User-Agent", ua)
	u, err := url.Parse(raw)
	if err != nil {
		return h
	}
	hu := *u
	switch strings.ToLower(u.Scheme) {
	case "ws":
		hu.Scheme = "http"
	case "wss":
		hu.Scheme = "https"
	}
	host := fetch.CanonicalHost(&hu)
	bound := func(b string) bool {
		b = strings.ToLower(b)
		return b == host || b == strings.ToLower(hu.Hostname())
	}
	for _, x := range o.Headers {
		if bound(x.Host) {
			h.Add(x.Name, x.Value)
		}
	}
	for _, x := range o.BasicAuth {
		if bound(x.Host) {
			r := http.Request{Header: http.Header{}}
			r.SetBasicAuth(x.User, x.Password)
			h.Set("Authorization", r.Header.Get("Authorization"))
		}
	}
	return h
}

// watchPrinter writes one line per change.
type watchPrinter struct {
	w     io.Writer
	json  bool
	color bool
}

// jsonChange is the command-line contract's watch object plus the
// notification's context and its problems.
type jsonChange struct {
	Channel        string         `json:"channel"`
	Kind           string         `json:"kind"`
	URL            string         `json:"url"`
	Change         *string        `json:"change"`
	Datetime       *string        `json:"datetime"`
	Capability     string         `json:"capability,omitempty"` // framework: the changed document's
	Index          string         `json:"index,omitempty"`      // framework: its index
	CapabilityList string         `json:"capability_list"`
	Received       string         `json:"received"`
	Problems       []jsonNotified `json:"problems,omitempty"`
}

type jsonNotified struct {
	Severity string `json:"severity"`
	Rule     string `json:"rule"`
	Message  string `json:"message"`
	Entry    *int   `json:"entry"`
}

func (p *watchPrinter) item(e *notify.Event, i int) error {
	it := &e.Items[i]
	if p.json {
		j := jsonChange{Channel: e.Channel.URL, Kind: string(e.Channel.Kind), URL: it.URL,
			Capability: string(it.Capability), Index: it.Index, CapabilityList: e.Channel.CapabilityList,
			Received: e.Time.UTC().Format(time.RFC3339Nano)}
		if it.Change != "" {
			c := string(it.Change)
			j.Change = &c
		}
		if it.Datetime.OK {
			d := it.Datetime.Raw
			j.Datetime = &d
		}
		for _, pr := range e.Problems {
			if pr.Entry != -1 && pr.Entry != i {
				continue
			}
			jp := jsonNotified{Severity: pr.Severity.String(), Rule: pr.Rule, Message: pr.Message}
			if pr.Entry >= 0 {
				n := pr.Entry
				jp.Entry = &n
			}
			j.Problems = append(j.Problems, jp)
		}
		b, err := json.Marshal(j)
		if err != nil {
			return err
		}
		_, err = p.w.Write(append(display.EscapeJSON(b), '\n'))
		return err
	}
	when := it.Datetime.Raw
	if !it.Datetime.OK {
		when = "-"
	}
	change := string(it.Change)
	if change == "" {
		change = "?"
	}
	line := fmt.Sprintf("%-20s  %-9s  %s  %s", esc(when), e.Channel.Kind, p.paint(it.Change, fmt.Sprintf("%-7s", esc(change))), esc(it.URL))
	if it.Capability != "" {
		line += "  " + p.dim("("+esc(string(it.Capability))+")")
	}
	_, err := fmt.Fprintln(p.w, line)
	return err
}

func (p *watchPrinter) paint(c model.Change, s string) string {
	if !p.color {
		return s
	}
	var col lipgloss.Style
	switch c {
	case model.ChangeCreated:
		col = lipgloss.NewStyle().Foreground(lipgloss.Green)
	case model.ChangeUpdated:
		col = lipgloss.NewStyle().Foreground(lipgloss.Yellow)
	case model.ChangeDeleted:
		col = lipgloss.NewStyle().Foreground(lipgloss.Red)
	default:
		return s
	}
	return col.Render(s)
}

func (p *watchPrinter) dim(s string) string {
	if !p.color {
		return s
	}
	return lipgloss.NewStyle().Faint(true).Render(s)
}
