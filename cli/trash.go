package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"rsx/dest/engine"
	"rsx/dest/store"
	"rsx/display"
)

// trashFlags are the options of rsx trash.
type trashFlags struct {
	empty     bool
	olderThan age
	files     bool
	json      bool
}

func newTrashCmd(a *app) *cobra.Command {
	var f trashFlags
	cmd := &cobra.Command{
		Use:   "trash [--empty] [--older-than D] [--files] [--json] DEST",
		Short: "List or empty the trash of a copy: the stray files rsx sync --delete moved",
		Long: `rsx sync --delete moves the stray files of a Source's part of DEST (files
there that no resource of any Source owns and DEST/.rsxignore does not keep)
to the trash, DEST/.rsx/trash/, into a folder of each run named by its time
and run id (20261127T170211Z-run-42), each file at the path it had: moving a
file back is a rename (or, in a bucket, a copy).

rsx trash DEST lists the folders of the trash (the oldest first): when each
was made, its files and bytes; --files lists the files too. --empty removes
them, or with --older-than D only those made more than D ago (30d, 12h, 1h30m).
rsx sync --trash-keep D empties those older than D at the start of each run.

DEST is a folder, s3://bucket/prefix?endpoint=URL&region=R, or NAME: of the
configuration file. Listing writes nothing; --empty takes DEST's lock, so it
waits for no run and refuses while a sync runs (exit status 2).`,
		Example: `  rsx trash ./copy                          # what the trash holds
  rsx trash --files ./copy                  # and each file
  rsx trash --empty --older-than 30d ./copy # remove what is older than 30 days
  rsx trash --empty ./copy                  # remove everything`,
		Args: oneArg("DEST", "the folder or bucket URL of a copy rsx sync made"),
		RunE: func(cmd *cobra.Command, args []string) error {
			dest, err := a.resolveDest(args[0])
			if err != nil {
				return failed(err)
			}
			return a.runTrash(cmd, f, dest)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.empty, "empty", false, "remove the trash's folders (with --older-than: those older than it)")
	fl.Var(&f.olderThan, "older-than", "only the folders made more than `D` ago (30d, 12h, 1h30m)")
	fl.BoolVar(&f.files, "files", false, "list every file of each folder (where it was in DEST)")
	fl.BoolVar(&f.json, "json", false, "print the trash as JSON")
	return cmd
}

// trashJSON is rsx trash --json.
type trashJSON struct {
	Dest    string            `json:"dest"`
	Folders []trashFolderJSON `json:"folders"`
	// Emptied names the folders --empty removed.
	Emptied []string `json:"emptied"`
}

type trashFolderJSON struct {
	Name  string   `json:"name"`
	Time  *string  `json:"time"`
	Files int      `json:"files"`
	Bytes int64    `json:"bytes"`
	Paths []string `json:"paths,omitempty"`
}

func (a *app) runTrash(cmd *cobra.Command, f trashFlags, dest string) error {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	st, err := store.Open(ctx, dest, store.Options{ReadOnly: !f.empty, TempDir: a.tempDir(), Getenv: a.destGetenv(dest)})
	if errors.Is(err, fs.ErrNotExist) {
		return failed(fmt.Errorf("trash: there is no copy in %s, a folder that does not exist", dest))
	}
	if err != nil {
		return failed(fmt.Errorf("trash: %w", err))
	}
	defer st.Close()
	lock, err := st.Lock(ctx)
	if err != nil {
		return failed(fmt.Errorf("trash: %w", err))
	}
	defer lock.Release()
	tr, ok := st.(store.Trasher)
	if !ok {
		return failed(fmt.Errorf("trash: %s has no trash", st))
	}
	folders, err := tr.TrashFolders(ctx)
	if err != nil {
		return failed(fmt.Errorf("trash: %w", err))
	}
	if f.olderThan > 0 {
		folders = olderTrash(folders, time.Now().Add(-time.Duration(f.olderThan)))
	}
	out := trashJSON{Dest: st.String(), Folders: []trashFolderJSON{}, Emptied: []string{}}
	for _, tf := range folders {
		j := trashFolderJSON{Name: tf.Name, Time: timeOrNull(tf.Time), Files: tf.Files, Bytes: tf.Bytes}
		if f.files {
			err := tr.EachTrashed(ctx, tf.Name, func(fi store.FileInfo) error { j.Paths = append(j.Paths, fi.Path); return nil })
			if err != nil {
				return failed(fmt.Errorf("trash: %w", err))
			}
		}
		out.Folders = append(out.Folders, j)
	}
	var emptyErr error
	if f.empty {
		for _, tf := range folders {
			if emptyErr = tr.EmptyTrash(ctx, tf.Name); emptyErr != nil {
				break
			}
			out.Emptied = append(out.Emptied, tf.Name)
		}
	}
	if f.json {
		if err := writeJSON(a.out, out); err != nil {
			return failed(fmt.Errorf("trash: write the report: %w", err))
		}
	} else {
		writeTrashText(a.out, newTextStyles(useColor(a.out)), out, f)
	}
	if emptyErr != nil {
		return failed(fmt.Errorf("trash: %w", emptyErr))
	}
	return nil
}

// olderTrash keeps the folders made before t (a folder whose name tells
// no time is kept out: rsx did not make it).
func olderTrash(folders []store.TrashFolder, t time.Time) []store.TrashFolder {
	var out []store.TrashFolder
	for _, f := range folders {
		if !f.Time.IsZero() && f.Time.Before(t) {
			out = append(out, f)
		}
	}
	return out
}

func writeTrashText(w io.Writer, st textStyles, out trashJSON, f trashFlags) {
	fmt.Fprintf(w, "%s %s/%s\n", st.title("trash"), esc(out.Dest), store.TrashDir)
	var files int
	var bytes int64
	for _, tf := range out.Folders {
		when := "(a folder rsx did not name)"
		if tf.Time != nil {
			when = *tf.Time
		}
		fmt.Fprintf(w, "  %s  %s  %s, %s\n", esc(tf.Name), when, display.Plural(tf.Files, "file", "files"), display.Size(tf.Bytes))
		for _, p := range tf.Paths {
			fmt.Fprintf(w, "      %s\n", esc(p))
		}
		files += tf.Files
		bytes += tf.Bytes
	}
	what := "in the trash"
	if f.olderThan > 0 {
		what = "older than " + f.olderThan.String()
	}
	switch {
	case len(out.Folders) == 0:
		fmt.Fprintf(w, "%s nothing %s\n", st.dim("·"), what)
	case f.empty && len(out.Emptied) == len(out.Folders):
		fmt.Fprintf(w, "%s emptied: %s, %s, %s\n", st.rule("✓"), display.Plural(len(out.Emptied), "folder", "folders"), display.Plural(files, "file", "files"), display.Size(bytes))
	case f.empty:
		fmt.Fprintf(w, "%s emptied %d of %d folders\n", st.err("✗"), len(out.Emptied), len(out.Folders))
	default:
		fmt.Fprintf(w, "%s %s %s (%s): rsx trash --empty removes %s\n", st.dim("·"), display.Plural(files, "file", "files"), what, display.Size(bytes),
			map[bool]string{true: "it", false: "them"}[files == 1])
	}
}

// pruneTrash empties the folders of DEST's trash made more than keep ago
// (rsx sync --trash-keep), at the start of a run that holds DEST's lock.
func pruneTrash(ctx context.Context, st store.Store, keep time.Duration, now time.Time) ([]store.TrashFolder, error) {
	tr, ok := st.(store.Trasher)
	if !ok || keep <= 0 {
		return nil, nil
	}
	folders, err := tr.TrashFolders(ctx)
	if err != nil {
		return nil, fmt.Errorf("--trash-keep: %w", err)
	}
	old := olderTrash(folders, now.Add(-keep))
	for i, f := range old {
		if err := tr.EmptyTrash(ctx, f.Name); err != nil {
			return old[:i], fmt.Errorf("--trash-keep: %w", err)
		}
	}
	return old, nil
}

// age is a duration flag that also takes days: 30d, 1d12h, 90m.
type age time.Duration

func (d *age) String() string {
	if *d == 0 {
		return "0"
	}
	t := time.Duration(*d)
	if t%(24*time.Hour) == 0 {
		return strconv.FormatInt(int64(t/(24*time.Hour)), 10) + "d"
	}
	return t.String()
}

func (d *age) Set(s string) error {
	v, err := parseAge(s)
	if err != nil {
		return err
	}
	*d = age(v)
	return nil
}

func (d *age) Type() string { return "duration" }

// parseAge reads a duration as time.ParseDuration does, with days (d)
// before the rest: 30d, 1d12h.
func parseAge(s string) (time.Duration, error) {
	bad := fmt.Errorf("%q: want a duration such as 30d, 12h or 1h30m", s)
	if s == "" {
		return 0, bad
	}
	var days int64
	rest := s
	if i := strings.IndexByte(s, 'd'); i > 0 {
		n, err := strconv.ParseInt(s[:i], 10, 32)
		if err != nil || n < 0 || strings.HasPrefix(s, "+") {
			return 0, bad
		}
		days, rest = n, s[i+1:]
		if strings.HasPrefix(rest, "-") || strings.HasPrefix(rest, "+") {
			return 0, bad
		}
	}
	var d time.Duration
	if rest != "" {
		var err error
		if d, err = time.ParseDuration(rest); err != nil {
			return 0, bad
		}
	}
	total := time.Duration(days)*24*time.Hour + d
	if total < 0 {
		return 0, fmt.Errorf("%q: a duration cannot be negative", s)
	}
	return total, nil
}

// keepTrash empties the folders of the trash older than --trash-keep, and
// says so on standard error.
func (a *app) keepTrash(ctx context.Context, st store.Store, f syncFlags) error {
	removed, err := pruneTrash(ctx, st, time.Duration(f.trashKeep), time.Now())
	if len(removed) > 0 && !f.json {
		fmt.Fprintf(a.err, "rsx: --trash-keep %s: %s of the trash removed\n", f.trashKeep.String(), display.Plural(len(removed), "folder", "folders"))
	}
	return err
}

// writePlanStrays names the stray files a plan moves to the trash (the
// first maxTextLines), what the protect list kept, and deletions that
// --max-delete held.
func writePlanStrays(w io.Writer, st textStyles, p *engine.Plan, dryRun bool) {
	s := p.Summary
	verb := "to the trash"
	if dryRun {
		verb = "would go to the trash"
	}
	for i, path := range p.Strays {
		if i == maxTextLines {
			fmt.Fprintf(w, "  … and %d more stray files (--json lists them)\n", s.Trash-i)
			break
		}
		fmt.Fprintf(w, "  %s %s: %s\n", st.dim("·"), verb, esc(path))
	}
	if s.Protected > 0 {
		fmt.Fprintf(w, "  %s %s kept by the protect list %s\n", st.dim("·"), display.Plural(s.Protected, "file", "files"), engine.ProtectFile)
	}
	if p.DeletesHeld > 0 {
		fmt.Fprintf(w, "%s --max-delete: %s would go (resources and stray files), more than it allows: none is made (the deletions are remembered)\n",
			st.err("✗"), display.Plural(p.DeletesHeld, "deletion", "deletions"))
	}
}
