package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"rsx/fetch"
	"rsx/internal/version"
)

func parseHTTPFlags(t *testing.T, args ...string) *httpFlags {
	t.Helper()
	var f httpFlags
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	f.register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("parse %v: %v", args, err)
	}
	return &f
}

func TestHTTPFlagsBindToTargetHosts(t *testing.T) {
	f := parseHTTPFlags(t, "-H", "Authorization: Bearer abc", "--header", "X-Trace:1",
		"--user", "me:s3:cret", "--rate", "0", "--retries", "0", "--max-bytes", "50MB", "--no-cache", "--netrc", "-")
	o, err := f.options("https://Example.org/a/capabilitylist.xml", "http://127.0.0.1:8080/x", "local.xml")
	if err != nil {
		t.Fatal(err)
	}
	wantHeaders := []fetch.HostHeader{
		{Host: "example.org:443", Name: "Authorization", Value: "Bearer abc"},
		{Host: "127.0.0.1:8080", Name: "Authorization", Value: "Bearer abc"},
		{Host: "example.org:443", Name: "X-Trace", Value: "1"},
		{Host: "127.0.0.1:8080", Name: "X-Trace", Value: "1"},
	}
	if len(o.Headers) != len(wantHeaders) {
		t.Fatalf("headers %+v", o.Headers)
	}
	for i, h := range wantHeaders {
		if o.Headers[i] != h {
			t.Errorf("header %d = %+v, want %+v", i, o.Headers[i], h)
		}
	}
	if len(o.BasicAuth) != 2 || o.BasicAuth[0] != (fetch.HostBasicAuth{Host: "example.org:443", User: "me", Password: "s3:cret"}) {
		t.Errorf("basic auth %+v", o.BasicAuth)
	}
	if o.PerHostRate != 0 || o.Retries != 0 || o.MaxBytes != 50_000_000 || !o.NoCache || o.Version != version.String() {
		t.Errorf("options %+v", o)
	}
	if _, err := f.client("https://example.org/"); err != nil {
		t.Errorf("client: %v", err)
	}
}

func TestHTTPFlagsErrors(t *testing.T) {
	for _, args := range [][]string{
		{"-H", "no colon"},
		{"-H", "Bad Name: x"},
		{"--user", "nopassword"},
		{"--concurrency", "0"},
		{"--rate", "-1"},
	} {
		f := parseHTTPFlags(t, args...)
		if _, err := f.options("http://example.org/"); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
	f := parseHTTPFlags(t, "-H", "A: b")
	if _, err := f.options("file.xml"); err == nil {
		t.Error("a header without a URL target was accepted")
	}
}

func TestParseByteSize(t *testing.T) {
	for s, want := range map[string]int64{
		"1000": 1000, "256MiB": 256 << 20, "256 MiB": 256 << 20, "50MB": 50e6, "1.5k": 1536, "-1": -1, "0": 0,
	} {
		got, err := parseByteSize(s)
		if err != nil || got != want {
			t.Errorf("%q: %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "MiB", "12 parsecs", "-5"} {
		if _, err := parseByteSize(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

// One politeness policy for every command: the near limits apply to hosts
// on this machine or a private network unless --rate or --concurrency are
// given, which then apply to every host.
func TestHTTPFlagsNearLimits(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		wantNear fetch.Limits
	}{
		{nil, fetch.Limits{Rate: fetch.DefaultNearRate, Concurrency: fetch.DefaultNearConcurrency}},
		{[]string{"--rate", "3"}, fetch.Limits{Rate: 3, Concurrency: fetch.DefaultNearConcurrency}},
		{[]string{"--concurrency", "2"}, fetch.Limits{Rate: fetch.DefaultNearRate, Concurrency: 2}},
		{[]string{"--rate", "3", "--concurrency", "2"}, fetch.Limits{Rate: 3, Concurrency: 2}},
	} {
		f := parseHTTPFlags(t, append([]string{"--no-cache"}, tc.args...)...)
		c, err := f.client("http://127.0.0.1:8080/")
		if err != nil {
			t.Fatal(err)
		}
		if got := c.LimitsFor("http://127.0.0.1:8080/x"); got != tc.wantNear {
			t.Errorf("%v: loopback gets %+v, want %+v", tc.args, got, tc.wantNear)
		}
		if got := c.LimitsFor("http://192.168.1.2/x"); got != tc.wantNear {
			t.Errorf("%v: a private address gets %+v, want %+v", tc.args, got, tc.wantNear)
		}
		if got, want := c.LimitsFor("https://example.org/x"), (fetch.Limits{Rate: f.rate, Concurrency: f.concurrency}); got != want {
			t.Errorf("%v: a remote host gets %+v, want %+v", tc.args, got, want)
		}
	}
}

// Every command gets the policy (tree of the demo on loopback used to keep
// to 10 requests a second: 21.9 s for 100,000 resources), and one that the
// rate holds back says so once per host on standard error.
func TestEveryCommandPoliteByKindOfHost(t *testing.T) {
	base := startDemo(t, false)
	run1 := func(args ...string) (int, string, time.Duration) {
		var out, errb bytes.Buffer
		start := time.Now()
		code := run(append([]string{"--no-cache"}, args...), streams{in: strings.NewReader(""), out: &out, err: &errb})
		return code, errb.String(), time.Since(start)
	}
	// The demo's tree is 21 documents: 2 s at 10 a second.
	code, errs, took := run1("tree", "--no-check", base+"/.well-known/resourcesync")
	if code != 0 || took > 1500*time.Millisecond || strings.Contains(errs, "polite") {
		t.Errorf("tree on loopback: exit %d in %v, stderr %q", code, took, errs)
	}
	code, errs, _ = run1("--rate", "4", "tree", "--no-check", base+"/dataset2/capabilitylist.xml")
	if want := "rsx: polite: 4 requests a second to 127.0.0.1 (--rate changes it)\n"; code != 0 || strings.Count(errs, want) != 1 {
		t.Errorf("tree --rate 4: exit %d, stderr %q, want %q once", code, errs, want)
	}
}
