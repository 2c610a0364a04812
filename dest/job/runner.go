package job

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"rsx/dest/engine"
	"rsx/dest/store"
	"rsx/display"
	"rsx/fetch"
	"rsx/internal/version"
)

// Runner opens destinations and the engine on them for syncs and audits,
// the same way for every caller. Its zero value works (the default HTTP
// options, destinations as given, the environment's credentials); a
// program makes one and shares it among the runs it starts, which may run
// at once (the memory limit is the sum of theirs). A Runner must not be
// copied once used.
type Runner struct {
	// HTTP gives the fetch options of a run of target: the program's HTTP
	// options (timeouts, retries, the user agent, the cache, the TLS
	// setting), with the headers and credentials it binds to target's host
	// only. Its error is returned as it is. Nil: fetch.DefaultOptions.
	HTTP func(target string) (fetch.Options, error)
	// Resolve turns a destination as the user gave it (a named destination
	// of the configuration file, NAME:sub) into the folder or bucket URL to
	// open, and how its credentials are read (nil: Store.Getenv). Its error
	// is returned as it is. Nil: every destination is taken as it is.
	Resolve func(dest string) (string, func(string) string, error)
	// Store are the options every destination is opened with (a bucket's
	// cache folder, Getenv); the Runner sets Create, ReadOnly,
	// ReadOnlyWhenUnwritable and TempDir itself.
	Store store.Options
	// TempDir gives the folder of the temporaries of a run that writes
	// nothing to DEST (a dry run, an audit of a copy opened read-only);
	// nil, or "": the system's temporary folder.
	TempDir func() string
	// Version names the program in the run history (state.Run.Version).
	Version string
	// Host names this process in the run history (state.Run.Host) and in
	// a bucket's lock: its host id, which tells apart the processes that
	// share a fleet's Sources (docs/fleet.md). "": store.DefaultHostID(),
	// HOSTNAME:PID.
	Host string
	// ProgressInterval is how often a run reports progress; default 100ms.
	ProgressInterval time.Duration
	// Log receives what an operator's log keeps of the runs: a lock taken
	// over from an interrupted run, notifications that could not be
	// applied alone. Nil: nothing is logged.
	Log *slog.Logger
	// Getenv reads GOMEMLIMIT (os.Getenv when nil): when it is set the
	// Runner leaves the soft memory limit alone.
	Getenv func(string) string

	mem memoryLimiter
}

// Workers is the number of resources a run of target works on at once:
// twice the requests in flight that client allows target's host (the
// Source's concurrency; else --concurrency; else the policy by kind of
// host: 8 for a host on this machine or a private network, 4 for others),
// so that some resources are written (and fsynced) while others download.
// It is the one rule, for the command line, the explorer and the fleet.
func Workers(client *fetch.Client, target string) int {
	return 2 * client.LimitsFor(target).Concurrency
}

// Client builds the HTTP client of a run of target with limits, the
// Source's own rate and concurrency, over the Runner's HTTP options.
func (r *Runner) Client(target string, limits Limits) (*fetch.Client, error) {
	o := fetch.DefaultOptions()
	if r.HTTP != nil {
		var err error
		if o, err = r.HTTP(target); err != nil {
			return nil, err
		}
	}
	if v := limits.Rate; v != nil {
		if *v < 0 {
			return nil, fmt.Errorf("rate %g: must not be negative", *v)
		}
		// A Source's own limit holds whatever its kind of host.
		o.PerHostRate = *v
		if o.Near != nil {
			n := *o.Near
			n.Rate = *v
			o.Near = &n
		}
	}
	if v := limits.Concurrency; v != nil {
		if *v < 1 {
			return nil, fmt.Errorf("concurrency %d: must be at least 1", *v)
		}
		o.PerHostConcurrency = *v
		if o.Near != nil {
			n := *o.Near
			n.Concurrency = *v
			o.Near = &n
		}
	}
	c, err := fetch.NewClient(o)
	if err != nil {
		return nil, fmt.Errorf("set up HTTP client: %w", err)
	}
	return c, nil
}

// HostID is the Runner's host id: Host, else store.DefaultHostID().
func (r *Runner) HostID() string {
	if r.Host != "" {
		return r.Host
	}
	return store.DefaultHostID()
}

func (r *Runner) tempDir() string {
	if r.TempDir == nil {
		return ""
	}
	return r.TempDir()
}

func (r *Runner) log() *slog.Logger {
	if r.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return r.Log
}

// opened is a destination opened for a run: the store, the engine on it,
// the client it fetches with, and the run's share of the memory limit.
type opened struct {
	st     store.Store
	dest   *engine.Dest
	client *fetch.Client
	mem    *memoryClaim
	// discard: the run did not start; what store.Open made in DEST (the
	// folder, its .rsx) is removed when it is closed.
	discard bool
	log     *slog.Logger
}

// close closes the engine, removes what opening DEST made when discard is
// set, closes the store and gives the memory back.
func (o *opened) close() error {
	var err error
	if o.dest != nil {
		err = errors.Join(err, o.dest.Close())
	}
	if o.st != nil && o.discard {
		if discard := o.st.Features().Discard; discard != nil {
			err = errors.Join(err, discard())
		}
	}
	if o.st != nil {
		err = errors.Join(err, o.st.Close())
	}
	o.mem.release()
	return err
}

// open opens dest (what names the command in errors: "sync", "audit") and
// the engine on it for target. A failure leaves nothing in DEST.
func (r *Runner) open(ctx context.Context, what, target, dest string, so store.Options, eo engine.Options, limits Limits) (*opened, error) {
	o := &opened{log: r.log(), discard: true}
	ok := false
	defer func() {
		if !ok {
			o.close()
		}
	}()
	// The base until the state is open, then by its size.
	o.mem = r.mem.claim(r.Getenv)
	if r.Resolve != nil {
		u, getenv, err := r.Resolve(dest)
		if err != nil {
			return nil, err
		}
		dest = u
		if getenv != nil {
			so.Getenv = getenv // a named destination's credentials
		}
	}
	client, err := r.Client(target, limits)
	if err != nil {
		return nil, err
	}
	o.client = client
	so.HostID = r.HostID()
	st, err := store.Open(ctx, dest, so)
	if err != nil && !so.Create && errors.Is(err, fs.ErrNotExist) {
		// An audit of a folder that is not there: say what it means.
		return nil, fmt.Errorf("%s: there is no copy in %s, a folder that does not exist (%s makes one): %w", what, dest, display.Command("rsx", "sync", "--dest", dest, target), err)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	o.st = st
	eo.Concurrency = Workers(client, target)
	eo.Version, eo.Host = r.Version, r.HostID()
	if eo.Version == "" {
		eo.Version = version.Program()
	}
	eo.ProgressInterval = r.ProgressInterval
	if o.mem != nil {
		eo.Held = o.mem.changes // a plan of many changes holds more than the state tells
	}
	d, err := engine.Open(ctx, st, client, eo)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	o.dest = d
	if maxID, err := d.DB().LargestID(ctx); err == nil {
		o.mem.rows(maxID)
	}
	if l := d.Lock(); l != nil && l.TookOver != nil {
		o.log.Info("lock taken over", "dest", st.String(), "from", l.TookOver.String(), "temporaries_removed", l.Removed)
	}
	ok = true
	return o, nil
}

// auditStore are the store options of an audit of dest (resolved): a copy
// whose state can be written is opened for writing, so that the audit
// records what it found; a folder without a state (nothing to record), or
// one that cannot be written (a read-only mount, a WORM volume, a
// snapshot), is opened read-only, nothing written to it.
func (r *Runner) auditStore(dest string) store.Options {
	so := r.Store
	so.ReadOnlyWhenUnwritable = true
	so.TempDir = r.tempDir()
	if !store.IsBucket(dest) {
		if _, err := os.Stat(filepath.Join(dest, filepath.FromSlash(store.StateFile))); err != nil {
			so.ReadOnly = true
		}
	}
	return so
}

// resolved is dest resolved for a look at its kind (no credentials).
func (r *Runner) resolved(dest string) string {
	if r.Resolve == nil {
		return dest
	}
	u, _, err := r.Resolve(dest)
	if err != nil {
		return dest // open says why
	}
	return u
}
