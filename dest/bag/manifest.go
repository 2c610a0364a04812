package bag

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"rsx/display"
)

// manifests writes the payload manifests as files are added: one per
// algorithm that every file so far has a digest of. An algorithm a file lacks
// is dropped (BagIt wants every payload file in every payload manifest);
// SHA-256 every file has.
type manifests struct {
	dir   string
	files map[string]*manifestFile
	uris  *manifestFile // resourcesync-uris.txt
}

type manifestFile struct {
	f    *os.File
	w    *bufio.Writer
	live bool
}

func newManifests(dir string) (*manifests, error) {
	m := &manifests{dir: dir, files: map[string]*manifestFile{}}
	for _, a := range bagitAlgs {
		f, err := os.Create(filepath.Join(dir, "manifest-"+a.bagit+".txt"))
		if err != nil {
			m.close()
			return nil, fmt.Errorf("bag: %w", err)
		}
		m.files[a.bagit] = &manifestFile{f: f, w: bufio.NewWriterSize(f, 64<<10), live: true}
	}
	f, err := os.Create(filepath.Join(dir, URIsFile))
	if err != nil {
		m.close()
		return nil, fmt.Errorf("bag: %w", err)
	}
	m.uris = &manifestFile{f: f, w: bufio.NewWriterSize(f, 64<<10), live: true}
	if _, err := m.uris.w.WriteString(urisHeader); err != nil {
		m.close()
		return nil, fmt.Errorf("bag: write %s: %w", URIsFile, err)
	}
	return m, nil
}

// URIsFile is the tag file that maps each payload file to the resource it
// is a copy of: its URI, when rsx fetched it, and its path in the copy.
const URIsFile = "resourcesync-uris.txt"

const urisHeader = `# ` + URIsFile + `, written by rsx bag: each payload file of this bag, the URI of the resource it is a copy of,
# when rsx fetched it (UTC), and its path in the copy (DEST). One file a line, its fields separated by a tab; in a field,
# a backslash is written \\, a tab \t, CR \r, LF \n, another control character \xNN, a bidirectional or line-separator
# character \uNNNN.
# payload	uri	fetched	path
`

// tagField is text for a field of resourcesync-uris.txt (see urisHeader).
func tagField(s string) string {
	return display.Escape(strings.ReplaceAll(s, `\`, `\\`))
}

func (m *manifests) add(e *entry) error {
	if _, ok := e.digests["sha256"]; !ok {
		return fmt.Errorf("bag: %s: no SHA-256 digest", e.res.Path)
	}
	name := "data/" + PayloadName(e.res.Path)
	line := " " + EncodePath(name) + "\n"
	for alg, mf := range m.files {
		if !mf.live {
			continue
		}
		d, ok := e.digests[alg]
		if !ok {
			mf.live = false
			continue
		}
		if _, err := mf.w.WriteString(d + line); err != nil {
			return fmt.Errorf("bag: write manifest-%s.txt: %w", alg, err)
		}
	}
	fetched := ""
	if !e.res.FetchedAt.IsZero() {
		fetched = stamp(e.res.FetchedAt)
	}
	if _, err := m.uris.w.WriteString(name + "\t" + tagField(e.res.URI) + "\t" + fetched + "\t" + tagField(e.res.Path) + "\n"); err != nil {
		return fmt.Errorf("bag: write %s: %w", URIsFile, err)
	}
	return nil
}

// finish closes the manifests, removes those that do not list every file,
// and returns the algorithms of those kept.
func (m *manifests) finish() ([]string, error) {
	err := m.uris.w.Flush()
	if cerr := m.uris.f.Close(); err == nil {
		err = cerr
	}
	m.uris.f = nil
	if err != nil {
		return nil, fmt.Errorf("bag: write %s: %w", URIsFile, err)
	}
	var kept []string
	for _, a := range bagitAlgs {
		mf := m.files[a.bagit]
		err := mf.w.Flush()
		if cerr := mf.f.Close(); err == nil {
			err = cerr
		}
		mf.f = nil
		if err != nil {
			return nil, fmt.Errorf("bag: write manifest-%s.txt: %w", a.bagit, err)
		}
		if !mf.live {
			if err := os.Remove(filepath.Join(m.dir, "manifest-"+a.bagit+".txt")); err != nil {
				return nil, fmt.Errorf("bag: %w", err)
			}
			continue
		}
		kept = append(kept, a.bagit)
	}
	return kept, nil
}

func (m *manifests) close() {
	if m.uris != nil && m.uris.f != nil {
		m.uris.f.Close()
	}
	for _, mf := range m.files {
		if mf.f != nil {
			mf.f.Close()
		}
	}
}

// EncodePath is a payload path as a manifest line writes it (RFC 8493 2.1.3):
// CR, LF and % percent-encoded.
func EncodePath(p string) string {
	if !strings.ContainsAny(p, "%\r\n") {
		return p
	}
	r := strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	return r.Replace(p)
}

// DecodePath undoes EncodePath (any case of the hex digits).
func DecodePath(p string) string {
	if !strings.Contains(p, "%") {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '%' && i+2 < len(p) {
			switch strings.ToUpper(p[i+1 : i+3]) {
			case "25":
				b.WriteByte('%')
				i += 2
				continue
			case "0D":
				b.WriteByte('\r')
				i += 2
				continue
			case "0A":
				b.WriteByte('\n')
				i += 2
				continue
			}
		}
		b.WriteByte(p[i])
	}
	return b.String()
}
