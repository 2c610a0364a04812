package model

import (
	"errors"
	"io"
	"runtime/debug"
)

// A document held whole in memory — a mapped file, above all — is decoded in
// place: the parallel path's blocks are slices of it (decode_parallel.go, mem
// mode), so nothing is read or copied but the header and what the sequential
// Decoder reads after a block it does not accept. Reading the 50,000-entry
// list through read(2) cost the goroutine that also checks the entries a
// tenth of its time (the kernel's copy), in a process whose other goroutines
// wait for it.
//
// Memory that is a mapped file can fault: a file cut short while it is
// mapped raises SIGBUS on its lost pages. The goroutines that read such memory
// run with debug.SetPanicOnFault, and a fault becomes errMemFault, a read
// error, never a crash.

// errMemFault is the read error of a document in memory that faulted.
var errMemFault = errors.New("the document's memory could not be read (the file was cut short while it was read)")

// memSource reads a document held in memory. The parallel path takes its
// bytes in place; Read serves the sequential Decoder.
type memSource struct {
	b       []byte
	off     int
	release func(n int) // told that b[:n] will not be read again (see ValidateBytes); nil: not told
	chunk   int         // bytes per Read at most, 0: no bound (tests set it, for the parallel path to start early)
}

func (m *memSource) Read(p []byte) (n int, err error) {
	if m.off >= len(m.b) {
		return 0, io.EOF
	}
	if m.chunk > 0 && len(p) > m.chunk {
		p = p[:m.chunk]
	}
	defer func() {
		if r := recover(); r != nil {
			n, err = 0, faultError(r)
		}
	}()
	n = copy(p, m.b[m.off:])
	m.off += n
	return n, nil
}

// faultError returns errMemFault for a recovered memory fault (see
// debug.SetPanicOnFault) and panics again with anything else.
func faultError(r any) error {
	if e, ok := r.(interface{ Addr() uintptr }); ok {
		_ = e
		return errMemFault
	}
	panic(r)
}

// ValidateBytes is ValidateWith for a document held whole in memory, such as a
// mapped file: it is decoded in place, without copies. b must not be written
// until it returns. Should reading b fault (a mapped file cut short), the
// report's Err is a read error.
//
// release, when not nil, is told as the parallel path goes on that b[:n] will
// not be read again (n grows from call to call): the pages of a mapped file
// there can be given back, so that its pages do not all stay in the
// process's memory at once.
func ValidateBytes(b []byte, release func(n int), opts CheckOptions, dopts DecoderOptions) *Report {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	dopts.Reuse = true
	return validate(&memSource{b: b, release: release}, opts, dopts)
}
