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
	"unicode/utf8"

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
	var out []byte
	for _, l := range lists {
		quoted := []byte(`"` + l.token + `"`)
		i := bytes.Index(b, quoted)
		// The list is indented as the line that holds it.
		line := bytes.LastIndexByte(b[:i], '\n') + 1
		indent := string(b[line : line+len(b[line:i])-len(bytes.TrimLeft(b[line:i], " "))])
		bw.Write(b[:i])
		bw.WriteByte('[')
		n := 0
		prefix := indent + "  "
		enc.SetIndent(prefix, "  ")
		err := l.each(func(x any) error {
			if a, ok := x.(indentedElement); ok {
				out = a.appendIndented(out[:0], prefix)
			} else {
				elem.Reset()
				if err := enc.Encode(x); err != nil {
					return err
				}
				out = bytes.TrimRight(elem.Bytes(), "\n")
			}
			if n > 0 {
				bw.WriteByte(',')
			}
			n++
			bw.WriteByte('\n')
			bw.WriteString(prefix)
			_, err := bw.Write(display.EscapeJSON(out))
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

// indentedElement is an element of a streamed list that writes itself as
// the encoder would (indented under prefix, HTML not escaped, no newline
// after), without reflection or a second pass to indent it: encoding/json
// spent 0.9 s of CPU on the million decisions of a dry run's plan.items.
type indentedElement interface {
	appendIndented(b []byte, prefix string) []byte
}

// appendField appends the start of a field of an object indented under
// prefix: the indent, the name and its colon.
func appendField(b []byte, prefix, name string) []byte {
	b = append(b, prefix...)
	b = append(b, "  \""...)
	b = append(b, name...)
	return append(b, "\": "...)
}

// appendJSONString appends s quoted as encoding/json quotes a string with
// HTML left as it is: quote and backslash escaped, the controls as \b, \f,
// \n, \r, \t or \u00XX, invalid UTF-8 as \ufffd, U+2028 and U+2029 as
// \u2028 and \u2029 (TestAppendJSONString compares them).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
