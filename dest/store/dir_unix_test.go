//go:build unix

package store

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A named pipe or a folder where a copy should be is refused at once: an
// audit that opened a pipe would wait in open(2) for a writer for ever.
func TestDirOpenRefusesWhatIsNotAFile(t *testing.T) {
	d, dir := openDir(t)
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	write(t, d, "folder/x", "x")
	for _, p := range []string{"pipe", "folder"} {
		done := make(chan error, 1)
		go func() {
			r, err := d.Open(context.Background(), p)
			if err == nil {
				r.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("Open(%s): opened, want an error", p)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("Open(%s) hangs", p)
		}
	}
	if got := read(t, d, "folder/x"); got != "x" {
		t.Errorf("a regular file reads %q", got)
	}
}
