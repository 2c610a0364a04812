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

// The command line's checks of --sources; the file itself is package
// fleet's (fleet/file_test.go).
func TestFleetCommandLine(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) string {
		p := filepath.Join(dir, "f")
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	if code, _, stderr := runCmd(t, "sync", "--sources", write("http://x.example/c\n"), "http://y.example/c"); code != 2 || !strings.Contains(stderr, "give no URL") {
		t.Errorf("URL and --sources: %d %s", code, stderr)
	}
	if code, _, stderr := runCmd(t, "sync", "--every", "1h", "--dest", dir, "http://y.example/c"); code != 2 || !strings.Contains(stderr, "--every goes with --sources") {
		t.Errorf("--every alone: %d %s", code, stderr)
	}
	if code, _, stderr := runCmd(t, "sync", "--sources", write("http://x.example/c\n")); code != 2 || !strings.Contains(stderr, "no destination") {
		t.Errorf("no destination: %d %s", code, stderr)
	}
	if code, _, stderr := runCmd(t, "audit", "--sources", write("http://x.example/c\n"), "--dest", dir, "--sample", "3"); code != 2 || !strings.Contains(stderr, "option of the spot audit") {
		t.Errorf("audit --sources --sample: %d %s", code, stderr)
	}
}

// With --every the fleet goes on: the file is read again before each round,
// so a Source added meanwhile is run without a restart.
func TestFleetForeverRereadsTheFile(t *testing.T) {
	good := startDemo(t, false)
	dir := t.TempDir()
	file := filepath.Join(dir, "fleet.txt")
	os.WriteFile(file, []byte(good+"/dataset2/capabilitylist.xml\n"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &lockedBuf{}
	done := make(chan int, 1)
	go func() {
		done <- runWith([]string{"--no-cache", "--rate", "0", "sync", "--sources", file, "--dest", filepath.Join(dir, "copy"), "--every", "300ms", "--json"},
			streams{in: strings.NewReader(""), out: out, err: &lockedBuf{}}, func(a *app) {
				a.base = ctx
				a.fleetTimes = fleetTimes{minEvery: time.Millisecond}
			})
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
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(out.String(), "/dataset1/capabilitylist.xml") {
		t.Errorf("the Source added to the file was not run:\n%s", out.String())
	}
}
