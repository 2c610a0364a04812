package store_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"rsx/dest/pathmap"
	"rsx/dest/state"
	"rsx/dest/store"
	"rsx/model"
)

// Example shows the path of one resource through the destination packages:
// mapped to a path, claimed, written while verified, committed, recorded.
func Example() {
	ctx := context.Background()
	dest, _ := os.MkdirTemp("", "rsx-example-")
	defer os.RemoveAll(dest)

	st, err := store.Open(ctx, dest, store.Options{Create: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	lock, err := st.Lock(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer lock.Release()
	dbPath, _ := st.StatePath(ctx)
	db, err := state.Open(ctx, dbPath)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	src, _ := db.EnsureSource(ctx, "http://example.org/dataset1/capabilitylist.xml")
	detector := db.NewDetector(st.CaseInsensitive())
	w := db.NewWriter(state.WriterOptions{Detector: detector, BeforeCommit: st.Sync,
		AfterCommit: func(ctx context.Context) error {
			return db.Snapshot(ctx, func(p string) error { return st.PublishState(ctx, p) })
		}})

	mapper, _ := pathmap.New(pathmap.Options{Authorities: []string{src.URL}})
	uri, body := "http://example.org/dataset1/res/1.html", "<p>one</p>\n"
	declared, _ := model.ParseHashList("md5:8e0a5c9e3e5a6bcb9d9b2e8e5a0a6f2c")
	path, _ := mapper.Map(uri)
	if err := detector.Claim(ctx, src.ID, uri, path); err != nil {
		fmt.Println(err)
		return
	}
	out, _ := st.Create(ctx, path, store.Meta{ContentType: "text/html"})
	verifier := model.NewVerifier(declared)
	io.Copy(io.MultiWriter(out, verifier), strings.NewReader(body))
	if !verifier.OK() {
		kept, _ := out.Reject(ctx)
		detector.Release(path)
		fmt.Println("rejected, kept at", strings.TrimPrefix(kept, st.String()))
	}
	// A resource that verifies is committed and recorded.
	uri, body = "http://example.org/dataset1/res/2.html", "<p>two</p>\n"
	path, _ = mapper.Map(uri)
	detector.Claim(ctx, src.ID, uri, path)
	out, _ = st.Create(ctx, path, store.Meta{ContentType: "text/html"})
	io.WriteString(out, body)
	if err := out.Commit(ctx); err != nil {
		fmt.Println(err)
		return
	}
	r := state.Resource{SourceID: src.ID, URI: uri, Path: path, Length: int64(len(body)), FetchedAt: time.Now()}
	if err := w.PutResource(ctx, &r); err != nil {
		fmt.Println(err)
		return
	}
	if err := w.Close(ctx); err != nil {
		fmt.Println(err)
		return
	}
	b, _ := os.ReadFile(filepath.Join(dest, filepath.FromSlash(path)))
	fmt.Printf("%s holds %q\n", path, b)
	// Output:
	// rejected, kept at /.rsx/rejected/example.org/dataset1/res/1.html
	// example.org/dataset1/res/2.html holds "<p>two</p>\n"
}
