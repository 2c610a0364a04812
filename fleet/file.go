// Package fleet runs the Sources an aggregator keeps: it reads the file
// that lists them (rsx sync --sources FILE, rsx audit --sources FILE, the
// explorer's fleet page; docs/fleet.md is its reference), resolves each
// Source's settings into a typed request (dest/job), and schedules the
// runs through a runner: a round of every Source (Round), rounds until
// stopped (Every), or a run of a Source when it notifies a change
// (Follow). Sources run in parallel, never two of one host nor two of one
// DEST at once, and none holds a DEST that others wait for longer than the
// file's hold bound. Nothing here prints: the caller is told of what
// happens through values and callbacks.
package fleet

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"rsx/config"
)

// A fleet file lists the Sources an aggregator keeps: rsx sync --sources
// FILE runs them all, rsx audit --sources FILE audits their copies. It is
// either a plain list (one Capability List URL a line; # comments) or TOML:
//
//	dest = "/archive"            # default destination of every Source
//	parallel = 4                 # Sources synced at once (one per host and per DEST)
//	hold = "3m"                  # longest a Source holds a DEST others wait for
//	every = "6h"                 # with --every: default time between two runs of a Source
//	delete = false               # defaults of every Source: delete, mode, checksum,
//	rate = 2.0                   # include, exclude, allow_other_hosts, rate, concurrency
//
//	[[source]]
//	url = "https://example.org/dataset1/capabilitylist.xml"
//	dest = "s3://bucket/example?endpoint=http://127.0.0.1:7070&region=us-east-1"
//	include = ["/articles/"]
//	delete = true
//	every = "1h"

// Source is one Source of a fleet file, with its settings (nil: the
// file's default, then the command line's).
type Source struct {
	Name            string   `toml:"name"`
	URL             string   `toml:"url"`
	Dest            string   `toml:"dest"`
	Include         []string `toml:"include"`
	Exclude         []string `toml:"exclude"`
	Delete          *bool    `toml:"delete"`
	Mode            string   `toml:"mode"`
	Checksum        *bool    `toml:"checksum"`
	AllowOtherHosts *bool    `toml:"allow_other_hosts"`
	Rate            *float64 `toml:"rate"`
	Concurrency     *int     `toml:"concurrency"`
	Every           string   `toml:"every"`
	Disabled        bool     `toml:"disabled"`

	// Interval is Every parsed (0: none given).
	Interval time.Duration `toml:"-"`
}

// File is a fleet file read.
type File struct {
	Source
	Parallel int `toml:"parallel"`
	// Hold is the longest one Source may hold a DEST that other Sources
	// wait for (a Go duration; "0" for no bound; default DefaultHold).
	Hold    string   `toml:"hold"`
	Sources []Source `toml:"source"`

	// HoldBound is Hold parsed: DefaultHold when not given, 0 for none.
	HoldBound time.Duration `toml:"-"`
}

// MaxFileBytes bounds a fleet file (some 35,000 Sources as [[source]]
// tables of four lines, 70,000 as a plain list): a larger one, or one
// nested deeper than config.MaxDepth, is refused before it is parsed (a
// TOML file of 16 MiB took 400 MB and 5 s to parse).
const MaxFileBytes = 4 << 20

// DefaultHold is the longest one Source holds a DEST that others wait for
// when the file does not say: a Source that dribbles its bytes for ever
// cannot keep the Sources that share its DEST from being synced for more
// than this (its run stops, as an interrupted one does, and continues
// after them).
const DefaultHold = 3 * time.Minute

// Read reads a fleet file: a plain list of URLs when every line that is
// not blank nor a comment is one (a line that starts with http:// or
// https:// is a Source whatever it holds, an = in a query string too);
// else TOML, told by its own syntax (key = value, [[source]]).
func Read(path string) (*File, error) {
	data, err := config.ReadBounded(path, MaxFileBytes, "--sources")
	if err != nil {
		return nil, err
	}
	var f File
	if plain, line := plainList(data); plain {
		f.Sources = plainSources(data)
	} else {
		md, terr := toml.Decode(string(data), &f)
		switch {
		case terr != nil && line > 0:
			return nil, fmt.Errorf("--sources %s: line %d is a URL, but other lines are not: a plain list has one http(s) URL a line (# comments), the TOML form a [[source]] table a Source (%v)", path, line, terr)
		case terr != nil:
			return nil, fmt.Errorf("--sources %s: %v", path, terr)
		case len(f.Sources) == 0:
			return nil, fmt.Errorf("--sources %s: no [[source]] table: list the Sources as [[source]] tables with a url each, or write one URL a line", path)
		}
		if und := md.Undecoded(); len(und) > 0 {
			keys := make([]string, len(und))
			for i, k := range und {
				keys[i] = k.String()
			}
			return nil, fmt.Errorf("--sources %s: unknown settings %s (docs/fleet.md lists them)", path, strings.Join(keys, ", "))
		}
	}
	if f.Parallel < 0 {
		return nil, fmt.Errorf("--sources %s: parallel = %d: give 1 or more", path, f.Parallel)
	}
	var err2 error
	if f.Interval, err2 = parseEvery(f.Every); err2 != nil {
		return nil, fmt.Errorf("--sources %s: every = %q: %v", path, f.Every, err2)
	}
	if err := f.checkSettings(path); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	kept := f.Sources[:0]
	for i, s := range f.Sources {
		where := fmt.Sprintf("--sources %s: Source %d", path, i+1)
		if s.Disabled {
			continue
		}
		u, err := url.Parse(s.URL)
		if s.URL == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("%s: url %q is not an http(s) URL", where, s.URL)
		}
		if s.Mode != "" && s.Mode != "auto" && s.Mode != "baseline" && s.Mode != "incremental" {
			return nil, fmt.Errorf("%s (%s): mode %q: auto, baseline or incremental", where, s.URL, s.Mode)
		}
		for _, re := range append(slices.Clone(s.Include), s.Exclude...) {
			if _, err := regexp.Compile(re); err != nil {
				return nil, fmt.Errorf("%s (%s): %q is not a regular expression: %v", where, s.URL, re, err)
			}
		}
		if s.Interval, err = parseEvery(s.Every); err != nil {
			return nil, fmt.Errorf("%s (%s): every = %q: %v", where, s.URL, s.Every, err)
		}
		if err := checkLimits(&s); err != nil {
			return nil, fmt.Errorf("%s (%s): %v", where, s.URL, err)
		}
		// Duplicates are found once the file's default destination
		// applies: dest = "" and the default written out are one.
		key := s.URL + "\x00" + DestKey(firstNonEmpty(s.Dest, f.Dest))
		if seen[key] {
			return nil, fmt.Errorf("%s: %s is listed twice with the same destination", where, s.URL)
		}
		seen[key] = true
		kept = append(kept, s)
	}
	f.Sources = kept
	if len(f.Sources) == 0 {
		return nil, fmt.Errorf("--sources %s: no Source in it", path)
	}
	return &f, nil
}

func parseEvery(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < time.Minute {
		return 0, errors.New("a duration of a minute or more, such as 30m, 6h or 24h")
	}
	return d, nil
}
