package session

import (
	"context"
	"io"
)

// OpenRaw opens target (a URL or a local file) for reading its text as
// served, gzip undone (recognised by its magic bytes); size is -1 when
// unknown. The caller closes it.
func (s *Session) OpenRaw(ctx context.Context, target string) (io.ReadCloser, int64, error) {
	o, err := s.open(ctx, target)
	if err != nil {
		return nil, 0, err
	}
	return o.Body, o.Size, nil
}
