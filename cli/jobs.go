package cli

import (
	"rsx/dest/job"
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
		}
	}
	return a.jobs
}

// historyVersion names this program in the run history of every DEST it
// writes (state.Run.Version), whoever starts the run.
func historyVersion() string { return version.Program() }
