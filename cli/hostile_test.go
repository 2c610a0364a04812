package cli

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// A bucket prefix with a segment .rsx would put the copy inside the folder
// where the DEST above it keeps its state and lock: every command that
// takes a DEST refuses it, exit 2, before it asks anything of the Source or
// of the bucket's server.
func TestBucketPrefixReservedRefusedBeforeAnyConnection(t *testing.T) {
	var asked atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	env := map[string]string{"AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "secret-key"}
	for _, prefix := range []string{".rsx", ".rsx/copy", "archive/.rsx", "archive/.RSX/x"} {
		dest := "s3://bucket/" + prefix + "?endpoint=" + srv.URL
		for _, args := range [][]string{
			{"sync", "--no-cache", "--retries", "0", srv.URL + "/cl.xml", "--dest", dest},
			{"audit", "--no-cache", "--retries", "0", srv.URL + "/cl.xml", "--dest", dest},
			{"log", dest},
		} {
			_, code, _, errs := runWithConfig(t, "", env, args...)
			if code != 2 || !strings.Contains(errs, "keeps its state and lock") {
				t.Errorf("%s: exit %d, stderr %q; want exit 2 saying the folder is reserved", strings.Join(args, " "), code, errs)
			}
		}
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("%d requests reached the Source or the bucket's server", n)
	}
}
