package cli

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// logLines reads the log file's JSON lines whose msg is msg; it fails the
// test on a line that is not JSON.
func logLines(t *testing.T, path, msg string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("the log file: %v", err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l map[string]any
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("a line of the log that is not JSON: %v: %s", err, sc.Text())
		}
		if l["msg"] == msg {
			out = append(out, l)
		}
	}
	return out
}

// --log-file (or RSX_LOG_FILE) appends JSON lines of what rsx decides on
// its own: here a retry after a 503, and the lock of an interrupted run
// taken over. No password of a URL's userinfo is in it.
func TestLogFile(t *testing.T) {
	base := startDemo(t, false)
	var refused atomic.Bool
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/dataset2/capabilitylist.xml" && refused.CompareAndSwap(false, true) {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		resp, err := http.Get(base + r.URL.Path)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		w.WriteHeader(resp.StatusCode)
		buf := make([]byte, 32<<10)
		for {
			n, err := resp.Body.Read(buf)
			w.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}))
	defer proxy.Close()
	dir := t.TempDir()
	dest, logFile := filepath.Join(dir, "copy"), filepath.Join(dir, "rsx.log")
	cap := base + "/dataset2/capabilitylist.xml"
	if code, out, errs := runCmd(t, "sync", "--dest", dest, "--json", cap); code != 0 {
		t.Fatalf("sync: %d\n%s\n%s", code, out, errs)
	}
	// A run killed while it held the lock left its holder in the lock file.
	os.WriteFile(filepath.Join(dest, ".rsx", "lock"), []byte(`{"pid":999999,"host":"gone","started":"2026-01-05T09:00:00Z","token":"killed"}`), 0o644)
	var out, errb strings.Builder
	code := runWith([]string{"--no-cache", "--rate", "0", "--retries", "2", "sync", "--dest", dest, "--json", strings.Replace(proxy.URL, "http://", "http://reader:s3cret@", 1) + "/dataset2/capabilitylist.xml"},
		streams{in: strings.NewReader(""), out: &out, err: &errb}, func(a *app) {
			a.env = func(k string) string {
				if k == logEnv {
					return logFile
				}
				return os.Getenv(k)
			}
		})
	if code != 0 && code != 1 {
		t.Fatalf("sync through the proxy: exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	if l := logLines(t, logFile, "retry"); len(l) != 1 || l[0]["status"] != float64(503) || !strings.HasSuffix(l[0]["url"].(string), "/dataset2/capabilitylist.xml") {
		t.Errorf("retries: %v", l)
	}
	if l := logLines(t, logFile, "lock taken over"); len(l) != 1 || !strings.Contains(l[0]["from"].(string), "killed") {
		t.Errorf("takeovers: %v", l)
	}
	if l := logLines(t, logFile, "started"); len(l) != 1 || l[0]["command"] != "rsx sync" {
		t.Errorf("start: %v", l)
	}
	raw, _ := os.ReadFile(logFile)
	if strings.Contains(string(raw), "s3cret") {
		t.Errorf("the log holds the password:\n%s", raw)
	}
	// A log file that cannot be written stops the command at once.
	if code, _, errs := runCmd(t, "--log-file", filepath.Join(dir, "no", "such", "log"), "sync", "--dest", dest, cap); code != 2 || !strings.Contains(errs, "--log-file") {
		t.Errorf("unwritable log: %d %s", code, errs)
	}
}
