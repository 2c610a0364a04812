package cli

import (
	"os"

	"rsx/fetch"
)

// A local file that is not gzip-compressed is validated mapped into memory
// (model.ValidateBytes): the decoder cuts its blocks out of the page cache
// in place, where reading it cost a copy of every byte, on the goroutine that
// also checks the entries (issue 38; BENCHMARKS.md). The file is read as
// before when it cannot be mapped, and when it is larger than the local
// document limit (--max-bytes), so that the limit's error is the reader's.

// mappedDoc is a local file mapped into memory, or nothing.
type mappedDoc struct {
	b        []byte
	unmap    func()
	released int // b[:released] was given back (release)
}

// releaseStep is how much of a mapped document is given back at once: the
// pages the decoder is done with leave the process's memory (its peak RSS
// would otherwise grow by the whole file), in few calls, as each one
// interrupts the other cores running the process to flush their TLBs.
const releaseStep = 1 << 20

// mapLocal maps o's file when o is a plain local regular file of at most
// limit bytes (limit < 0: no bound); call it before o.Body is wrapped. The
// result's close unmaps it (a nil *mappedDoc does nothing).
func mapLocal(o *fetch.Opened, limit int64) *mappedDoc {
	f, ok := o.Body.(*os.File)
	if !ok || !o.Local || o.Decompressing || o.Size <= 0 || (limit >= 0 && o.Size > limit) {
		return nil
	}
	b, unmap, ok := mapFile(f, o.Size)
	if !ok {
		return nil
	}
	return &mappedDoc{b: b, unmap: unmap}
}

// release gives back the whole pages of b[:n] not given back yet, once
// there are releaseStep bytes of them (model.ValidateBytes calls it).
func (m *mappedDoc) release(n int) {
	end := n &^ (os.Getpagesize() - 1)
	if end-m.released < releaseStep {
		return
	}
	dropPages(m.b[m.released:end])
	m.released = end
}

func (m *mappedDoc) close() {
	if m != nil {
		m.unmap()
	}
}
