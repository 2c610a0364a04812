// Package cli is rsx's command line: the root command (the explorer), one
// file per subcommand, the HTTP flags they share and their output helpers.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"rsx/config"
	"rsx/dest/job"
	"rsx/display"
	"rsx/fetch"
	"rsx/internal/version"
	"rsx/metrics"
	"rsx/scratch"
)

// streams are the standard streams a command writes to; tests replace them.
type streams struct {
	in  io.Reader
	out io.Writer
	err io.Writer
}

// app is what every command shares: the streams and the HTTP client settings.
type app struct {
	streams
	http httpFlags  // persistent flags for fetching, see httpflags.go
	tmp  tempFolder // the process's temporary folder, see signals.go

	openSchemes  []string // explorer: URL schemes besides http(s) that o may open (explore.go)
	exploreDest  string   // explorer: the local copy attached (--dest, explore.go)
	exploreFleet string   // explorer: a fleet file to open the fleet page on (--sources, explore.go)
	broken       bool     // explorer: the built-in demo with errors seeded (--broken, explore.go)
	demoPort     int      // explorer: the built-in demo's port (--demo-port, demoport.go)

	cfg     *config.Config                 // the configuration file, read before any command runs (config.go)
	env     func(string) string            // reads the environment; nil: os.Getenv (tests set it)
	destEnv map[string]func(string) string // how a named destination's credentials are read, by its resolved DEST

	// base is the context the command's own (cancelled on SIGINT and
	// SIGTERM) derives from: nil for the process's runs; a fleet's runs of
	// its Sources get the fleet's, so that stopping the fleet stops them.
	base context.Context
	// fleetTimes are the fleet's bounds of time (fleetfollow.go); the zero
	// value gives the documented ones, tests make them short.
	fleetTimes fleetTimes
	// jobs opens the destinations of syncs and audits of a copy (jobs.go).
	jobs *job.Runner
	// hostID names this process in the run history and a bucket's lock
	// (--host-id; else RSX_HOST_ID; else HOSTNAME:PID); lease is how long
	// a bucket's lock may go unrefreshed before another run takes it over
	// (--lock-lease; 0: the default). jobs.go.
	hostID string
	lease  time.Duration
	// The log file (logfile.go): --log-file, its file and its logger.
	logPath string
	logOut  *os.File
	logger  *slog.Logger
	// metrics counts the runs of a long-running mode given --metrics
	// (metrics.go); nil without it.
	metrics *metrics.Metrics
}

// tempDir is the folder for this run's temporary files ("" for the system's
// when none can be made, which is said on standard error).
func (a *app) tempDir() string {
	dir, err := a.tmp.path()
	if err != nil {
		fmt.Fprintln(a.err, "rsx: warning:", esc(err.Error()))
	}
	return dir
}

// newApp makes the app and its root command.
func newApp(s streams) (*app, *cobra.Command) {
	a := &app{streams: s}
	root := &cobra.Command{
		Use:   "rsx [TARGET]",
		Short: "Explore, validate and copy ResourceSync Sources",
		Long: `rsx is a terminal explorer and inspector for ResourceSync Sources (ANSI/NISO
Z39.99-2017), and copies their resources into a folder or a bucket.

Without a command, rsx opens the explorer on TARGET: a URL (a site root or
an HTML page starts discovery; a ResourceSync document such as a Source
Description, a Capability List or a Resource List opens as it is) or a local
file. With no TARGET it starts the built-in demo Source on a loopback port
(127.0.0.1:8753, the same each run: --demo-port; a free one when another
program has it) and opens it, so that everything can be tried offline (--broken: the
demo with errors of many kinds seeded, as rsx serve --broken). In the explorer
? lists the keys, esc goes back and q quits.

The commands below do the same work in scripts, most with --json. Every
command exits with 0 when nothing wrong was found, 1 when something wrong was
found, and 2 when the job could not be done.`,
		Example: `  rsx                                            # the built-in demo Source
  rsx --broken                                   # the built-in demo with errors to find
  rsx https://example.org/                       # discovery from a site root
  rsx path/to/resourcelist.xml                   # a local file
  rsx --dest ./copy https://example.org/.well-known/resourcesync   # each entry's state in ./copy
  rsx --sources fleet.toml                       # the fleet page: every Source of the file, with its copy
  rsx serve --addr 127.0.0.1:8080 &              # the demo Source, for the commands below
  rsx tree http://127.0.0.1:8080/.well-known/resourcesync`,
		Version:       version.String(),
		SilenceUsage:  true,
		SilenceErrors: true,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) <= 1 {
				return nil
			}
			// rsx tre URL: the word is the mistake, not the count.
			if err := checkExplorerTarget(cmd, args[0]); err != nil {
				return failed(err)
			}
			return failed(fmt.Errorf("the explorer opens one TARGET, %d were given (rsx --help lists the commands)", len(args)))
		},
	}
	root.RunE = a.runExplorer // explore.go
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		if err := a.openLog(cmd); err != nil { // logfile.go
			return failed(err)
		}
		return a.applyConfig(cmd, args) // config.go
	}
	root.SetIn(s.in)
	root.SetOut(s.out)
	root.SetErr(s.err)
	root.SetFlagErrorFunc(flagError) // flagerrors.go
	a.http.register(root.PersistentFlags())
	root.PersistentFlags().StringVar(&a.logPath, "log-file", "",
		"append JSON lines of what a long-running rsx decides on its own (retries, locks taken over, notifications not applied, channel drops, the fleet's hold bound) to `PATH` (also RSX_LOG_FILE)")
	a.http.onThrottle = func(t fetch.Throttle) { fmt.Fprintln(a.err, politeLine(t)) }
	a.http.onWait = func(w fetch.Wait) {
		a.logWait(w)
		if w.Duration >= time.Second {
			fmt.Fprintln(a.err, "rsx: "+esc(w.String())+"; ctrl-c stops")
		}
	}
	root.Flags().StringSliceVar(&a.openSchemes, "open-scheme", nil,
		"a URL `SCHEME` besides http and https that the explorer's o key may hand to the system opener (repeatable; also RSX_OPEN_SCHEMES=ftp,mailto)")
	root.Flags().StringVar(&a.exploreFleet, "sources", "",
		"the explorer: open the fleet page on the Sources of `FILE` (docs/fleet.md): each copy's last run, lag and problems")
	root.Flags().StringVar(&a.exploreDest, "dest", "",
		"the explorer: attach the local copy in `DEST` (a folder, s3://bucket/prefix?…, or NAME: of rsx config): the table shows each entry's state in it")
	root.Flags().IntVar(&a.demoPort, "demo-port", defaultDemoPort,
		"the explorer with no TARGET: the loopback `PORT` of the built-in demo Source, kept from one run to the next so that a copy made from it stays a copy of the same Source (0: a free port); when no port is given and the default is taken, a free one, said on exit")
	root.Flags().BoolVar(&a.broken, "broken", false,
		"the explorer on the built-in demo Source with errors of many kinds seeded (as rsx serve --broken); no TARGET")
	syncCmd, syncTopics := newSyncCmd(a)
	// One line per command; each lives in the file of its name.
	root.AddCommand(
		newValidateCmd(a),
		newServeCmd(a),
		newDiscoverCmd(a),
		newTreeCmd(a),
		newDumpCmd(a),
		newWatchCmd(a),
		newAuditCmd(a),
		syncCmd,
		newBagCmd(a),
		newLogCmd(a),
		newTrashCmd(a),
		newConfigCmd(a),
	)
	root.AddCommand(syncTopics...) // rsx help sync-guide, sync-follow
	compactGlobalFlags(root)       // helptopics.go
	return a, root
}

// Main runs the command line args (without the program name) and returns
// the process exit status of the command-line contract: 0 nothing wrong
// found, 1 something wrong found, 2 the job could not be done.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return run(args, streams{in: stdin, out: stdout, err: stderr})
}

// run executes the command line and returns the process exit status.
//
// SIGINT and SIGTERM cancel the command's context: it stops, removes its
// temporary files and reports that it was interrupted, with exit status 2
// whatever it found so far (serve and watch, which run until interrupted,
// end normally). A second signal removes the temporary folder and ends the
// process at once. Every run first removes the temporary folders that runs
// killed outright left behind (package scratch).
func run(args []string, s streams) int { return runWith(args, s, nil) }

// runWith is run with setup, when not nil, called on the app before the
// command runs (tests set what no flag reaches, such as the HTTP transport).
func runWith(args []string, s streams, setup func(*app)) int {
	_, _ = scratch.SweepRoot()
	// The contract: with --json every command prints one JSON document, also
	// when it cannot run. A command that stopped before printing its own
	// (bad flags, an unreachable URL, a DEST it cannot open) gets this one.
	// Standard output is watched only then: wrapped, it is no terminal.
	want := jsonWanted(args)
	stdout := &watchedWriter{w: s.out}
	if want {
		s.out = stdout
	}
	// What a command prints goes out without secrets (redact.go).
	var sec appSecrets
	s.out = &redactWriter{w: s.out, secrets: sec.list}
	s.err = &redactWriter{w: s.err, secrets: sec.list}
	code, msg := execute(args, s, func(a *app) {
		sec.a.Store(a)
		if setup != nil {
			setup(a)
		}
	})
	msg = display.Redact(msg, sec.list()...)
	if msg != "" {
		fmt.Fprintln(s.err, "rsx:", msg)
	}
	if (code == exitFailure || code == exitFound && msg != "") && want && !stdout.wrote {
		if msg == "" {
			msg = "could not do the job"
		}
		_ = writeJSON(stdout, struct {
			Error string `json:"error"`
		}{msg})
	}
	return code
}

// execute runs the command line and returns the exit status and the message
// to print on standard error ("" for none; escaped already).
func execute(args []string, s streams, setup func(*app)) (int, string) {
	a, root := newApp(s)
	if setup != nil {
		setup(a)
	}
	base := a.base
	if base == nil {
		base = context.Background()
	}
	ctx, stop := signalContext(base, a.tmp.remove)
	defer stop()
	defer a.tmp.remove()
	defer a.closeLog()
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	a.tmp.remove()
	if cause := context.Cause(ctx); errors.Is(cause, errInterrupted) && !endsOnSignal(cmd) {
		name := "rsx"
		if cmd != nil && cmd != root {
			name = "rsx " + cmd.Name()
		}
		return exitFailure, fmt.Sprintf("%v: %s did not finish; what it reported is incomplete", cause, name)
	}
	if err == nil {
		return exitOK, ""
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			return ee.code, esc(ee.err.Error())
		}
		return ee.code, ""
	}
	// Anything else comes from cobra itself: unknown command, bad arguments.
	return exitFailure, esc(err.Error())
}

// watchedWriter is standard output, remembering whether anything was written.
type watchedWriter struct {
	w     io.Writer
	wrote bool
}

func (w *watchedWriter) Write(p []byte) (int, error) {
	if len(p) > 0 {
		w.wrote = true
	}
	return w.w.Write(p)
}

// jsonWanted tells whether the command line asks for --json (read from the
// words of args: a bad flag stops cobra before it parses those after it).
func jsonWanted(args []string) bool {
	want := false
	for _, arg := range args {
		if arg == "--" {
			break
		}
		if arg == "--json" {
			want = true
		} else if v, ok := strings.CutPrefix(arg, "--json="); ok {
			want, _ = strconv.ParseBool(v)
		}
	}
	return want
}
