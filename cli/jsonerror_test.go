package cli

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// closedPort is a loopback URL nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// TestJSONErrorWhenACommandCannotRun: with --json every command prints one
// JSON document on stdout with an error string and exits 2 when it cannot do
// its job, whatever stopped it (the command-line contract).
func TestJSONErrorWhenACommandCannotRun(t *testing.T) {
	dead := closedPort(t) + "/.well-known/resourcesync"
	source := startDemo(t, false) + "/dataset1/capabilitylist.xml"
	aFile := filepath.Join(t.TempDir(), "file")
	os.WriteFile(aFile, []byte("not a folder"), 0o644)
	dest := func() string { return filepath.Join(t.TempDir(), "copy") }
	cases := []struct {
		name string
		args []string
	}{
		{"validate unreachable", []string{"validate", "--json", dead}},
		{"validate bad flag value", []string{"validate", "--depth=x", "--json", dead}},
		{"validate missing file", []string{"validate", "--json", filepath.Join(t.TempDir(), "none.xml")}},
		{"discover unreachable", []string{"discover", "--json", dead}},
		{"discover no URL", []string{"discover", "--json"}},
		{"tree unreachable", []string{"tree", "--json", dead}},
		{"tree bad flag value", []string{"tree", "--depth", "x", "--json", dead}},
		{"dump unreachable", []string{"dump", "--json", dead}},
		{"dump unknown flag", []string{"dump", "--no-such-flag", "--json", dead}},
		{"sync unreachable", []string{"sync", "--json", "--dest", dest(), dead}},
		{"sync bad flag value", []string{"sync", "--mode", "sideways", "--json", "--dest", dest(), source}},
		{"sync flag error before --json", []string{"sync", "--poll-interval", "x", "--json", "--dest", dest(), source}},
		{"sync DEST is a file", []string{"sync", "--json", "--dest", aFile, source}},
		{"sync dry run DEST is a file", []string{"sync", "--json", "--dry-run", "--dest", aFile, source}},
		{"audit unreachable", []string{"audit", "--json", dead}},
		{"audit bad flag value", []string{"audit", "--sample", "some", "--json", source}},
		{"audit --dest unreachable", []string{"audit", "--json", "--dest", t.TempDir(), dead}},
		{"audit --dest missing", []string{"audit", "--json", "--dest", dest(), source}},
		{"audit --dest is a file", []string{"audit", "--json", "--dest", aFile, source}},
		{"watch unreachable", []string{"watch", "--json", dead}},
		{"watch bad flag value", []string{"watch", "--json", "--timeout", "x", dead}},
		{"unknown command", []string{"tre", "--json", dead}},
		{"--json=true", []string{"tree", "--depth", "x", "--json=true", dead}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCmd(t, tc.args...)
			if code != exitFailure {
				t.Fatalf("exit %d, want 2; stdout %s; stderr %s", code, out, errs)
			}
			v := decodeOneJSON[map[string]any](t, out, tc.args[0])
			msg, ok := v["error"].(string)
			if !ok || msg == "" {
				t.Fatalf("no error string in %s", out)
			}
		})
	}
	// Without --json nothing goes to stdout.
	if code, out, _ := runCmd(t, "tree", dead); code != exitFailure || out != "" {
		t.Errorf("tree without --json: exit %d, stdout %q", code, out)
	}
	if code, out, _ := runCmd(t, "tree", "--json=false", dead); code != exitFailure || out != "" {
		t.Errorf("tree --json=false: exit %d, stdout %q", code, out)
	}
}

// TestStdoutIsTheCallersWithoutJSON: only --json watches standard output;
// otherwise commands get it as it is, under the redaction of secrets
// (redact.go), which lets it be seen through: a terminal is seen as one
// (the explorer needs one, text output colours on one).
func TestStdoutIsTheCallersWithoutJSON(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "stdout")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, tc := range []struct {
		args []string
		same bool
	}{
		{[]string{"tree", closedPort(t)}, true},
		{[]string{"tree", "--json=false", closedPort(t)}, true},
		{[]string{"tree", "--json", closedPort(t)}, false},
	} {
		var got any
		args := append([]string{"--no-cache", "--retries", "0"}, tc.args...)
		runWith(args, streams{in: strings.NewReader(""), out: f, err: io.Discard}, func(a *app) { got = plainWriter(a.out) })
		if (got == any(f)) != tc.same {
			t.Errorf("%v: the command's stdout is %T", tc.args, got)
		}
	}
}
