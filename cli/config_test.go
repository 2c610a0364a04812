package cli

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"rsx/config"
)

// TestMain keeps the tests away from the configuration file of whoever runs
// them: RSX_CONFIG names a file that does not exist.
func TestMain(m *testing.M) {
	if args := os.Getenv(envChild); args != "" {
		os.Exit(runChild(args)) // a process of a test (fleetshared_test.go)
	}
	dir, err := os.MkdirTemp("", "rsx-cli-config-")
	if err != nil {
		panic(err)
	}
	os.Setenv(config.EnvPath, filepath.Join(dir, "none.toml"))
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// runWithConfig runs args with the configuration file text and the
// environment env (RSX_CONFIG set to the file), and returns the app.
func runWithConfig(t *testing.T, text string, env map[string]string, args ...string) (a *app, code int, stdout, stderr string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	all := map[string]string{config.EnvPath: path}
	for k, v := range env {
		all[k] = v
	}
	var out, errb bytes.Buffer
	code = runWith(args, streams{in: strings.NewReader(""), out: &out, err: &errb}, func(x *app) {
		a = x
		x.env = func(k string) string { return all[k] }
	})
	return a, code, out.String(), errb.String()
}

func TestConfigDefaultsApplyOnlyWhenTheFlagIsNotGiven(t *testing.T) {
	const file = `[defaults]
rate = 2.5
concurrency = 3
user_agent = "archive-bot/1"
timeout = "7s"
`
	tests := []struct {
		name        string
		args        []string
		rate        float64
		concurrency int
		ua          string
		timeout     time.Duration
	}{
		{"all from the file", []string{"config"}, 2.5, 3, "archive-bot/1", 7 * time.Second},
		{"flags win", []string{"--rate", "9", "--timeout", "1m", "config"}, 9, 3, "archive-bot/1", time.Minute},
		{"after the command", []string{"config", "--concurrency", "5", "--user-agent", "me"}, 2.5, 5, "me", 7 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, code, _, errs := runWithConfig(t, file, nil, tt.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			h := a.http
			if h.rate != tt.rate || h.concurrency != tt.concurrency || h.userAgent != tt.ua || h.timeout != tt.timeout {
				t.Errorf("rate %v concurrency %d user agent %q timeout %v; want %v %d %q %v", h.rate, h.concurrency, h.userAgent, h.timeout, tt.rate, tt.concurrency, tt.ua, tt.timeout)
			}
			// A default from the file is not "given": near hosts keep their
			// own limits.
			if tt.name == "all from the file" && (h.changed("rate") || h.changed("concurrency")) {
				t.Errorf("the file's defaults count as given on the command line")
			}
		})
	}
}

func TestConfigNamedFolderDest(t *testing.T) {
	base := startDemo(t, false)
	cap := base + "/dataset2/capabilitylist.xml"
	shelf := t.TempDir()
	file := "[dest.shelf]\nurl = " + quoteTOML(shelf) + "\n[dest.other]\nurl = \"/nowhere\"\n"

	_, code, out, errs := runWithConfig(t, file, nil, "--no-cache", "--rate", "0", "sync", "--dest", "shelf:site/a", "--json", cap)
	if code != 0 {
		t.Fatalf("sync --dest shelf:site/a: exit %d: %s", code, errs)
	}
	o := decodeOneJSON[syncOut](t, out, "sync")
	want := filepath.Join(shelf, "site", "a")
	if *o.Dest != want || *o.Created == 0 {
		t.Fatalf("dest %q, created %d; want %q", *o.Dest, *o.Created, want)
	}
	if n := countFiles(t, want); n != *o.Created {
		t.Errorf("%d files in %s for %d created", n, want, *o.Created)
	}
	// Every command taking a DEST takes the name.
	if _, code, _, errs := runWithConfig(t, file, nil, "--no-cache", "--rate", "0", "audit", "--dest", "shelf:site/a", cap); code != 0 {
		t.Errorf("audit --dest shelf:site/a: exit %d: %s", code, errs)
	}
	if _, code, out, errs := runWithConfig(t, file, nil, "log", "shelf:site/a"); code != 0 || !strings.Contains(out, "1 run") {
		t.Errorf("log shelf:site/a: exit %d: %s%s", code, out, errs)
	}
	if _, code, _, errs := runWithConfig(t, file, nil, "bag", "--offline", "shelf:site/a", filepath.Join(t.TempDir(), "bag")); code != 0 {
		t.Errorf("bag shelf:site/a: exit %d: %s", code, errs)
	}

	// An unknown name is a clear error listing the names.
	_, code, _, errs = runWithConfig(t, file, nil, "sync", "--dest", "attic:", cap)
	if code != exitFailure || !strings.Contains(errs, "no destination named attic") || !strings.Contains(errs, "defined: other, shelf") {
		t.Errorf("unknown name: exit %d: %s", code, errs)
	}
	_, code, _, errs = runWithConfig(t, file, nil, "--dest", "attic:", cap)
	if code != exitFailure || !strings.Contains(errs, "no destination named attic") {
		t.Errorf("the explorer's --dest attic:: exit %d: %s", code, errs)
	}
	_, code, _, errs = runWithConfig(t, "", nil, "log", "attic:")
	if code != exitFailure || !strings.Contains(errs, "none is defined") {
		t.Errorf("no file: exit %d: %s", code, errs)
	}
}

func TestConfigNamedBucketReadsTheNamedCredentials(t *testing.T) {
	var mu sync.Mutex
	var auth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		w.WriteHeader(http.StatusForbidden)
	}))
	defer srv.Close()
	file := "[dest.archive]\nurl = \"s3://bucket/prefix?endpoint=" + srv.URL + "&region=us-east-1\"\naccess_key_env = \"ARCHIVE_KEY\"\nsecret_key_env = \"ARCHIVE_SECRET\"\n"
	env := map[string]string{"ARCHIVE_KEY": "AKIDNAMED", "ARCHIVE_SECRET": "s3cret", "AWS_ACCESS_KEY_ID": "AKIDAMBIENT", "AWS_SECRET_ACCESS_KEY": "x"}
	_, code, _, errs := runWithConfig(t, file, env, "--no-cache", "log", "archive:")
	if code != exitFailure {
		t.Fatalf("exit %d: %s", code, errs)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(auth) == 0 {
		t.Fatalf("no request reached the bucket: %s", errs)
	}
	for _, h := range auth {
		if !strings.Contains(h, "Credential=AKIDNAMED/") {
			t.Errorf("Authorization %q: want the key of $ARCHIVE_KEY", h)
		}
	}
	// Without the named variables set: the ambient ones are not used.
	delete(env, "ARCHIVE_KEY")
	_, code, _, errs = runWithConfig(t, file, env, "--no-cache", "log", "archive:")
	if code != exitFailure || !strings.Contains(errs, "no credentials") {
		t.Errorf("without $ARCHIVE_KEY: exit %d: %s", code, errs)
	}
}

func TestConfigCommand(t *testing.T) {
	const file = `theme = "light"
[defaults]
rate = 2.0
[dest.archive]
url = "s3://bucket/p?endpoint=http://127.0.0.1:7070"
access_key_env = "ARCHIVE_KEY"
secret_key_env = "ARCHIVE_SECRET"
[keys]
quit = ["q", "ctrl+q"]
`
	_, code, out, errs := runWithConfig(t, file, map[string]string{"ARCHIVE_SECRET": "do-not-print"}, "config")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"config.toml (exists)", "theme: light", "--rate 2", "archive: s3://bucket/p?endpoint=http://127.0.0.1:7070 (credentials: key $ARCHIVE_KEY, secret $ARCHIVE_SECRET)", "quit = q, ctrl+q"} {
		if !strings.Contains(out, want) {
			t.Errorf("rsx config lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "do-not-print") {
		t.Errorf("rsx config printed a secret:\n%s", out)
	}
	_, code, out, _ = runWithConfig(t, file, nil, "config", "--json")
	r := decodeOneJSON[configReport](t, out, "config")
	if code != 0 || !r.Exists || r.Theme != "light" || *r.Defaults.Rate != 2 || r.Dest["archive"].AccessKeyEnv != "ARCHIVE_KEY" || len(r.Keys["quit"]) != 2 {
		t.Errorf("rsx config --json: exit %d, %+v", code, r)
	}

	// The example is a valid file.
	_, code, out, _ = runWithConfig(t, "", nil, "config", "--example")
	if _, err := config.Parse([]byte(out)); code != 0 || err != nil {
		t.Errorf("rsx config --example: exit %d, %v", code, err)
	}
	// No file: said, and no error.
	_, code, out, _ = runWithConfig(t, "", nil, "config")
	if code != 0 || !strings.Contains(out, "exists") {
		t.Errorf("empty file: exit %d: %s", code, out)
	}

	// A bad file stops every command, saying what is wrong.
	for _, tt := range []struct{ text, want string }{
		{"[defaults]\nrates = 2\n", "unknown setting defaults.rates"},
		{"[keys]\nquitt = \"q\"\n", "keys.quitt: no such action (did you mean quit?)"},
		// A key no key press is reported as: help would be unreachable.
		{"[keys]\nhelp = \"F1\"\n", `keys.help: "F1" is no key name (did you mean "f1"?`},
		{"[keys]\nsync_cmd = \":s\"\n", "keys.sync_cmd: :sync is a command typed at the : prompt, not a key: it cannot be rebound"},
		// Two unknown settings, a bad key and a bad value: all named at once.
		{"colour = 1\n[defaults]\nrates = 2\nconcurrency = 0\n[keys]\nquit = \"Ctrl-Q\"\n",
			`4 problems: unknown setting colour (docs/config.md lists the settings); unknown setting defaults.rates (did you mean defaults.rate?); defaults.concurrency 0: 1 or more; keys.quit: "Ctrl-Q" is no key name (did you mean "ctrl+q"?`},
		{"theme = [\n", "line 1"},
	} {
		_, code, _, errs := runWithConfig(t, tt.text, nil, "validate", "nothing.xml")
		if code != exitFailure || !strings.Contains(errs, tt.want) || !strings.Contains(errs, "config.toml") {
			t.Errorf("%q: exit %d: %s", tt.text, code, errs)
		}
	}
}

func quoteTOML(s string) string { return "'" + s + "'" }
