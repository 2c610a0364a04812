package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"rsx/dest/engine"
	"rsx/dest/job"
	"rsx/dest/store"
	"rsx/display"
)

// runDestAudit runs rsx audit --dest: the copy in DEST against the Source.
func (a *app) runDestAudit(cmd *cobra.Command, f auditFlags, target string) error {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	if err := f.destOnly(cmd); err != nil {
		return failed(err)
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	// The report keeps the first lines of each list the text shows, and
	// spools the lists whole (in DEST's temporary folder) for --json, which
	// writes them an element at a time: memory does not grow with them.
	req := job.AuditRequest{Target: target, Dest: f.dest, AllowOtherHosts: f.allowOtherHosts, Keep: maxTextLines, RequireCopy: true,
		Wait: f.wait, OnWait: func(dest, holder string, wait time.Duration) {
			fmt.Fprintf(a.err, "rsx: audit: %s is in use by %s; waiting up to %s for it (--wait)\n", esc(dest), esc(holder), wait)
		}}
	var bar *syncBar
	if isTerminal(a.err) {
		bar = newSyncBar(a.err)
		req.Progress = bar.update
	}
	r := a.runner().Audit(ctx, req)
	bar.finish()
	defer r.Close()
	if r.Unwritable {
		fmt.Fprintf(a.err, "rsx: audit: %s cannot be written: audited read-only, nothing recorded in it\n", esc(f.dest))
	}
	var noCopy *engine.NoCopyError
	if errors.As(r.Err, &noCopy) {
		return failed(noCopyError(noCopy, f.dest, target))
	}
	if r.Err != nil {
		return failed(r.Err)
	}
	if err := writeDestAudit(a.out, r, f.json, f.dest, target); err != nil {
		return failed(fmt.Errorf("audit: write the report: %w", err))
	}
	return exitWith(r.ExitStatus)
}

// destOnly refuses the options of the spot audit in an audit of a copy.
func (f *auditFlags) destOnly(cmd *cobra.Command) error {
	fl := cmd.Flags()
	for _, name := range []string{"sample", "seed", "include", "exclude", "max-total-bytes", "timeout-total"} {
		if fl.Changed(name) {
			return fmt.Errorf("audit --dest: --%s is an option of the spot audit (the copy's own selection applies)", name)
		}
	}
	return nil
}

// writeDestAudit writes an audit of a copy: JSON, or text for people.
func writeDestAudit(w io.Writer, r *job.AuditResult, asJSON bool, destArg, target string) error {
	if asJSON {
		return writeDestAuditJSON(w, r.Report, r.Dest)
	}
	writeDestAuditText(w, newTextStyles(useColor(w)), r.Report, r.Dest, destArg, target)
	return nil
}

// JSON of rsx audit --dest: the contract's fields (in_sync, same, missing,
// changed, extra, unannounced) and the others docs/json.md lists.
type destAuditJSON struct {
	InSync  bool     `json:"in_sync"`
	Same    int      `json:"same"`
	Missing []string `json:"missing"`
	Changed []string `json:"changed"`
	Extra   []string `json:"extra"`
	// PendingDeletes: extras whose deletion the copy knows of (sync --delete).
	PendingDeletes int `json:"pending_deletes"`
	// Stray: the files of Extra no resource of any Source owns, inside the
	// Source's part of DEST (sync --delete moves them to the trash).
	Stray []string `json:"stray"`
	// Protected: files of the Source's part the protect list
	// (DEST/.rsxignore) keeps, not counted.
	Protected    int      `json:"protected"`
	Unannounced  []string `json:"unannounced"`
	Damaged      []string `json:"damaged"`
	Unverifiable []string `json:"unverifiable"`
	Source       string   `json:"source"`
	Dest         string   `json:"dest"`
	Document     string   `json:"document"`
	At           *string  `json:"at"`
	Point        *string  `json:"point"`
	Excluded     int      `json:"excluded"`
	// The resources the copy does not claim: Excluded plus Unselected plus
	// Collisions.
	OutOfSelection int `json:"out_of_selection"`
	Unselected     int `json:"unselected"`
	// Collisions: resources another resource of the copy holds the path of
	// (the collision rule): sync refuses them.
	Collisions int `json:"collisions"`
	// Complete: every document was read (else Problems names those that
	// were not, and NotCompared counts the copy's resources that no
	// document read lists).
	Complete    bool           `json:"complete"`
	NotCompared int            `json:"not_compared"`
	Hashed      int            `json:"hashed"`
	HashedBytes int64          `json:"hashed_bytes"`
	Documents   int            `json:"documents"`
	Problems    []syncFailJSON `json:"problems"`
	Warnings    []string       `json:"warnings"`
	Seconds     float64        `json:"seconds"`
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// writeDestAuditJSON writes the report as writeJSON writes destAuditJSONOf
// (the same bytes), with each list read from the report (its spool, with
// AuditOptions.Keep) and written an element at a time.
func writeDestAuditJSON(w io.Writer, r *engine.AuditReport, dest string) error {
	each := func(l engine.AuditList) func(func(string) error) error {
		return func(emit func(string) error) error { return r.Each(l, emit) }
	}
	return writeJSONWithLists(w, destAuditJSONOf(r, dest), map[string]func(func(string) error) error{
		"missing": each(engine.ListMissing), "changed": each(engine.ListChanged), "extra": each(engine.ListExtra), "stray": each(engine.ListStray),
		"unannounced": each(engine.ListUnannounced), "damaged": each(engine.ListDamaged), "unverifiable": each(engine.ListUnverifiable),
	})
}

func destAuditJSONOf(r *engine.AuditReport, dest string) destAuditJSON {
	return destAuditJSON{
		InSync: r.InSync(), Same: r.Same, Missing: nonNil(r.Missing), Changed: nonNil(r.Changed), Extra: nonNil(r.Extra), PendingDeletes: r.PendingDeletes,
		Stray: nonNil(r.Stray), Protected: r.Protected,
		Unannounced: nonNil(r.Unannounced), Damaged: nonNil(r.Damaged), Unverifiable: nonNil(r.Unverifiable),
		Source: r.Source, Dest: dest, Document: r.Document, At: timeOrNull(r.At), Point: timeOrNull(r.Point),
		Excluded: r.Excluded, OutOfSelection: r.OutOfSelection(), Unselected: r.Unselected, Collisions: r.Collisions,
		Complete: r.Complete(), NotCompared: r.NotCompared, Hashed: r.Hashed, HashedBytes: r.HashedBytes, Documents: r.Documents,
		Problems: failJSON(r.Problems), Warnings: nonNil(r.Warnings), Seconds: r.Elapsed.Seconds(),
	}
}

// writeDestAuditText writes the comparison for people: counts, then the
// resources of each kind of difference. destArg and target are the DEST and
// URL as given, for the commands it proposes.
func writeDestAuditText(w io.Writer, st textStyles, r *engine.AuditReport, dest, destArg, target string) {
	fmt.Fprintf(w, "%s %s ↔ %s\n", st.title("audit"), esc(dest), esc(r.Source))
	fmt.Fprintf(w, "  the Resource List %s (at %s), the changes since; the copy's point %s\n", esc(r.Document), datetimeOrNone(r.At), datetimeOrNone(r.Point))
	fmt.Fprintf(w, "  %s local copies hashed (%s) in %s\n", display.Count(r.Hashed), display.Size(r.HashedBytes), r.Elapsed.Round(time.Millisecond))
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "%s %s\n", st.warn("!"), esc(warn))
	}
	if !r.Complete() {
		fmt.Fprintf(w, "%s %s of the Source could not be read: the audit is incomplete\n", st.err("✗"), display.Plural(len(r.Problems), "document", "documents"))
		for _, p := range r.Problems {
			msg := p.Error()
			if !strings.Contains(msg, p.URL) {
				msg = p.URL + ": " + msg
			}
			fmt.Fprintf(w, "    %s\n", esc(msg))
		}
		fmt.Fprintf(w, "  what follows holds for the documents read only")
		if r.NotCompared > 0 {
			fmt.Fprintf(w, "; %s of the copy that no document read lists are not compared (neither extra nor deleted: they may be in those)", display.Plural(r.NotCompared, "resource", "resources"))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%s %s same\n", st.rule("✓"), display.Count(r.Same))
	if r.Collisions > 0 {
		fmt.Fprintf(w, "%s %s outside the copy: another resource holds the path (a path collision; sync refuses them)\n", st.dim("·"), display.Count(r.Collisions))
	}
	if n := r.OutOfSelection() - r.Collisions; n > 0 {
		excluded, unselected := "left out by its --include/--exclude", "never chosen: only chosen resources of this Source were synced"
		why := excluded
		switch {
		case r.Excluded > 0 && r.Unselected > 0:
			why = fmt.Sprintf("%s %s; %s %s", display.Count(r.Excluded), excluded, display.Count(r.Unselected), unselected)
		case r.Unselected > 0:
			why = unselected
		}
		fmt.Fprintf(w, "%s %s out of the copy's selection, not compared (%s)\n", st.dim("·"), display.Count(n), why)
	}
	// Extras that are all deletions kept on purpose are no difference.
	extraMark, extraStyle := "✗", st.err
	if r.Len(engine.ListExtra) == r.PendingDeletes {
		extraMark, extraStyle = "·", st.dim
	}
	lists := []struct {
		title string
		list  engine.AuditList
		items []string // the first of the list, at least maxTextLines when it has as many
		style func(string) string
		mark  string
	}{
		{"missing", engine.ListMissing, r.Missing, st.err, "✗"},
		{"changed", engine.ListChanged, r.Changed, st.err, "✗"},
		{"extra", engine.ListExtra, r.Extra, extraStyle, extraMark},
		{"damaged in the copy", engine.ListDamaged, r.Damaged, st.err, "✗"},
		{"unannounced (differ although no Change List since the copy's point announced a change)", engine.ListUnannounced, r.Unannounced, st.warn, "!"},
		{"unverifiable (the Source declares nothing to compare)", engine.ListUnverifiable, r.Unverifiable, st.dim, "·"},
	}
	for _, l := range lists {
		n := r.Len(l.list)
		if n == 0 {
			continue
		}
		fmt.Fprintf(w, "%s %s %s:\n", l.style(l.mark), display.Count(n), l.title)
		for i, u := range l.items {
			if i == maxTextLines {
				break
			}
			fmt.Fprintf(w, "    %s\n", esc(u))
		}
		if n > maxTextLines {
			fmt.Fprintf(w, "    … and %s more (--json lists every one)\n", display.Count(n-maxTextLines))
		}
	}
	if r.PendingDeletes > 0 {
		fmt.Fprintf(w, "%s %s deleted at the Source, kept because the sync ran without --delete (kept on purpose, not a difference): rsx sync --delete removes %s\n",
			st.dim("·"), display.Plural(r.PendingDeletes, "extra resource was", "extra resources were"), map[bool]string{true: "it", false: "them"}[r.PendingDeletes == 1])
	}
	writeStrayText(w, st, r, destArg, target)
	switch {
	case r.InSync():
		fmt.Fprintf(w, "%s in sync\n", st.rule("✓"))
	case !r.Complete() && r.Differences() == 0:
		fmt.Fprintf(w, "%s incomplete: the documents read agree with the copy, but %s could not be read, so the copy is not known to be in sync\n",
			st.err("✗"), display.Plural(len(r.Problems), "document", "documents"))
	case !r.Complete():
		fmt.Fprintf(w, "%s not in sync, and incomplete: %s could not be read\n", st.err("✗"), display.Plural(len(r.Problems), "document", "documents"))
	default:
		fmt.Fprintf(w, "%s not in sync\n", st.err("✗"))
	}
}

// writeStrayText says what the stray files among the extra ones are and
// the command that moves them to the trash, and what the protect list kept.
func writeStrayText(w io.Writer, st textStyles, r *engine.AuditReport, destArg, target string) {
	if n := r.Len(engine.ListStray); n > 0 {
		it := map[bool]string{true: "it", false: "them"}[n == 1]
		fmt.Fprintf(w, "%s %s in the Source's folders of DEST that no resource owns: rsx sync --delete --dest %s %s moves %s to the trash (%s/); list %s in %s to keep %s\n",
			st.err("✗"), display.Plural(n, "extra file is a stray file", "extra files are stray files"), esc(display.ShellWord(destArg)), esc(display.ShellWord(target)), it,
			store.TrashDir, it, engine.ProtectFile, it)
	}
	if r.Protected > 0 {
		fmt.Fprintf(w, "%s %s in the Source's folders kept by the protect list %s (not counted)\n", st.dim("·"),
			display.Plural(r.Protected, "file", "files"), engine.ProtectFile)
	}
}
