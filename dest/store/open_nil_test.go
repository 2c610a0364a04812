package store

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// A bucket that cannot be opened gives a nil Store, not a nil *S3 in a
// non-nil Store: callers that close what Open returned on error (rsx log,
// rsx bag) panicked on it.
func TestOpenFailedBucketIsNilStore(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusForbidden)
	}))
	defer srv.Close()
	env := map[string]string{"AWS_ACCESS_KEY_ID": "id", "AWS_SECRET_ACCESS_KEY": "secret"}
	for _, getenv := range []func(string) string{
		func(k string) string { return env[k] }, // refused by the server
		func(string) string { return "" },       // no credentials
	} {
		st, err := Open(context.Background(), "s3://bucket/p?endpoint="+srv.URL+"&region=us-east-1", Options{ReadOnly: true, Getenv: getenv, CacheDir: t.TempDir()})
		if err == nil {
			t.Fatal("Open succeeded")
		}
		if st != nil {
			t.Errorf("Open returned %#v with its error %v: want a nil Store", st, err)
		}
	}
}
