package cli

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"rsx/display"
)

// A JSON document with lists too long to hold in memory (a plan's million
// creates, a baseline's files): the document is encoded as writeJSON
// encodes it, with a placeholder for each such list, and each list is then
// written in its place from its function, an element at a time.

// streamedList is a list of a JSON document that writeJSONStreamed writes
// element by element from each: put one (a *streamedList) where the list
// goes, in any struct or map of the document.
type streamedList struct {
	each  func(emit func(v any) error) error
	token string
}

// MarshalJSON writes the placeholder: a string no document holds (random
// to each list).
func (l *streamedList) MarshalJSON() ([]byte, error) {
	if l.token == "" {
		var b [16]byte
		rand.Read(b[:])
		l.token = "rsx-streamed-list-" + hex.EncodeToString(b[:])
	}
	return json.Marshal(l.token)
}

// streamList makes the list written from each.
func streamList(each func(emit func(v any) error) error) *streamedList {
	return &streamedList{each: each}
}

// writeJSONStreamed writes v as writeJSON does (indented, escaped), each
// of lists (the *streamedList values v holds) written in its place from
// its function: the elements are encoded one at a time, never all held.
func writeJSONStreamed(w io.Writer, v any, lists ...*streamedList) error {
	var doc bytes.Buffer
	if err := writeJSONWhole(&doc, v); err != nil {
		return err
	}
	b := doc.Bytes()
	// In the order they are in the document.
	at := make(map[*streamedList]int, len(lists))
	for _, l := range lists {
		i := bytes.Index(b, []byte(`"`+l.token+`"`))
		if l.token == "" || i < 0 {
			return fmt.Errorf("write JSON: a streamed list is not in the document")
		}
		at[l] = i
	}
	lists = slices.Clone(lists)
	slices.SortFunc(lists, func(x, y *streamedList) int { return at[x] - at[y] })
	bw := bufio.NewWriterSize(w, 64<<10)
	var elem bytes.Buffer
	enc := json.NewEncoder(&elem)
	enc.SetEscapeHTML(false)
	for _, l := range lists {
		quoted := []byte(`"` + l.token + `"`)
		i := bytes.Index(b, quoted)
		// The list is indented as the line that holds it.
		line := bytes.LastIndexByte(b[:i], '\n') + 1
		indent := string(b[line : line+len(b[line:i])-len(bytes.TrimLeft(b[line:i], " "))])
		bw.Write(b[:i])
		bw.WriteByte('[')
		n := 0
		err := l.each(func(x any) error {
			elem.Reset()
			enc.SetIndent(indent+"  ", "  ")
			if err := enc.Encode(x); err != nil {
				return err
			}
			if n > 0 {
				bw.WriteByte(',')
			}
			n++
			bw.WriteString("\n" + indent + "  ")
			_, err := bw.Write(display.EscapeJSON(bytes.TrimRight(elem.Bytes(), "\n")))
			return err
		})
		if err != nil {
			return err
		}
		if n > 0 {
			bw.WriteString("\n" + indent)
		}
		bw.WriteByte(']')
		b = b[i+len(quoted):]
	}
	bw.Write(b)
	return bw.Flush()
}
