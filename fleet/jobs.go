package fleet

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"rsx/dest/engine"
	"rsx/dest/job"
	"rsx/dest/state"
)

// Command is what a fleet runs for each Source.
type Command string

const (
	CommandSync  Command = "sync"  // rsx sync --sources
	CommandAudit Command = "audit" // rsx audit --sources: audit --dest of each copy
)

// Job is one Source of a fleet: its settings resolved into a request.
type Job struct {
	// Source is the Source as the file lists it.
	Source Source
	// Dest is its destination: its own, else the file's, else the caller's
	// (--dest), as given (a named destination is resolved by the runner).
	Dest string
	// Host is its URL's host, lower-cased: no two Sources of one host run
	// at once.
	Host string
	// Every is the time between two of its runs (its own, else the
	// file's; 0: the caller's).
	Every   time.Duration
	Command Command
	// Sync is the request of a sync (CommandSync), Audit of an audit.
	Sync  job.SyncRequest
	Audit job.AuditRequest
	// NotBefore, when set, is the earliest a round starts it: with --every
	// a process leaves the Source it ran last to the processes that share
	// its rounds a moment first (Every), so that they take turns.
	NotBefore time.Time
}

// Name is the Source's name in the file, else its URL.
func (j Job) Name() string {
	if j.Source.Name != "" {
		return j.Source.Name
	}
	return j.Source.URL
}

// Key tells one Source of the fleet from the others: its URL and DEST.
func (j Job) Key() string { return j.Source.URL + "\x00" + DestKey(j.Dest) }

// DestKey is its DEST as the fleet tells DESTs apart (no two Sources of
// one DEST run at once).
func (j Job) DestKey() string { return DestKey(j.Dest) }

// Base is what the caller (the command line) sets for every Source: the
// settings of the file win over it, but a repeated include or exclude
// adds to its own.
type Base struct {
	// Dest is the destination of the Sources without one in the file
	// (--dest).
	Dest string
	// Sync is the request every Source's sync starts from (rsx sync's
	// flags); its Target, Dest and OtherSources are the fleet's to set.
	Sync job.SyncRequest
	// Audit likewise for an audit.
	Audit job.AuditRequest
	// KeepWithoutDest keeps a Source without a destination (its Dest "")
	// instead of refusing the file: the explorer's fleet page shows it as
	// one to give a destination to.
	KeepWithoutDest bool
}

// SourceDest is the destination of s in f: its own, else the file's, else
// cmdDest (the command line's --dest); "" when none says.
func SourceDest(f *File, s Source, cmdDest string) string {
	return firstNonEmpty(s.Dest, f.Dest, cmdDest)
}

// Jobs resolves every Source's settings: its own, then the file's, then
// base's. A Source without a destination, or two Sources of one URL into
// one DEST, are an error.
func Jobs(f *File, cmd Command, base Base) ([]Job, error) {
	var out []Job
	seen := map[string]bool{}
	for _, s := range f.Sources {
		j := Job{Source: s, Dest: SourceDest(f, s, base.Dest), Every: s.Interval, Command: cmd}
		if j.Every == 0 {
			j.Every = f.Interval
		}
		if j.Dest == "" && !base.KeepWithoutDest {
			return nil, fmt.Errorf("--sources: %s has no destination: give --dest, or dest in the file", s.URL)
		}
		if seen[j.Key()] {
			return nil, fmt.Errorf("--sources: %s is listed twice with the same destination (%s)", s.URL, j.Dest)
		}
		seen[j.Key()] = true
		if u, err := url.Parse(s.URL); err == nil {
			j.Host = strings.ToLower(u.Host)
		}
		limits := job.Limits{Rate: firstFloat(s.Rate, f.Rate), Concurrency: firstInt(s.Concurrency, f.Concurrency)}
		allowOther := firstBool(s.AllowOtherHosts, f.AllowOtherHosts)
		switch cmd {
		case CommandAudit:
			a := base.Audit
			a.Target, a.Dest, a.OtherSources = s.URL, j.Dest, nil
			if allowOther != nil {
				a.AllowOtherHosts = *allowOther
			}
			a.Limits = mergeLimits(a.Limits, limits)
			j.Audit = a
		default:
			r, err := syncRequest(f, s, base.Sync)
			if err != nil {
				return nil, err
			}
			r.Target, r.Dest = s.URL, j.Dest
			if allowOther != nil {
				r.AllowOtherHosts = *allowOther
			}
			r.Limits = mergeLimits(r.Limits, limits)
			j.Sync = r
		}
		out = append(out, j)
	}
	// The settings of an entry apply to its own Source only: every request
	// names the Capability Lists of the others.
	for i := range out {
		others := &out[i].Sync.OtherSources
		if cmd == CommandAudit {
			others = &out[i].Audit.OtherSources
		}
		for k, o := range out {
			if k != i && o.Source.URL != out[i].Source.URL && !slices.Contains(*others, o.Source.URL) {
				*others = append(*others, o.Source.URL)
			}
		}
	}
	return out, nil
}

// syncRequest is base with the settings of the file and of the Source s.
func syncRequest(f *File, s Source, base job.SyncRequest) (job.SyncRequest, error) {
	r := base
	r.OtherSources = nil
	inc, exc := firstSlice(s.Include, f.Include), firstSlice(s.Exclude, f.Exclude)
	if inc != nil || exc != nil {
		sel := state.Selection{}
		if base.Selection != nil {
			sel = *base.Selection
		}
		// The command line's first, the file's added (as repeated flags).
		sel.Include = append(slices.Clone(sel.Include), inc...)
		sel.Exclude = append(slices.Clone(sel.Exclude), exc...)
		r.Selection = &sel
	}
	if b := firstBool(s.Delete, f.Delete); b != nil {
		r.Delete = *b
	}
	if b := firstBool(s.Checksum, f.Checksum); b != nil {
		r.Checksum = *b
	}
	if m := firstNonEmpty(s.Mode, f.Mode); m != "" {
		mode, err := engine.ParseMode(m)
		if err != nil {
			return r, fmt.Errorf("--sources: %s: %w", s.URL, err)
		}
		r.Mode = mode
	}
	return r, nil
}

// mergeLimits are the file's limits over the caller's.
func mergeLimits(base, file job.Limits) job.Limits {
	if file.Rate != nil {
		base.Rate = file.Rate
	}
	if file.Concurrency != nil {
		base.Concurrency = file.Concurrency
	}
	return base
}

func firstSlice(a, b []string) []string {
	if a != nil {
		return a
	}
	return b
}

func firstBool(a, b *bool) *bool {
	if a != nil {
		return a
	}
	return b
}

func firstFloat(a, b *float64) *float64 {
	if a != nil {
		return a
	}
	return b
}

func firstInt(a, b *int) *int {
	if a != nil {
		return a
	}
	return b
}
