package cli

import (
	"testing"

	"github.com/spf13/pflag"

	"rsx/fetch"
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
	if o.PerHostRate != 0 || o.Retries != 0 || o.MaxBytes != 50_000_000 || !o.NoCache || o.Version != version {
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
