package dump

import (
	"fmt"
	"io"
	"strconv"

	"rsx/model"
)

// BitstreamError is a bitstream that OpenBitstream cannot give: missing
// from the package, or refused (an unsafe path, a member that is not a
// regular file, beyond the size or ratio limits, ambiguous).
type BitstreamError struct {
	Path    string // the manifest path, as written
	Missing bool   // no member has that name
	Reason  string // why it is refused, when not Missing
}

func (e *BitstreamError) Error() string {
	if e.Missing {
		return "bitstream " + strconv.Quote(e.Path) + " is not in the package"
	}
	return "bitstream " + strconv.Quote(e.Path) + " refused: " + e.Reason
}

// OpenBitstream opens the member that holds the bitstream at a manifest
// path (an rs:md or rs:ln path attribute, as written), after the checks
// Verify and Extract make on it: a safe path, exactly one member of that
// name, a regular file, within the size and compression-ratio limits, a
// supported compression method. It returns the member's declared
// uncompressed size; reading past it fails. The caller verifies the bytes
// against the manifest entry (a sync writes them where the entry's loc
// maps, not under the member's name). The error is a *BitstreamError.
func (p *Package) OpenBitstream(manifestPath string) (io.ReadCloser, int64, error) {
	name, reason := model.PackageMember(manifestPath)
	if reason != "" {
		return nil, 0, &BitstreamError{Path: manifestPath, Reason: "path " + reason}
	}
	idx := p.byName[name]
	switch {
	case len(idx) == 0:
		return nil, 0, &BitstreamError{Path: manifestPath, Missing: true}
	case len(idx) > 1:
		return nil, 0, &BitstreamError{Path: manifestPath, Reason: fmt.Sprintf("the package has %d members named %q: which one is meant is ambiguous", len(idx), name)}
	}
	f := p.zr.File[idx[0]]
	if why := p.memberRefusal(f); why != "" {
		return nil, 0, &BitstreamError{Path: manifestPath, Reason: "member " + why}
	}
	rc, err := f.Open()
	if err != nil {
		return nil, 0, &BitstreamError{Path: manifestPath, Reason: "member cannot be read: " + err.Error()}
	}
	size := int64(f.UncompressedSize64)
	return &boundedMember{rc: rc, left: size, path: manifestPath}, size, nil
}

// boundedMember fails a member that holds more bytes than it declares
// (archive/zip checks this too; this does not depend on it).
type boundedMember struct {
	rc   io.ReadCloser
	left int64
	path string
}

func (b *boundedMember) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if int64(n) > b.left {
		n = int(b.left)
		b.left = 0
		return n, fmt.Errorf("bitstream %q holds more bytes than its member declares", b.path)
	}
	b.left -= int64(n)
	if err != nil && err != io.EOF {
		return n, fmt.Errorf("read bitstream %q: %w", b.path, err)
	}
	return n, err
}

func (b *boundedMember) Close() error { return b.rc.Close() }
