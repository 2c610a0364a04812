package session

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"

	"rsx/model"
)

// ReadEntries reads the entries at indexes (Entry.Index, in ascending
// order) of the document at target again, whole: the explorer keeps of each
// entry only what its table shows, and reads the rest back when an entry is
// looked at or checked. raw, when not nil, is the document's bytes as
// loaded, decoded instead of fetching target again. The entries come in
// the order of indexes; one the document no longer has is left out. The
// document is read up to the last entry asked for, no further.
func (s *Session) ReadEntries(ctx context.Context, target string, raw []byte, indexes []int) ([]model.Entry, error) {
	if !slices.IsSorted(indexes) {
		return nil, fmt.Errorf("read entries of %s again: the indexes are not in order", target)
	}
	if len(indexes) == 0 {
		return nil, nil
	}
	var r io.Reader = bytes.NewReader(raw)
	if raw == nil {
		o, err := s.open(ctx, target)
		if err != nil {
			return nil, err
		}
		defer o.Body.Close()
		r = &countingReader{r: o.Body, ctx: ctx}
	}
	dec := model.NewDecoder(r, s.opts.Decoder)
	hdr, err := dec.Header()
	if err != nil {
		return nil, fmt.Errorf("read %s again: %w", target, err)
	}
	if hdr.Root == model.RootUnknown {
		return nil, fmt.Errorf("read %s again: no longer a Sitemap document (its root element is <%s>)", target, hdr.RootLocal)
	}
	out := make([]model.Entry, 0, len(indexes))
	k := 0
	for k < len(indexes) {
		var e model.Entry
		err := dec.Next(&e)
		if err == io.EOF {
			break
		}
		if err != nil {
			if ctx.Err() != nil {
				err = ctx.Err()
			}
			return out, fmt.Errorf("read %s again: %w", target, err)
		}
		for k < len(indexes) && indexes[k] < e.Index {
			k++ // not in the document (any more)
		}
		if k < len(indexes) && indexes[k] == e.Index {
			out = append(out, e)
			for k < len(indexes) && indexes[k] == e.Index {
				k++
			}
		}
	}
	return out, nil
}
