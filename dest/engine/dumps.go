package engine

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"rsx/dest/plan"
	"rsx/display"
	"rsx/dump"
	"rsx/fetch"
	"rsx/model"
)

// pkgFile is a dump package downloaded into the destination's temporary
// folder, checked against its dump entry. It is opened when its bitstreams
// are read, and closed when none of them is left to read.
type pkgFile struct {
	url  string
	path string
	refs atomic.Int64

	mu  sync.Mutex
	pkg *dump.Package
	err error
}

// open opens the package (once) for reading bitstreams.
func (pk *pkgFile) open() (*dump.Package, error) {
	pk.mu.Lock()
	defer pk.mu.Unlock()
	if pk.pkg == nil && pk.err == nil {
		pk.pkg, pk.err = dump.OpenFile(pk.path, dump.Options{})
	}
	return pk.pkg, pk.err
}

// done says one of its bitstreams was dealt with; the last one closes it.
func (pk *pkgFile) done() {
	if pk.refs.Add(-1) > 0 {
		return
	}
	pk.mu.Lock()
	defer pk.mu.Unlock()
	if pk.pkg != nil {
		pk.pkg.Close()
		pk.pkg = nil
	}
}

// closePkg closes the package (its manifest is no longer held); open
// opens it again.
func (pk *pkgFile) closePkg() {
	pk.mu.Lock()
	defer pk.mu.Unlock()
	if pk.pkg != nil {
		pk.pkg.Close()
		pk.pkg = nil
	}
}

// remove closes the package and removes its file.
func (pk *pkgFile) remove() error {
	pk.mu.Lock()
	defer pk.mu.Unlock()
	if pk.pkg != nil {
		pk.pkg.Close()
		pk.pkg = nil
	}
	if err := os.Remove(pk.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove the package file %s: %w", pk.path, err)
	}
	return nil
}

// downloadPackage downloads a package into the temporary folder and checks
// its length and every digest against its dump entry. A package that
// differs is refused whole (dump.RefuseMismatched: the error wraps
// dump.ErrEntryMismatch) and its file removed. The engine downloads it
// itself, rather than through dump.FetchPackage, because it keeps the file
// for the run, while FetchPackage removes it when the package is closed.
func (s *Dest) downloadPackage(ctx context.Context, ref dump.PackageRef) (*pkgFile, error) {
	if ref.MD.LengthOK && ref.MD.Length > dump.DefaultMaxPackageBytes {
		return nil, &dump.PackageTooLargeError{URL: ref.URL, Limit: dump.DefaultMaxPackageBytes, Declared: ref.MD.Length}
	}
	f, err := os.CreateTemp(s.st.TempDir(), "rsx-package-*.zip")
	if err != nil {
		return nil, fmt.Errorf("download package %s: %w", ref.URL, err)
	}
	keep := false
	defer func() {
		f.Close()
		if !keep {
			os.Remove(f.Name())
		}
	}()
	v := model.NewVerifier(ref.MD.Hash)
	bw := bufio.NewWriterSize(io.MultiWriter(f, v), 256<<10)
	// A package that drips is stalled as a resource is (--stall-timeout).
	// And its whole fetch is bounded as a resource's (--resource-timeout).
	dl := fetch.DownloadOptions{MaxBytes: dump.DefaultMaxPackageBytes, IdleTimeout: s.opts.StallTimeout, StallBytes: stallBytes(s.opts.StallTimeout)}
	declared := int64(-1)
	if ref.MD.LengthOK {
		declared = ref.MD.Length
	}
	dl.Timeout = s.opts.resourceTimeout(declared, dl.MaxBytes)
	if _, err := s.client.DownloadWith(ctx, ref.URL, bw, dl); err != nil {
		var tl *fetch.TooLargeError
		var stall *fetch.IdleTimeoutError
		var total *fetch.DownloadTimeoutError
		switch {
		case errors.As(err, &tl):
			return nil, &dump.PackageTooLargeError{URL: ref.URL, Limit: dump.DefaultMaxPackageBytes}
		case errors.As(err, &stall):
			return nil, fmt.Errorf("download package %s: %w (--stall-timeout; a body must bring %s a second)", ref.URL, err, display.Size(StallRate))
		case errors.As(err, &total):
			return nil, fmt.Errorf("download package %s: %w (--resource-timeout)", ref.URL, err)
		}
		return nil, fmt.Errorf("download package %s: %w", ref.URL, err)
	}
	if err := bw.Flush(); err != nil {
		return nil, fmt.Errorf("download package %s: %w", ref.URL, err)
	}
	if err := dump.RefuseMismatched(ref, dump.EntryMismatches(ref, v.Bytes(), v.Results())); err != nil {
		return nil, err
	}
	keep = true
	return &pkgFile{url: ref.URL, path: f.Name()}, nil
}

// openDump reads a dump (or its index) and checks its capability.
func (s *Dest) openDump(ctx context.Context, url string, want model.Capability) (*dump.Dump, error) {
	d, err := dump.OpenDump(ctx, s.client, url, dump.Options{})
	if err != nil {
		return nil, err
	}
	if d.Capability != want {
		return nil, fmt.Errorf("%s is a %s, not a %s", url, d.Capability.Title(), want.Title())
	}
	return d, nil
}

// fetched is a package downloaded and opened, or why it could not be.
type fetched struct {
	pk  *pkgFile
	pkg *dump.Package
	err error
}

// fetchPackages downloads and opens the packages (ListConcurrency at once)
// and hands them over in order; skip says which need no download.
func (s *Dest) fetchPackages(ctx context.Context, refs []dump.PackageRef, skip func(int) bool, wantManifest model.Capability) []chan fetched {
	out := make([]chan fetched, len(refs))
	for i := range out {
		out[i] = make(chan fetched, 1)
	}
	sem := make(chan struct{}, s.opts.ListConcurrency)
	go func() {
		for i, ref := range refs {
			if skip != nil && skip(i) {
				out[i] <- fetched{}
				continue
			}
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				out[i] <- fetched{err: ctx.Err()}
				continue
			}
			go func() {
				defer func() { <-sem }()
				pk, err := s.downloadPackage(ctx, ref)
				if err != nil {
					out[i] <- fetched{err: err}
					return
				}
				pkg, err := pk.open()
				if err == nil && pkg.Capability() != wantManifest {
					err = fmt.Errorf("package %s holds a %s, not a %s", ref.URL, pkg.Capability().Title(), wantManifest.Title())
				}
				if err != nil {
					pk.remove()
					out[i] <- fetched{err: fmt.Errorf("open package %s: %w", ref.URL, err)}
					return
				}
				out[i] <- fetched{pk: pk, pkg: pkg}
			}()
		}
	}()
	return out
}

// readResourceDump reads a Resource Dump (or its index), downloads every
// package, checks each against its dump entry (a package that differs is
// refused whole), and hands every manifest entry to add, its bitstream
// noted in Entry.Ref. It returns the dump's at.
func (b *builder) readResourceDump(ctx context.Context, url string, add func(plan.Entry) error) (time.Time, error) {
	d, err := b.s.openDump(ctx, url, model.CapResourceDump)
	if err != nil {
		return time.Time{}, err
	}
	b.docs.Add(int64(len(d.Documents)))
	var at time.Time
	if len(d.Documents) > 0 {
		at = d.Documents[0].Header.MD.At.Time
	}
	b.p.pkgs = make([]*pkgFile, len(d.Packages))
	got := b.s.fetchPackages(ctx, d.Packages, nil, model.CapResourceDumpManifest)
	for i, ref := range d.Packages {
		var f fetched
		select {
		case f = <-got[i]:
		case <-ctx.Done():
			return time.Time{}, ctxErr(ctx, "read "+url)
		}
		if f.err != nil {
			if err := ctxErr(ctx, "read "+url); err != nil {
				return time.Time{}, err
			}
			kind := KindDocument
			if errors.Is(f.err, dump.ErrEntryMismatch) {
				kind = KindPackage
			}
			b.problem(ref.URL, kind, f.err)
			continue
		}
		b.docs.Add(1)
		b.p.pkgs[i] = f.pk
		if t := f.pkg.Manifest.MD.At.Time; at.IsZero() || (!t.IsZero() && t.Before(at)) {
			at = firstTime(at, t)
		}
		for j := range f.pkg.Manifest.Entries {
			e := &f.pkg.Manifest.Entries[j]
			b.entries.Add(1)
			if !e.HasLoc || e.Loc == "" {
				continue
			}
			pe := entryOf(e, resolveLoc(ref.URL, e.Loc))
			pe.Ref = makeRef(i, e.MD.Path)
			if err := add(pe); err != nil {
				f.pk.closePkg()
				return time.Time{}, err
			}
		}
		// The manifest is read: the run opens the package again.
		f.pk.closePkg()
	}
	return at, nil
}

// dropUnusedPackages removes the packages no item reads from.
func (b *builder) dropUnusedPackages() {
	for i, pk := range b.p.pkgs {
		if pk != nil && pk.refs.Load() == 0 {
			pk.remove()
			b.p.pkgs[i] = nil
		}
	}
}

// packageInterval is a Change Dump package's from and until: its dump
// entry's, else its manifest's.
func packageInterval(ref dump.PackageRef, pkg *dump.Package) (time.Time, time.Time) {
	from, until := ref.MD.From.Time, ref.MD.Until.Time
	if pkg != nil {
		if from.IsZero() {
			from = pkg.Manifest.MD.From.Time
		}
		if until.IsZero() {
			until = pkg.Manifest.MD.Until.Time
		}
	}
	return from, until
}
