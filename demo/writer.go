package demo

import (
	"io"

	"rsx/model"
)

// entryWriter is what documents are written with: a *model.Writer, or a
// failedWriter when the header could not be written.
type entryWriter interface {
	WriteEntry(e *model.Entry) error
	Close() error
}

// newWriter starts a document with the model's Writer. (A specialised writer
// was measured: it was no faster, because hashing the resources, not writing
// XML, is where serving a Resource List spends its time.)
func (s *Source) newWriter(w io.Writer, h *model.Header) entryWriter {
	mw, err := model.NewWriter(w, h)
	if err != nil {
		return failedWriter{err}
	}
	return mw
}

// failedWriter reports the error that prevented a document from starting.
type failedWriter struct{ err error }

func (f failedWriter) WriteEntry(*model.Entry) error { return f.err }
func (f failedWriter) Close() error                  { return f.err }
