package engine

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/minio/minio-go/v7"

	"rsx/demo"
	"rsx/dest/store"
)

// s3Counter is an S3 endpoint on httptest in front of a real one, which
// counts the requests it passes on: HEADs of the copy's objects (not of
// PREFIX/.rsx), and listings of the copy. refuseList answers every listing 403
// AccessDenied, as a key allowed to read objects but not to list would be.
type s3Counter struct {
	mu         sync.Mutex
	heads      int
	lists      int
	refuseList bool
	prefix     string
}

func (c *s3Counter) start(t *testing.T, endpoint string) string {
	t.Helper()
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		// A listing of the copy (not of PREFIX/.rsx/…).
		isList := r.Method == http.MethodGet && r.URL.Query().Has("list-type") && r.URL.Query().Get("prefix") == c.prefix+"/"
		if r.Method == http.MethodHead && strings.Contains(r.URL.Path, "/"+c.prefix+"/") && !strings.Contains(r.URL.Path, "/.rsx/") {
			c.heads++
		}
		if isList {
			c.lists++
		}
		refuse := isList && c.refuseList
		c.mu.Unlock()
		if refuse {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func (c *s3Counter) counts() (heads, lists int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	heads, lists, c.heads, c.lists = c.heads, c.lists, 0, 0
	return heads, lists
}

// damageBucketCopy deletes one object of the copy under prefix, truncates
// another and replaces a third with other bytes, and returns how many
// objects the copy has.
func damageBucketCopy(t *testing.T, mc *minio.Client, bucket, prefix string, from int) int {
	t.Helper()
	ctx := context.Background()
	var keys []string
	for o := range mc.ListObjects(ctx, bucket, minio.ListObjectsOptions{Prefix: prefix + "/", Recursive: true}) {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
		if !strings.HasPrefix(o.Key, prefix+"/.rsx/") {
			keys = append(keys, o.Key)
		}
	}
	if len(keys) < from+3 {
		t.Fatalf("%d objects", len(keys))
	}
	if err := mc.RemoveObject(ctx, bucket, keys[from], minio.RemoveObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	obj, err := mc.GetObject(ctx, bucket, keys[from+1], minio.GetObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(obj)
	obj.Close()
	if err != nil || len(b) < 2 {
		t.Fatalf("read %s: %d bytes, %v", keys[from+1], len(b), err)
	}
	short := b[:len(b)/2]
	if _, err := mc.PutObject(ctx, bucket, keys[from+1], bytes.NewReader(short), int64(len(short)), minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	other := []byte("<html>not what the Source has</html>")
	if _, err := mc.PutObject(ctx, bucket, keys[from+2], bytes.NewReader(other), int64(len(other)), minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	return len(keys)
}

// A bucket's copy is reconciled from listings of it, by ranges of keys
// listed at once, about one request a thousand objects, and not a HEAD
// request an object, however many objects a folder holds (the demo's are
// in one): a deleted, a truncated and a replaced object are each found (a
// HEAD each, to say why) and written again; the copy ends as the Source's.
// The verdicts are those of a HEAD request an object (the reconcile of a
// server that refuses to list), which is the way left when listing is
// refused, with the same result.
func TestS3ReconcileLists(t *testing.T) {
	endpoint, mc := startVersitygw(t, "copies")
	srv := startDemo(t, demo.Options{Resources: 3000, Seed: 31})
	target := srv.URL + "/dataset1/capabilitylist.xml"
	rl := srv.URL + "/dataset1/resourcelist.xml"
	c := &s3Counter{prefix: "lc"}
	front := c.start(t, endpoint)
	dest := "s3://copies/lc?endpoint=" + front + "&region=us-east-1"
	if res := s3Sync(t, dest, t.TempDir(), target, PlanOptions{}); !res.OK() || res.Created < 2000 {
		t.Fatalf("baseline into the bucket: %d:%s", res.Created, failures(res))
	}
	refuse := func(on bool) {
		c.mu.Lock()
		c.refuseList = on
		c.mu.Unlock()
	}

	for k, tc := range []struct {
		name       string
		rangeMin   int64 // listRangeMin
		folderMax  int   // listFolderMax: a folder past it is listed all the same
		refuseList bool
		wantNote   string
	}{
		{name: "listed by ranges, a folder past listFolderMax", rangeMin: 150, folderMax: 100},
		{name: "listed in one range", rangeMin: listRangeMin, folderMax: listFolderMax},
		{name: "listing refused", rangeMin: listRangeMin, folderMax: listFolderMax, refuseList: true, wantNote: "could not be listed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := damageBucketCopy(t, mc, "copies", "lc", 3*k)
			defer func(m int64, f int) { listRangeMin, listFolderMax = m, f }(listRangeMin, listFolderMax)
			listRangeMin, listFolderMax = tc.rangeMin, tc.folderMax
			// The verdicts of a HEAD request an object, then of this way,
			// on the same damaged copy (plans alone: nothing repaired).
			refuse(true)
			byHead := s3Decisions(t, dest, target)
			refuse(tc.refuseList)
			if got := s3Decisions(t, dest, target); !slices.Equal(got, byHead) || len(got) != 3 {
				t.Errorf("verdicts:\n%s\nby a HEAD request an object:\n%s", strings.Join(got, "\n"), strings.Join(byHead, "\n"))
			}
			c.counts()
			res := s3Sync(t, dest, t.TempDir(), target, PlanOptions{Mode: ModeBaseline})
			heads, lists := c.counts()
			s := res.Plan.Summary
			if !res.OK() || !res.Plan.Reconcile || s.Repair != 3 || res.Updated != 3 || s.Checked != n {
				t.Fatalf("reconcile of %d objects: updated %d, %+v:%s", n, res.Updated, s, failures(res))
			}
			assertBucketMirror(t, mc, "copies", "lc", rl)
			switch {
			case !tc.refuseList && (heads > 3 || lists > n/1000+listRangesMax+1):
				t.Errorf("%d objects: %d HEAD requests and %d listings, want 3 HEADs (the damaged objects) and at most %d listings", n, heads, lists, n/1000+listRangesMax+1)
			case tc.refuseList && heads < n:
				t.Errorf("%d objects not listed: %d HEAD requests", n, heads)
			}
			notes := strings.Join(res.Plan.Notes, "\n")
			if tc.wantNote != "" && !strings.Contains(notes, tc.wantNote) {
				t.Errorf("notes: %s", notes)
			}
			t.Logf("%d objects: %d HEAD requests, %d listings", n, heads, lists)
		})
	}
}

// s3Decisions plans a reconcile of the bucket's copy (a fresh cache
// folder) and returns what it would do, sorted: action, URI and reason.
func s3Decisions(t *testing.T, dest, target string) []string {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, dest, store.Options{Getenv: s3Getenv, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := Open(ctx, st, testClient(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p, err := s.Plan(ctx, target, PlanOptions{Mode: ModeBaseline})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if !p.Reconcile {
		t.Fatalf("plan %s: not a reconcile", p.Mode)
	}
	var out []string
	if err := p.Decisions(ctx, func(d Decision) error {
		out = append(out, fmt.Sprintf("%s %s: %s", d.Action, d.URI, d.Reason))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}
