package bag

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// manifests writes the payload manifests as files are added: one per
// algorithm that every file so far has a digest of. An algorithm a file lacks
// is dropped (BagIt wants every payload file in every payload manifest);
// SHA-256 every file has.
type manifests struct {
	dir   string
	files map[string]*manifestFile
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
	return m, nil
}

func (m *manifests) add(e *entry) error {
	if _, ok := e.digests["sha256"]; !ok {
		return fmt.Errorf("bag: %s: no SHA-256 digest", e.res.Path)
	}
	line := " data/" + EncodePath(e.res.Path) + "\n"
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
	return nil
}

// finish closes the manifests, removes those that do not list every file,
// and returns the algorithms of those kept.
func (m *manifests) finish() ([]string, error) {
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
