package cli

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"rsx/crawl"
	"rsx/display"
	"rsx/internal/spool"
)

// rsx tree and validate --recursive walk with crawl.Graph.WalkStream, which
// hands each document over once the documents below it are done: a
// document's line (its problem counts include what its children showed)
// comes after theirs. The output is put back in document order through a
// spool (internal/spool), which keeps a few thousand pieces in memory and
// the rest in a temporary file: an index of a million parts is printed
// without holding a million lines (issue 23).

// treeChunk is a piece of rsx tree's output: the line, or the JSON object,
// of the node at seq; sub 1 is the end of the JSON of a node whose last
// descendant is at seq (after that descendant's own piece, and after the
// ends of the nodes between them, which come first).
type treeChunk struct {
	seq  int
	sub  uint8
	text string
}

func newChunkSpool(dir string) *spool.List[treeChunk] {
	return spool.NewList(dir, "tree output", 0,
		func(b []byte, c *treeChunk) []byte {
			b = binary.AppendUvarint(b, uint64(c.seq))
			b = append(b, c.sub)
			return append(b, c.text...)
		},
		func(b []byte, c *treeChunk) error {
			seq, n := binary.Uvarint(b)
			if n <= 0 || len(b) < n+1 {
				return errors.New("a piece of output that does not decode")
			}
			*c = treeChunk{seq: int(seq), sub: b[n], text: string(b[n+1:])}
			return nil
		},
		func(a, b *treeChunk) int {
			if c := cmp.Compare(a.seq, b.seq); c != 0 {
				return c
			}
			return cmp.Compare(a.sub, b.sub)
		})
}

// treeOutput is rsx tree's output, made as the walk hands the nodes over.
type treeOutput struct {
	json   bool
	st     textStyles
	chunks *spool.List[treeChunk]
	sum    treeSummary
	// what the bounds left out (crawl.Node.Bounds)
	skipped, unexpanded int
	enc                 *json.Encoder
	buf                 bytes.Buffer
}

func newTreeOutput(asJSON bool, st textStyles, dir string) *treeOutput {
	o := &treeOutput{json: asJSON, st: st, chunks: newChunkSpool(dir)}
	o.enc = json.NewEncoder(&o.buf)
	o.enc.SetEscapeHTML(false)
	return o
}

// done takes one node of the walk (crawl.Graph.WalkStream's done).
func (o *treeOutput) done(n *crawl.Node) {
	o.sum.add(n)
	switch {
	case n.Skipped:
		o.skipped++
	case n.Unexpanded && !n.Repeat:
		o.unexpanded += n.DownCount
	}
	if !o.json {
		o.chunks.Add(treeChunk{seq: n.Seq, text: treePrefix(n) + treeLine(n, o.st) + "\n"})
		return
	}
	// The JSON as writeJSON indents it: a node at depth d opens at 4d
	// spaces, its fields at 4d+2; its children follow "children": [.
	indent := strings.Repeat(" ", 4*n.Depth)
	o.buf.Reset()
	o.enc.SetIndent(indent, "  ")
	o.enc.Encode(treeJSONNode(n)) // a struct of strings and numbers: no error
	body := strings.TrimSuffix(o.buf.String(), "\n")
	if n.NumChildren > 0 {
		body = strings.TrimSuffix(body, "[]\n"+indent+"}") + "["
		o.chunks.Add(treeChunk{seq: n.End, sub: 1, text: "\n" + indent + "  ]\n" + indent + "}"})
	}
	if n.Parent != nil {
		lead := ",\n"
		if n.Index == 0 {
			lead = "\n"
		}
		body = lead + indent + body
	}
	o.chunks.Add(treeChunk{seq: n.Seq, text: string(display.EscapeJSON([]byte(body)))})
}

// isLast tells whether n is the last child of its parent.
func isLast(n *crawl.Node) bool { return n.Index == n.Parent.NumChildren-1 }

// treePrefix is what precedes a node's line: the branches of its
// ancestors, then its own.
func treePrefix(n *crawl.Node) string {
	if n.Parent == nil {
		return ""
	}
	var parts []string
	for a := n.Parent; a.Parent != nil; a = a.Parent {
		if isLast(a) {
			parts = append(parts, "    ")
		} else {
			parts = append(parts, "│   ")
		}
	}
	var b strings.Builder
	for i := len(parts) - 1; i >= 0; i-- {
		b.WriteString(parts[i])
	}
	if isLast(n) {
		b.WriteString("└── ")
	} else {
		b.WriteString("├── ")
	}
	return b.String()
}

// write writes the tree (text lines, or the JSON document) to w.
func (o *treeOutput) write(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	err := o.chunks.Each(func(c treeChunk) error {
		_, err := bw.WriteString(c.text)
		return err
	})
	if err != nil {
		return err
	}
	if o.json {
		bw.WriteString("\n")
	}
	return bw.Flush()
}

func (o *treeOutput) close() { o.chunks.Close() }

// softMemoryLimit lets the collector of a streamed walk (which keeps little
// but allocates much, with GOGC raised) run before the heap passes what an
// index of a million parts is allowed (issue 23: 256 MB of RSS), unless
// GOMEMLIMIT says otherwise. It returns what puts the limit back.
func softMemoryLimit() func() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	old := debug.SetMemoryLimit(160 << 20)
	return func() { debug.SetMemoryLimit(old) }
}
