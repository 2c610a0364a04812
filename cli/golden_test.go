package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// The JSON documents of rsx sync, rsx audit --dest and the fleet, pinned on
// the built-in demo Source: scripts read them (docs/json.md, the
// command-line contract), so a change of the code under them must leave
// them as they are. A field may be added (the comparison passes over
// members the golden file does not have, and says which); none may be
// renamed, removed, moved or changed. go test ./cli -run JSONGolden
// -update-json writes the files again (review the diff: it is the
// contract).

var updateJSON = flag.Bool("update-json", false, "write cli/testdata/json/*.golden from this run")

// goldenNormal makes a document of a run comparable with another run's:
// the demo's ports, the test's temporary folder, times and durations are
// replaced by names.
type goldenNormal struct {
	repl []string // old, new pairs, longest first
}

func (n *goldenNormal) add(old, new string) {
	n.repl = append(n.repl, old, new)
}

// addBase names a Source's base URL (http://HOST:PORT): as a URL, and as
// the folder its resources are copied into (HOST+PORT).
func (n *goldenNormal) addBase(base, name string) {
	host := strings.TrimPrefix(base, "http://")
	n.add(base, "http://"+name)
	n.add("ws://"+host, "ws://"+name)
	n.add(strings.Replace(host, ":", "+", 1), name)
	n.add(host, name)
}

var goldenTimes = regexp.MustCompile(`("(?:seconds|started|time)":\s*)("[^"]*"|[-0-9.eE+]+)`)

func (n *goldenNormal) apply(s string) string {
	// The longest first, so that a folder is replaced before its parent.
	type pair struct{ old, new string }
	var ps []pair
	for i := 0; i+1 < len(n.repl); i += 2 {
		ps = append(ps, pair{n.repl[i], n.repl[i+1]})
	}
	slices.SortStableFunc(ps, func(a, b pair) int { return len(b.old) - len(a.old) })
	for _, p := range ps {
		s = strings.ReplaceAll(s, p.old, p.new)
	}
	return goldenTimes.ReplaceAllString(s, `${1}"…"`)
}

// sortFailed sorts the elements of every "failed" array of the JSON
// documents (or JSON Lines) s, whose order is the order in which the
// resources failed (workers in parallel); the documents keep their form
// (indented or one a line) and every other byte.
func sortFailed(t *testing.T, s string) string {
	t.Helper()
	one := func(doc string) string {
		var c bytes.Buffer
		if err := json.Compact(&c, []byte(doc)); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, doc)
		}
		b := c.Bytes()
		const key = `"failed":[`
		for at := 0; ; {
			i := bytes.Index(b[at:], []byte(key))
			if i < 0 {
				break
			}
			start := at + i + len(key)
			// The elements, split at the commas of depth 0 outside strings.
			var elems [][]byte
			depth, inStr, esc, from, end := 0, false, false, start, -1
			for j := start; j < len(b) && end < 0; j++ {
				ch := b[j]
				switch {
				case inStr && esc:
					esc = false
				case inStr && ch == '\\':
					esc = true
				case ch == '"':
					inStr = !inStr
				case inStr:
				case ch == '[' || ch == '{':
					depth++
				case ch == ']' && depth == 0:
					if j > from {
						elems = append(elems, slices.Clone(b[from:j]))
					}
					end = j
				case ch == ']' || ch == '}':
					depth--
				case ch == ',' && depth == 0:
					elems = append(elems, slices.Clone(b[from:j]))
					from = j + 1
				}
			}
			slices.SortFunc(elems, bytes.Compare)
			sorted := bytes.Join(elems, []byte(","))
			b = append(b[:start:start], append(sorted, b[end:]...)...)
			at = start
		}
		if !strings.HasPrefix(doc, "{\n") {
			return string(b)
		}
		var out bytes.Buffer
		json.Indent(&out, b, "", "  ")
		return out.String()
	}
	if strings.HasPrefix(s, "{\n") {
		return one(s) + "\n"
	}
	var out strings.Builder
	for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		out.WriteString(one(l) + "\n")
	}
	return out.String()
}

// checkGolden compares got (normalised) with testdata/json/name.golden:
// equal bytes, or equal but for object members the golden file does not
// have (additive fields).
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "json", name+".golden")
	if *updateJSON {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./cli -run JSONGolden -update-json writes it)", err)
	}
	if string(want) == got {
		return
	}
	added, err := jsonAdditive(string(want), got)
	if err != nil {
		t.Errorf("%s: the document changed: %v\n--- want\n%s\n--- got\n%s", name, err, want, got)
		return
	}
	t.Logf("%s: fields added: %s", name, strings.Join(added, ", "))
}

// jsonAdditive reports whether got is want with object members added (and
// its whitespace otherwise the same once they are taken out): it returns
// the paths of the members added. want and got are JSON documents, or JSON
// Lines (one document a line).
func jsonAdditive(want, got string) ([]string, error) {
	wd := json.NewDecoder(strings.NewReader(want))
	gd := json.NewDecoder(strings.NewReader(got))
	wd.UseNumber()
	gd.UseNumber()
	var added []string
	for n := 1; ; n++ {
		var w, g any
		werr, gerr := wd.Decode(&w), gd.Decode(&g)
		if errors.Is(werr, io.EOF) && errors.Is(gerr, io.EOF) {
			break
		}
		if werr != nil || gerr != nil {
			return nil, fmt.Errorf("document %d: want %v, got %v", n, werr, gerr)
		}
		// Order matters: decode again keeping the members' order.
		if err := sameOrdered(want, got, n, &added); err != nil {
			return nil, err
		}
	}
	return added, nil
}

// sameOrdered compares the nth documents of want and got token by token:
// the members of got's objects that want lacks are skipped (and named in
// added); everything else must be the same, in the same order.
func sameOrdered(want, got string, n int, added *[]string) error {
	w, g := nthDocument(want, n), nthDocument(got, n)
	wd, gd := json.NewDecoder(strings.NewReader(w)), json.NewDecoder(strings.NewReader(g))
	wd.UseNumber()
	gd.UseNumber()
	return compareValue(wd, gd, fmt.Sprintf("#%d", n), added)
}

func nthDocument(s string, n int) string {
	d := json.NewDecoder(strings.NewReader(s))
	var raw json.RawMessage
	for range n {
		if err := d.Decode(&raw); err != nil {
			return ""
		}
	}
	return string(raw)
}

func compareValue(wd, gd *json.Decoder, path string, added *[]string) error {
	wt, err := wd.Token()
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	gt, err := gd.Token()
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	switch wt := wt.(type) {
	case json.Delim:
		if gt != wt {
			return fmt.Errorf("%s: want %v, got %v", path, wt, gt)
		}
		if wt == '[' {
			for i := 0; wd.More(); i++ {
				if !gd.More() {
					return fmt.Errorf("%s: fewer elements than %d", path, i+1)
				}
				if err := compareValue(wd, gd, fmt.Sprintf("%s[%d]", path, i), added); err != nil {
					return err
				}
			}
			if gd.More() {
				return fmt.Errorf("%s: more elements", path)
			}
			wd.Token()
			gd.Token()
			return nil
		}
		// An object: got's members in want's order, with others between.
		for wd.More() {
			wk, _ := wd.Token()
			for {
				if !gd.More() {
					return fmt.Errorf("%s: member %q is gone (or moved)", path, wk)
				}
				gk, _ := gd.Token()
				if gk == wk {
					break
				}
				*added = append(*added, path+"."+fmt.Sprint(gk))
				var skip json.RawMessage
				if err := gd.Decode(&skip); err != nil {
					return fmt.Errorf("%s.%v: %v", path, gk, err)
				}
			}
			if err := compareValue(wd, gd, path+"."+fmt.Sprint(wk), added); err != nil {
				return err
			}
		}
		for gd.More() {
			gk, _ := gd.Token()
			*added = append(*added, path+"."+fmt.Sprint(gk))
			var skip json.RawMessage
			if err := gd.Decode(&skip); err != nil {
				return err
			}
		}
		wd.Token()
		gd.Token()
		return nil
	default:
		if fmt.Sprint(wt) != fmt.Sprint(gt) || fmt.Sprintf("%T", wt) != fmt.Sprintf("%T", gt) {
			return fmt.Errorf("%s: want %v, got %v", path, wt, gt)
		}
		return nil
	}
}

// The comparison itself: members added pass, anything else fails.
func TestJSONAdditive(t *testing.T) {
	for _, tc := range []struct {
		want, got string
		ok        bool
		added     int
	}{
		{`{"a": 1, "b": [1, 2]}`, `{"a": 1, "b": [1, 2]}`, true, 0},
		{`{"a": 1, "b": [1, 2]}`, `{"a": 1, "x": {"y": 1}, "b": [1, 2], "z": null}`, true, 2},
		{`{"a": 1, "b": [{"c": 1}]}`, `{"a": 1, "b": [{"c": 1, "d": 2}]}`, true, 1},
		{`{"a": 1, "b": 2}`, `{"b": 2, "a": 1}`, false, 0},
		{`{"a": 1, "b": 2}`, `{"a": 1}`, false, 0},
		{`{"a": 1}`, `{"a": 2}`, false, 0},
		{`{"a": 1}`, `{"a": "1"}`, false, 0},
		{`{"a": [1]}`, `{"a": [1, 2]}`, false, 0},
		{"{\"a\": 1}\n{\"b\": 2}\n", "{\"a\": 1}\n{\"b\": 2, \"c\": 3}\n", true, 1},
		{"{\"a\": 1}\n{\"b\": 2}\n", "{\"a\": 1}\n", false, 0},
	} {
		added, err := jsonAdditive(tc.want, tc.got)
		if (err == nil) != tc.ok || len(added) != tc.added {
			t.Errorf("%s → %s: added %q, %v", tc.want, tc.got, added, err)
		}
	}
}

// runGolden runs the command line as runCmd does.
func runGolden(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return runCmd(t, args...)
}

// rsx sync --json (a dry run, the baseline, an incremental sync, a
// reconcile) and rsx audit --dest --json (in sync, then damaged) on the demo.
func TestJSONGoldenSync(t *testing.T) {
	base := startDemo(t, false)
	dir := t.TempDir()
	dest := filepath.Join(dir, "copy")
	n := &goldenNormal{}
	n.addBase(base, "DEMO")
	n.add(dir, "TMP")
	cap := base + "/dataset2/capabilitylist.xml"
	step := func(name string, wantCode int, args ...string) {
		t.Helper()
		code, out, errs := runGolden(t, args...)
		if code != wantCode {
			t.Fatalf("%s: exit %d, want %d\n%s\n%s", name, code, wantCode, out, errs)
		}
		checkGolden(t, name, n.apply(out))
	}
	step("sync_dry_run", 0, "sync", "--dest", dest, "--dry-run", "--json", cap)
	step("sync_baseline", 0, "sync", "--dest", dest, "--json", cap)
	step("audit_dest_in_sync", 0, "audit", "--dest", dest, "--json", cap)
	advanceDemo(t, base, "4")
	step("sync_incremental", 0, "sync", "--dest", dest, "--json", cap)
	step("audit_dest_pending", 0, "audit", "--dest", dest, "--json", cap)
	// Damage one copy and remove another: the audit names them, a
	// reconcile repairs them.
	var files []string
	filepath.WalkDir(dest, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && !strings.Contains(p, ".rsx") {
			files = append(files, p)
		}
		return nil
	})
	slices.Sort(files)
	if len(files) < 2 {
		t.Fatalf("the copy holds %d files", len(files))
	}
	if err := os.WriteFile(files[0], []byte("damaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(files[1]); err != nil {
		t.Fatal(err)
	}
	step("audit_dest_damaged", 1, "audit", "--dest", dest, "--json", cap)
	step("sync_reconcile", 0, "sync", "--dest", dest, "--mode", "baseline", "--delete", "--json", cap)
	step("sync_include_dry_run", 0, "sync", "--dest", filepath.Join(dir, "images"), "--include", `\.png$`, "--dry-run", "--json", cap)
}

// goldenFleet writes the fleet file of the fleet's goldens: the demo's
// two datasets into one DEST (one with an include), the broken demo into
// its own, and a Source that is not there.
func goldenFleet(t *testing.T) (file string, n *goldenNormal) {
	good, broken := startDemo(t, false), startDemo(t, true)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	n = &goldenNormal{}
	n.addBase(good, "DEMO")
	n.addBase(broken, "BROKEN")
	n.addBase(dead, "GONE")
	n.add(dir, "TMP")
	file = filepath.Join(dir, "fleet.toml")
	os.WriteFile(file, []byte(`
dest = "`+filepath.Join(dir, "shared")+`"
parallel = 3

[[source]]
name = "good"
url = "`+good+`/dataset2/capabilitylist.xml"

[[source]]
name = "broken"
url = "`+broken+`/dataset1/capabilitylist.xml"
dest = "`+filepath.Join(dir, "broken")+`"

[[source]]
name = "gone"
url = "`+dead+`/dataset1/capabilitylist.xml"
dest = "`+filepath.Join(dir, "gone")+`"

[[source]]
url = "`+good+`/dataset1/capabilitylist.xml"
include = ["\\.json$"]
`), 0o644)
	return file, n
}

// rsx sync --sources FILE --json and rsx audit --sources FILE --json.
func TestJSONGoldenFleet(t *testing.T) {
	file, n := goldenFleet(t)
	code, out, errs := runGolden(t, "sync", "--sources", file, "--json")
	if code != 1 {
		t.Fatalf("sync --sources: exit %d\n%s\n%s", code, out, errs)
	}
	checkGolden(t, "fleet_sync", sortFailed(t, n.apply(out)))
	code, out, errs = runGolden(t, "audit", "--sources", file, "--json")
	if code != 1 {
		t.Fatalf("audit --sources: exit %d\n%s\n%s", code, out, errs)
	}
	checkGolden(t, "fleet_audit", sortFailed(t, n.apply(out)))
}

// goldenLines runs args (a fleet that goes on until stopped) until stop
// accepts the lines written so far, then stops it as SIGINT does; it
// returns the lines.
func goldenLines(t *testing.T, args []string, stop func(lines []string) bool) []string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb lockedBuf
	done := make(chan int, 1)
	all := append([]string{"--no-cache", "--rate", "0", "--retries", "0"}, args...)
	go func() {
		done <- runWith(all, streams{in: strings.NewReader(""), out: &out, err: &errb}, func(a *app) {
			a.base = ctx
			a.fleetTimes = fleetTimes{minEvery: time.Millisecond}
		})
	}()
	lines := func() []string {
		var ls []string
		sc := bufio.NewScanner(strings.NewReader(out.String()))
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			ls = append(ls, sc.Text())
		}
		return ls
	}
	deadline := time.Now().Add(90 * time.Second)
	for !stop(lines()) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not done in time:\n%s\n%s", strings.Join(args, " "), out.String(), errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d after the stop:\n%s", code, errb.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("it did not stop")
	}
	return lines()
}

// rsx sync --sources FILE --every D --json: a JSON line per Source's run.
func TestJSONGoldenFleetEvery(t *testing.T) {
	file, n := goldenFleet(t)
	ls := goldenLines(t, []string{"sync", "--sources", file, "--every", "1h", "--json"}, func(ls []string) bool { return len(ls) >= 4 })
	checkGolden(t, "fleet_every", sortFailed(t, n.apply(strings.Join(ls, "\n")+"\n")))
}

// rsx sync --sources FILE --follow --json: the lines of the start and of
// the first run of a Source with notification channels, and the stop.
func TestJSONGoldenFleetFollow(t *testing.T) {
	base := startDemo(t, false)
	dir := t.TempDir()
	n := &goldenNormal{}
	n.addBase(base, "DEMO")
	n.add(dir, "TMP")
	file := filepath.Join(dir, "fleet.toml")
	os.WriteFile(file, []byte(`[[source]]
name = "one"
url = "`+base+`/dataset1/capabilitylist.xml"
dest = "`+filepath.Join(dir, "copy")+`"
`), 0o644)
	ls := goldenLines(t, []string{"sync", "--sources", file, "--follow", "--json", "--every", "1h"}, func(ls []string) bool {
		for _, l := range ls {
			if strings.Contains(l, `"event":"run"`) {
				return true
			}
		}
		return false
	})
	// The channels connect in either order: their lines are sorted.
	var connected []string
	var other []string
	for _, l := range ls {
		l = n.apply(l) // (its time first: sorted once normalised)
		if strings.Contains(l, `"event":"connected"`) {
			connected = append(connected, l)
		} else {
			other = append(other, l)
		}
	}
	slices.Sort(connected)
	var b bytes.Buffer
	for _, l := range other {
		if strings.Contains(l, `"event":"run"`) {
			for _, c := range connected {
				b.WriteString(c + "\n")
			}
		}
		b.WriteString(l + "\n")
	}
	checkGolden(t, "fleet_follow", n.apply(b.String()))
}
