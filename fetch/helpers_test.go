package fetch

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// testOptions are quick options for loopback tests: no disk cache unless a
// test sets CacheDir, short waits, no rate limit.
func testOptions() Options {
	return Options{
		Version:            "test",
		Timeout:            5 * time.Second,
		ConnectTimeout:     2 * time.Second,
		IdleTimeout:        2 * time.Second,
		Retries:            2,
		RetryWait:          10 * time.Millisecond,
		MaxRetryWait:       3 * time.Second,
		PerHostConcurrency: 4,
		NoCache:            true,
		Netrc:              "-",
	}
}

func newTestClient(t *testing.T, o Options) *Client {
	t.Helper()
	c, err := NewClient(o)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c
}

func newServer(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// getBody fetches and reads a whole body.
func getBody(t *testing.T, c *Client, url string) (*Response, string, error) {
	t.Helper()
	resp, err := c.Get(testContext(t), url)
	if resp == nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, rerr := io.ReadAll(resp.Body)
	if err == nil {
		err = rerr
	}
	return resp, string(b), err
}
