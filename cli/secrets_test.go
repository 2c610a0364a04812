package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rsx/internal/s3test"
)

// No secret leaves in what rsx prints: a password in a Source URL's
// userinfo, and an S3 secret key (of the environment, of a named
// destination, or pasted where it does not belong), are in no text, no
// JSON, no error message, no history (rsx log).

const (
	urlPassword = "hunter2-url-password"
	s3Access    = "rsxcliaccess"
	s3Secret    = "rsxcli-secret-key-0123456789"
)

// runEnv runs args with the environment env (besides the process's).
func runEnv(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	args = append([]string{"--no-cache", "--rate", "0", "--retries", "0"}, args...)
	code = runWith(args, streams{in: strings.NewReader(""), out: &out, err: &errb}, func(a *app) {
		a.env = func(k string) string {
			if v, ok := env[k]; ok {
				return v
			}
			return os.Getenv(k)
		}
	})
	return code, out.String(), errb.String()
}

// noSecret fails the test when any output holds one of the secrets.
func noSecret(t *testing.T, what string, outputs ...string) {
	t.Helper()
	for _, o := range outputs {
		for _, s := range []string{urlPassword, s3Secret} {
			if strings.Contains(o, s) {
				t.Errorf("%s: a secret is printed: %q", what, o)
			}
		}
	}
}

// withPassword puts user:urlPassword into an http URL.
func withPassword(u string) string {
	return strings.Replace(u, "http://", "http://archivist:"+urlPassword+"@", 1)
}

func TestNoPasswordOfASourceURLIsPrinted(t *testing.T) {
	base := startDemo(t, false)
	target := withPassword(base + "/dataset1/capabilitylist.xml")
	dest := t.TempDir()
	for _, args := range [][]string{
		{"sync", "--dest", dest, target},
		{"sync", "--dest", dest, "--json", target},
		{"sync", "--dest", dest, "--dry-run", "--json", target},
		{"audit", "--dest", dest, target},
		{"audit", "--dest", dest, "--json", target},
		{"log", dest},
		{"log", "--json", dest},
		// Unreachable, and not a ResourceSync document: the errors.
		{"sync", "--dest", t.TempDir(), withPassword("http://127.0.0.1:1/cap.xml")},
		{"sync", "--dest", t.TempDir(), "--json", withPassword("http://127.0.0.1:1/cap.xml")},
		{"sync", "--dest", dest, withPassword(base + "/nothing-here.xml")},
		{"sync", "--dest", dest, "--json", withPassword(base + "/nothing-here.xml")},
	} {
		code, out, errs := runCmd(t, args...)
		if args[0] == "sync" && strings.Contains(strings.Join(args, " "), "/dataset1/") && code != 0 {
			t.Errorf("%q: exit %d: %s", args, code, errs)
		}
		noSecret(t, strings.Join(args, " "), out, errs)
	}
	// The history in the state file itself.
	db, err := os.ReadFile(filepath.Join(dest, ".rsx", "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	if wal, err := os.ReadFile(filepath.Join(dest, ".rsx", "state.db-wal")); err == nil {
		db = append(db, wal...)
	}
	if bytes.Contains(db, []byte(urlPassword)) {
		t.Error("the state database holds the password")
	}
}

// A fleet prints no password of its Sources' URLs, in text or JSON.
func TestNoPasswordInAFleetsOutput(t *testing.T) {
	base := startDemo(t, false)
	dir := t.TempDir()
	file := filepath.Join(dir, "fleet.txt")
	list := withPassword(base+"/dataset1/capabilitylist.xml") + "\n" + withPassword("http://127.0.0.1:1/cap.xml") + "\n"
	if err := os.WriteFile(file, []byte(list), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"sync", "--sources", file, "--dest", filepath.Join(dir, "copy")},
		{"sync", "--sources", file, "--dest", filepath.Join(dir, "copy"), "--json"},
		{"audit", "--sources", file, "--dest", filepath.Join(dir, "copy"), "--json"},
		{"log", filepath.Join(dir, "copy")},
	} {
		code, out, errs := runCmd(t, args...)
		if code == 0 && args[0] == "sync" {
			t.Errorf("%q: exit 0 with an unreachable Source", args)
		}
		noSecret(t, strings.Join(args, " "), out, errs)
	}
}

// startS3 starts the bucket tests' S3 server (internal/s3test: versitygw
// or SeaweedFS) with the bucket, or skips the test saying why; it returns
// the endpoint.
func startS3(t *testing.T, bucket string) string {
	t.Helper()
	return s3test.Start(t, s3test.Options{Access: s3Access, Secret: s3Secret, Bucket: bucket}).Endpoint
}

// An S3 secret key is printed nowhere: not in a sync's or an audit's
// output, nor in a refusal that would echo it (a bucket URL with the
// credentials in it, a named destination whose secret_key_env is the
// secret itself, a wrong secret).
func TestNoS3SecretIsPrinted(t *testing.T) {
	endpoint := startS3(t, "copies")
	base := startDemo(t, false)
	target := base + "/dataset1/capabilitylist.xml"
	dest := "s3://copies/a?endpoint=" + endpoint
	env := map[string]string{"AWS_ACCESS_KEY_ID": s3Access, "AWS_SECRET_ACCESS_KEY": s3Secret}
	cfgDir := t.TempDir()
	cfg := filepath.Join(cfgDir, "config.toml")
	if err := os.WriteFile(cfg, []byte(`[dest.pasted]
url = "s3://copies/b?endpoint=`+endpoint+`"
access_key_env = "`+s3Access+`"
secret_key_env = "`+s3Secret+`"
`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		env  map[string]string
		code int
	}{
		{[]string{"sync", "--dest", dest, target}, env, 0},
		{[]string{"sync", "--dest", dest, "--json", target}, env, 0},
		{[]string{"audit", "--dest", dest, "--json", target}, env, 0},
		{[]string{"log", dest}, env, 0},
		{[]string{"log", "--json", dest}, env, 0},
		// The credentials in the URL: refused.
		{[]string{"sync", "--dest", "s3://" + s3Access + ":" + s3Secret + "@copies/a?endpoint=" + endpoint, target}, env, 2},
		{[]string{"sync", "--json", "--dest", "s3://" + s3Access + ":" + s3Secret + "@copies/a?endpoint=" + endpoint, target}, env, 2},
		// A wrong access key with the right secret.
		{[]string{"sync", "--dest", dest, target}, map[string]string{"AWS_ACCESS_KEY_ID": "nobody", "AWS_SECRET_ACCESS_KEY": s3Secret}, 2},
		// The secret pasted where the name of a variable goes.
		{[]string{"sync", "--dest", "pasted:", target}, map[string]string{"RSX_CONFIG": cfg}, 2},
		{[]string{"config", "--json"}, map[string]string{"RSX_CONFIG": cfg}, 2},
	} {
		code, out, errs := runEnv(t, tc.env, tc.args...)
		if code != tc.code {
			t.Errorf("%q: exit %d, want %d: %s", tc.args, code, tc.code, errs)
		}
		noSecret(t, strings.Join(tc.args, " "), out, errs)
	}
}
