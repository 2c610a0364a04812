// Package dump opens ResourceSync Resource Dumps, Change Dumps and their ZIP packages: it reads a package's manifest, verifies its bitstreams and extracts them safely.
//
// A package comes from an untrusted Source. Every name in it (the manifest's
// path attributes and the ZIP's member names) is checked before anything is
// read or written: absolute paths, ".." segments, backslashes, NUL and control
// characters (C0, DEL and C1), bidirectional overrides and isolates, bytes
// that are not UTF-8, drive letters, symlinks, device files and names in
// unclean form are refused, never followed nor encoded. Sizes are bounded (Options): the declared
// uncompressed size of a member, its compression ratio, the bytes written by
// one extraction, the number of members, the size of the manifest and of a
// downloaded package. A member is streamed through its digests while it is
// written to a temporary file beside its destination, and renamed into place
// only when its length and every declared hash matched, so a bad member never
// replaces a good file.
package dump

// Options bound the work spent on one package. The zero value gives the defaults.
type Options struct {
	// MaxPackageBytes is the largest package downloaded (default 4 GiB).
	MaxPackageBytes int64
	// MaxManifestBytes bounds manifest.xml, a contents copy and a dump
	// document (default 64 MiB; the specification's limit is 50 MB).
	MaxManifestBytes int64
	// MaxMembers is the most members a package may have (default 100,000).
	MaxMembers int
	// MaxMemberBytes is the largest declared uncompressed size of one member
	// (default 4 GiB).
	MaxMemberBytes int64
	// MaxTotalBytes bounds the uncompressed bytes one Extract writes
	// (default 64 GiB).
	MaxTotalBytes int64
	// MaxRatio is the highest compression ratio accepted for a member larger
	// than 1 MiB (default 1000: deflate cannot do much better than 1032:1, so
	// anything beyond is a crafted bomb).
	MaxRatio int64
	// TempDir holds downloaded packages while they are open ("" = os.TempDir()).
	TempDir string
}

// Defaults of Options.
const (
	DefaultMaxPackageBytes  = 4 << 30
	DefaultMaxManifestBytes = 64 << 20
	DefaultMaxMembers       = 100000
	DefaultMaxMemberBytes   = 4 << 30
	DefaultMaxTotalBytes    = 64 << 30
	DefaultMaxRatio         = 1000

	ratioFloor = 1 << 20 // members up to this size are not judged by their ratio
)

func (o Options) withDefaults() Options {
	if o.MaxPackageBytes <= 0 {
		o.MaxPackageBytes = DefaultMaxPackageBytes
	}
	if o.MaxManifestBytes <= 0 {
		o.MaxManifestBytes = DefaultMaxManifestBytes
	}
	if o.MaxMembers <= 0 {
		o.MaxMembers = DefaultMaxMembers
	}
	if o.MaxMemberBytes <= 0 {
		o.MaxMemberBytes = DefaultMaxMemberBytes
	}
	if o.MaxTotalBytes <= 0 {
		o.MaxTotalBytes = DefaultMaxTotalBytes
	}
	if o.MaxRatio <= 0 {
		o.MaxRatio = DefaultMaxRatio
	}
	return o
}
