package store

import (
	"strings"
	"testing"
)

func TestParseS3URL(t *testing.T) {
	tests := []struct {
		in   string
		want S3Location
		err  string
	}{
		{in: "s3://bucket", want: S3Location{Bucket: "bucket"}},
		{in: "s3://bucket/", want: S3Location{Bucket: "bucket"}},
		{in: "s3://my.bucket-1/a/b/", want: S3Location{Bucket: "my.bucket-1", Prefix: "a/b"}},
		{in: "s3://bucket/p?endpoint=http://127.0.0.1:7070&region=us-east-1", want: S3Location{Bucket: "bucket", Prefix: "p", Endpoint: "http://127.0.0.1:7070", Region: "us-east-1"}},
		{in: "s3://bucket/p?endpoint=https://s3.example.org/", want: S3Location{Bucket: "bucket", Prefix: "p", Endpoint: "https://s3.example.org"}},
		{in: "s3://bucket/x.rsx/.rsxy", want: S3Location{Bucket: "bucket", Prefix: "x.rsx/.rsxy"}},
		// The reserved folder of the DEST its first segments name (a
		// bucket-root DEST's .rsx holds its state and lock): no copy goes
		// inside one.
		{in: "s3://bucket/.rsx", err: "reserved"},
		{in: "s3://bucket/.rsx/x", err: "reserved"},
		{in: "s3://bucket/a/.rsx/x", err: "reserved"},
		{in: "s3://bucket/.RSX", err: "reserved"},
		{in: "https://bucket/p", err: "want s3://bucket/prefix"},
		{in: "s3://", err: "no bucket name"},
		{in: "s3://ab", err: "3 to 63 characters"},
		{in: "s3://" + strings.Repeat("a", 64), err: "3 to 63 characters"},
		{in: "s3://Bucket", err: "must be lower case"},
		{in: "s3://bu_cket", err: "letters, digits, dots and hyphens"},
		{in: "s3://-bucket", err: "start and end with a letter or digit"},
		{in: "s3://bucket.", err: "start and end with a letter or digit"},
		{in: "s3://a..b", err: "two dots"},
		{in: "s3://192.168.1.1", err: "IP address"},
		{in: "s3://bucket:9000/p", err: "letters, digits, dots and hyphens"},
		{in: "s3://key:secret@bucket/p", err: "credentials do not go in the URL"},
		{in: "s3://bucket/a//b", err: "segment"},
		{in: "s3://bucket/a/../b", err: "segment"},
		{in: "s3://bucket/./b", err: "segment"},
		{in: "s3://bucket/p#frag", err: "fragment"},
		{in: "s3://bucket/p?endpoint=ftp://h", err: "not an http or https URL"},
		{in: "s3://bucket/p?endpoint=127.0.0.1:7070", err: "not an http or https URL"},
		{in: "s3://bucket/p?endpoint=http://h/path", err: "only scheme, host and port"},
		{in: "s3://bucket/p?endpoint=http://h:99999", err: "port out of range"},
		{in: "s3://bucket/p?region=US_EAST", err: "not a region name"},
		{in: "s3://bucket/p?region=a&region=b", err: "more than once"},
		{in: "s3://bucket/p?acl=public", err: `unknown parameter "acl"`},
		{in: "s3://bucket/p?endpoint=%zz", err: "query"},
	}
	for _, tc := range tests {
		got, err := ParseS3URL(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseS3URL(%q) = %+v, %v; want an error with %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseS3URL(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
	loc, _ := ParseS3URL("s3://bucket/a/b?region=eu-west-1&endpoint=http://h:1")
	if loc.String() != "s3://bucket/a/b?endpoint=http%3A%2F%2Fh%3A1&region=eu-west-1" || loc.Name() != "s3://bucket/a/b" || loc.Key("x/y") != "a/b/x/y" {
		t.Errorf("String %q, Name %q, Key %q", loc.String(), loc.Name(), loc.Key("x/y"))
	}
	if again, err := ParseS3URL(loc.String()); err != nil || again != loc {
		t.Errorf("String does not parse back: %+v %v", again, err)
	}
	if (S3Location{Bucket: "b"}).Key("x") != "x" {
		t.Error("Key without a prefix")
	}
}

// FuzzParseS3URL: no input panics, and an accepted URL gives a location whose
// String parses back to it and whose keys stay under the prefix.
func FuzzParseS3URL(f *testing.F) {
	for _, s := range []string{"s3://bucket/p?endpoint=http://127.0.0.1:7070&region=us-east-1", "s3://b.c-d/../x", "s3://bucket/%2e%2e/x", "s3://x?endpoint=http://[::1]:9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		loc, err := ParseS3URL(s)
		if err != nil {
			return
		}
		again, err := ParseS3URL(loc.String())
		if err != nil || again != loc {
			t.Fatalf("%q gave %+v, whose String %q parses to %+v, %v", s, loc, loc.String(), again, err)
		}
		for _, seg := range strings.Split(loc.Prefix, "/") {
			if loc.Prefix != "" && (seg == "" || seg == "." || seg == "..") {
				t.Fatalf("%q: prefix %q", s, loc.Prefix)
			}
		}
		if k := loc.Key("a"); loc.Prefix != "" && !strings.HasPrefix(k, loc.Prefix+"/") {
			t.Fatalf("%q: key %q outside the prefix", s, k)
		}
	})
}
