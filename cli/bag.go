package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"rsx/crawl"
	"rsx/dest/bag"
	"rsx/dest/state"
	"rsx/display"
	"rsx/internal/version"
	"rsx/model"
)

type bagFlags struct {
	sources          []string
	include, exclude []string
	copy, link       bool
	incomplete       bool
	verify           bool
	offline          bool
	json             bool
}

func newBagCmd(a *app) *cobra.Command {
	var f bagFlags
	cmd := &cobra.Command{
		Use:   "bag [--source URL]... [--include RE]... [--exclude RE]... [--copy|--link] [--incomplete] [--verify] [--offline] [--json] DEST OUT | bag --verify [--json] BAG",
		Short: "Write a copy as a BagIt bag (RFC 8493) for a preservation system, or check a bag",
		Long: `rsx bag DEST OUT writes the copy in DEST (made by rsx sync: a folder,
s3://bucket/prefix?…, or NAME: of the configuration file) as a BagIt 1.0 bag (RFC 8493) in OUT, a folder that
must not exist yet or be empty: the package Archivematica, a repository's
ingest and other preservation systems take in.

  OUT/bagit.txt                 the bag's declaration
  OUT/data/…                    the files, at their paths in DEST, each %
                                written ^ (a ^ as ^^): no name holds %, CR
                                or LF, so that bagit.py and RFC 8493 readers
                                read the manifests alike
  OUT/manifest-sha256.txt       a SHA-256 of every file (and manifest-md5.txt,
                                -sha512, -sha1 where the state holds that
                                digest of every file: those the Source declared)
  OUT/bag-info.txt              Bagging-Date, Payload-Oxum, Bag-Size; for each
                                Source its Capability List, the run of the
                                history the bag reflects (number, end), the
                                baseline, the copy's point, whether the copy
                                is complete, what was left out and why; the
                                Source Description's metadata
  OUT/resourcesync-uris.txt     each file's URI, fetch time and path in DEST
  OUT/tagmanifest-sha256.txt    digests of the tag files

A bag is made of a complete copy only: a copy whose baseline is not
finished, or whose last run has no end recorded or did not exit 0, is
refused (exit 1, nothing written) with the reasons and the rsx sync that
finishes it; --incomplete makes the bag anyway, marked so in bag-info.txt
(ResourceSync-Copy-Complete: no), without a copy point.

The digests come from the state: each was verified when the file was
written. A file is read again only when its record cannot be trusted as it
stands (its modification time is not the one recorded, or the state holds no
SHA-256 of it); --verify reads and checks every file. A file that does not
match its record (missing, another length, another digest, or found damaged
by an audit) keeps the bag from being written: run rsx sync first (exit 1);
with --incomplete it is left out, and counted.

A bag is a copy: an edit of the copy in place afterwards leaves the bag as
it was. Files are reflinked where the file system can (a copy-on-write
clone on btrfs, XFS, …: no bytes written), else copied. --copy writes every
byte anew (no block shared with the copy); --link hard-links them instead
(the bag's files are then the copy's own: change neither in place). A
bucket copy is streamed into a local bag and hashed on the way. OUT inside
DEST, or DEST inside OUT, is refused. The bag is built beside OUT and
renamed into place when complete: an interrupted run leaves nothing at OUT.

--source limits the bag to one Source of a DEST that holds several (the URL
rsx sync was given for it); --include and --exclude select resources by URI
(RE2). The Source Description's metadata is read from the Source (one or two
small requests; --offline leaves it out).

rsx bag --verify BAG checks an existing bag against RFC 8493: bagit.txt,
every payload file in every manifest and present, every digest computed
again, Payload-Oxum, and the tag manifests; bags bagit.py writes (a % in a
name written as it is) as well as rsx's. Exit status 1 when it is not valid.
docs/bag.md says what a bag holds.`,
		Example: `  rsx sync --dest ./copy http://127.0.0.1:8080/dataset1/capabilitylist.xml
  rsx bag ./copy ./copy-bag
  rsx bag --verify ./copy-bag
  rsx bag --include '/articles/' --copy ./copy ./articles-bag`,
		Args: func(cmd *cobra.Command, args []string) error {
			if f.verify && len(args) == 1 {
				return nil
			}
			if len(args) != 2 {
				return fmt.Errorf("bag: want DEST and OUT (or --verify BAG), got %d %s", len(args), plural(len(args), "argument", "arguments"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				return a.runBagVerify(cmd, f, args[0])
			}
			dest, err := a.resolveDest(args[0])
			if err != nil {
				return failed(err)
			}
			return a.runBag(cmd, f, bagTarget{given: args[0], dest: dest, out: args[1]})
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.sources, "source", nil, "only the Source of this `URL` (as rsx sync was given it; repeatable)")
	fl.StringArrayVar(&f.include, "include", nil, "only resources whose URI matches `RE` (repeatable)")
	fl.StringArrayVar(&f.exclude, "exclude", nil, "leave out resources whose URI matches `RE` (repeatable)")
	fl.BoolVar(&f.copy, "copy", false, "write every file's bytes anew (default: a reflink where the file system has them, else a copy)")
	fl.BoolVar(&f.link, "link", false, "hard-link the copy's files into the bag (an edit of either in place changes both)")
	fl.BoolVar(&f.incomplete, "incomplete", false, "bag a copy that is not complete (its last run did not finish, or failed; files that do not match their records left out), marked so in bag-info.txt")
	fl.BoolVar(&f.verify, "verify", false, "read every file and check it against its digests (with one argument: check the bag BAG)")
	fl.BoolVar(&f.offline, "offline", false, "do not read the Source Description's metadata from the Source")
	fl.BoolVar(&f.json, "json", false, "print the result as JSON")
	cmd.MarkFlagsMutuallyExclusive("copy", "link")
	return cmd
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// compileREs compiles the regular expressions given to flag (say
// "--include"), saying in words what is wrong with one that does not.
func compileREs(flag string, res []string) ([]*regexp.Regexp, error) {
	var out []*regexp.Regexp
	for _, s := range res {
		re, err := regexp.Compile(s)
		if err != nil {
			return nil, display.RegexpProblem(flag, s, err)
		}
		out = append(out, re)
	}
	return out, nil
}

// bagJSON is rsx bag's --json document.
type bagJSON struct {
	Bag         string       `json:"bag"`
	Dest        string       `json:"dest"`
	Sources     []string     `json:"sources"`
	Files       int          `json:"files"`
	Bytes       int64        `json:"bytes"`
	Reflinked   int          `json:"reflinked"`
	Linked      int          `json:"linked"`
	Copied      int          `json:"copied"`
	Hashed      int          `json:"hashed"`
	HashedBytes int64        `json:"hashed_bytes"`
	Manifests   []string     `json:"manifests"`
	Refused     []bagRefusal `json:"refused"`
	Written     bool         `json:"written"`
	Warnings    []string     `json:"warnings"`
	Seconds     float64      `json:"seconds"`
	// Complete: every Source's copy in the bag is complete; Copies say, for
	// each, the run of the history the bag reflects and why it is not.
	Complete bool          `json:"complete"`
	Copies   []bagCopyJSON `json:"copies"`
}

// bagCopyJSON is one Source's copy in rsx bag's --json document.
type bagCopyJSON struct {
	Source   string      `json:"source"`
	Run      *int64      `json:"run"`       // null: the history holds no run
	RunEnded *string     `json:"run_ended"` // null: no end recorded
	Complete bool        `json:"complete"`
	Reasons  []string    `json:"reasons"`
	Failed   int         `json:"failed"`
	LeftOut  bagLeftJSON `json:"left_out"`
	Sync     string      `json:"sync"` // the command that finishes the copy
}

type bagLeftJSON struct {
	Selection int `json:"selection"`
	Deleted   int `json:"deleted"`
	Refused   int `json:"refused"`
}

type bagRefusal struct {
	URI    string `json:"uri"`
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// bagTarget is what rsx bag DEST OUT was given: DEST as typed (a folder,
// a URL, NAME:), what it stands for, and OUT.
type bagTarget struct {
	given, dest, out string
}

func (a *app) runBag(cmd *cobra.Command, f bagFlags, t bagTarget) error {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	inc, err := compileREs("--include", f.include)
	if err != nil {
		return failed(fmt.Errorf("bag: %w", err))
	}
	exc, err := compileREs("--exclude", f.exclude)
	if err != nil {
		return failed(fmt.Errorf("bag: %w", err))
	}
	d, err := a.openReadDest(ctx, "bag", t.dest)
	if err != nil {
		return failed(err)
	}
	defer d.close()
	st, db := d.st, d.db
	opt := bag.Options{Sources: f.sources, Include: inc, Exclude: exc, Copy: f.copy, Link: f.link, Incomplete: f.incomplete,
		Verify: f.verify, Software: version.Program()}
	if !f.incomplete {
		// A copy that is not complete is refused before the Source is asked
		// for its metadata.
		copies, err := bag.Assess(ctx, db, f.sources)
		if err != nil {
			return failed(err)
		}
		if bag.Incomplete(copies) != nil {
			return a.reportBag(f, t, st.String(), &bag.Result{Dir: t.out, Copies: copies}, false, nil)
		}
	}
	var warnings []string
	if !f.offline {
		info, warns := a.sourceDescriptionInfo(ctx, cmd, db, f.sources)
		opt.Info = info
		warnings = append(warnings, warns...)
		if !f.json {
			for _, w := range warns {
				fmt.Fprintln(a.err, "rsx: bag: warning:", esc(w))
			}
		}
	}
	var bar *countBar
	if isTerminal(a.err) && !f.json {
		bar = newCountBar(a.err, "bagging")
		opt.Progress = bar.set
	}
	res, err := bag.Write(ctx, st, db, t.out, opt)
	bar.finish()
	if err != nil && !errors.Is(err, bag.ErrRefused) && !errors.Is(err, bag.ErrIncomplete) {
		if ctx.Err() != nil {
			return failed(errors.New("bag: interrupted; nothing was written at " + t.out))
		}
		return failed(err)
	}
	return a.reportBag(f, t, st.String(), res, err == nil, warnings)
}

// reportBag prints what rsx bag did, or why it wrote nothing (exit 1).
func (a *app) reportBag(f bagFlags, t bagTarget, dest string, res *bag.Result, written bool, warnings []string) error {
	if f.json {
		j := bagJSON{Bag: t.out, Dest: dest, Sources: nonNil(res.Sources), Files: res.Files, Bytes: res.Bytes,
			Reflinked: res.Reflinked, Linked: res.Linked, Copied: res.Copied, Hashed: res.Hashed, HashedBytes: res.HashedBytes,
			Manifests: nonNil(res.Manifests), Refused: []bagRefusal{}, Written: written, Warnings: nonNil(warnings),
			Seconds: res.Elapsed.Seconds(), Complete: true, Copies: []bagCopyJSON{}}
		for _, r := range res.Refused {
			j.Refused = append(j.Refused, bagRefusal{URI: r.URI, Path: r.Path, Reason: r.Reason})
		}
		for i := range res.Copies {
			c := &res.Copies[i]
			j.Complete = j.Complete && c.Complete()
			j.Copies = append(j.Copies, copyJSON(c, t.given))
		}
		if len(j.Sources) == 0 {
			for _, c := range res.Copies {
				j.Sources = append(j.Sources, c.Source.URL)
			}
		}
		if err := writeJSON(a.out, j); err != nil {
			return failed(fmt.Errorf("bag: write the result: %w", err))
		}
	} else {
		writeBagText(a.out, newTextStyles(useColor(a.out)), res, t, written)
	}
	if !written {
		return foundProblems()
	}
	return nil
}

func copyJSON(c *bag.SourceCopy, given string) bagCopyJSON {
	j := bagCopyJSON{Source: c.Source.URL, Complete: c.Complete(), Reasons: nonNil(c.Gaps),
		LeftOut: bagLeftJSON{Selection: c.Unselected, Deleted: c.Deleted, Refused: c.Refused}, Sync: syncCommand(given, c.Source.URL)}
	if r := c.Run; r != nil {
		id := r.ID
		j.Run, j.Failed = &id, r.Failed
		if !r.Ended.IsZero() {
			ended := r.Ended.UTC().Format(time.RFC3339)
			j.RunEnded = &ended
		}
	}
	return j
}

// syncCommand is the rsx sync that finishes (or repairs) the copy of a
// Source, ready to be pasted in a shell.
func syncCommand(dest, source string) string {
	return command("rsx", "sync", "--dest", dest, source)
}

func writeBagText(w io.Writer, st textStyles, r *bag.Result, t bagTarget, written bool) {
	if !written {
		writeBagRefusal(w, st, r, t)
		return
	}
	how := []string{}
	if r.Reflinked > 0 {
		how = append(how, humanize.Comma(int64(r.Reflinked))+" reflinked")
	}
	if r.Linked > 0 {
		how = append(how, humanize.Comma(int64(r.Linked))+" hard-linked")
	}
	if r.Copied > 0 {
		how = append(how, humanize.Comma(int64(r.Copied))+" copied")
	}
	fmt.Fprintf(w, "%s bag %s: %s, %s (%s) in %s\n", st.rule("✓"), esc(t.out), display.Plural(r.Files, "file", "files"),
		display.Size(r.Bytes), strings.Join(how, ", "), r.Elapsed.Round(time.Millisecond))
	fmt.Fprintf(w, "  manifests: %s; %s read to check them (%s)\n", strings.Join(r.Manifests, ", "),
		display.Plural(r.Hashed, "file", "files"), display.Size(r.HashedBytes))
	for i := range r.Copies {
		c := &r.Copies[i]
		fmt.Fprintf(w, "  Source: %s (%s)\n", esc(c.Source.URL), runText(c))
		if !c.Complete() {
			fmt.Fprintf(w, "  %s the copy is not complete, and bag-info.txt says so (ResourceSync-Copy-Complete: no):\n", st.warn("!"))
			for _, g := range c.Gaps {
				fmt.Fprintf(w, "    %s\n", esc(g))
			}
			if c.Refused > 0 {
				fmt.Fprintf(w, "    %s left out: not as the state records them\n", display.Plural(c.Refused, "file", "files"))
			}
		}
	}
	if r.Skipped > 0 {
		fmt.Fprintf(w, "  left out: %s (deleted by the Source, or outside --include/--exclude)\n", display.Plural(r.Skipped, "resource", "resources"))
	}
}

// runText names the run of the history a bag reflects.
func runText(c *bag.SourceCopy) string {
	switch {
	case c.Run == nil:
		return "no run in the history"
	case c.Run.Ended.IsZero():
		return fmt.Sprintf("run %d, no end recorded", c.Run.ID)
	}
	return fmt.Sprintf("run %d, ended %s", c.Run.ID, c.Run.Ended.UTC().Format(time.RFC3339))
}

// writeBagRefusal says why no bag was written: a copy that is not
// complete, or files that do not match their records; and what to run.
func writeBagRefusal(w io.Writer, st textStyles, r *bag.Result, t bagTarget) {
	if bag.Incomplete(r.Copies) != nil {
		for i := range r.Copies {
			c := &r.Copies[i]
			if len(c.Gaps) == 0 {
				continue
			}
			fmt.Fprintf(w, "%s no bag written: the copy of %s is not complete (%s)\n", st.err("✗"), esc(c.Source.URL), runText(c))
			for _, g := range c.Gaps {
				fmt.Fprintf(w, "  %s\n", esc(g))
			}
			fmt.Fprintf(w, "  finish it: %s, then bag again\n", esc(syncCommand(t.given, c.Source.URL)))
		}
		fmt.Fprintln(w, "  or rsx bag --incomplete: a bag of the copy as it is, marked incomplete in bag-info.txt")
		return
	}
	fmt.Fprintf(w, "%s no bag written: %s of the copy %s not match the state's records\n", st.err("✗"),
		display.Plural(len(r.Refused), "file", "files"), plural(len(r.Refused), "does", "do"))
	const show = 20
	for i, x := range r.Refused {
		if i == show {
			fmt.Fprintf(w, "  … and %s more\n", humanize.Comma(int64(len(r.Refused)-show)))
			break
		}
		fmt.Fprintf(w, "  %s  %s\n", esc(x.Path), esc(x.Reason))
	}
	for _, c := range r.Copies {
		if c.Refused > 0 {
			fmt.Fprintf(w, "  repair the copy: %s (rsx audit --dest says what differs), then bag again\n", esc(syncCommand(t.given, c.Source.URL)))
		}
	}
	fmt.Fprintln(w, "  or rsx bag --incomplete: a bag without them, marked incomplete in bag-info.txt")
}

// sourceDescriptionInfo reads each Source's Capability List and the Source
// Description it points up to, and returns bag-info.txt lines naming them
// and carrying their metadata; what could not be read is a warning.
func (a *app) sourceDescriptionInfo(ctx context.Context, cmd *cobra.Command, db *state.DB, only []string) ([]bag.Field, []string) {
	sources, err := db.Sources(ctx)
	if err != nil {
		return nil, []string{err.Error()}
	}
	var info []bag.Field
	var warns []string
	for _, s := range sources {
		if len(only) > 0 && !containsString(only, s.URL) {
			continue
		}
		client, err := a.http.client(s.URL)
		if err != nil {
			warns = append(warns, err.Error())
			continue
		}
		g := crawl.NewGraph(client, crawl.GraphOptions{})
		lctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		cl, err := g.Load(lctx, s.URL)
		if err != nil {
			cancel()
			warns = append(warns, fmt.Sprintf("the Source's metadata is not in the bag: %s: %v (--offline leaves it out without trying)", s.URL, err))
			continue
		}
		info = append(info, docInfo("ResourceSync-Capability-List", cl.Header)...)
		up := linkHref(cl.Header, "up")
		if up == "" {
			cancel()
			continue
		}
		info = append(info, bag.Field{Label: "ResourceSync-Source-Description", Value: model.ResolveHref(cl.FinalURL, up)})
		sd, err := g.Load(lctx, model.ResolveHref(cl.FinalURL, up))
		cancel()
		if err != nil {
			warns = append(warns, fmt.Sprintf("the Source Description's metadata is not in the bag: %s: %v", up, err))
			continue
		}
		info = append(info, docInfo("ResourceSync-Source-Description", sd.Header)...)
	}
	return info, warns
}

// docInfo is a document's own metadata as bag-info.txt lines: its rs:md
// datetimes and its rs:ln links other than up and index.
func docInfo(prefix string, h *model.Header) []bag.Field {
	if h == nil {
		return nil
	}
	var out []bag.Field
	if h.MD.At.OK {
		out = append(out, bag.Field{Label: prefix + "-At", Value: h.MD.At.Raw})
	}
	if h.MD.Completed.OK {
		out = append(out, bag.Field{Label: prefix + "-Completed", Value: h.MD.Completed.Raw})
	}
	for _, l := range h.Links {
		if !l.HasHref || l.Rel == "up" || l.Rel == "index" {
			continue
		}
		out = append(out, bag.Field{Label: prefix + "-Link", Value: l.Rel + " " + l.Href})
	}
	return out
}

func linkHref(h *model.Header, rel string) string {
	if h == nil {
		return ""
	}
	for _, l := range h.Links {
		if l.HasHref && l.Rel == rel {
			return l.Href
		}
	}
	return ""
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// bagCheckJSON is rsx bag --verify's --json document.
type bagCheckJSON struct {
	Bag       string   `json:"bag"`
	Valid     bool     `json:"valid"`
	Version   string   `json:"version"`
	Manifests []string `json:"manifests"`
	Files     int      `json:"files"`
	Bytes     int64    `json:"bytes"`
	Problems  []string `json:"problems"`
	Seconds   float64  `json:"seconds"`
}

func (a *app) runBagVerify(cmd *cobra.Command, f bagFlags, dir string) error {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	for _, name := range []string{"source", "include", "exclude", "copy", "link", "incomplete", "offline"} {
		if cmd.Flags().Changed(name) {
			return failed(fmt.Errorf("bag --verify BAG: --%s is an option of writing a bag (rsx bag DEST OUT)", name))
		}
	}
	start := time.Now()
	var bar *countBar
	if isTerminal(a.err) && !f.json {
		bar = newCountBar(a.err, "checking")
	}
	var progress func(int, int64)
	if bar != nil {
		progress = bar.set
	}
	c, err := bag.Verify(ctx, dir, progress)
	bar.finish()
	if err != nil {
		if ctx.Err() != nil {
			return failed(errors.New("bag --verify: interrupted"))
		}
		return failed(err)
	}
	if f.json {
		j := bagCheckJSON{Bag: dir, Valid: c.Valid(), Version: c.Version, Manifests: nonNil(c.Manifests), Files: c.Files, Bytes: c.Bytes,
			Problems: nonNil(c.Problems), Seconds: time.Since(start).Seconds()}
		if err := writeJSON(a.out, j); err != nil {
			return failed(fmt.Errorf("bag --verify: write the result: %w", err))
		}
	} else {
		st := newTextStyles(useColor(a.out))
		if c.Valid() {
			fmt.Fprintf(a.out, "%s %s is a valid bag (BagIt %s): %s, %s, manifests %s, every digest computed again\n", st.rule("✓"), esc(dir),
				esc(c.Version), display.Plural(c.Files, "file", "files"), display.Size(c.Bytes), strings.Join(c.Manifests, ", "))
		} else {
			fmt.Fprintf(a.out, "%s %s is not a valid bag: %s\n", st.err("✗"), esc(dir), display.Plural(len(c.Problems), "problem", "problems"))
			for _, p := range c.Problems {
				fmt.Fprintf(a.out, "  %s\n", esc(p))
			}
		}
	}
	if !c.Valid() {
		return foundProblems()
	}
	return nil
}

// countBar is a spinner with the files done and their bytes, on standard
// error; nil (no terminal) does nothing.
type countBar struct {
	lockedBar
	what string
}

func newCountBar(w io.Writer, what string) *countBar {
	return &countBar{what: what, lockedBar: lockedBar{bar: progressbar.NewOptions64(-1,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(what),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSpinnerType(14),
		progressbar.OptionClearOnFinish(),
	)}}
}

func (b *countBar) set(files int, bytes int64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.bar.Describe(fmt.Sprintf("%s: %s, %s", b.what, display.Plural(files, "file", "files"), display.Size(bytes)))
	_ = b.bar.Set64(int64(files))
}

func (b *countBar) finish() {
	if b != nil {
		b.lockedBar.finish()
	}
}
