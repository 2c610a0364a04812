package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"rsx/dest/job"
	"rsx/dest/store"
	"rsx/fetch"
	"rsx/internal/version"
)

// runner is the one runner of the process's syncs and audits of a copy
// (dest/job): rsx sync, rsx audit --dest, the fleet and the explorer open
// their destinations through it, with the HTTP options of the command
// line (its headers and credentials bound to each run's Source), the
// configuration file's named destinations and the version in the history.
func (a *app) runner() *job.Runner {
	if a.jobs == nil {
		a.jobs = &job.Runner{
			HTTP:    func(target string) (fetch.Options, error) { return a.http.options(target) },
			Resolve: a.sessionResolve,
			TempDir: a.tempDir,
			Version: historyVersion(),
			Log:     a.log(),
			Host:    a.host(),
		}
		a.jobs.Store.LockStaleAfter = a.lease
	}
	return a.jobs
}

// host is this process's host id: --host-id, else RSX_HOST_ID, else ""
// (the runner's default, HOSTNAME:PID).
func (a *app) host() string {
	if a.hostID != "" {
		return a.hostID
	}
	return strings.TrimSpace(a.getenv("RSX_HOST_ID"))
}

// addHostFlags gives a command that writes DESTs --host-id and --lock-lease.
func (a *app) addHostFlags(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&a.hostID, "host-id", "", "this process's name in the run history and a bucket's lock; processes that share a fleet need distinct ones (default $RSX_HOST_ID, else HOSTNAME:PID)")
	fs.DurationVar(&a.lease, "lock-lease", 0, "how long a bucket DEST's lock may go unrefreshed before another run takes it over (default "+shortDuration(store.DefaultLockStaleAfter)+")")
}

// checkLease refuses a lease too short to be refreshed in time.
func (a *app) checkLease() error {
	if a.lease != 0 && a.lease < minLease {
		return fmt.Errorf("--lock-lease %s: give %s or more", a.lease, minLease)
	}
	return nil
}

// minLease is the shortest --lock-lease: the lock is refreshed every fifth of it.
const minLease = 2 * time.Second

// historyVersion names this program in the run history of every DEST it
// writes (state.Run.Version), whoever starts the run.
func historyVersion() string { return version.Program() }
