package ui

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"

	"rsx/dump"
	"rsx/fetch"
	"rsx/model"
)

// The I/O of the package view: downloading a dump package into a temporary
// file, verifying its bitstreams, fetching its manifest copy and reading its
// manifest.xml for the raw view. Each function returns a tea.Cmd (or runs
// inside one); Update only reads the messages.

// packageLoad is one download of a package and everything that lives as long
// as it: the cancellable context, the directory holding the temporary file
// and, once downloaded, the opened package. Ownership of the package passes
// from the download's goroutine to the load under mu, so that a load closed
// while its download finishes still removes the file: whoever comes second
// (the download ending, or close) removes it.
type packageLoad struct {
	ctx    context.Context
	cancel context.CancelFunc
	dir    string // a directory of our own for the temporary file ("" until made)

	mu     sync.Mutex
	closed bool
	pkg    *dump.Package
	file   string // the temporary ZIP, once downloaded
}

// newPackageLoad returns a load with a fresh context.
func newPackageLoad() *packageLoad {
	ctx, cancel := context.WithCancel(context.Background())
	return &packageLoad{ctx: ctx, cancel: cancel}
}

// close cancels the load's work and removes its temporary file (and the
// directory it sits in). It may be called more than once.
//
// It is called from Update (esc, r, leaving the page, quitting) and removes
// the file there and then rather than in a tea.Cmd: a Cmd returned with
// tea.Quit may never run, and the file must not outlive the program. The
// removal of one file and one directory costs microseconds.
func (l *packageLoad) close() {
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

// adopt hands a downloaded package to the load; it reports false (and has
// closed the package) when the load was closed meanwhile.
func (l *packageLoad) adopt(p *dump.Package) bool {
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
func (l *packageLoad) setDir(dir string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		_ = os.RemoveAll(dir)
		return false
	}
	l.dir = dir
	return true
}

// packageFile is the temporary ZIP while the load is open, "" otherwise.
func (l *packageLoad) packageFile() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ""
	}
	return l.file
}

// packageRun is one verification of a loaded package: esc cancels it
// without closing the package, and r starts another.
type packageRun struct {
	ctx    context.Context
	cancel context.CancelFunc
}

// packageProgressMsg reports the bytes of a download or of a verification;
// next waits for the following report.
type packageProgressMsg struct {
	load        *packageLoad
	run         *packageRun // the verification reporting, nil for the download
	done, total int64
	next        tea.Cmd
}

// packageFetchedMsg ends a download: the package (held by the load) or why
// there is none, and how the bytes compare with the dump entry.
type packageFetchedMsg struct {
	load     *packageLoad
	pkg      *dump.Package
	mism     []dump.Mismatch
	bytes    int64 // bytes received
	complete bool  // the whole body arrived (mism is meaningful)
	err      error
}

// packageVerifiedMsg ends a verification.
type packageVerifiedMsg struct {
	load *packageLoad
	run  *packageRun
	res  *dump.Result
	err  error
}

// packageContentsMsg carries the comparison with the manifest copy.
type packageContentsMsg struct {
	load  *packageLoad
	diffs []string
	err   error
}

// progressRelay delivers the latest progress report to the UI: a report
// the UI has not taken yet is replaced by a newer one.
type progressRelay struct {
	ch chan packageProgressMsg
}

func newProgressRelay() progressRelay { return progressRelay{ch: make(chan packageProgressMsg, 1)} }

func (r progressRelay) report(m packageProgressMsg) {
	for range 2 {
		select {
		case r.ch <- m:
			return
		default:
			select {
			case <-r.ch:
			default:
			}
		}
	}
}

// waitPackage waits for the next progress report or the end, whichever comes
// first. The work always ends with a message (cancelled work too), so the
// waiting ends with it.
func waitPackage(relay progressRelay, done <-chan tea.Msg) tea.Cmd {
	var wait tea.Cmd
	wait = func() tea.Msg {
		select {
		case m := <-done:
			return m
		case p := <-relay.ch:
			p.next = wait
			return p
		}
	}
	return wait
}

// backendDownloader downloads through a Backend for dump.FetchPackage,
// enforcing the byte limit the Backend does not know about.
type backendDownloader struct {
	b        Backend
	complete bool // the last download ended without error
}

// errPackageTooLarge stops a download past dump.Options.MaxPackageBytes.
var errPackageTooLarge = errors.New("the package is larger than the limit")

// DownloadWith implements dump.Downloader.
func (d *backendDownloader) DownloadWith(ctx context.Context, url string, w io.Writer, o fetch.DownloadOptions) (*fetch.Exchange, error) {
	if o.MaxBytes > 0 {
		w = &limitWriter{w: w, left: o.MaxBytes}
	}
	ex, err := d.b.Download(ctx, url, w, o.Progress)
	d.complete = err == nil
	return ex, err
}

// limitWriter fails once more than left bytes are written.
type limitWriter struct {
	w    io.Writer
	left int64
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > l.left {
		return 0, errPackageTooLarge
	}
	l.left -= int64(len(p))
	return l.w.Write(p)
}

// fetchPackageCmd downloads ref into a temporary directory of the load's own
// and opens it. A cancelled or closed load leaves nothing behind.
func fetchPackageCmd(l *packageLoad, b Backend, ref dump.PackageRef, opts dump.Options) tea.Cmd {
	relay := newProgressRelay()
	done := make(chan tea.Msg, 1)
	run := func() tea.Msg {
		go func() {
			done <- downloadPackage(l, b, ref, opts, relay)
		}()
		return nil
	}
	return tea.Batch(run, waitPackage(relay, done))
}

func downloadPackage(l *packageLoad, b Backend, ref dump.PackageRef, opts dump.Options, relay progressRelay) packageFetchedMsg {
	msg := packageFetchedMsg{load: l}
	if b == nil {
		msg.err = errNoBackend
		return msg
	}
	dir, err := os.MkdirTemp(opts.TempDir, "rsx-package-")
	if err != nil {
		msg.err = fmt.Errorf("download package %s: %w", ref.URL, err)
		return msg
	}
	if !l.setDir(dir) {
		msg.err = context.Canceled
		return msg
	}
	opts.TempDir = dir
	var got int64
	progress := func(done, total int64) {
		got = done
		relay.report(packageProgressMsg{load: l, done: done, total: total})
	}
	dl := &backendDownloader{b: b}
	p, mism, err := dump.FetchPackage(l.ctx, dl, ref, opts, progress)
	msg.mism, msg.bytes, msg.complete = mism, got, dl.complete
	if err != nil {
		if l.ctx.Err() != nil {
			err = context.Canceled
		}
		if errors.Is(err, errPackageTooLarge) {
			err = fmt.Errorf("download package %s: more than the limit of %s", ref.URL, fetch.FormatSize(opts.MaxPackageBytes))
		}
		msg.err = err
		l.mu.Lock()
		_ = os.RemoveAll(dir) // FetchPackage removed its file; the directory goes too
		l.mu.Unlock()
		return msg
	}
	if !l.adopt(p) {
		msg.err = context.Canceled
		return msg
	}
	msg.pkg = p
	msg.bytes = p.Size
	return msg
}

// verifyPackageCmd verifies every bitstream of p, reporting progress.
func verifyPackageCmd(l *packageLoad, r *packageRun, p *dump.Package) tea.Cmd {
	relay := newProgressRelay()
	done := make(chan tea.Msg, 1)
	run := func() tea.Msg {
		go func() {
			res, err := p.Verify(r.ctx, func(n, total int64) {
				relay.report(packageProgressMsg{load: l, run: r, done: n, total: total})
			})
			done <- packageVerifiedMsg{load: l, run: r, res: res, err: err}
		}()
		return nil
	}
	return tea.Batch(run, waitPackage(relay, done))
}

// contentsCmd fetches the manifest copy a dump entry's contents link points
// at and compares it with the manifest in the package.
func contentsCmd(l *packageLoad, b Backend, url string, inPackage *model.Document, maxBytes int64) tea.Cmd {
	return func() tea.Msg {
		if b == nil {
			return packageContentsMsg{load: l, err: errNoBackend}
		}
		rc, _, err := b.OpenRaw(l.ctx, url)
		if err != nil {
			return packageContentsMsg{load: l, err: fmt.Errorf("fetch the manifest copy: %w", err)}
		}
		defer rc.Close()
		cp, err := readManifestCopy(&countingReader{r: rc, ctx: l.ctx}, maxBytes)
		if err != nil {
			return packageContentsMsg{load: l, err: fmt.Errorf("read the manifest copy %s: %w", url, err)}
		}
		return packageContentsMsg{load: l, diffs: dump.CompareManifests(inPackage, cp)}
	}
}

// readManifestCopy parses a whole document of at most maxBytes.
func readManifestCopy(r io.Reader, maxBytes int64) (*model.Document, error) {
	return model.ParseWith(io.LimitReader(r, maxBytes+1), model.DecoderOptions{MaxBytes: maxBytes})
}

// manifestReader reads manifest.xml out of a load's package file; it opens
// the file on the first Read, which the raw view makes inside a Cmd.
type manifestReader struct {
	l    *packageLoad
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
	path := m.l.packageFile()
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

// packageURLAllowed tells whether a package URL found in the document at
// base may be downloaded: a document from the network may name only http(s)
// packages, never a local file; a local document may name either.
func packageURLAllowed(base, pkg string) bool {
	if isLocal(base) {
		return true
	}
	return fetchable(pkg)
}

// looksLikePackage tells whether a target typed at the prompt names a ZIP
// package rather than a document.
func looksLikePackage(target string) bool {
	t := strings.ToLower(strings.TrimSpace(target))
	if i := strings.IndexAny(t, "?#"); i >= 0 && !isLocal(target) {
		t = t[:i]
	}
	return strings.HasSuffix(t, ".zip")
}
