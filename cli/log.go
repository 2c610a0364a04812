package cli

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"rsx/dest/state"
	"rsx/display"
)

type logFlags struct {
	source   string
	limit    int
	run      int64
	document string
	output   string
	files    bool
	sources  string
	json     bool
}

func newLogCmd(a *app) *cobra.Command {
	var f logFlags
	cmd := &cobra.Command{
		Use:   "log [--source URL] [--limit N] [--run ID [--files] [--document URL [-o FILE]]] [--json] DEST",
		Short: "The history of the runs kept in DEST's state",
		Long: `rsx log DEST prints the runs of rsx sync on the copy in DEST (a folder,
s3://bucket/prefix?…, or NAME: of the configuration file), newest first, from its state: when each started and
ended, its mode (baseline, reconcile or incremental) and why (a baseline
resumed, why a run of mode auto reconciled), what it created, updated, deleted
and failed, the bytes written, the copy's point after it, why it stopped
early, its exit status and the rsx that ran it. A run keeps its counts
current with each batch it records: a run interrupted (ctrl+c, SIGTERM, the
explorer quit during it) says "interrupted" with what it wrote; one killed
says "no end recorded" with what its last batch recorded, and "interrupted
(no end recorded)" once a later run on DEST found it so.

--run ID shows one run, however old. --run ID --files lists the files it
created, updated and deleted, the stray files it moved to the trash, and the
resources it refused or failed (with --json: each one's URI, path, length,
digests and time).

Each run keeps the Source's documents it read (the Source Description, the
Capability List, the lists and indexes, as received), so that what the Source
claimed when a file was copied can be read again: --run ID lists them, and
--run ID --document URL writes one (decompressed) to standard output when it
is no terminal, or to -o FILE. Kept: those of each Source's last 10 runs and
of its last 1,000 runs that changed the copy, within 256 MiB (compressed) per
Source, its oldest runs' first to go (one Source never pushes out another's).

--sources FILE shows the runs of every Source of a fleet file (docs/fleet.md)
under its name, each in its DEST (the file's, or the DEST given).

The state keeps the last 10,000 runs of each Source (the tables run and
run_file: see docs/destination.md for queries with sqlite3). Nothing is
written to DEST.`,
		Example: `  rsx log ./copy
  rsx log --limit 5 --json ./copy
  rsx log --source http://127.0.0.1:8080/dataset1/capabilitylist.xml ./copy
  rsx log --run 12 ./copy                                                      # run 12 and the documents it read
  rsx log --run 12 --files ./copy                                              # what run 12 created, updated and deleted
  rsx log --run 12 --document http://127.0.0.1:8080/dataset1/capabilitylist.xml -o cl.xml ./copy
  rsx log --sources fleet.toml                                                 # every Source of a fleet, by name`,
		Args: func(cmd *cobra.Command, args []string) error {
			if f.sources != "" && len(args) <= 1 {
				return nil // DEST: the Sources' default destination
			}
			return oneArg("DEST", "the folder or bucket URL of a copy rsx sync made")(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			if err := f.check(); err != nil {
				return failed(err)
			}
			if f.sources != "" {
				return a.runLogFleet(ctx, f, args)
			}
			dest, err := a.resolveDest(args[0])
			if err != nil {
				return failed(err)
			}
			return a.runLog(ctx, f, dest)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.source, "source", "", "only the runs of the Source of this `URL` (as rsx sync was given it)")
	fl.IntVar(&f.limit, "limit", 0, "at most `N` runs, the newest (default: all); with --sources, of each Source")
	fl.Int64Var(&f.run, "run", 0, "only the run `ID`, however old, with the Source's documents it read")
	fl.BoolVar(&f.files, "files", false, "with --run: the files the run created, updated, deleted and trashed, and the resources it refused or failed")
	fl.StringVar(&f.document, "document", "", "with --run: write the document of this `URL` the run read, as received (not to a terminal: redirect, or -o FILE)")
	fl.StringVarP(&f.output, "output", "o", "", "with --document: write it to `FILE`")
	fl.StringVar(&f.sources, "sources", "", "the runs of every Source of the fleet `FILE`, under its name")
	fl.BoolVar(&f.json, "json", false, "print the runs as JSON")
	return cmd
}

// check refuses options that do not go together.
func (f logFlags) check() error {
	switch {
	case f.limit < 0:
		return fmt.Errorf("log: --limit %d: give a number of runs, 1 or more (0: all)", f.limit)
	case f.document != "" && f.run == 0:
		return errors.New("log: --document goes with --run ID (the run that read it)")
	case f.files && f.run == 0:
		return errors.New("log: --files goes with --run ID (the run whose files to list)")
	case f.output != "" && f.document == "":
		return errors.New("log: -o FILE goes with --document URL (the document to write)")
	case f.files && f.document != "":
		return errors.New("log: --files and --document: give one or the other")
	case f.sources != "" && (f.run != 0 || f.source != ""):
		return errors.New("log: --sources shows the runs of every Source of the file: --run and --source go with one DEST")
	}
	return nil
}

// runJSON is one run in rsx log --json.
type runJSON struct {
	ID          int64   `json:"id"`
	Source      string  `json:"source"`
	Started     string  `json:"started"`
	Ended       *string `json:"ended"`
	Seconds     float64 `json:"seconds"`
	Mode        string  `json:"mode"`
	Why         *string `json:"why"`
	Planned     int     `json:"planned"`
	Created     int     `json:"created"`
	Updated     int     `json:"updated"`
	Deleted     int     `json:"deleted"`
	Failed      int     `json:"failed"`
	Bytes       int64   `json:"bytes"`
	Finished    bool    `json:"finished"`
	SyncedUntil *string `json:"synced_until"`
	Stopped     *string `json:"stopped"`
	// Interrupted: stopped by ctrl+c or SIGTERM, or found without an end
	// by a later run (state.Run.Interrupted).
	Interrupted bool   `json:"interrupted"`
	ExitStatus  *int   `json:"exit_status"`
	Version     string `json:"rsx_version"`
	// Trashed counts the stray files the run moved to the trash.
	Trashed int `json:"trashed"`
	// Host is the process that ran it: its host id (--host-id, else
	// HOSTNAME:PID); null for a run of an rsx that did not record it.
	Host *string `json:"host"`
}

type logJSON struct {
	Dest string    `json:"dest"`
	Runs []runJSON `json:"runs"`
	// Documents: with --run, the documents the run read.
	Documents []runDocJSON `json:"documents,omitempty"`
	// Files: with --run --files, the run's files (a streamed list).
	Files any `json:"files,omitempty"`
}

type runDocJSON struct {
	URL          string  `json:"url"`
	FinalURL     *string `json:"final_url"`
	FetchedAt    string  `json:"fetched_at"`
	Status       int     `json:"status"`
	ETag         *string `json:"etag"`
	LastModified *string `json:"last_modified"`
	SHA256       string  `json:"sha256"`
	Bytes        int64   `json:"bytes"`
	StoredBytes  int64   `json:"stored_bytes"`
}

// runFileJSON is one file of a run in rsx log --run ID --files --json.
type runFileJSON struct {
	Kind    string            `json:"kind"`
	URL     *string           `json:"url"`
	Path    *string           `json:"path"`
	Length  *int64            `json:"length"`
	Digests map[string]string `json:"digests"`
	At      string            `json:"at"`
	Note    *string           `json:"note"`
	Type    *string           `json:"type"`
	Via     *viaJSON          `json:"via"`
}

// viaJSON is where a copy came from (§12.7's via link): the original
// resource and what its Source declared of it.
type viaJSON struct {
	Href     string            `json:"href"`
	Modified *string           `json:"modified"`
	Hash     map[string]string `json:"hash"`
	Length   *int64            `json:"length"`
	Type     *string           `json:"type"`
}

func viaJSONOf(v state.Via) *viaJSON {
	j := &viaJSON{Href: v.Href, Modified: timeOrNull(v.Modified), Type: strOrNull(v.Type)}
	if v.Hash != "" {
		j.Hash = map[string]string{}
		v.Hash.Each(func(alg, hex string) { j.Hash[alg] = hex })
	}
	if v.Length >= 0 {
		n := v.Length
		j.Length = &n
	}
	return j
}

func strOrNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func runJSONOf(r *state.Run) runJSON {
	j := runJSON{ID: r.ID, Source: r.Source, Started: r.Started.UTC().Format(time.RFC3339), Ended: timeOrNull(r.Ended), Mode: r.Mode,
		Why: strOrNull(r.Why), Planned: r.Planned, Created: r.Created, Updated: r.Updated, Deleted: r.Deleted, Failed: r.Failed,
		Bytes: r.Bytes, Finished: r.Finished, SyncedUntil: timeOrNull(r.SyncedUntil), Stopped: strOrNull(r.Stopped),
		Interrupted: r.Interrupted(), Version: r.Version, Trashed: r.Trashed, Host: strOrNull(r.Host)}
	if !r.Ended.IsZero() {
		j.Seconds = r.Ended.Sub(r.Started).Seconds()
	}
	if r.ExitStatus >= 0 {
		code := r.ExitStatus
		j.ExitStatus = &code
	}
	return j
}

func runFileJSONOf(f *state.RunFile) runFileJSON {
	j := runFileJSON{Kind: string(f.Kind), URL: strOrNull(f.URI), Path: strOrNull(f.Path), Digests: map[string]string{},
		At: f.At.UTC().Format(time.RFC3339), Note: strOrNull(f.Note), Type: strOrNull(f.Type)}
	if v, ok := f.Provenance(); ok {
		j.Via = viaJSONOf(v)
	}
	if f.Length >= 0 {
		n := f.Length
		j.Length = &n
	}
	f.Digests.Each(func(alg, hex string) { j.Digests[alg] = hex })
	return j
}

func (a *app) runLog(ctx context.Context, f logFlags, dest string) error {
	d, err := a.openReadDest(ctx, "log", dest)
	if err != nil {
		return failed(err)
	}
	defer d.close()
	srcID, err := logSource(ctx, d, f.source, dest)
	if err != nil {
		return failed(err)
	}
	if f.run != 0 {
		return a.logRun(ctx, d, f, srcID, dest)
	}
	var runs []state.Run
	if err := d.db.Runs(ctx, srcID, f.limit, func(r *state.Run) error {
		runs = append(runs, *r)
		return nil
	}); err != nil {
		return failed(fmt.Errorf("log: %w", err))
	}
	if f.json {
		out := logJSON{Dest: d.st.String(), Runs: []runJSON{}}
		for i := range runs {
			out.Runs = append(out.Runs, runJSONOf(&runs[i]))
		}
		if err := writeJSON(a.out, out); err != nil {
			return failed(fmt.Errorf("log: %w", err))
		}
		return nil
	}
	writeLogText(a.out, newTextStyles(useColor(a.out)), d.st.String(), runs, f.source == "")
	return nil
}

// logSource is the id of the Source of url in d (0 for url ""): a Source
// the copy does not hold is refused naming those it holds, a state that
// cannot be read as such.
func logSource(ctx context.Context, d *readDest, url, dest string) (int64, error) {
	if url == "" {
		return 0, nil
	}
	s, err := d.db.SourceNamed(ctx, url)
	if err == nil {
		return s.ID, nil
	}
	if !errors.Is(err, state.ErrNoSource) {
		return 0, fmt.Errorf("log: read the state of %s: %w", dest, err)
	}
	srcs, lerr := d.db.Sources(ctx)
	if lerr != nil {
		return 0, fmt.Errorf("log: read the state of %s: %w", dest, lerr)
	}
	held := make([]string, len(srcs))
	for i, s := range srcs {
		held[i] = esc(s.URL)
	}
	if len(held) == 0 {
		return 0, fmt.Errorf("log: the copy in %s holds no Source %s (it holds none yet)", dest, esc(url))
	}
	return 0, fmt.Errorf("log: the copy in %s holds no Source %s; it holds %s", dest, esc(url), strings.Join(held, ", "))
}

// logRun shows run f.run, however old: with its documents, its files
// (--files), or one of its documents' bytes (--document).
func (a *app) logRun(ctx context.Context, d *readDest, f logFlags, srcID int64, dest string) error {
	r, ok, err := d.db.Run(ctx, f.run)
	if err != nil {
		return failed(fmt.Errorf("log: read the state of %s: %w", dest, err))
	}
	if !ok {
		return failed(fmt.Errorf("log: the copy in %s has no run %d (pruned, or never: rsx log %s lists them)", dest, f.run, dest))
	}
	if srcID != 0 && r.SourceID != srcID {
		return failed(fmt.Errorf("log: run %d of %s is of the Source %s, not %s", f.run, dest, esc(r.Source), esc(f.source)))
	}
	if f.document != "" {
		return a.logDocument(ctx, d, f)
	}
	if f.files {
		return a.logFiles(ctx, d, f, &r)
	}
	docs, err := d.db.RunDocuments(ctx, f.run)
	if err != nil {
		return failed(fmt.Errorf("log: %w", err))
	}
	if f.json {
		out := logJSON{Dest: d.st.String(), Runs: []runJSON{runJSONOf(&r)}}
		for _, dc := range docs {
			out.Documents = append(out.Documents, runDocJSON{URL: dc.URL, FinalURL: strOrNull(dc.FinalURL), FetchedAt: dc.FetchedAt.UTC().Format(time.RFC3339),
				Status: dc.Status, ETag: strOrNull(dc.ETag), LastModified: strOrNull(dc.LastModified), SHA256: dc.SHA256, Bytes: dc.Length, StoredBytes: dc.Stored})
		}
		if err := writeJSON(a.out, out); err != nil {
			return failed(fmt.Errorf("log: %w", err))
		}
		return nil
	}
	writeLogText(a.out, newTextStyles(useColor(a.out)), d.st.String(), []state.Run{r}, true)
	if len(docs) == 0 {
		fmt.Fprintln(a.out, "  no document kept of this run (pruned, or the run read none)")
	} else {
		fmt.Fprintf(a.out, "  %s read (rsx log --run %d --document URL -o FILE %s writes one):\n", display.Plural(len(docs), "document", "documents"), f.run, esc(dest))
		for _, dc := range docs {
			fmt.Fprintf(a.out, "    %s  %s  sha-256 %s…\n", esc(dc.URL), display.Size(dc.Length), dc.SHA256[:min(12, len(dc.SHA256))])
		}
	}
	fmt.Fprintf(a.out, "  rsx log --run %d --files %s lists the files it changed\n", f.run, esc(dest))
	return nil
}

// logDocument writes a document a run read, decompressed, to -o FILE or to
// standard output, never to a terminal: the bytes are the Source's, as
// received, which a terminal would interpret.
func (a *app) logDocument(ctx context.Context, d *readDest, f logFlags) error {
	if f.output == "" && isTerminal(a.out) {
		return failed(fmt.Errorf("log: --document writes the Source's bytes as received, which a terminal would interpret: give -o FILE, or redirect standard output (> FILE)"))
	}
	gz, err := d.db.DocumentGzip(ctx, f.run, f.document)
	if err != nil {
		return failed(fmt.Errorf("log: %w", err))
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return failed(fmt.Errorf("log: the document %s of run %d: %w", esc(f.document), f.run, err))
	}
	if f.output == "" {
		if _, err := io.Copy(a.out, zr); err != nil {
			return failed(fmt.Errorf("log: the document %s of run %d: %w", esc(f.document), f.run, err))
		}
		return nil
	}
	if err := writeFileWhole(f.output, zr); err != nil {
		return failed(fmt.Errorf("log: the document %s of run %d: %w", esc(f.document), f.run, err))
	}
	return nil
}

// writeFileWhole writes r to path through a temporary file beside it,
// renamed into place once whole: a failure leaves path as it was.
func writeFileWhole(path string, r io.Reader) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = io.Copy(tmp, r)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// logFiles lists the files of run r, from the state as they are read
// (a baseline's million files are never held).
func (a *app) logFiles(ctx context.Context, d *readDest, f logFlags, r *state.Run) error {
	each := func(fn func(f *state.RunFile) error) error { return d.db.RunFiles(ctx, r.ID, fn) }
	if f.json {
		files := streamList(func(emit func(any) error) error {
			return each(func(rf *state.RunFile) error { return emit(runFileJSONOf(rf)) })
		})
		out := logJSON{Dest: d.st.String(), Runs: []runJSON{runJSONOf(r)}, Files: files}
		if err := writeJSONStreamed(a.out, out, files); err != nil {
			return failed(fmt.Errorf("log: %w", err))
		}
		return nil
	}
	writeLogText(a.out, newTextStyles(useColor(a.out)), d.st.String(), []state.Run{*r}, true)
	n := 0
	err := each(func(rf *state.RunFile) error {
		n++
		_, err := fmt.Fprintln(a.out, runFileLine(rf))
		return err
	})
	if err != nil {
		return failed(fmt.Errorf("log: %w", err))
	}
	if n == 0 {
		fmt.Fprintln(a.out, "  no file recorded (the run changed none, or an rsx older than the file history ran it)")
	}
	return nil
}

// runFileLine is one file of a run, as rsx log --files prints it.
func runFileLine(f *state.RunFile) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  %-8s ", f.Kind)
	switch f.Kind {
	case state.FileRefused, state.FileFailed:
		b.WriteString(esc(f.URI))
		if f.Path != "" {
			b.WriteString(" (" + esc(f.Path) + ")")
		}
	default:
		b.WriteString(esc(f.Path))
		if f.Length >= 0 {
			b.WriteString("  " + display.Size(f.Length))
		}
	}
	if f.Note != "" {
		b.WriteString(": " + esc(f.Note))
	}
	return b.String()
}

func writeLogText(w io.Writer, st textStyles, dest string, runs []state.Run, several bool) {
	if len(runs) == 0 {
		fmt.Fprintf(w, "%s %s: no run recorded (a copy made by an rsx older than the run history has none until its next sync)\n", st.title("log"), esc(dest))
		return
	}
	fmt.Fprintf(w, "%s %s: %s, newest first\n", st.title("log"), esc(dest), display.Plural(len(runs), "run", "runs"))
	sources := map[string]bool{}
	for _, r := range runs {
		sources[r.Source] = true
	}
	for _, r := range runs {
		writeRunText(w, st, &r, several && len(sources) > 1)
	}
}

// writeRunText writes one run in two lines; withSource names its Source.
func writeRunText(w io.Writer, st textStyles, r *state.Run, withSource bool) {
	var status string
	switch {
	case r.Ended.IsZero() && r.Stopped == state.StoppedNoEnd:
		status = st.err("✗") + " interrupted (no end recorded)"
	case r.Ended.IsZero():
		status = st.warn("no end recorded: going on, or killed")
	case r.Interrupted():
		status = st.err("✗") + fmt.Sprintf(" interrupted, exit %d", r.ExitStatus)
	case r.ExitStatus == 0:
		status = st.rule("✓") + " exit 0"
	default:
		status = st.err("✗") + fmt.Sprintf(" exit %d", r.ExitStatus)
	}
	dur := ""
	if !r.Ended.IsZero() {
		dur = r.Ended.Sub(r.Started).Round(time.Millisecond).String()
	}
	counts := fmt.Sprintf("+%s ~%s -%s", display.Count(r.Created), display.Count(r.Updated), display.Count(r.Deleted))
	if r.Failed > 0 {
		counts += fmt.Sprintf(", %s failed", display.Count(r.Failed))
	}
	if r.Trashed > 0 {
		counts += fmt.Sprintf(", %s to the trash", display.Count(r.Trashed))
	}
	fmt.Fprintf(w, "#%-5d %s  %-9s %-11s %-22s %-10s %s\n", r.ID, r.Started.Local().Format("2006-01-02 15:04:05"), dur, r.Mode, counts,
		display.Size(r.Bytes), status)
	var more []string
	if withSource {
		more = append(more, "Source "+esc(r.Source))
	}
	if r.Why != "" {
		more = append(more, "why: "+esc(r.Why))
	}
	if r.Stopped != "" && !r.Interrupted() {
		more = append(more, "stopped: "+esc(r.Stopped))
	}
	if !r.SyncedUntil.IsZero() {
		more = append(more, "point "+datetimeOrNone(r.SyncedUntil))
	}
	more = append(more, esc(r.Version))
	if r.Host != "" {
		more = append(more, "by "+esc(r.Host))
	}
	fmt.Fprintf(w, "       %s\n", st.dim(strings.Join(more, " · ")))
}
