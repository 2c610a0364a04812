package session

import (
	"bufio"
	"compress/gzip"
	"context"
	"fmt"
	"io"
)

// OpenRaw opens target (a URL or a local file) for reading its text as
// served, gzip undone (recognised by its magic bytes); size is -1 when
// unknown. The caller closes it.
func (s *Session) OpenRaw(ctx context.Context, target string) (io.ReadCloser, int64, error) {
	body, _, total, _, err := s.open(ctx, target)
	if err != nil {
		return nil, 0, err
	}
	br := bufio.NewReaderSize(body, 64<<10)
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			body.Close()
			return nil, 0, fmt.Errorf("read %s: gzip: %w", target, err)
		}
		return readCloser{zr, body}, -1, nil
	}
	return readCloser{br, body}, total, nil
}

// readCloser reads from one reader and closes another.
type readCloser struct {
	io.Reader
	c io.Closer
}

func (r readCloser) Close() error { return r.c.Close() }
