package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// TestCounterCountsPutsByKind: state PUTs (either format, multipart parts
// included) and data PUTs are counted apart, by their decoded length; the
// lock and GETs are not counted; every request reaches the server with its
// Host header as sent, which a signature covers.
func TestCounterCountsPutsByKind(t *testing.T) {
	var mu sync.Mutex
	var hosts []string
	var received int
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		hosts = append(hosts, r.Host)
		received += len(b)
	}))
	defer backend.Close()
	target, _ := url.Parse(backend.URL)
	h, c := newCounter(target)
	front := httptest.NewServer(h)
	defer front.Close()

	put := func(path, body string, decoded string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPut, front.URL+path, strings.NewReader(body))
		if decoded != "" {
			req.Header.Set("X-Amz-Decoded-Content-Length", decoded)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	put("/b/copy/.rsx/state/seg-00000001-000001.zst", strings.Repeat("s", 100), "")
	put("/b/copy/.rsx/state/base-00000002.db.zst?partNumber=1&uploadId=u", strings.Repeat("p", 70), "")
	put("/b/copy/.rsx/state.db", strings.Repeat("d", 30), "")
	put("/b/copy/.rsx/lock", "lock", "")
	put("/b/copy/host/dataset1/res/000001.html", strings.Repeat("x", 50), "")
	put("/b/copy/host/dataset1/res/000002.html", strings.Repeat("c", 90), "40") // aws-chunked: 40 bytes of data
	resp, err := http.Get(front.URL + "/b/copy/.rsx/state/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	if got := c.StateBytes.Load(); got != 200 {
		t.Errorf("state bytes %d, want 200", got)
	}
	if got := c.StatePuts.Load(); got != 3 {
		t.Errorf("state PUTs %d, want 3", got)
	}
	if got := c.DataBytes.Load(); got != 90 {
		t.Errorf("data bytes %d, want 90", got)
	}
	if got := c.DataPuts.Load(); got != 2 {
		t.Errorf("data PUTs %d, want 2", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if received != 100+70+30+4+50+90 {
		t.Errorf("the server received %d bytes of bodies", received)
	}
	want := strings.TrimPrefix(front.URL, "http://")
	for _, h := range hosts {
		if h != want {
			t.Errorf("the server saw Host %q, want the proxy's %q as the client sent it", h, want)
		}
	}

	resp, err = http.Get(front.URL + countsPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got map[string]int64
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got["state_bytes"] != 200 || got["state_puts"] != 3 || got["data_bytes"] != 90 || got["data_puts"] != 2 {
		t.Errorf("GET %s: %v", countsPath, got)
	}
	if len(hosts) != 7 {
		t.Errorf("the server saw %d requests, want 7 (the counts are the proxy's own)", len(hosts))
	}
}
