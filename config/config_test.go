package config

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, text string
		wantErr    string // "" for none
	}{
		{"empty", "", ""},
		{"everything", `theme = "light"
[defaults]
rate = 2.0
concurrency = 4
user_agent = "me/1"
timeout = "30s"
[dest.archive]
url = "s3://bucket/prefix?endpoint=http://127.0.0.1:7070&region=us-east-1"
access_key_env = "ARCHIVE_KEY"
secret_key_env = "ARCHIVE_SECRET"
[dest.shelf]
url = "/srv/archive"
[keys]
quit = ["q", "ctrl+q"]
help = "h"
`, ""},
		{"bad TOML", "theme = \n", "line 1"},
		{"unknown top-level key", "colour = \"red\"\n", "unknown setting colour"},
		{"unknown nested keys named", "[defaults]\nrates = 2\n[dest.a1]\nurl = \"/x\"\npassword = \"p\"\n", "unknown setting"},
		{"bad theme", "theme = \"blue\"\n", `theme "blue": one of auto, dark, light`},
		{"bad duration", "[defaults]\ntimeout = \"soon\"\n", "not a duration"},
		{"wrong type", "[defaults]\nrate = \"fast\"\n", "rate"},
		{"negative rate", "[defaults]\nrate = -1.0\n", "defaults.rate"},
		{"zero concurrency", "[defaults]\nconcurrency = 0\n", "defaults.concurrency"},
		{"dest without url", "[dest.archive]\naccess_key_env = \"K\"\n", "dest.archive: no url"},
		{"dest bad name", "[dest.\"a b\"]\nurl = \"/x\"\n", "a destination's name"},
		{"dest one-letter name", "[dest.c]\nurl = \"/x\"\n", "a destination's name"},
		{"secret in the file", "[dest.archive]\nurl = \"s3://b/p\"\naccess_key_env = \"AKIA/xyz+secret\"\nsecret_key_env = \"S\"\n", "the name of an environment variable"},
		{"key without secret", "[dest.archive]\nurl = \"s3://b/p\"\naccess_key_env = \"K\"\n", "go together"},
		{"credentials for a folder", "[dest.archive]\nurl = \"/srv\"\naccess_key_env = \"K\"\nsecret_key_env = \"S\"\n", "only a bucket"},
		{"empty key list", "[keys]\nquit = []\n", "no key given"},
		{"key not a string", "[keys]\nquit = [1]\n", "a key is a string"},
		{"profile and variables", "[dest.archive]\nurl = \"s3://b/p\"\nprofile = \"archive\"\naccess_key_env = \"K\"\nsecret_key_env = \"S\"\n", "not both"},
		{"profile of a folder", "[dest.archive]\nurl = \"/srv\"\nprofile = \"archive\"\n", "only a bucket"},
		{"profile with a line feed", "[dest.archive]\nurl = \"s3://b/p\"\nprofile = \"a\\nb\"\n", "the name of a profile"},
		// A header value with a line break would end the header (net/http
		// refuses to send it, and every request failed after its retries);
		// any other control character is refused as well (a tab is allowed).
		{"user agent with CR LF", "[defaults]\nuser_agent = \"bot/1\\r\\nX-Evil: 1\"\n", `defaults.user_agent "bot/1\r\nX-Evil: 1": a control character`},
		{"user agent with LF", "[defaults]\nuser_agent = \"\"\"bot\nnext\"\"\"\n", "defaults.user_agent"},
		{"user agent with NUL", "[defaults]\nuser_agent = \"bot\\u0000\"\n", "defaults.user_agent"},
		{"user agent with ESC", "[defaults]\nuser_agent = \"bot\\u001b[2J\"\n", "defaults.user_agent"},
		{"user agent with DEL", "[defaults]\nuser_agent = \"bot\\u007f\"\n", "defaults.user_agent"},
		{"user agent with a tab", "[defaults]\nuser_agent = \"bot/1\\t(archive)\"\n", ""},
		{"user agent empty", "[defaults]\nuser_agent = \"\"\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse([]byte(tt.text))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Parse error = %v, want one containing %q (config %+v)", err, tt.wantErr, c)
			}
		})
	}
}

func TestParseNamesEveryUnknownKey(t *testing.T) {
	_, err := Parse([]byte("[defaults]\nrates = 2\n[dest.a1]\nurl = \"/x\"\npassword = \"p\"\n"))
	if err == nil || !strings.Contains(err.Error(), "defaults.rates") || !strings.Contains(err.Error(), "dest.a1.password") {
		t.Fatalf("error = %v, want both unknown keys named", err)
	}
}

// Every problem of a file is named in one run: two unknown settings, a
// bad value, and what a Check adds (the explorer's keys), each with the
// setting meant when one is near.
func TestParseNamesEveryProblemAtOnce(t *testing.T) {
	check := func(c *Config) []string {
		if len(c.Keys["help"]) > 0 {
			return []string{"keys.help: checked"}
		}
		return nil
	}
	_, err := Parse([]byte("themes = \"dark\"\ncolour = \"red\"\n[defaults]\nrat = 2\nconcurrency = 0\n[keys]\nhelp = \"F1\"\n"), check)
	var pe *ProblemsError
	if !errors.As(err, &pe) {
		t.Fatalf("error = %v, want a *ProblemsError", err)
	}
	want := []string{
		"unknown setting themes (did you mean theme?)",
		"unknown setting colour (docs/config.md lists the settings)",
		"unknown setting defaults.rat (did you mean defaults.rate?)",
		"defaults.concurrency 0: 1 or more",
		"keys.help: checked",
	}
	if !slices.Equal(pe.Problems, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(pe.Problems, "\n"), strings.Join(want, "\n"))
	}
	if !strings.HasPrefix(err.Error(), "5 problems: unknown setting themes") {
		t.Errorf("message: %v", err)
	}
	if _, err := Parse([]byte("[keys]\nquit = \"x\"\n"), check); err != nil {
		t.Errorf("a good file with a check: %v", err)
	}
}

func TestParseValues(t *testing.T) {
	c, err := Parse([]byte("theme = \"dark\"\n[defaults]\nrate = 2.5\ntimeout = \"1m30s\"\n[keys]\nquit = \"x\"\nhelp = [\"h\", \"?\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Theme != "dark" || *c.Defaults.Rate != 2.5 || c.Defaults.Timeout.String() != "1m30s" || c.Defaults.Concurrency != nil {
		t.Errorf("got %+v", c)
	}
	if strings.Join(c.Keys["quit"], ",") != "x" || strings.Join(c.Keys["help"], ",") != "h,?" {
		t.Errorf("keys = %v", c.Keys)
	}
}

func TestResolveDest(t *testing.T) {
	c, err := Parse([]byte(`[dest.archive]
url = "s3://bucket/prefix?endpoint=http://127.0.0.1:7070&region=us-east-1"
access_key_env = "ARCHIVE_KEY"
secret_key_env = "ARCHIVE_SECRET"
[dest.shelf]
url = "/srv/archive"
[dest.open]
url = "s3://pub"
`))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"ARCHIVE_KEY": "ak", "ARCHIVE_SECRET": "as", "AWS_ACCESS_KEY_ID": "ambient", "AWS_SECRET_ACCESS_KEY": "ambient-secret", "AWS_SESSION_TOKEN": "ambient-token"}
	getenv := func(k string) string { return env[k] }
	tests := []struct {
		dest, want, wantErr string
	}{
		{"archive:", "s3://bucket/prefix?endpoint=http://127.0.0.1:7070&region=us-east-1", ""},
		{"archive:2026/site", "s3://bucket/prefix/2026/site?endpoint=http://127.0.0.1:7070&region=us-east-1", ""},
		{"shelf:", "/srv/archive", ""},
		{"shelf:a/b/", filepath.Join("/srv/archive", "a", "b"), ""},
		{"open:x", "s3://pub/x", ""},
		{"./archive:", "./archive:", ""},                                 // a folder
		{"/data/copy", "/data/copy", ""},                                 // a folder
		{"s3://b/p?endpoint=http://h", "s3://b/p?endpoint=http://h", ""}, // a URL
		{"C:\\copy", "C:\\copy", ""},                                     // a drive
		{"attic:", "", "no destination named attic in " + "x.toml (defined: archive, open, shelf"},
		{"shelf:../up", "", "has an empty, . or .. part"},
		{"archive:a?b", "", "may not hold"},
	}
	c.Path, c.Exists = "x.toml", true
	for _, tt := range tests {
		r, err := c.ResolveDest(tt.dest, getenv)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ResolveDest(%q) error = %v, want %q", tt.dest, err, tt.wantErr)
			}
			continue
		}
		if err != nil || r.Dest != tt.want {
			t.Errorf("ResolveDest(%q) = %q, %v; want %q", tt.dest, r.Dest, err, tt.want)
		}
	}
	r, _ := c.ResolveDest("archive:", getenv)
	if r.Name != "archive" || r.Getenv == nil {
		t.Fatalf("resolved %+v", r)
	}
	for k, want := range map[string]string{"AWS_ACCESS_KEY_ID": "ak", "AWS_SECRET_ACCESS_KEY": "as", "AWS_SESSION_TOKEN": "", "HOME": ""} {
		if got := r.Getenv(k); got != want {
			t.Errorf("Getenv(%s) = %q, want %q", k, got, want)
		}
	}
	// A destination naming its variables reads nothing else: not the
	// shared files under HOME, not AWS_PROFILE.
	env["HOME"], env["AWS_PROFILE"] = "/home/me", "other"
	for _, k := range []string{"HOME", "AWS_PROFILE", "AWS_SHARED_CREDENTIALS_FILE"} {
		if got := r.Getenv(k); got != "" {
			t.Errorf("archive: Getenv(%s) = %q, want nothing", k, got)
		}
	}
	// A profile stands for AWS_PROFILE; the ambient keys are not read.
	c.Dest["prof"] = Dest{URL: "s3://b/p", Profile: "archive"}
	r, _ = c.ResolveDest("prof:", getenv)
	for k, want := range map[string]string{"AWS_PROFILE": "archive", "AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "HOME": "/home/me"} {
		if got := r.Getenv(k); got != want {
			t.Errorf("prof: Getenv(%s) = %q, want %q", k, got, want)
		}
	}
	if r, _ := c.ResolveDest("open:", getenv); r.Getenv != nil {
		t.Errorf("a destination without credentials' names reads the environment as it is")
	}
	if _, err := (&Config{}).ResolveDest("archive:", getenv); err == nil || !strings.Contains(err.Error(), "no configuration file (none is defined") {
		t.Errorf("no file: %v", err)
	}
}

func TestLoadAndPath(t *testing.T) {
	dir := t.TempDir()
	c, err := Load(filepath.Join(dir, "none.toml"))
	if err != nil || c.Exists {
		t.Fatalf("a missing file: %+v, %v", c, err)
	}
	p := filepath.Join(dir, "c.toml")
	if err := os.WriteFile(p, []byte("theme = 3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(p); err == nil || !strings.Contains(err.Error(), p) {
		t.Fatalf("a bad file: %v, want its path named", err)
	}
	if got, _ := Path(func(k string) string { return map[string]string{EnvPath: p}[k] }); got != p {
		t.Errorf("Path with %s = %q", EnvPath, got)
	}
	if got, err := Path(func(string) string { return "" }); err == nil && !strings.HasSuffix(got, filepath.Join("rsx", "config.toml")) {
		t.Errorf("Path = %q", got)
	}
}
