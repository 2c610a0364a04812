package fetch

import (
	"io"
	"net/http"
	"testing"
)

// DownloadOptions.Header goes with every hop of that download only, and is
// recorded in the exchange.
func TestDownloadHeader(t *testing.T) {
	t.Parallel()
	var seen []string
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.URL.Path+" "+r.Header.Get("Accept-Datetime"))
		if r.URL.Path == "/timegate" {
			http.Redirect(w, r, "/memento", http.StatusFound)
			return
		}
		w.Write([]byte("v1"))
	})
	c := newTestClient(t, testOptions())
	at := "Mon, 05 Jan 2026 09:00:00 GMT"
	ex, err := c.DownloadWith(testContext(t), s.URL+"/timegate", io.Discard, DownloadOptions{Header: http.Header{"accept-datetime": {at}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 || seen[0] != "/timegate "+at || seen[1] != "/memento "+at {
		t.Errorf("requests %q", seen)
	}
	if got := ex.RequestHeader.Get("Accept-Datetime"); got != at {
		t.Errorf("exchange request header %q", got)
	}
	seen = nil
	if _, err := c.DownloadWith(testContext(t), s.URL+"/memento", io.Discard, DownloadOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || seen[0] != "/memento " {
		t.Errorf("a later download sent %q", seen)
	}
}
