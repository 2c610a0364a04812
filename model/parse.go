package model

import "io"

// ParseWith reads a whole document into memory with the given decoder
// options (limits, for instance). Large documents should be streamed with a
// Decoder, or kept in an EntryTable, instead.
func ParseWith(r io.Reader, opts DecoderOptions) (*Document, error) {
	d := NewDecoder(r, opts)
	h, err := d.Header()
	if err != nil {
		return nil, err
	}
	doc := &Document{}
	for {
		var e Entry
		err := d.Next(&e)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		doc.Entries = append(doc.Entries, e)
	}
	doc.Header = *h
	doc.Bytes = d.BytesRead()
	return doc, nil
}
