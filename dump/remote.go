package dump

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"rsx/fetch"
	"rsx/model"
)

// Dump is a Resource Dump or a Change Dump — or an index of them, whose parts
// have been read — with the packages it lists, in document order.
type Dump struct {
	URL        string
	Capability model.Capability // resourcedump or changedump
	Documents  []Document       // the documents read: the dump, or the index then its parts
	Packages   []PackageRef
}

// Document is one dump document read by OpenDump.
type Document struct {
	URL    string // final URL, after redirects
	Index  bool   // a <sitemapindex>
	Header model.Header
}

// PackageRef is a package as a dump entry describes it.
type PackageRef struct {
	URL      string         // the entry's loc, resolved against the dump's URL
	Dump     string         // URL of the document that lists it
	MD       model.Metadata // the entry's rs:md: type, length, hash, at/completed or from/until
	Contents string         // the resolved href of its contents link (a manifest copy), "" when none

	// For a local dump: why the package's location (or its contents
	// link's) is refused (a *LocationError), nil when it is not.
	refused, contentsRefused error
}

const maxDumpDocuments = 1000 // documents OpenDump reads below one index

// OpenDump reads the Resource Dump or Change Dump at rawURL and lists its
// packages; for an index it reads every part (indexes of indexes too, up to a
// few levels, each document once).
func OpenDump(ctx context.Context, g fetch.Getter, rawURL string, opts Options) (*Dump, error) {
	opts = opts.withDefaults()
	doc, final, err := getDocument(ctx, g, rawURL, opts.MaxManifestBytes)
	if err != nil {
		return nil, err
	}
	return openDumpDocument(ctx, g, doc, final, opts, nil)
}

// openDumpDocument lists the packages of doc, read from base; local is the
// folder of a dump read from a file (nil for a URL), which its relative
// locations are resolved in, and never out of.
func openDumpDocument(ctx context.Context, g fetch.Getter, doc *model.Document, base string, opts Options, local *folder) (*Dump, error) {
	resolve := func(base, loc string) (string, error) { return model.ResolveHref(base, loc), nil }
	if local != nil {
		resolve = local.resolve
	}
	c := doc.MD.Capability
	switch c {
	case model.CapResourceDump, model.CapChangeDump:
	case model.CapResourceDumpManifest, model.CapChangeDumpManifest:
		return nil, fmt.Errorf("%s is a %s, not a dump: give the URL of the dump or of a package", base, c.Title())
	case "":
		return nil, fmt.Errorf("%s is not a ResourceSync dump (no capability)", base)
	default:
		return nil, fmt.Errorf("%s is a %s, not a Resource Dump or Change Dump", base, model.DocumentTitle(c, doc.Root))
	}
	d := &Dump{URL: base, Capability: c}
	seen := map[string]bool{base: true}
	var walk func(doc *model.Document, base string, depth int) error
	walk = func(doc *model.Document, base string, depth int) error {
		d.Documents = append(d.Documents, Document{URL: base, Index: doc.Root == model.RootSitemapIndex, Header: doc.Header})
		if doc.Root != model.RootSitemapIndex {
			for i := range doc.Entries {
				e := &doc.Entries[i]
				ref := PackageRef{Dump: base, MD: e.MD}
				if ref.URL, ref.refused = resolve(base, e.Loc); ref.refused != nil {
					ref.URL = e.Loc
				}
				for _, l := range e.Links {
					if model.HasRel(l.Rel, "contents") && l.Href != "" {
						if ref.Contents, ref.contentsRefused = resolve(base, l.Href); ref.contentsRefused != nil {
							ref.Contents = l.Href
						}
						break
					}
				}
				d.Packages = append(d.Packages, ref)
			}
			return nil
		}
		if depth >= 3 {
			return fmt.Errorf("%s: indexes nested too deep", base)
		}
		for i := range doc.Entries {
			u, err := resolve(base, doc.Entries[i].Loc)
			if err != nil {
				return fmt.Errorf("a part of the index %s: %w", base, err)
			}
			if seen[u] {
				continue
			}
			seen[u] = true
			if len(seen) > maxDumpDocuments {
				return fmt.Errorf("%s: more than %d documents below the index", d.URL, maxDumpDocuments)
			}
			child, final, err := getDocument(ctx, g, u, opts.MaxManifestBytes)
			if err != nil {
				return err
			}
			if child.MD.Capability != c {
				return fmt.Errorf("%s, listed in the %s index %s, has capability %q", final, c, base, child.MD.Capability)
			}
			if err := walk(child, final, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(doc, base, 0); err != nil {
		return nil, err
	}
	return d, nil
}

// getDocument fetches and parses a document, bounded to max bytes.
func getDocument(ctx context.Context, g fetch.Getter, rawURL string, max int64) (*model.Document, string, error) {
	resp, err := g.Get(ctx, rawURL)
	if err != nil {
		if resp != nil && resp.Body != nil {
			resp.Body.Close()
		}
		return nil, "", fmt.Errorf("fetch %s: %w", rawURL, err)
	}
	defer resp.Body.Close()
	final := rawURL
	if resp.URL != "" {
		final = resp.URL
	}
	doc, err := parseDocument(io.LimitReader(resp.Body, max+1), max)
	if err != nil {
		return nil, final, fmt.Errorf("read %s: %w", final, err)
	}
	return doc, final, nil
}

// FetchPackage downloads the package ref describes into a temporary file
// (bounded by Options.MaxPackageBytes: a larger one is a
// *PackageTooLargeError), checks it against the entry's length and hashes,
// and opens it; Close removes the file. A package that differs from its
// entry is refused (RefuseMismatched): it is not opened, its file is
// removed, and the error wraps ErrEntryMismatch. The mismatches (Path "",
// Loc the package URL) come back with it.
func FetchPackage(ctx context.Context, d fetch.Downloader, ref PackageRef, opts Options, progress func(done, total int64)) (*Package, []Mismatch, error) {
	opts = opts.withDefaults()
	if ref.MD.LengthOK && ref.MD.Length > opts.MaxPackageBytes {
		return nil, nil, &PackageTooLargeError{URL: ref.URL, Limit: opts.MaxPackageBytes, Declared: ref.MD.Length}
	}
	f, err := os.CreateTemp(opts.TempDir, "rsx-package-*.zip")
	if err != nil {
		return nil, nil, fmt.Errorf("download package %s: %w", ref.URL, err)
	}
	keep := false
	defer func() {
		if !keep {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	// One pass: the package's own digests (each algorithm on a goroutine of
	// its own) and its members' (streamVerifier) as it downloads.
	v := model.NewParallelVerifier(ref.MD.Hash)
	defer v.Close()
	sv := newStreamVerifier(opts)
	bw := bufio.NewWriterSize(io.MultiWriter(f, v, sv), 256<<10)
	_, err = d.DownloadWith(ctx, ref.URL, bw, fetch.DownloadOptions{Progress: progress, MaxBytes: opts.MaxPackageBytes})
	if err == nil {
		if err = bw.Flush(); err != nil {
			err = fmt.Errorf("download package %s: %w", ref.URL, err)
		}
	} else if tl := (*fetch.TooLargeError)(nil); errors.As(err, &tl) {
		err = &PackageTooLargeError{URL: ref.URL, Limit: opts.MaxPackageBytes}
	} else {
		err = fmt.Errorf("download package: %w", err)
	}
	sv.finish(err)
	if err != nil {
		return nil, nil, err
	}
	size := v.Bytes()
	mism := EntryMismatches(ref, size, v.Results())
	if err := RefuseMismatched(ref, mism); err != nil {
		return nil, mism, err
	}
	p, err := OpenPackage(f, size, opts)
	if err != nil {
		return nil, mism, fmt.Errorf("%s: %w", ref.URL, err)
	}
	sv.match(p)
	keep = true
	p.closer, p.remove = f, f.Name()
	return p, mism, nil
}

// isZip reports whether b starts like a ZIP file.
func isZip(b []byte) bool {
	return bytes.HasPrefix(b, []byte("PK\x03\x04")) || bytes.HasPrefix(b, []byte("PK\x05\x06"))
}
