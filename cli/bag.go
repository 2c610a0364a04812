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
	copy             bool
	verify           bool
	offline          bool
	json             bool
}

func newBagCmd(a *app) *cobra.Command {
	var f bagFlags
	cmd := &cobra.Command{
		Use:   "bag [--source URL]... [--include RE]... [--exclude RE]... [--copy] [--verify] [--offline] [--json] DEST OUT | bag --verify [--json] BAG",
		Short: "Write a copy as a BagIt bag (RFC 8493) for a preservation system, or check a bag",
		Long: `rsx bag DEST OUT writes the copy in DEST (made by rsx sync: a folder,
s3://bucket/prefix?…, or NAME: of the configuration file) as a BagIt 1.0 bag (RFC 8493) in OUT, a folder that
must not exist yet or be empty: the package Archivematica, a repository's
ingest and other preservation systems take in.

  OUT/bagit.txt                 the bag's declaration
  OUT/data/…                    the files, at their paths in DEST
  OUT/manifest-sha256.txt       a SHA-256 of every file (and manifest-md5.txt,
                                -sha512, -sha1 where the state holds that
                                digest of every file: those the Source declared)
  OUT/bag-info.txt              Bagging-Date, Payload-Oxum, Bag-Size, the
                                Source's Capability List, the copy's baseline
                                and point, its last run, and the Source
                                Description's metadata
  OUT/tagmanifest-sha256.txt    digests of the tag files

The digests come from the state: each was verified when the file was
written. A file is read again only when its record cannot be trusted as it
stands (its modification time is not the one recorded, or the state holds no
SHA-256 of it); --verify reads and checks every file. A file that does not
match its record (missing, another length, another digest, or found damaged
by an audit) keeps the bag from being written: run rsx sync first (exit 1).

Files are linked, not copied, where the file system allows: a reflink (a
copy-on-write clone) where it has them, else a hard link, else a copy; a
hard-linked file is the copy's own, so change neither in place. --copy
copies every file. A bucket copy is streamed into a local bag and hashed on
the way. The bag is built beside OUT and renamed into place when complete:
an interrupted run leaves nothing at OUT.

--source limits the bag to one Source of a DEST that holds several (the URL
rsx sync was given for it); --include and --exclude select resources by URI
(RE2). The Source Description's metadata is read from the Source (one or two
small requests; --offline leaves it out).

rsx bag --verify BAG checks an existing bag against RFC 8493: bagit.txt,
every payload file in every manifest and present, every digest computed
again, Payload-Oxum, and the tag manifests. Exit status 1 when it is not
valid.`,
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
			return a.runBag(cmd, f, dest, args[1])
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.sources, "source", nil, "only the Source of this `URL` (as rsx sync was given it; repeatable)")
	fl.StringArrayVar(&f.include, "include", nil, "only resources whose URI matches `RE` (repeatable)")
	fl.StringArrayVar(&f.exclude, "exclude", nil, "leave out resources whose URI matches `RE` (repeatable)")
	fl.BoolVar(&f.copy, "copy", false, "copy every file (default: reflink or hard link where the file system allows)")
	fl.BoolVar(&f.verify, "verify", false, "read every file and check it against its digests (with one argument: check the bag BAG)")
	fl.BoolVar(&f.offline, "offline", false, "do not read the Source Description's metadata from the Source")
	fl.BoolVar(&f.json, "json", false, "print the result as JSON")
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
}

type bagRefusal struct {
	URI    string `json:"uri"`
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

func (a *app) runBag(cmd *cobra.Command, f bagFlags, dest, out string) error {
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
	d, err := a.openReadDest(ctx, "bag", dest)
	if err != nil {
		return failed(err)
	}
	defer d.close()
	st, db := d.st, d.db

	var warnings []string
	opt := bag.Options{Sources: f.sources, Include: inc, Exclude: exc, Copy: f.copy, Verify: f.verify, Software: version.Program()}
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
	res, err := bag.Write(ctx, st, db, out, opt)
	bar.finish()
	if err != nil && !errors.Is(err, bag.ErrRefused) {
		if ctx.Err() != nil {
			return failed(errors.New("bag: interrupted; nothing was written at " + out))
		}
		return failed(err)
	}
	written := err == nil
	if f.json {
		j := bagJSON{Bag: out, Dest: st.String(), Sources: nonNil(res.Sources), Files: res.Files, Bytes: res.Bytes,
			Reflinked: res.Reflinked, Linked: res.Linked, Copied: res.Copied, Hashed: res.Hashed, HashedBytes: res.HashedBytes,
			Manifests: nonNil(res.Manifests), Refused: []bagRefusal{}, Written: written, Warnings: nonNil(warnings), Seconds: res.Elapsed.Seconds()}
		for _, r := range res.Refused {
			j.Refused = append(j.Refused, bagRefusal{URI: r.URI, Path: r.Path, Reason: r.Reason})
		}
		if err := writeJSON(a.out, j); err != nil {
			return failed(fmt.Errorf("bag: write the result: %w", err))
		}
	} else {
		writeBagText(a.out, newTextStyles(useColor(a.out)), res, out, written)
	}
	if !written {
		return foundProblems()
	}
	return nil
}

func writeBagText(w io.Writer, st textStyles, r *bag.Result, out string, written bool) {
	if !written {
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
		fmt.Fprintln(w, "  run rsx sync --dest DEST URL to repair the copy (rsx audit --dest says what differs), then bag again")
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
	fmt.Fprintf(w, "%s bag %s: %s, %s (%s) in %s\n", st.rule("✓"), esc(out), display.Plural(r.Files, "file", "files"),
		display.Size(r.Bytes), strings.Join(how, ", "), r.Elapsed.Round(time.Millisecond))
	fmt.Fprintf(w, "  manifests: %s; %s read to check them (%s)\n", strings.Join(r.Manifests, ", "),
		display.Plural(r.Hashed, "file", "files"), display.Size(r.HashedBytes))
	for _, s := range r.Sources {
		fmt.Fprintf(w, "  Source: %s\n", esc(s))
	}
	if r.Skipped > 0 {
		fmt.Fprintf(w, "  left out: %s (deleted by the Source, or outside --include/--exclude)\n", display.Plural(r.Skipped, "resource", "resources"))
	}
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
	for _, name := range []string{"source", "include", "exclude", "copy", "offline"} {
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
