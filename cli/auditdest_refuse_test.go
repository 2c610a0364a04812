package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rsx/dest/store"
)

// audit --dest of a DEST that holds a copy of another Source is a usage
// error (exit 2) naming the Source it holds and the commands meant, not
// every resource "missing" (exit 1): a mistyped cron line.
func TestDestAuditOfAnotherSource(t *testing.T) {
	base := startDemo(t, false)
	cap1, cap2 := base+"/dataset1/capabilitylist.xml", base+"/dataset2/capabilitylist.xml"
	dest := t.TempDir()
	if code, _, errs := runCmd(t, "sync", "--dest", dest, cap1); code != 0 {
		t.Fatalf("sync: exit %d: %s", code, errs)
	}
	code, out, errs := runCmd(t, "audit", "--dest", dest, cap2)
	want := dest + " holds no copy of " + cap2 + "; it holds " + cap1 + " (rsx audit --dest " + dest + " " + cap1 + " audits that copy); rsx sync --dest " + dest + " " + cap2 + " makes a copy of this one"
	if code != 2 || !strings.Contains(errs, want) || out != "" {
		t.Errorf("audit --dest of another Source: exit %d, stdout %q, stderr %q\nwant %q", code, out, errs, want)
	}
	code, out, _ = runCmd(t, "audit", "--json", "--dest", dest, cap2)
	if v := decodeOneJSON[map[string]any](t, out, "audit"); code != 2 || !strings.Contains(v["error"].(string), "holds no copy of") {
		t.Errorf("--json: exit %d: %s", code, out)
	}
	// A DEST that holds nothing yet.
	empty := t.TempDir()
	if code, _, errs := runCmd(t, "audit", "--dest", empty, cap1); code != 2 || !strings.Contains(errs, "holds no copy of "+cap1+" nor of any Source; rsx sync --dest "+empty+" "+cap1+" makes") {
		t.Errorf("audit --dest of an empty folder: exit %d: %s", code, errs)
	}
	// Its own Source audits as ever.
	if code, _, errs := runCmd(t, "audit", "--dest", dest, cap1); code != 0 {
		t.Errorf("audit --dest of its own Source: exit %d: %s", code, errs)
	}
}

// audit --dest --wait waits for a run that holds DEST; without it the
// audit refuses at once, and a wait that runs out says so.
func TestDestAuditWaitsForTheLock(t *testing.T) {
	base := startDemo(t, false)
	cap := base + "/dataset1/capabilitylist.xml"
	dest := t.TempDir()
	if code, _, errs := runCmd(t, "sync", "--dest", dest, cap); code != 0 {
		t.Fatalf("sync: exit %d: %s", code, errs)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, dest, store.Options{TempDir: filepath.Join(t.TempDir())})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	lock, err := st.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if code, _, errs := runCmd(t, "audit", "--dest", dest, cap); code != 2 || !strings.Contains(errs, "in use by") || time.Since(start) > 5*time.Second {
		t.Errorf("without --wait: exit %d after %v: %s", code, time.Since(start), errs)
	}
	start = time.Now()
	if code, _, errs := runCmd(t, "audit", "--wait", "1s", "--dest", dest, cap); code != 2 || !strings.Contains(errs, "waiting up to 1s") || !strings.Contains(errs, "waited 1s for it") || time.Since(start) < time.Second {
		t.Errorf("--wait 1s, the lock held: exit %d after %v: %s", code, time.Since(start), errs)
	}
	go func() {
		time.Sleep(1500 * time.Millisecond)
		lock.Release()
	}()
	start = time.Now()
	code, _, errs := runCmd(t, "audit", "--wait", "1m", "--dest", dest, cap)
	if code != 0 || !strings.Contains(errs, "waiting up to 1m0s") || time.Since(start) < time.Second {
		t.Errorf("--wait 1m, the lock released after 1.5s: exit %d after %v: %s", code, time.Since(start), errs)
	}
	if code, _, errs := runCmd(t, "audit", "--wait", "1s", cap); code != 2 || !strings.Contains(errs, "an option of audit --dest") {
		t.Errorf("--wait without --dest: exit %d: %s", code, errs)
	}
}

// A refusal names the command meant with the DEST and URL given, each a
// word a shell takes as it is (an s3:// URL's ? and & quoted), never the
// placeholders DEST and URL when both are known.
func TestRefusalsNameTheRealDestAndURL(t *testing.T) {
	base := startDemo(t, false)
	cap := base + "/dataset1/capabilitylist.xml"
	missing := filepath.Join(t.TempDir(), "no such copy")
	code, _, errs := runCmd(t, "audit", "--dest", missing, cap)
	if want := "(rsx sync --dest '" + missing + "' " + cap + " makes one)"; code != 2 || !strings.Contains(errs, want) {
		t.Errorf("audit --dest of a missing folder: exit %d: %s\nwant %q", code, errs, want)
	}
	for _, c := range []struct{ in, want string }{
		{"./copy", "./copy"},
		{"http://127.0.0.1:8080/dataset1/capabilitylist.xml", "http://127.0.0.1:8080/dataset1/capabilitylist.xml"},
		{"s3://b/p?endpoint=http://h:7070&region=us-east-1", "'s3://b/p?endpoint=http://h:7070&region=us-east-1'"},
		{"my copy", "'my copy'"},
		{"it's", `'it'\''s'`},
		{"", "''"},
	} {
		if got := shellArg(c.in); got != c.want {
			t.Errorf("shellArg(%q) = %s, want %s", c.in, got, c.want)
		}
	}
	if got := command("rsx", "sync", "--mode", "baseline", "--dest", "s3://b/p?x=1&y=2", "http://e.org/cap.xml"); got != "rsx sync --mode baseline --dest 's3://b/p?x=1&y=2' http://e.org/cap.xml" {
		t.Errorf("command = %s", got)
	}
}
