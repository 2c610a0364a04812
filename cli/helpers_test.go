package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"rsx/demo"
)

// startDemo starts a demo Source for the length of the test.
func startDemo(t *testing.T, broken bool) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	srv, err := demo.Start(ctx, "127.0.0.1:0", demo.Options{Resources: 600, Broken: broken})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv.URL
}

// decodeOneJSON decodes stdout as one JSON document of the command named
// what, and fails when there is anything else on it.
func decodeOneJSON[T any](t *testing.T, stdout, what string) T {
	t.Helper()
	var v T
	dec := json.NewDecoder(strings.NewReader(stdout))
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("stdout is not the %s JSON: %v\n%s", what, err, stdout)
	}
	if dec.More() {
		t.Fatalf("more than one JSON value on stdout:\n%s", stdout)
	}
	return v
}
