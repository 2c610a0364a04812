package cli

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"rsx/fleet"
)

// lockedBuf is a buffer one goroutine writes while another reads.
type lockedBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A fleet of three demo Sources, one broken and one unreachable: one command
// syncs them all; the failures do not stop the others; the JSON and the exit
// status say which failed; audit --sources takes the same file.
func TestSyncSources(t *testing.T) {
	good, broken := startDemo(t, false), startDemo(t, true)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := "http://" + ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	file := filepath.Join(dir, "fleet.toml")
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
	code, stdout, stderr := runCmd(t, "sync", "--sources", file, "--json")
	j := decodeOneJSON[fleetJSON](t, stdout, "sync --sources")
	if code != 1 || len(j.Sources) != 4 || j.OK != 2 || j.Failed != 2 {
		t.Fatalf("exit %d, %+v\n%s", code, j, stderr)
	}
	byName := map[string]fleetResult{}
	for _, r := range j.Sources {
		byName[r.Name] = r
	}
	if r := byName["good"]; r.ExitStatus != 0 || r.Error != nil || !strings.Contains(string(r.Result), `"mode": "baseline"`) {
		t.Errorf("good: %+v %s", r, r.Result)
	}
	if r := byName["broken"]; r.ExitStatus != 1 || r.Error != nil {
		t.Errorf("broken: %+v", r)
	}
	if r := byName["gone"]; r.ExitStatus != 2 || r.Error == nil || !strings.Contains(*r.Error, "refused") {
		t.Errorf("unreachable: %+v", r)
	}
	// The include of the fourth applied: only .json files of dataset1.
	filepath.WalkDir(filepath.Join(dir, "shared"), func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && strings.Contains(p, "dataset1") && !strings.HasSuffix(p, ".json") {
			t.Errorf("outside the Source's include: %s", p)
		}
		return nil
	})

	// Text: one line per Source and the summary.
	code, stdout, _ = runCmd(t, "sync", "--sources", file)
	if code != 1 || strings.Count(stdout, "\n") != 5 || !strings.Contains(stdout, "2 of 4 Sources ok, 2 failed") || !strings.Contains(stdout, "good (") {
		t.Errorf("text: %d\n%s", code, stdout)
	}
	// The same file audits the copies.
	code, stdout, _ = runCmd(t, "audit", "--sources", file, "--json")
	a := decodeOneJSON[fleetJSON](t, stdout, "audit --sources")
	if code != 1 || len(a.Sources) != 4 || !strings.Contains(string(a.Sources[0].Result), `"in_sync": true`) {
		t.Errorf("audit --sources: %d %+v", code, a)
	}
}

func TestFleetFile(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) string {
		p := filepath.Join(dir, "f")
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	// A plain list.
	f, err := fleet.Read(write("# my Sources\nhttp://a.example/cap.xml\n\n  https://b.example/cap.xml  \n"))
	if err != nil || len(f.Sources) != 2 || f.Sources[1].URL != "https://b.example/cap.xml" {
		t.Fatalf("plain list: %+v %v", f, err)
	}
	jobs, err := fleetJobs(f, "sync", "/d", []string{"--rate=0"})
	if err != nil || len(jobs) != 2 || strings.Join(jobs[0].args, " ") != "sync --dest /d --json --rate=0 http://a.example/cap.xml" {
		t.Errorf("jobs: %+v %v", jobs, err)
	}
	if _, err := fleetJobs(f, "sync", "", nil); err == nil || !strings.Contains(err.Error(), "no destination") {
		t.Errorf("no dest: %v", err)
	}
	// The file's settings win over the command line's.
	f, err = fleet.Read(write("rate = 1.5\ndelete = true\n[[source]]\nurl = \"http://a.example/c\"\nconcurrency = 2\ninclude = [\"x\"]\n[[source]]\nurl = \"http://b.example/c\"\ndelete = false\n"))
	if err != nil {
		t.Fatal(err)
	}
	jobs, _ = fleetJobs(f, "sync", "/d", []string{"--rate=9"})
	if got := strings.Join(jobs[0].args, " "); got != "sync --dest /d --json --rate=9 --include x --delete --rate 1.5 --concurrency 2 http://a.example/c" {
		t.Errorf("args: %s", got)
	}
	if got := strings.Join(jobs[1].args, " "); strings.Contains(got, "--delete") {
		t.Errorf("delete = false in the Source: %s", got)
	}
	for _, tc := range []struct{ file, want string }{
		{"[[source]]\nurl = \"ftp://x/\"\n", "not an http(s) URL"},
		{"[[source]]\nurl = \"http://x/\"\ncolour = \"red\"\n", "unknown settings source.colour"},
		{"[[source]]\nurl = \"http://x/\"\nmode = \"fast\"\n", "mode \"fast\""},
		{"[[source]]\nurl = \"http://x/\"\ninclude = [\"(\"]\n", "not a regular expression"},
		{"[[source]]\nurl = \"http://x/\"\n[[source]]\nurl = \"http://x/\"\n", "listed twice"},
		{"dest = \"/d\"\n", "no [[source]] table"},
		{"# nothing\n", "no Source in it"},
		{"[[source]]\nurl = \"http://x/\"\nevery = \"5s\"\n", "a minute or more"},
		{"[[source\n", "toml: line 2"},
	} {
		if _, err := fleet.Read(write(tc.file)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.file, err, tc.want)
		}
	}
	if code, _, stderr := runCmd(t, "sync", "--sources", write("http://x.example/c\n"), "http://y.example/c"); code != 2 || !strings.Contains(stderr, "give no URL") {
		t.Errorf("URL and --sources: %d %s", code, stderr)
	}
	if code, _, stderr := runCmd(t, "sync", "--every", "1h", "--dest", dir, "http://y.example/c"); code != 2 || !strings.Contains(stderr, "--every goes with --sources") {
		t.Errorf("--every alone: %d %s", code, stderr)
	}
}

// With --every the fleet goes on: the file is read again before each round,
// so a Source added meanwhile is run without a restart.
func TestFleetForeverRereadsTheFile(t *testing.T) {
	good := startDemo(t, false)
	dir := t.TempDir()
	file := filepath.Join(dir, "fleet.txt")
	os.WriteFile(file, []byte(good+"/dataset2/capabilitylist.xml\n"), 0o644)
	a, _ := newApp(streams{in: strings.NewReader(""), out: &strings.Builder{}, err: &strings.Builder{}})
	out := &lockedBuf{}
	a.out = out
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- a.fleetForever(ctx, "sync", file, filepath.Join(dir, "copy"), 300*time.Millisecond, true, []string{"--no-cache", "--rate=0"})
	}()
	deadline := time.Now().Add(60 * time.Second)
	added := false
	for time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		if !added && strings.Count(out.String(), `"source"`) >= 1 {
			os.WriteFile(file, []byte(good+"/dataset2/capabilitylist.xml\n"+good+"/dataset1/capabilitylist.xml\n"), 0o644)
			added = true
		}
		if strings.Contains(out.String(), "/dataset1/capabilitylist.xml") {
			break
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "/dataset1/capabilitylist.xml") {
		t.Errorf("the Source added to the file was not run:\n%s", out.String())
	}
}
