package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Messages in words, not Go internals; did you mean for options as for
// commands; each on one line, once.
func TestOptionErrorsInWords(t *testing.T) {
	const u = "http://127.0.0.1:9/cl.xml"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--rate", "abc", "tree", u}, `--rate "abc": want a number, such as 2 or 0.5 (rsx tree --help lists the options)`},
		{[]string{"tree", "--depth", "x", u}, `--depth "x": want a whole number`},
		{[]string{"--timeout", "5", "tree", u}, `--timeout "5": want a length of time with its unit, such as 30s, 5m or 1h30m`},
		{[]string{"tree", u, "--timeout"}, `--timeout needs a value: want a length of time`},
		{[]string{"tree", "--json=maybe", u}, `--json "maybe": want true or false`},
		{[]string{"--max-bytes", "5XB", "tree", u}, `--max-bytes "5XB": size "5XB": want a number of bytes`},
		{[]string{"sync", "--dets", "/tmp/x", u}, `unknown option --dets; did you mean --dest? (rsx sync --help lists the options)`},
		{[]string{"sync", "--dry", u}, `unknown option --dry; did you mean --dry-run?`},
		{[]string{"--rat", "3", "tree", u}, `unknown option --rat; did you mean --rate?`},
		{[]string{"tree", "--jsno", u}, `unknown option --jsno; did you mean --json?`},
		{[]string{"tree", "--frobnicate", u}, `unknown option --frobnicate (rsx tree --help`},
		{[]string{"tree", "-z", u}, `unknown option -z (rsx tree --help`},
		{[]string{"audit", "--include", "(", u}, `--include "(" is not a regular expression (RE2 syntax): missing closing ) at "("`},
		{[]string{"serve", "--start", "yesterday"}, `--start "yesterday": want a date and time such as 2026-01-05T09:00:00Z`},
	} {
		code, out, errs := runCmd(t, tc.args...)
		if code != exitFailure || !strings.Contains(errs, tc.want) {
			t.Errorf("rsx %q: exit %d, stderr %q; want it to say %q", tc.args, code, errs, tc.want)
		}
		for _, internal := range []string{"strconv.", "time: ", "error parsing regexp", "parsing time", "invalid argument", "unknown flag", "shorthand"} {
			if strings.Contains(errs, internal) {
				t.Errorf("rsx %q: stderr shows Go's own words %q: %q", tc.args, internal, errs)
			}
		}
		if strings.Count(errs, "\n") != 1 || out != "" {
			t.Errorf("rsx %q: want one line on stderr and nothing on stdout; got %q, %q", tc.args, errs, out)
		}
	}
}

func TestSuggestFlag(t *testing.T) {
	_, root := newApp(streams{})
	sync, _, _ := root.Find([]string{"sync"})
	for name, want := range map[string]string{
		"dets": "dest", "dest": "dest", "includ": "include", "exlude": "exclude", "dry": "dry-run",
		"rat": "rate", "concurency": "concurrency", "no-cahce": "no-cache", "zzzzzz": "", "x": "",
	} {
		if got := suggestFlag(sync, name); got != want {
			t.Errorf("suggestFlag(sync, %q) = %q, want %q", name, got, want)
		}
	}
}

// An error is printed once: validate's report marks the target it could not
// read, and the reason is said on standard error only (it was on both).
func TestValidateErrorPrintedOnce(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "page.html")
	if err := os.WriteFile(page, []byte("<html></html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	for target, reason := range map[string]string{
		"http://127.0.0.1:1/list.xml": "connection refused",
		page:                          "(root element <html>)",
		filepath.Join(dir, "no.xml"):  "no such file",
	} {
		_, out, errs := runCmd(t, "validate", target)
		if n := strings.Count(out+errs, reason); n != 1 {
			t.Errorf("validate %s: %q said %d times:\nstdout %q\nstderr %q", target, reason, n, out, errs)
		}
	}
}
