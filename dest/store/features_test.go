package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A Store says what it is and what it can do: a folder keeps modification
// times, has its files on this machine and removes what Open made for a run
// that did not start; a bucket uploads its state; either opened read-only
// says so.
func TestFeaturesOfAFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "copy")
	st, err := Open(context.Background(), dir, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	f := st.Features()
	if f.Bucket || f.ReadOnly || !f.ModTimes || f.Local != dir || f.Discard == nil || f.StateUploaded != nil {
		t.Errorf("a folder's features: %+v", f)
	}
	if err := f.Discard(); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Discard left %s: %v", dir, err)
	}
	ro, err := Open(context.Background(), t.TempDir(), Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if f := ro.Features(); !f.ReadOnly || f.Bucket {
		t.Errorf("a read-only folder's features: %+v", f)
	}
	if !IsBucket("s3://b/p") || IsBucket("/tmp/s3:/x") || IsBucket("b/s3://") {
		t.Error("IsBucket")
	}
}

func TestFeaturesOfABucket(t *testing.T) {
	g := startGateway(t, "copy")
	s := openS3(t, g, "copy/p", Options{})
	defer s.Close()
	f := s.Features()
	if !f.Bucket || f.ReadOnly || f.ModTimes || f.Local != "" || f.Discard != nil || f.StateUploaded == nil {
		t.Errorf("a bucket's features: %+v", f)
	}
	ro := openS3(t, g, "copy/p", Options{ReadOnly: true})
	defer ro.Close()
	if f := ro.Features(); !f.ReadOnly || !f.Bucket {
		t.Errorf("a read-only bucket's features: %+v", f)
	}
}

// A write to the destination that fails is a *WriteError, through any
// wrapping (the fetch layer's), and names the file.
func TestAWriteThatFailsIsAWriteError(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, t.TempDir(), Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	w, err := st.Create(ctx, "h/a", Meta{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	_, err = w.Write([]byte("late"))
	var we *WriteError
	if !errors.As(err, &we) || we.Path != "h/a" || !errors.Is(err, errWriteDone) {
		t.Errorf("a write after Abort: %v", err)
	}
	if wrapped := errors.Join(errors.New("download http://h/a"), err); !errors.As(wrapped, &we) {
		t.Errorf("through a wrapping: %v", wrapped)
	}
}
