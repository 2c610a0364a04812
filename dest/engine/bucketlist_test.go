package engine

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/minio/minio-go/v7"

	"rsx/demo"
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

// A bucket's copy is reconciled from listings of it, about one request a
// thousand objects, and not a HEAD request an object: a deleted, a
// truncated and a replaced object are each found (a HEAD each, to say
// why) and written again; the copy ends as the Source's. A copy with a
// folder too big for a cheap listing (listFolderMax), or a server that
// refuses to list, is looked at an object at a time, with the same result.
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

	for k, tc := range []struct {
		name       string
		folderMax  int
		refuseList bool
		wantNote   string
	}{
		{name: "listed", folderMax: listFolderMax},
		{name: "a folder too big to list", folderMax: 100},
		{name: "listing refused", folderMax: listFolderMax, refuseList: true, wantNote: "could not be listed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := damageBucketCopy(t, mc, "copies", "lc", 3*k)
			defer func(m int) { listFolderMax = m }(listFolderMax)
			listFolderMax = tc.folderMax
			c.mu.Lock()
			c.refuseList = tc.refuseList
			c.mu.Unlock()
			c.counts()
			res := s3Sync(t, dest, t.TempDir(), target, PlanOptions{Mode: ModeBaseline})
			heads, lists := c.counts()
			s := res.Plan.Summary
			if !res.OK() || !res.Plan.Reconcile || s.Repair != 3 || res.Updated != 3 || s.Checked != n {
				t.Fatalf("reconcile of %d objects: updated %d, %+v:%s", n, res.Updated, s, failures(res))
			}
			assertBucketMirror(t, mc, "copies", "lc", rl)
			listed := tc.folderMax >= n && !tc.refuseList
			switch {
			case listed && (heads > 3 || lists > n/1000+1):
				t.Errorf("%d objects: %d HEAD requests and %d listings, want 3 HEADs (the damaged objects) and about %d listings", n, heads, lists, n/1000+1)
			case !listed && heads < n:
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
