package dump

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"rsx/fetch"
	"rsx/model"
)

// ManifestName is the name of the manifest at the top level of every package.
const ManifestName = "manifest.xml"

// ErrNoManifest is returned (wrapped) by OpenPackage for a ZIP without a
// manifest.xml at its top level.
var ErrNoManifest = errors.New("no manifest.xml at the top level of the package")

// Member is one file of the ZIP package.
type Member struct {
	Name           string // as stored in the ZIP
	Size           int64  // declared uncompressed size
	CompressedSize int64
	Method         uint16 // zip.Store, zip.Deflate, …
	Modified       time.Time
	Mode           fs.FileMode // from the external attributes: symlinks and devices show here
}

// Package is an opened ZIP package: its manifest and its members.
type Package struct {
	Manifest *model.Document
	Members  []Member
	Size     int64 // bytes of the ZIP

	opts   Options
	zr     *zip.Reader
	byName map[string][]int // member name → indices in zr.File
	closer io.Closer        // the file behind the package, when this package owns it
	remove string           // a temporary file to remove on Close

	// streamed holds what was verified while the package downloaded
	// (stream.go), for the members whose records agree.
	streamed map[*zip.File]*streamed
}

// OpenPackage reads the ZIP directory and the manifest of a package. The
// manifest must be named manifest.xml, sit at the top level and be a Resource
// Dump Manifest or a Change Dump Manifest.
func OpenPackage(r io.ReaderAt, size int64, opts Options) (*Package, error) {
	opts = opts.withDefaults()
	zr, err := zip.NewReader(r, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		// ErrInsecurePath (GODEBUG zipinsecurepath=0) still gives a usable
		// reader; unsafe names are refused one by one below.
		return nil, fmt.Errorf("open package: not a readable ZIP file: %w", err)
	}
	if zr == nil {
		return nil, fmt.Errorf("open package: not a readable ZIP file: %w", err)
	}
	p := &Package{Size: size, opts: opts, zr: zr, byName: make(map[string][]int, len(zr.File))}
	p.Members = make([]Member, len(zr.File))
	for i, f := range zr.File {
		p.Members[i] = Member{
			Name: f.Name, Size: int64(min(f.UncompressedSize64, 1<<62)), CompressedSize: int64(min(f.CompressedSize64, 1<<62)),
			Method: f.Method, Modified: f.Modified, Mode: f.Mode(),
		}
		p.byName[f.Name] = append(p.byName[f.Name], i)
	}
	idx := p.byName[ManifestName]
	switch {
	case len(idx) == 0:
		for _, m := range p.Members {
			if strings.HasSuffix(m.Name, "/"+ManifestName) || strings.HasSuffix(m.Name, "\\"+ManifestName) {
				return nil, fmt.Errorf("open package: %w (found %q, which is not at the top level)", ErrNoManifest, m.Name)
			}
		}
		return nil, fmt.Errorf("open package: %w", ErrNoManifest)
	case len(idx) > 1:
		return nil, fmt.Errorf("open package: %d members are named %s", len(idx), ManifestName)
	}
	doc, err := p.readManifest(zr.File[idx[0]])
	if err != nil {
		return nil, fmt.Errorf("open package: %s: %w", ManifestName, err)
	}
	p.Manifest = doc
	return p, nil
}

func (p *Package) readManifest(f *zip.File) (*model.Document, error) {
	if !f.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%v)", f.Mode().Type())
	}
	if f.UncompressedSize64 > uint64(p.opts.MaxManifestBytes) {
		return nil, fmt.Errorf("declared size %d bytes is beyond the limit of %d", f.UncompressedSize64, p.opts.MaxManifestBytes)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	doc, err := parseDocument(io.LimitReader(rc, p.opts.MaxManifestBytes+1), p.opts.MaxManifestBytes)
	if err != nil {
		return nil, err
	}
	switch c := doc.MD.Capability; c {
	case model.CapResourceDumpManifest, model.CapChangeDumpManifest:
	case "":
		return nil, errors.New("no capability attribute (want resourcedump-manifest or changedump-manifest)")
	default:
		return nil, fmt.Errorf("capability %q, not resourcedump-manifest or changedump-manifest", c)
	}
	if doc.Root != model.RootURLSet {
		return nil, errors.New("root element is not <urlset>")
	}
	return doc, nil
}

// parseDocument reads a whole document, bounded to max bytes.
func parseDocument(r io.Reader, max int64) (*model.Document, error) {
	return model.ParseWith(r, model.DecoderOptions{MaxBytes: max})
}

// OpenFile opens a package from a local file; Close closes the file.
func OpenFile(path string, opts Options) (*Package, error) {
	o, err := fetch.Open(context.Background(), nil, path)
	if err != nil {
		return nil, err
	}
	f, ok := o.Body.(*os.File) // a regular file, as stored
	if !ok {
		o.Close()
		return nil, fmt.Errorf("open package %s: not a regular file, or compressed", path)
	}
	p, err := OpenPackage(f, o.Size, opts)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p.closer = f
	return p, nil
}

// Close releases the file behind a package opened by OpenFile or
// FetchPackage (removing a downloaded temporary file). It does nothing for a
// package from OpenPackage.
func (p *Package) Close() error {
	var err error
	if p.closer != nil {
		err = p.closer.Close()
		p.closer = nil
	}
	if p.remove != "" {
		if rerr := os.Remove(p.remove); rerr != nil && err == nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = rerr
		}
		p.remove = ""
	}
	return err
}

// Capability is the manifest's capability: resourcedump-manifest or
// changedump-manifest.
func (p *Package) Capability() model.Capability { return p.Manifest.MD.Capability }
