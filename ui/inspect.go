package ui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	tea "charm.land/bubbletea/v2"

	"rsx/claims"
)

// The I/O and the heavy lifting of the inspector views: each function here
// returns a tea.Cmd, so Update never blocks.

// indexRawCmd indexes the lines of an already fetched text.
func indexRawCmd(s *rawSession, t *rawText) tea.Cmd {
	return func() tea.Msg {
		t.lines = indexLines(t.data)
		return rawLoadedMsg{session: s, text: t}
	}
}

// readRawCmd reads at most rawMaxBytes of r, closes it when it can, and
// indexes the lines.
func readRawCmd(ctx context.Context, s *rawSession, r io.Reader, size int64) tea.Cmd {
	return func() tea.Msg {
		if c, ok := r.(io.Closer); ok {
			defer c.Close()
		}
		data, truncated, err := readBounded(ctx, r, rawMaxBytes)
		if err != nil {
			return rawLoadedMsg{session: s, err: fmt.Errorf("read the document: %w", err)}
		}
		if truncated && size <= int64(len(data)) {
			size = -1
		} else if !truncated {
			size = int64(len(data))
		}
		t := &rawText{data: data, truncated: truncated, size: size}
		t.lines = indexLines(data)
		return rawLoadedMsg{session: s, text: t}
	}
}

// readBounded reads r up to limit bytes, checking ctx between reads, and
// reports whether more was left.
func readBounded(ctx context.Context, r io.Reader, limit int) ([]byte, bool, error) {
	var buf bytes.Buffer
	chunk := make([]byte, 256<<10)
	for {
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		n, err := r.Read(chunk)
		if n > 0 {
			if room := limit - buf.Len(); n > room {
				buf.Write(chunk[:room])
				return buf.Bytes(), true, nil
			}
			buf.Write(chunk[:n])
		}
		if errors.Is(err, io.EOF) {
			return buf.Bytes(), false, nil
		}
		if err != nil {
			return nil, false, err
		}
	}
}

// indexLines returns the start offset of every line of data. A final line
// ending does not start another line.
func indexLines(data []byte) []int32 {
	lines := make([]int32, 1, bytes.Count(data, []byte{'\n'})+1)
	for off := 0; ; {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
		if off >= len(data) {
			break
		}
		lines = append(lines, int32(off))
	}
	return lines
}

// searchRawCmd finds every occurrence of query in data: case-insensitively
// (ASCII) when query has no upper-case letter, exactly otherwise.
func searchRawCmd(s *rawSession, gen int, data []byte, query string) tea.Cmd {
	return func() tea.Msg {
		matches, capped := findAll(data, query, rawMaxMatches)
		return rawSearchMsg{session: s, gen: gen, query: query, matches: matches, capped: capped}
	}
}

// findAll returns the offsets of the non-overlapping occurrences of query in
// data, at most limit of them, and whether there were more.
func findAll(data []byte, query string, limit int) ([]int, bool) {
	if query == "" {
		return nil, false
	}
	q := []byte(query)
	fold := !bytes.ContainsFunc(q, func(r rune) bool { return r >= 'A' && r <= 'Z' })
	var out []int
	if !fold {
		for off := 0; off <= len(data)-len(q); {
			i := bytes.Index(data[off:], q)
			if i < 0 {
				break
			}
			if len(out) == limit {
				return out, true
			}
			out = append(out, off+i)
			off += i + len(q)
		}
		return out, false
	}
	// Fold a window at a time into a buffer, overlapping by len(q)-1 bytes
	// so that a match across two windows is found.
	const win = 1 << 20
	buf := make([]byte, 0, win+len(q))
	next := 0 // matches before next were already reported
	for base := 0; base < len(data); base += win {
		end := min(base+win+len(q)-1, len(data))
		buf = buf[:0]
		for _, c := range data[base:end] {
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			buf = append(buf, c)
		}
		for off := max(next-base, 0); off <= len(buf)-len(q); {
			i := bytes.Index(buf[off:], q)
			if i < 0 {
				break
			}
			if len(out) == limit {
				return out, true
			}
			out = append(out, base+off+i)
			off += i + len(q)
			next = base + off
		}
	}
	return out, false
}

// resourceFetchKey names one download of a resource view: the view, the
// target (0 the primary resource, then mirrors) and the generation (a
// refetch makes earlier results stale).
type resourceFetchKey struct {
	session *resourceSession
	target  int
	gen     int
}

// resourceProgressMsg reports a download's progress; next waits for the
// following report.
type resourceProgressMsg struct {
	key         resourceFetchKey
	done, total int64
	next        tea.Cmd
}

// resourceDoneMsg reports a finished (or failed, or cancelled) check.
type resourceDoneMsg struct {
	key    resourceFetchKey
	result claims.Result
}

// checkResourceCmd fetches target t and judges it against its claims
// through r. Progress comes back as resourceProgressMsg (the latest one
// wins when the UI is slower than the network), the end as resourceDoneMsg.
func checkResourceCmd(ctx context.Context, r Resources, k resourceFetchKey, t claims.Target) tea.Cmd {
	progress := make(chan resourceProgressMsg, 1)
	done := make(chan resourceDoneMsg, 1)
	var wait tea.Cmd
	wait = func() tea.Msg {
		select {
		case m := <-done:
			return m
		case p := <-progress:
			p.next = wait
			return p
		}
	}
	return func() tea.Msg {
		go func() {
			report := func(n, total int64) {
				m := resourceProgressMsg{key: k, done: n, total: total}
				select {
				case progress <- m:
				default: // replace the report the UI has not taken yet
					select {
					case <-progress:
					default:
					}
					select {
					case progress <- m:
					default:
					}
				}
			}
			done <- resourceDoneMsg{key: k, result: r.CheckResource(ctx, t, report)}
		}()
		return wait()
	}
}
