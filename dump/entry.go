package dump

import (
	"errors"
	"fmt"
	"strings"

	"rsx/display"
	"rsx/model"
)

// ErrEntryMismatch is wrapped by the error for a package whose bytes differ
// from what its dump entry declares (length, a hash).
//
// Such a package is refused whole: it is not opened, verified, extracted or
// synced. The dump entry is the Source's claim about the package; a package
// that breaks it is not the package the Source published, even when it
// agrees with its own manifest (a manifest travels inside the package, so it
// vouches for nothing), and it must not replace good local files.
var ErrEntryMismatch = errors.New("the package differs from what its dump entry declares")

// EntryMismatches compares a downloaded package, size bytes whose digests
// are given (model.Verifier.Results over the package's bytes, for the
// entry's declared hashes), with the length and hashes its dump entry
// declares. The mismatches have Path "" and Loc the package URL. A declared
// hash whose algorithm rsx cannot compute is not a mismatch.
func EntryMismatches(ref PackageRef, size int64, digests []model.HashResult) []Mismatch {
	var mism []Mismatch
	if ref.MD.LengthOK && size != ref.MD.Length {
		mism = append(mism, Mismatch{Loc: ref.URL, What: "length", Expected: fmt.Sprint(ref.MD.Length), Actual: fmt.Sprint(size)})
	}
	for _, r := range digests {
		if r.Supported && !r.Match {
			mism = append(mism, Mismatch{Loc: ref.URL, What: r.Alg, Expected: r.Expected, Actual: r.Actual})
		}
	}
	return mism
}

// RefuseMismatched is the rule for a package that differs from its dump
// entry, as every user of dump packages applies it (rsx dump, the
// explorer's package view, sync from dumps): nil when mism is empty, else an
// error wrapping ErrEntryMismatch that names what differs.
func RefuseMismatched(ref PackageRef, mism []Mismatch) error {
	if len(mism) == 0 {
		return nil
	}
	parts := make([]string, len(mism))
	for i, m := range mism {
		parts[i] = fmt.Sprintf("%s %s declared, %s downloaded", m.What, m.Expected, m.Actual)
	}
	return fmt.Errorf("package %s refused: %w (%s); nothing of it is used", ref.URL, ErrEntryMismatch, strings.Join(parts, "; "))
}

// PackageTooLargeError is a package larger than Options.MaxPackageBytes,
// declared so by its dump entry or found so while downloading.
type PackageTooLargeError struct {
	URL      string
	Limit    int64
	Declared int64 // the length the dump entry declares; 0 when the download found it
}

func (e *PackageTooLargeError) Error() string {
	if e.Declared > 0 {
		return fmt.Sprintf("package %s declares %s, more than the limit of %s (raise it with --max-package-bytes)",
			e.URL, display.Size(e.Declared), display.Size(e.Limit))
	}
	return fmt.Sprintf("package %s is larger than the limit of %s (raise it with --max-package-bytes)", e.URL, display.Size(e.Limit))
}
