package cli

import (
	"context"
	"errors"
	"fmt"

	"rsx/dest/state"
	"rsx/fleet"
)

// logSourceJSON is one Source of a fleet file in rsx log --sources --json.
type logSourceJSON struct {
	Name  *string   `json:"name"`
	URL   string    `json:"url"`
	Dest  string    `json:"dest"`
	Error *string   `json:"error"`
	Runs  []runJSON `json:"runs"`
}

// logSourceRuns is what rsx log --sources found of one Source.
type logSourceRuns struct {
	src  fleet.Source
	dest string
	runs []state.Run
	err  error
}

// runLogFleet shows the runs of every Source of the fleet file f.sources,
// each from its DEST (its own, the file's, or args' one), under the name
// the file gives it. A DEST that cannot be read is said on its Sources; the
// exit status is then 2.
func (a *app) runLogFleet(ctx context.Context, f logFlags, args []string) error {
	ff, err := fleet.Read(f.sources)
	if err != nil {
		return failed(fmt.Errorf("log: %w", err))
	}
	cmdDest := ""
	if len(args) == 1 {
		cmdDest = args[0]
	}
	opened := map[string]*readDest{}
	defer func() {
		for _, d := range opened {
			d.close()
		}
	}()
	var out []logSourceRuns
	failedAny := false
	for _, s := range ff.Sources {
		sr := logSourceRuns{src: s, dest: fleet.SourceDest(ff, s, cmdDest)}
		sr.runs, sr.err = a.fleetSourceRuns(ctx, opened, &sr, f.limit)
		failedAny = failedAny || sr.err != nil
		out = append(out, sr)
	}
	if f.json {
		doc := struct {
			Sources []logSourceJSON `json:"sources"`
		}{Sources: []logSourceJSON{}}
		for _, sr := range out {
			j := logSourceJSON{Name: strOrNull(sr.src.Name), URL: sr.src.URL, Dest: sr.dest, Error: errString(sr.err), Runs: []runJSON{}}
			for i := range sr.runs {
				j.Runs = append(j.Runs, runJSONOf(&sr.runs[i]))
			}
			doc.Sources = append(doc.Sources, j)
		}
		if err := writeJSON(a.out, doc); err != nil {
			return failed(fmt.Errorf("log: %w", err))
		}
	} else {
		st := newTextStyles(useColor(a.out))
		for i, sr := range out {
			if i > 0 {
				fmt.Fprintln(a.out)
			}
			name := esc(sr.src.URL)
			if sr.src.Name != "" {
				name = esc(sr.src.Name) + " (" + esc(sr.src.URL) + ")"
			}
			fmt.Fprintf(a.out, "%s %s → %s\n", st.title("log"), name, esc(sr.dest))
			switch {
			case sr.err != nil:
				fmt.Fprintf(a.out, "%s %s\n", st.err("✗"), esc(sr.err.Error()))
			case len(sr.runs) == 0:
				fmt.Fprintln(a.out, "  no run recorded")
			}
			for j := range sr.runs {
				writeRunText(a.out, st, &sr.runs[j], false)
			}
		}
	}
	if failedAny {
		return exitWith(exitFailure)
	}
	return nil
}

// fleetSourceRuns reads the runs of one Source of a fleet, opening its DEST
// once for all its Sources (opened).
func (a *app) fleetSourceRuns(ctx context.Context, opened map[string]*readDest, sr *logSourceRuns, limit int) ([]state.Run, error) {
	if sr.dest == "" {
		return nil, errors.New("no destination: give DEST, or dest in the file")
	}
	resolved, err := a.resolveDest(sr.dest)
	if err != nil {
		return nil, err
	}
	sr.dest = resolved
	d, ok := opened[resolved]
	if !ok {
		if d, err = a.openReadDest(ctx, "log", resolved); err != nil {
			return nil, err
		}
		opened[resolved] = d
	}
	src, err := d.db.Source(ctx, sr.src.URL)
	if errors.Is(err, state.ErrNoSource) {
		return nil, nil // no copy of it yet: no run
	}
	if err != nil {
		return nil, fmt.Errorf("read the state of %s: %w", resolved, err)
	}
	var runs []state.Run
	err = d.db.Runs(ctx, src.ID, limit, func(r *state.Run) error { runs = append(runs, *r); return nil })
	return runs, err
}
