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
	b     []byte
	unmap func()
}

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

func (m *mappedDoc) close() {
	if m != nil {
		m.unmap()
	}
}
