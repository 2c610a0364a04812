package cli

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
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
	json     bool
}

func newLogCmd(a *app) *cobra.Command {
	var f logFlags
	cmd := &cobra.Command{
		Use:   "log [--source URL] [--limit N] [--run ID [--document URL]] [--json] DEST",
		Short: "The history of the runs kept in DEST's state",
		Long: `rsx log DEST prints the runs of rsx sync on the copy in DEST (a folder,
s3://bucket/prefix?…, or NAME: of the configuration file), newest first, from its state: when each started and
ended, its mode (baseline, reconcile or incremental, and why a run of mode auto
reconciled), what it created, updated, deleted and failed, the bytes written,
the copy's point after it, why it stopped early, its exit status and the rsx
that ran it. A run with no end recorded is going on, or was killed.

Each run keeps the Source's documents it read (the Source Description, the
Capability List, the lists and indexes, as received), so that what the Source
claimed when a file was copied can be read again: --run ID lists them, and
--run ID --document URL prints one (decompressed) on standard output. Kept:
those of each Source's last 10 runs and of its last 1,000 runs that changed
the copy, within 256 MiB (compressed) per DEST, the oldest runs' first to go.

The state keeps the last 10,000 runs of each Source (the table run: see
docs/destination.md for queries with sqlite3). Nothing is written to DEST.`,
		Example: `  rsx log ./copy
  rsx log --limit 5 --json ./copy
  rsx log --source http://127.0.0.1:8080/dataset1/capabilitylist.xml ./copy
  rsx log --run 12 ./copy                                                      # run 12 and the documents it read
  rsx log --run 12 --document http://127.0.0.1:8080/dataset1/capabilitylist.xml ./copy > cl.xml`,
		Args: oneArg("DEST", "the folder or bucket URL of a copy rsx sync made"),
		RunE: func(cmd *cobra.Command, args []string) error {
			dest, err := a.resolveDest(args[0])
			if err != nil {
				return failed(err)
			}
			return a.runLog(cmd, f, dest)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.source, "source", "", "only the runs of the Source of this `URL` (as rsx sync was given it)")
	fl.IntVar(&f.limit, "limit", 0, "at most `N` runs, the newest (default: all)")
	fl.Int64Var(&f.run, "run", 0, "only the run `ID`, with the Source's documents it read")
	fl.StringVar(&f.document, "document", "", "with --run: print the document of this `URL` the run read, as received")
	fl.BoolVar(&f.json, "json", false, "print the runs as JSON")
	return cmd
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
	ExitStatus  *int    `json:"exit_status"`
	Version     string  `json:"rsx_version"`
	// Trashed counts the stray files the run moved to the trash.
	Trashed int `json:"trashed"`
}

type logJSON struct {
	Dest string    `json:"dest"`
	Runs []runJSON `json:"runs"`
	// Documents: with --run, the documents the run read.
	Documents []runDocJSON `json:"documents,omitempty"`
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

func strOrNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (a *app) runLog(cmd *cobra.Command, f logFlags, dest string) error {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	if f.limit < 0 {
		return failed(fmt.Errorf("log: --limit %d: give a number of runs, 1 or more (0: all)", f.limit))
	}
	d, err := a.openReadDest(ctx, "log", dest)
	if err != nil {
		return failed(err)
	}
	defer d.close()
	var srcID int64
	if f.source != "" {
		s, err := d.db.Source(ctx, f.source)
		if err != nil {
			return failed(fmt.Errorf("log: the copy in %s holds no Source %s", dest, f.source))
		}
		srcID = s.ID
	}
	if f.document != "" && f.run == 0 {
		return failed(errors.New("log: --document goes with --run ID (the run that read it)"))
	}
	var runs []state.Run
	if err := d.db.Runs(ctx, srcID, f.limit, func(r *state.Run) error {
		if f.run == 0 || r.ID == f.run {
			runs = append(runs, *r)
		}
		return nil
	}); err != nil {
		return failed(fmt.Errorf("log: %w", err))
	}
	var docs []state.RunDocument
	if f.run != 0 {
		if len(runs) == 0 {
			return failed(fmt.Errorf("log: the copy in %s has no run %d (rsx log %s lists them)", dest, f.run, dest))
		}
		if f.document != "" {
			gz, err := d.db.DocumentGzip(ctx, f.run, f.document)
			if err != nil {
				return failed(fmt.Errorf("log: %w", err))
			}
			zr, err := gzip.NewReader(bytes.NewReader(gz))
			if err == nil {
				_, err = io.Copy(a.out, zr)
			}
			if err != nil {
				return failed(fmt.Errorf("log: the document %s of run %d: %w", f.document, f.run, err))
			}
			return nil
		}
		if docs, err = d.db.RunDocuments(ctx, f.run); err != nil {
			return failed(fmt.Errorf("log: %w", err))
		}
	}
	if f.json {
		out := logJSON{Dest: d.st.String(), Runs: []runJSON{}}
		for _, r := range runs {
			j := runJSON{ID: r.ID, Source: r.Source, Started: r.Started.UTC().Format(time.RFC3339), Ended: timeOrNull(r.Ended), Mode: r.Mode,
				Why: strOrNull(r.Why), Planned: r.Planned, Created: r.Created, Updated: r.Updated, Deleted: r.Deleted, Failed: r.Failed,
				Bytes: r.Bytes, Finished: r.Finished, SyncedUntil: timeOrNull(r.SyncedUntil), Stopped: strOrNull(r.Stopped), Version: r.Version, Trashed: r.Trashed}
			if !r.Ended.IsZero() {
				j.Seconds = r.Ended.Sub(r.Started).Seconds()
			}
			if r.ExitStatus >= 0 {
				code := r.ExitStatus
				j.ExitStatus = &code
			}
			out.Runs = append(out.Runs, j)
		}
		for _, dc := range docs {
			out.Documents = append(out.Documents, runDocJSON{URL: dc.URL, FinalURL: strOrNull(dc.FinalURL), FetchedAt: dc.FetchedAt.UTC().Format(time.RFC3339),
				Status: dc.Status, ETag: strOrNull(dc.ETag), LastModified: strOrNull(dc.LastModified), SHA256: dc.SHA256, Bytes: dc.Length, StoredBytes: dc.Stored})
		}
		if err := writeJSON(a.out, out); err != nil {
			return failed(fmt.Errorf("log: %w", err))
		}
		return nil
	}
	st := newTextStyles(useColor(a.out))
	writeLogText(a.out, st, d.st.String(), runs, f.source == "")
	if f.run != 0 {
		if len(docs) == 0 {
			fmt.Fprintln(a.out, "  no document kept of this run (pruned, or the run read none)")
		} else {
			fmt.Fprintf(a.out, "  %s read (rsx log --run %d --document URL %s prints one):\n", display.Plural(len(docs), "document", "documents"), f.run, esc(dest))
			for _, dc := range docs {
				fmt.Fprintf(a.out, "    %s  %s  sha-256 %s…\n", esc(dc.URL), display.Size(dc.Length), dc.SHA256[:min(12, len(dc.SHA256))])
			}
		}
	}
	return nil
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
		var status string
		switch {
		case r.Ended.IsZero():
			status = st.warn("no end recorded: going on, or killed")
		case r.ExitStatus == 0:
			status = st.rule("✓") + " exit 0"
		default:
			status = st.err("✗") + fmt.Sprintf(" exit %d", r.ExitStatus)
		}
		dur := ""
		if !r.Ended.IsZero() {
			dur = r.Ended.Sub(r.Started).Round(time.Millisecond).String()
		}
		counts := fmt.Sprintf("+%d ~%d -%d", r.Created, r.Updated, r.Deleted)
		if r.Failed > 0 {
			counts += fmt.Sprintf(", %d failed", r.Failed)
		}
		if r.Trashed > 0 {
			counts += fmt.Sprintf(", %d to the trash", r.Trashed)
		}
		fmt.Fprintf(w, "#%-5d %s  %-9s %-11s %-22s %-10s %s\n", r.ID, r.Started.Local().Format("2006-01-02 15:04:05"), dur, r.Mode, counts,
			display.Size(r.Bytes), status)
		var more []string
		if several && len(sources) > 1 {
			more = append(more, "Source "+esc(r.Source))
		}
		if r.Why != "" {
			more = append(more, "why: "+esc(r.Why))
		}
		if r.Stopped != "" {
			more = append(more, "stopped: "+esc(r.Stopped))
		}
		if !r.SyncedUntil.IsZero() {
			more = append(more, "point "+datetimeOrNone(r.SyncedUntil))
		}
		more = append(more, esc(r.Version))
		fmt.Fprintf(w, "       %s\n", st.dim(strings.Join(more, " · ")))
	}
}
