package session

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"rsx/display"
	"rsx/dump"
	"rsx/fetch"
	"rsx/model"
)

// PackageLoad is one download of a dump package and everything that lives
// as long as it: a cancellable context, a directory of its own holding the
// temporary ZIP and, once downloaded, the opened package. Close cancels the
// work and removes the file, whenever it is called: ownership of the
// package passes from the download to the load under a lock, so that a load
// closed while its download finishes still removes the file (whoever comes
// second, the download ending or Close, removes it).
type PackageLoad struct {
	s      *Session
	ref    dump.PackageRef
	opts   dump.Options
	ctx    context.Context
	cancel context.CancelFunc

	mu     sync.Mutex
	dir    string // the load's own directory ("" until made)
	closed bool
	pkg    *dump.Package
	file   string // the temporary ZIP, once downloaded
}

// OpenPackage prepares the download of the package ref describes, its
// temporary file under opts.TempDir (or the session's Options.TempDir).
// Nothing is fetched until Download.
func (s *Session) OpenPackage(ref dump.PackageRef, opts dump.Options) *PackageLoad {
	ctx, cancel := context.WithCancel(context.Background())
	return &PackageLoad{s: s, ref: ref, opts: opts, ctx: ctx, cancel: cancel}
}

// PackageFetched is the end of a download: the package, or why there is
// none, and how its bytes compare with the dump entry.
type PackageFetched struct {
	Package    *dump.Package   // held by the load; nil on error
	Mismatches []dump.Mismatch // length and hashes that differ from the dump entry
	Bytes      int64           // bytes received
	Complete   bool            // the whole body arrived, so Mismatches is meaningful
	Err        error           // context.Canceled when the load was closed
	// Beside is the local file the package was read from instead of its
	// URL: found next to a local dump (packageBeside); "" when fetched.
	Beside string
}

// Download fetches the package into a temporary directory of the load's own
// and opens it, reporting the bytes received. A load closed meanwhile
// leaves nothing behind and reports context.Canceled.
func (l *PackageLoad) Download(progress func(done, total int64)) PackageFetched {
	var out PackageFetched
	ref, opts := l.ref, l.opts
	if ref.Dump != "" && !model.MayFollow(ref.Dump, ref.URL) {
		out.Err = fmt.Errorf("download package %s: %w", ref.URL, ErrLocalFile)
		return out
	}
	if opts.TempDir == "" {
		opts.TempDir = l.s.opts.TempDir
	}
	dir, err := os.MkdirTemp(opts.TempDir, "rsx-package-")
	if err != nil {
		out.Err = fmt.Errorf("download package %s: %w", ref.URL, err)
		return out
	}
	if !l.setDir(dir) {
		out.Err = context.Canceled
		return out
	}
	opts.TempDir = dir
	var got int64
	report := func(done, total int64) {
		got = done
		if progress != nil {
			progress(done, total)
		}
	}
	dl := &packageDownloader{s: l.s, beside: packageBeside(ref)}
	p, mism, err := dump.FetchPackage(l.ctx, dl, ref, opts, report)
	out.Mismatches, out.Bytes, out.Complete, out.Beside = mism, got, dl.complete, dl.beside
	if err != nil {
		if l.ctx.Err() != nil {
			err = context.Canceled
		}
		if errors.Is(err, errPackageTooLarge) {
			err = fmt.Errorf("download package %s: more than the limit of %s", ref.URL, display.Size(opts.MaxPackageBytes))
		}
		out.Err = err
		l.mu.Lock()
		_ = os.RemoveAll(dir) // FetchPackage removed its file; the directory goes too
		l.mu.Unlock()
		return out
	}
	if !l.adopt(p) {
		out.Err = context.Canceled
		return out
	}
	out.Package, out.Bytes = p, p.Size
	return out
}

// Close cancels the load's work and removes its temporary file and the
// directory it sits in. It may be called more than once, from any
// goroutine. It takes microseconds, so a program may call it on its way out.
func (l *PackageLoad) Close() {
	if l == nil {
		return
	}
	l.cancel()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if l.pkg != nil {
		_ = l.pkg.Close()
		l.pkg = nil
	}
	if l.dir != "" {
		_ = os.RemoveAll(l.dir)
	}
}

// Closed reports whether Close was called.
func (l *PackageLoad) Closed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closed
}

// Dir is the load's temporary directory, "" until the download made it.
func (l *PackageLoad) Dir() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.dir
}

// File is the temporary ZIP while the load is open, "" otherwise.
func (l *PackageLoad) File() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ""
	}
	return l.file
}

// Package is the opened package, nil before the download ends and after
// Close.
func (l *PackageLoad) Package() *dump.Package {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pkg
}

// adopt hands a downloaded package to the load; it reports false (and has
// closed the package) when the load was closed meanwhile.
func (l *PackageLoad) adopt(p *dump.Package) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		_ = p.Close()
		if l.dir != "" {
			_ = os.RemoveAll(l.dir)
		}
		return false
	}
	l.pkg = p
	if ents, err := os.ReadDir(l.dir); err == nil && len(ents) == 1 {
		l.file = filepath.Join(l.dir, ents[0].Name())
	}
	return true
}

// setDir records the temporary directory; it reports false (and has removed
// it) when the load was closed meanwhile.
func (l *PackageLoad) setDir(dir string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		_ = os.RemoveAll(dir)
		return false
	}
	l.dir = dir
	return true
}

// Verify verifies every bitstream of the downloaded package against its
// manifest, reporting the bytes read. It stops when ctx ends or the load is
// closed.
func (l *PackageLoad) Verify(ctx context.Context, progress func(done, total int64)) (*dump.Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(l.ctx, cancel)
	defer stop()
	p := l.Package()
	if p == nil {
		return nil, errors.New("verify the package: it is not open")
	}
	return p.Verify(ctx, progress)
}

// CompareContents fetches the manifest copy at url (a dump entry's contents
// link) and compares it with the manifest in the package: the differences,
// none when they agree.
func (l *PackageLoad) CompareContents(url string) ([]string, error) {
	p := l.Package()
	if p == nil {
		return nil, errors.New("compare the manifest copy: the package is not open")
	}
	from := l.ref.Dump
	if from == "" {
		from = l.ref.URL
	}
	if !model.MayFollow(from, url) {
		return nil, fmt.Errorf("fetch the manifest copy %s: %w", url, ErrLocalFile)
	}
	rc, _, err := l.s.OpenRaw(l.ctx, url)
	if err != nil {
		return nil, fmt.Errorf("fetch the manifest copy: %w", err)
	}
	defer rc.Close()
	maxBytes := l.opts.MaxManifestBytes
	if maxBytes <= 0 {
		maxBytes = dump.DefaultMaxManifestBytes
	}
	r := io.LimitReader(&countingReader{r: rc, ctx: l.ctx}, maxBytes+1)
	cp, err := model.ParseWith(r, model.DecoderOptions{MaxBytes: maxBytes})
	if err != nil {
		return nil, fmt.Errorf("read the manifest copy %s: %w", url, err)
	}
	return dump.CompareManifests(p.Manifest, cp), nil
}

// Manifest returns a reader of manifest.xml in the package file. It opens
// the file on the first Read, so that the reading happens where the caller
// reads; Close releases it.
func (l *PackageLoad) Manifest() io.ReadCloser { return &manifestReader{l: l} }

// manifestReader reads manifest.xml out of a load's package file.
type manifestReader struct {
	l    *PackageLoad
	f    *os.File
	rc   io.ReadCloser
	err  error
	open bool
}

func (m *manifestReader) Read(p []byte) (int, error) {
	if !m.open {
		m.open = true
		m.err = m.start()
	}
	if m.err != nil {
		return 0, m.err
	}
	return m.rc.Read(p)
}

func (m *manifestReader) start() error {
	path := m.l.File()
	if path == "" {
		return errors.New("the package is no longer open")
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	m.f = f
	st, err := f.Stat()
	if err != nil {
		return err
	}
	zr, err := zip.NewReader(f, st.Size())
	if zr == nil {
		return fmt.Errorf("read the package: %w", err)
	}
	for _, zf := range zr.File {
		if zf.Name == dump.ManifestName && zf.Mode().IsRegular() {
			rc, err := zf.Open()
			if err != nil {
				return fmt.Errorf("read %s: %w", dump.ManifestName, err)
			}
			m.rc = rc
			return nil
		}
	}
	return errors.New("no " + dump.ManifestName + " in the package")
}

// Close releases the file.
func (m *manifestReader) Close() error {
	if m.rc != nil {
		m.rc.Close()
	}
	if m.f != nil {
		m.f.Close()
	}
	return nil
}

// errPackageTooLarge stops a download past dump.Options.MaxPackageBytes.
var errPackageTooLarge = errors.New("the package is larger than the limit")

// packageDownloader downloads a package for dump.FetchPackage, enforcing
// the byte limit, and remembers whether the body arrived whole.
type packageDownloader struct {
	s        *Session
	beside   string // a local copy of the package to read instead, "" for none
	complete bool   // the last download ended without error
}

// DownloadWith implements dump.Downloader.
func (d *packageDownloader) DownloadWith(ctx context.Context, url string, w io.Writer, o fetch.DownloadOptions) (*fetch.Exchange, error) {
	if o.MaxBytes > 0 {
		w = &limitWriter{w: w, left: o.MaxBytes, err: errPackageTooLarge}
	}
	if d.beside != "" {
		url = d.beside
	}
	ex, err := d.s.download(ctx, url, w, o.Progress)
	d.complete = err == nil
	return ex, err
}
