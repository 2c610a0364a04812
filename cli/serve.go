package cli

import (
	"context"
	"fmt"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"rsx/demo"
	"rsx/display"
	"rsx/republish"
)

// serveFlags are the options of rsx serve.
type serveFlags struct {
	addr        string
	resources   int
	listSize    int
	packageSize int
	broken      bool
	tick        time.Duration
	seed        int64
	start       string
	liveLists   int
	liveDumps   int

	// rsx serve --dest: a copy republished (servedest.go)
	dest     string
	baseURL  string
	channels bool
	sources  string
	poll     time.Duration
	metrics  string // --metrics ADDR (metrics.go)
}

func newServeCmd(a *app) *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use: "serve [--addr HOST:PORT] [flags] | serve --dest DEST [--addr HOST:PORT] [--base-url URL]",
		Example: `  rsx serve                                  # on 127.0.0.1:8753: the first line printed is the base URL
  rsx serve --addr 127.0.0.1:8080 --broken   # a fixed port, with errors of many kinds to find
  curl -X POST 'http://127.0.0.1:8080/demo/advance?steps=4'   # the demo's clock: new changes, Change Lists close
  rsx serve --dest ./copy                    # the copy in ./copy, republished as a Source (127.0.0.1:8754)
  rsx serve --dest ./copy --addr 0.0.0.0:8080 --base-url https://mirror.example.org --channels`,
		Annotations: map[string]string{annotationEndsOnSignal: "yes"},
		Short:       "Run the built-in demo ResourceSync Source",
		Long: `Run the built-in demo ResourceSync Source until interrupted (SIGINT or SIGTERM).

The first line on standard output is the base URL (by default
http://127.0.0.1:8753, the same each run, so that a copy made from the demo
stays a copy of the same Source; when another program has that port, a free
one, said on standard error; --addr 127.0.0.1:0 asks for a free one); a short
guide follows on standard error.
Everything is generated on the fly and deterministically from --seed: the Source
Description at /.well-known/resourcesync, two Capability Lists, Resource List
Indexes, Resource Dumps with ZIP packages, Change List Indexes, a Change Dump,
a Change List Archive and a Resource List Archive, and the resources themselves.
The Change List Index keeps the last --live-change-lists closed lists; older
ones move to the Change List Archive, so a copy made before they left can catch
up only through it. With --live-change-dumps K the Change Dump keeps the
packages of the open list's period and of the last K closed ones; the older
ones move, one Change Dump per period, into a Change Dump Archive. The clock
advances with --tick or with POST /demo/advance?steps=N; GET /demo/status
shows it. --broken seeds errors of many kinds for the checker to find. Only
loopback addresses are served.

With --dest, rsx serve serves the copy in DEST (a folder or a bucket) as a
ResourceSync Source of its own instead (§12.7: an aggregator republishes),
read only, until interrupted: a Capability List for each Source of the copy,
with a Resource List of what the copy holds and Change Lists of how it
changed, each entry with a via link to the resource it was copied from and
what that Source declared; the copies themselves, each served only while it
matches what the copy verified. A sync of DEST (or a --follow) shows in what
is served as soon as its run ends. The first line on standard output is the
base URL (127.0.0.1:8754 when --addr is not given; any address may be
given); --base-url names the Source by another URL (a proxy in front of it).
docs/serve.md says more.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.dest != "" || cmd.Flags().Changed("dest") {
				return a.runServeDest(cmd, f)
			}
			for _, name := range []string{"base-url", "channels", "sources", "poll", "metrics"} {
				if cmd.Flags().Changed(name) {
					return failed(fmt.Errorf("serve: --%s is for a copy served with --dest", name))
				}
			}
			return a.runServe(cmd.Context(), f, !cmd.Flags().Changed("addr"))
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.addr, "addr", defaultDemoAddr, "loopback address to listen on (port 0: a free port); when not given and the default is taken, a free port")
	fs.IntVar(&f.resources, "resources", demo.DefaultResources, "number of resources (up to 10,000,000 and more; generated on the fly)")
	fs.IntVar(&f.listSize, "list-size", demo.DefaultListSize, "entries per Resource List part (at most 50,000)")
	fs.IntVar(&f.packageSize, "package-size", demo.DefaultPackageSize, "resources per Resource Dump ZIP package")
	fs.BoolVar(&f.broken, "broken", false, "seed errors of many kinds (bad hashes, wrong lengths, out-of-order changes, 503s, a redirect loop, …)")
	fs.DurationVar(&f.tick, "tick", 0, "advance the clock one step (a quarter of an hour of demo time) this often; 0: only on POST /demo/advance")
	fs.Int64Var(&f.seed, "seed", 0, "seed of everything generated")
	fs.StringVar(&f.start, "start", "", "the demo clock at start, RFC 3339 (default 2026-01-05T09:00:00Z); the replayed history ends there")
	fs.IntVar(&f.liveLists, "live-change-lists", demo.DefaultLiveChangeLists, "closed Change Lists the Change List Index keeps; older ones move to the Change List Archive (-1: keep them all; 0: the default)")
	fs.IntVar(&f.liveDumps, "live-change-dumps", 0, "rotate the Change Dump: keep the packages of the last K closed Change List periods (and the open one's); older ones move to a Change Dump Archive (0: keep every package, no archive)")
	fs.StringVar(&f.dest, "dest", "", "serve the copy in DEST (a folder, s3://bucket/prefix?…, or a name of the configuration file) as a ResourceSync Source, read only, instead of the demo")
	fs.StringVar(&f.baseURL, "base-url", "", "with --dest: the URL the Source's documents name it by (default http://ADDR)")
	fs.BoolVar(&f.channels, "channels", false, "with --dest: advertise a change notification channel (WebSocket) in each Capability List and push the copy's changes on it")
	fs.StringVar(&f.sources, "sources", "", "with --dest: a fleet file whose names title the Sources of the copy")
	fs.DurationVar(&f.poll, "poll", republish.DefaultPoll, "with --dest: how often the copy's state is looked at for a run that ended")
	fs.StringVar(&f.metrics, "metrics", "", "with --dest: serve Prometheus metrics of the requests answered at `ADDR`/metrics (HOST:PORT; PORT alone is 127.0.0.1:PORT; docs/metrics.md)")
	return cmd
}

// runServe runs the demo until interrupted; fallback: --addr was not
// given, and a taken default gives a free port (startDemoAt).
func (a *app) runServe(ctx context.Context, f serveFlags, fallback bool) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if f.resources < 0 || f.listSize < 0 || f.packageSize < 0 || f.tick < 0 {
		return failed(fmt.Errorf("serve: --resources, --list-size, --package-size and --tick must not be negative"))
	}
	if f.liveDumps < 0 {
		return failed(fmt.Errorf("serve: --live-change-dumps must not be negative"))
	}
	if f.liveLists < -1 {
		return failed(fmt.Errorf("serve: --live-change-lists must be at least 1, or -1 to keep every Change List in the index"))
	}
	var start time.Time
	if f.start != "" {
		t, err := time.Parse(time.RFC3339, f.start)
		if err != nil {
			return failed(fmt.Errorf("serve: --start %q: want a date and time such as 2026-01-05T09:00:00Z (RFC 3339)", f.start))
		}
		start = t
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	// The README's examples start a demo on 127.0.0.1:8080 more than once:
	// a port given and taken says what to do.
	srv, note, err := startDemoAt(ctx, f.addr, "--addr", fallback, demo.Options{
		Resources: f.resources, ListSize: f.listSize, PackageSize: f.packageSize,
		Seed: f.seed, Broken: f.broken, Tick: f.tick, Start: start, LiveChangeLists: f.liveLists, LiveChangeDumps: f.liveDumps,
	})
	if err != nil {
		return failed(err)
	}
	fmt.Fprintln(a.out, srv.URL)
	if note != "" {
		fmt.Fprintln(a.err, "rsx: "+esc(note))
	}
	o := srv.Source().Options()
	fmt.Fprintf(a.err, "rsx demo Source: %s resources, seed %d, clock %s", display.Count(o.Resources), o.Seed, srv.Source().Now().Format(time.RFC3339))
	if o.Broken {
		fmt.Fprint(a.err, ", broken")
	}
	fmt.Fprintf(a.err, "\n  Source Description  %s/.well-known/resourcesync\n", srv.URL)
	fmt.Fprintf(a.err, "  Capability Lists    %s/dataset1/capabilitylist.xml (articles)\n", srv.URL)
	fmt.Fprintf(a.err, "                      %s/dataset2/capabilitylist.xml (images)\n", srv.URL)
	fmt.Fprintf(a.err, "  robots.txt, home    %s/robots.txt  %s/\n", srv.URL, srv.URL)
	fmt.Fprintf(a.err, "  clock               curl -X POST '%s/demo/advance?steps=1'   %s/demo/status\n", srv.URL, srv.URL)
	fmt.Fprintln(a.err, "Press Ctrl-C to stop.")
	<-ctx.Done()
	if err := srv.Close(); err != nil {
		return failed(fmt.Errorf("serve: %w", err))
	}
	return nil
}
