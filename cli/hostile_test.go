package cli

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"rsx/config"
	"rsx/display"
)

// fleetMaxBytes is the fleet file's limit (the fleet reader's MaxFileBytes,
// as docs/fleet.md gives it; written here so that this test does not
// follow the reader's package when it moves).
const fleetMaxBytes = 4 << 20

// A bucket prefix with a segment .rsx would put the copy inside the folder
// where the DEST above it keeps its state and lock: every command that
// takes a DEST refuses it, exit 2, before it asks anything of the Source or
// of the bucket's server.
func TestBucketPrefixReservedRefusedBeforeAnyConnection(t *testing.T) {
	var asked atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	env := map[string]string{"AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "secret-key"}
	for _, prefix := range []string{".rsx", ".rsx/copy", "archive/.rsx", "archive/.RSX/x"} {
		dest := "s3://bucket/" + prefix + "?endpoint=" + srv.URL
		for _, args := range [][]string{
			{"sync", "--no-cache", "--retries", "0", srv.URL + "/cl.xml", "--dest", dest},
			{"audit", "--no-cache", "--retries", "0", srv.URL + "/cl.xml", "--dest", dest},
			{"log", dest},
		} {
			_, code, _, errs := runWithConfig(t, "", env, args...)
			if code != 2 || !strings.Contains(errs, "keeps its state and lock") {
				t.Errorf("%s: exit %d, stderr %q; want exit 2 saying the folder is reserved", strings.Join(args, " "), code, errs)
			}
		}
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("%d requests reached the Source or the bucket's server", n)
	}
}

// A header value from the configuration file or the command line with a
// line break (or another control character) is refused when it is read,
// exit 2, before any request: it used to pass the file's check and then
// fail every request after its retries.
func TestHeaderValuesWithControlCharactersRefusedAtOnce(t *testing.T) {
	var asked atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	tests := []struct {
		name, config string
		args         []string
		want         string
	}{
		{"config user_agent CR LF", "[defaults]\nuser_agent = \"bot/1\\r\\nX-Evil: 1\"\n", []string{"tree", srv.URL + "/cl.xml"}, "defaults.user_agent"},
		{"config user_agent ESC", "[defaults]\nuser_agent = \"bot/1\\u001b]0;x\\u0007\"\n", []string{"validate", srv.URL + "/cl.xml"}, "defaults.user_agent"},
		{"config user_agent C1", "[defaults]\nuser_agent = \"bot/1\\u009b2J\"\n", []string{"config"}, "defaults.user_agent"},
		{"flag user-agent LF", "", []string{"tree", "--user-agent", "bot\nX: 1", srv.URL + "/cl.xml"}, "--user-agent"},
		{"flag user-agent NUL", "", []string{"tree", "--user-agent", "bot\x00", srv.URL + "/cl.xml"}, "--user-agent"},
		{"header NUL", "", []string{"tree", "-H", "X-Archive: a\x00b", srv.URL + "/cl.xml"}, "X-Archive"},
		{"header ESC", "", []string{"tree", "-H", "X-Archive: a\x1b[2J", srv.URL + "/cl.xml"}, "X-Archive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked.Store(0)
			_, code, _, errs := runWithConfig(t, tt.config, nil, append([]string{"--no-cache", "--retries", "0"}, tt.args...)...)
			if code != 2 || !strings.Contains(errs, tt.want) || !strings.Contains(errs, "control character") {
				t.Errorf("exit %d, stderr %q; want exit 2 naming %s and the control character", code, errs, tt.want)
			}
			if strings.ContainsAny(errs, "\x00\x1b\r\u009b") {
				t.Errorf("stderr carries the control character raw: %q", errs)
			}
			if n := asked.Load(); n != 0 {
				t.Errorf("%d requests were sent", n)
			}
		})
	}
}

// A configuration or fleet file nested 100,000 levels deep, or /dev/zero
// given as one, killed every command for want of memory: each is refused,
// exit 2, naming the file and the limit, before anything is fetched.
func TestHugeOrDeepConfigAndFleetFilesRefused(t *testing.T) {
	var asked atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	deepTables := "theme = " + strings.Repeat("{a = ", 100000) + "1" + strings.Repeat("}", 100000) + "\n"
	deepKey := "[[source]]\n" + strings.Repeat("a.", 100000) + "a = 1\nurl = \"" + srv.URL + "/cl.xml\"\n"
	big := strings.Repeat(srv.URL+"/cl.xml\n", fleetMaxBytes/len(srv.URL+"/cl.xml\n")+1)
	zero := "/dev/zero"
	if runtime.GOOS == "windows" {
		zero = write("zero", strings.Repeat("\x00", fleetMaxBytes+1))
	}
	tests := []struct {
		name, config string
		args         []string
		want         string
	}{
		{"config of nested inline tables", deepTables, []string{"tree", srv.URL + "/cl.xml"}, "nested deeper than 64 levels"},
		{"config of nested inline tables, rsx config", deepTables, []string{"config"}, "nested deeper than 64 levels"},
		{"fleet of a deep dotted key", "", []string{"sync", "--sources", write("deep.toml", deepKey), "--dest", dir}, "nested deeper than 64 levels"},
		{"fleet too large", "", []string{"audit", "--sources", write("big.txt", big)}, "larger than " + display.Size(fleetMaxBytes)},
		{"fleet /dev/zero", "", []string{"sync", "--sources", zero, "--dest", dir}, "larger than " + display.Size(fleetMaxBytes)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, code, _, errs := runWithConfig(t, tt.config, nil, append([]string{"--no-cache", "--retries", "0"}, tt.args...)...)
			if code != 2 || !strings.Contains(errs, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 saying %q", code, errs, tt.want)
			}
		})
	}
	t.Run("config /dev/zero", func(t *testing.T) {
		if runtime.GOOS == "windows" {
			t.Skip("no /dev/zero")
		}
		_, code, _, errs := runWithConfig(t, "", map[string]string{config.EnvPath: "/dev/zero"}, "tree", srv.URL+"/cl.xml")
		if code != 2 || !strings.Contains(errs, "config /dev/zero: larger than "+display.Size(config.MaxFileBytes)) {
			t.Errorf("exit %d, stderr %q; want exit 2 naming the file and the limit", code, errs)
		}
	})
	if n := asked.Load(); n != 0 {
		t.Errorf("%d requests were sent", n)
	}
}
