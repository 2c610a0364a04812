package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"rsx/demo"
)

// envChild makes the test binary run the command line of its JSON array
// and exit (TestMain): a process of its own, as rsx is, that a test can
// kill -9; its --every may be shorter than a minute.
const envChild = "RSX_TEST_CHILD_ARGS"

func runChild(argsJSON string) int {
	var args []string
	if err := json.Unmarshal([]byte(argsJSON), &args); err != nil {
		fmt.Fprintln(os.Stderr, "child args:", err)
		return 2
	}
	return runWith(args, streams{in: os.Stdin, out: os.Stdout, err: os.Stderr}, func(a *app) {
		a.fleetTimes = fleetTimes{minEvery: time.Millisecond}
	})
}

// fleetProc is one rsx process of a shared fleet.
type fleetProc struct {
	id   string
	cmd  *exec.Cmd
	out  string // its standard output (JSON Lines), a file
	errs string // its standard error, a file
}

func startFleetProc(t *testing.T, id string, env []string, args ...string) *fleetProc {
	t.Helper()
	b, _ := json.Marshal(args)
	dir := t.TempDir()
	p := &fleetProc{id: id, out: filepath.Join(dir, "stdout"), errs: filepath.Join(dir, "stderr")}
	stdout, err := os.Create(p.out)
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := os.Create(p.errs)
	if err != nil {
		t.Fatal(err)
	}
	p.cmd = exec.Command(os.Args[0])
	// Its own cache folder, as on a machine of its own: the bucket is the
	// only thing the processes share.
	p.cmd.Env = append(append(os.Environ(), env...), envChild+"="+string(b), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"))
	p.cmd.Stdout, p.cmd.Stderr = stdout, stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stdout.Close()
	stderr.Close()
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
			p.cmd.Wait()
		}
	})
	return p
}

// stop ends it as an operator does (SIGTERM) and returns its exit status.
func (p *fleetProc) stop(t *testing.T) int {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		p.cmd.Process.Kill()
		<-done
		t.Errorf("%s did not stop within 2 minutes of SIGTERM", p.id)
	}
	return p.cmd.ProcessState.ExitCode()
}

func (p *fleetProc) stderr() string {
	b, _ := os.ReadFile(p.errs)
	return string(b)
}

// Several rsx sync --sources FILE --every D processes, each with a host id
// and a cache folder of its own (as on machines of their own), share one
// fleet into one bucket: every Source runs once a round, by one of them,
// never twice at once; a process killed with SIGKILL while it runs a
// Source has that Source taken over once its lease has expired; a process
// started later takes a share; the history says which process ran each
// run; and audit --sources finds every copy in sync.
func TestFleetSharedByThreeProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("three processes for some 40 seconds: not in -short")
	}
	const access, secret = "rsxfleetkey", "rsxfleetsecret0123456789"
	endpoint := startVersitygw(t, access, secret, "fleet")
	env := []string{"AWS_ACCESS_KEY_ID=" + access, "AWS_SECRET_ACCESS_KEY=" + secret}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // this test's own runs (rsx log, audit)
	const every, lease = 4 * time.Second, 3 * time.Second
	// Three demo Sources' hosts, two Capability Lists each; rate 15 makes
	// each run last a few seconds, long enough to be killed in.
	var file strings.Builder
	fmt.Fprintf(&file, "parallel = 2\nrate = 15.0\n")
	var dests []string
	for h := range 3 {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		srv, err := demo.Start(ctx, "127.0.0.1:0", demo.Options{Resources: 40, Seed: int64(h + 1)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Close() })
		for d := 1; d <= 2; d++ {
			dest := fmt.Sprintf("s3://fleet/s%d-%d?endpoint=%s&region=us-east-1", h, d, endpoint)
			dests = append(dests, dest)
			fmt.Fprintf(&file, "\n[[source]]\nname = \"s%d-%d\"\nurl = %q\ndest = %q\n", h, d, fmt.Sprintf("%s/dataset%d/capabilitylist.xml", srv.URL, d), dest)
		}
	}
	fleetFile := filepath.Join(t.TempDir(), "fleet.toml")
	if err := os.WriteFile(fleetFile, []byte(file.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	args := func(id string) []string {
		return []string{"--no-cache", "--retries", "0", "sync", "--sources", fleetFile, "--every", every.String(),
			"--lock-lease", lease.String(), "--host-id", id, "--json"}
	}
	began := time.Now()
	p1 := startFleetProc(t, "p1", env, args("p1")...)
	p2 := startFleetProc(t, "p2", env, args("p2")...)

	// Kill p2 with SIGKILL while it holds a Source's DEST (its lock).
	client, err := minio.New(strings.TrimPrefix(endpoint, "http://"), &minio.Options{Creds: credentials.NewStaticV4(access, secret, ""), BucketLookup: minio.BucketLookupPath})
	if err != nil {
		t.Fatal(err)
	}
	killedIn := ""
	for deadline := time.Now().Add(90 * time.Second); killedIn == "" && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		for i := range dests {
			prefix := fmt.Sprintf("s%d-%d", i/2, i%2+1)
			obj, err := client.GetObject(context.Background(), "fleet", prefix+"/.rsx/lock", minio.GetObjectOptions{})
			if err != nil {
				continue
			}
			var h struct {
				ID string `json:"id"`
			}
			err = json.NewDecoder(obj).Decode(&h)
			obj.Close()
			if err == nil && h.ID == "p2" && time.Since(began) > every {
				p2.cmd.Process.Kill()
				p2.cmd.Wait()
				killedIn = prefix
				break
			}
		}
	}
	if killedIn == "" {
		t.Fatalf("p2 was never seen holding a DEST:\n%s", p2.stderr())
	}
	killedAt := time.Now()
	// A third process joins.
	p3 := startFleetProc(t, "p3", env, args("p3")...)
	time.Sleep(4*every + lease)
	for _, p := range []*fleetProc{p1, p3} {
		if code := p.stop(t); code != 0 {
			t.Errorf("%s ended with %d:\n%s", p.id, code, p.stderr())
		}
	}
	ended := time.Now()

	ranBy := map[string]int{}
	for i, dest := range dests {
		name := fmt.Sprintf("s%d-%d", i/2, i%2+1)
		code, out, errs := runCmd(t, "log", "--json", dest)
		if code != 0 {
			t.Fatalf("rsx log %s: %d %s", name, code, errs)
		}
		var lj struct {
			Runs []struct {
				ID         int64   `json:"id"`
				Started    string  `json:"started"`
				Ended      *string `json:"ended"`
				Mode       string  `json:"mode"`
				ExitStatus *int    `json:"exit_status"`
				Host       *string `json:"host"`
				Stopped    *string `json:"stopped"`
			} `json:"runs"`
		}
		if err := json.Unmarshal([]byte(out), &lj); err != nil {
			t.Fatalf("rsx log --json: %v\n%s", err, out)
		}
		slices.Reverse(lj.Runs) // oldest first
		var turns []time.Time
		var lastEnd time.Time
		var killed bool
		var hosts []string
		for _, r := range lj.Runs {
			if r.Host == nil || !slices.Contains([]string{"p1", "p2", "p3"}, *r.Host) {
				t.Errorf("%s: run %d names no process of the fleet: %v", name, r.ID, r.Host)
				continue
			}
			hosts = append(hosts, *r.Host)
			started, _ := time.Parse(time.RFC3339, r.Started)
			if started.Before(lastEnd) {
				t.Errorf("%s: run %d by %s started at %s, before the run before it ended (%s): two at once", name, r.ID, *r.Host, started, lastEnd)
			}
			if r.Ended == nil {
				killed = true
				if *r.Host != "p2" {
					t.Errorf("%s: run %d by %s has no end, but only p2 was killed", name, r.ID, *r.Host)
				}
				continue
			}
			lastEnd, _ = time.Parse(time.RFC3339, *r.Ended)
			if r.ExitStatus != nil && *r.ExitStatus == 2 && r.Mode != "plan" {
				continue // cut short (not a turn)
			}
			ranBy[*r.Host]++
			// Once a round: a turn starts an interval after the one before
			// (the history keeps seconds).
			if n := len(turns); n > 0 && started.Sub(turns[n-1]) < every-time.Second {
				t.Errorf("%s: run %d by %s started %s after the turn before: twice in one round", name, r.ID, *r.Host, started.Sub(turns[n-1]))
			}
			turns = append(turns, started)
		}
		t.Logf("%s: runs by %v", name, hosts)
		// Every round: no turn missed, the wait for a killed process's
		// lease and the tries again aside.
		turns = append(turns, ended)
		for k := 1; k < len(turns); k++ {
			if gap := turns[k].Sub(turns[k-1]); gap > 2*every+lease+8*time.Second {
				t.Errorf("%s: %s without a run (turn %d): a round missed", name, gap.Round(time.Second), k)
			}
		}
		if name == killedIn {
			// (p2 may have been killed before its run was recorded, while it
			// read the Source holding the lock: then no run is without end.)
			t.Logf("%s: p2 killed holding its lock; a run of p2 without an end: %v", name, killed)
			if n := len(lj.Runs); n == 0 || lj.Runs[n-1].Host == nil || *lj.Runs[n-1].Host == "p2" {
				t.Errorf("%s: no other process ran it after p2 was killed (%s ago)", name, time.Since(killedAt))
			}
		}
	}
	if ranBy["p3"] == 0 {
		t.Errorf("p3, started later, ran no Source: %v", ranBy)
	}
	if ranBy["p1"] == 0 || ranBy["p2"] == 0 {
		t.Errorf("the runs were not shared: %v", ranBy)
	}
	t.Logf("runs by process: %v (p2 killed in %s's run)", ranBy, killedIn)
	// Some turns were seen run by another process.
	skipped := 0
	for _, p := range []*fleetProc{p1, p3} {
		f, err := os.Open(p.out)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var line struct {
				RanBy *struct {
					Host string `json:"host"`
				} `json:"ran_by"`
			}
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.RanBy != nil {
				skipped++
			}
		}
		f.Close()
	}
	if skipped == 0 {
		t.Errorf("no process found a Source's turn run by another (ran_by)")
	}
	if code, out, errs := runCmd(t, "audit", "--sources", fleetFile, "--json"); code != 0 {
		t.Errorf("audit --sources: %d %s\n%s", code, errs, out)
	}
}
