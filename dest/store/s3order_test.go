package store

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"
)

// S3 lists the keys of a bucket in the byte order of their UTF-8 (a key's
// "folders" are no part of the order: "a-b" and "a.txt" sort before "a/b",
// "a0" after it), and Walk and WalkRange give them so: each range is the
// keys after its start and up to its end, whatever server keeps the
// objects (versitygw as files in folders, SeaweedFS as a filer's entries
// by folder). The audit's and the reconcile's ranges rely on it.
func TestS3WalkOrder(t *testing.T) {
	g := startGateway(t, "order")
	ctx := context.Background()
	keys := []string{"h/a/b", "h/a-b", "h/a.txt", "h/a0", "h/B", "h/a/c", "h/a/é", "h/a/~", "h/é", "h/z/y/x", "i"}
	for _, k := range keys {
		if _, err := g.client.PutObject(ctx, "order", "pre/"+k, strings.NewReader(k), int64(len(k)), minio.PutObjectOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	want := slices.Clone(keys)
	slices.Sort(want) // Go compares strings by their bytes
	s := openS3(t, g, "order/pre", Options{})
	defer s.Close()
	walk := func(after, upTo string) []string {
		t.Helper()
		var got []string
		if err := s.WalkRange(ctx, after, upTo, func(fi FileInfo) error { got = append(got, fi.Path); return nil }); err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := walk("", ""); !slices.Equal(got, want) {
		t.Errorf("%s lists\n%q\nwant (byte order)\n%q", g.srv.Kind, got, want)
	}
	for _, r := range [][2]string{{"", "h/a-b"}, {"h/a-b", "h/a/c"}, {"h/a/c", "h/a0"}, {"h/a0", "h/z"}, {"h/a.txt", ""}, {"h/a", "h/a/~"}} {
		var in []string
		for _, k := range want {
			if k > r[0] && (r[1] == "" || k <= r[1]) {
				in = append(in, k)
			}
		}
		if got := walk(r[0], r[1]); !slices.Equal(got, in) {
			t.Errorf("%s: the range (%q, %q] lists %q, want %q", g.srv.Kind, r[0], r[1], got, in)
		}
	}
}
