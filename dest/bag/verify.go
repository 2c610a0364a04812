package bag

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"rsx/model"
)

// Check is what Verify found in a bag.
type Check struct {
	Dir         string
	Version     string   // BagIt-Version
	Manifests   []string // payload manifests' algorithms
	Files       int      // payload files
	Bytes       int64
	HashedBytes int64
	// Problems say, one a line, what breaks RFC 8493's rules or the bag's
	// own records; none: the bag is valid.
	Problems []string
}

// Valid reports whether Verify found nothing wrong.
func (c *Check) Valid() bool { return len(c.Problems) == 0 }

// maxProblems bounds the problems a Check lists (a bag whose every file is
// wrong would otherwise give millions of lines); the last one says how many
// more there were.
const maxProblems = 1000

func (c *Check) problem(format string, args ...any) {
	if len(c.Problems) < maxProblems {
		c.Problems = append(c.Problems, fmt.Sprintf(format, args...))
	} else if len(c.Problems) == maxProblems {
		c.Problems = append(c.Problems, "… and more problems (only the first 1,000 are listed)")
	}
}

// verifyAlgs are the algorithms a manifest may use that Verify can compute:
// BagIt's name and the model's.
var verifyAlgs = map[string]string{"md5": "md5", "sha1": "sha-1", "sha256": "sha-256", "sha384": "sha-384", "sha512": "sha-512"}

// Verify checks the bag at dir against RFC 8493: bagit.txt, the payload
// manifests (every payload file in every one, every listed file present, every
// digest recomputed), Payload-Oxum, and the tag manifests. It returns an error
// only when it cannot do the job (dir unreadable); what is wrong with the bag
// is in the Check's Problems.
func Verify(ctx context.Context, dir string, progress func(files int, bytes int64)) (*Check, error) {
	c := &Check{Dir: dir}
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("bag: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("bag: %s is not a folder", dir)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("bag: %w", err)
	}
	defer root.Close()
	if !c.declaration(root) {
		return c, nil
	}
	payload, err := c.payloadFiles(ctx, root)
	if err != nil {
		return nil, err
	}
	want, tagManifests, err := c.manifests(root, payload)
	if err != nil {
		return nil, err
	}
	for _, p := range slices.Sorted(mapKeys(payload)) {
		c.Files++
		c.Bytes += payload[p]
	}
	if err := c.hashPayload(ctx, root, want, progress); err != nil {
		return nil, err
	}
	c.oxum(root)
	for _, name := range tagManifests {
		c.tagManifest(root, name)
	}
	return c, nil
}

// declaration checks bagit.txt and that there is a payload folder; false
// when there is no bag to read further.
func (c *Check) declaration(root *os.Root) bool {
	decl, err := root.ReadFile("bagit.txt")
	if err != nil {
		c.problem("bagit.txt: %v (every bag has one)", errors.Unwrap(err))
		return false
	}
	fields, bad := parseTagFile(decl)
	for _, b := range bad {
		c.problem("bagit.txt: %s", b)
	}
	c.Version = first(fields, "BagIt-Version")
	if c.Version == "" {
		c.problem("bagit.txt: no BagIt-Version")
	} else if _, _, ok := strings.Cut(c.Version, "."); !ok {
		c.problem("bagit.txt: BagIt-Version %q is not M.N", c.Version)
	}
	if enc := first(fields, "Tag-File-Character-Encoding"); enc == "" {
		c.problem("bagit.txt: no Tag-File-Character-Encoding")
	} else if !strings.EqualFold(enc, "UTF-8") {
		c.problem("bagit.txt: Tag-File-Character-Encoding %s: rsx reads UTF-8 tag files only", enc)
	}
	if fi, err := root.Stat("data"); err != nil || !fi.IsDir() {
		c.problem("data/: missing (the payload folder)")
		return false
	}
	if _, err := root.Stat("fetch.txt"); err == nil {
		c.problem("fetch.txt: the bag is not complete until its files are fetched; rsx does not fetch them")
	}
	return true
}

// payloadFiles walks data/: every regular file's path (data/…) and length.
func (c *Check) payloadFiles(ctx context.Context, root *os.Root) (map[string]int64, error) {
	payload := map[string]int64{}
	err := fs.WalkDir(root.FS(), "data", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			c.problem("%s: %v", p, err)
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		switch {
		case d.IsDir():
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				c.problem("%s: %v", p, err)
				return nil
			}
			payload[p] = info.Size()
		default:
			c.problem("%s: not a regular file (%s): a bag holds files only", p, d.Type())
		}
		return nil
	})
	return payload, err
}

// listed is a digest a payload manifest gives of a file.
type listed struct {
	alg, digest string
}

// manifests reads the payload manifests: the digests each payload file is
// to have; and names the tag manifests (sorted).
func (c *Check) manifests(root *os.Root, payload map[string]int64) (map[string][]listed, []string, error) {
	ents, err := root.FS().(fs.ReadDirFS).ReadDir(".")
	if err != nil {
		return nil, nil, fmt.Errorf("bag: %w", err)
	}
	want := map[string][]listed{} // payload path → digests the manifests give
	var tagManifests []string
	for _, e := range ents {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, "manifest-") && strings.HasSuffix(name, ".txt"):
			c.payloadManifest(root, name, payload, want)
		case strings.HasPrefix(name, "tagmanifest-") && strings.HasSuffix(name, ".txt"):
			tagManifests = append(tagManifests, name)
		}
	}
	if len(c.Manifests) == 0 {
		c.problem("no payload manifest (manifest-ALG.txt)")
	}
	slices.Sort(c.Manifests)
	slices.Sort(tagManifests)
	return want, tagManifests, nil
}

// payloadManifest reads one payload manifest into want.
func (c *Check) payloadManifest(root *os.Root, name string, payload map[string]int64, want map[string][]listed) {
	alg := strings.TrimSuffix(strings.TrimPrefix(name, "manifest-"), ".txt")
	if _, ok := verifyAlgs[alg]; !ok {
		c.problem("%s: rsx cannot compute %s digests", name, alg)
		return
	}
	c.Manifests = append(c.Manifests, alg)
	data, err := root.ReadFile(name)
	if err != nil {
		c.problem("%s: %v", name, err)
		return
	}
	seen := map[string]bool{}
	forEachManifestLine(data, func(n int, digest, p, literal string, lineErr string) {
		if lineErr != "" {
			c.problem("%s line %d: %s", name, n, lineErr)
			return
		}
		if _, ok := payload[p]; !ok && literal != p {
			// bagit-python and bagit-java write "%" as it is (they escape
			// CR and LF only): a path that is in the payload as written,
			// and not as RFC 8493 decodes it, is that file.
			if _, ok := payload[literal]; ok {
				p = literal
			}
		}
		if !payloadPath(p) {
			c.problem("%s line %d: %q is not a path under data/", name, n, p)
			return
		}
		if seen[p] {
			c.problem("%s line %d: %s is listed twice", name, n, p)
			return
		}
		seen[p] = true
		if _, ok := payload[p]; !ok {
			c.problem("%s line %d: %s is listed but not in the bag", name, n, p)
			return
		}
		want[p] = append(want[p], listed{alg, strings.ToLower(digest)})
	})
	for p := range payload {
		if !seen[p] {
			c.problem("%s: %s is in the payload but not in this manifest", name, p)
		}
	}
}

// hashPayload reads every payload file listed once, hashed with every
// algorithm listed, and compares.
func (c *Check) hashPayload(ctx context.Context, root *os.Root, want map[string][]listed, progress func(files int, bytes int64)) error {
	paths := slices.Sorted(mapKeys(want))
	var mu sync.Mutex
	var wg sync.WaitGroup
	jobs := make(chan string)
	done, doneBytes := 0, int64(0)
	for range max(2, runtime.NumCPU()) {
		wg.Go(func() {
			for p := range jobs {
				ls := want[p]
				declared := make(model.HashList, 0, len(ls))
				for _, l := range ls {
					declared = append(declared, model.Hash{Alg: verifyAlgs[l.alg]})
				}
				v := model.NewVerifier(declared)
				f, err := root.Open(p)
				var n int64
				if err == nil {
					n, err = io.Copy(v, ctxReader{ctx, f})
					f.Close()
				}
				mu.Lock()
				if err != nil {
					c.problem("%s: %v", p, err)
				} else {
					for i, r := range v.Results() {
						if r.Actual != ls[i].digest {
							c.problem("%s: %s %s where manifest-%s.txt says %s", p, ls[i].alg, r.Actual, ls[i].alg, ls[i].digest)
						}
					}
				}
				done++
				doneBytes += n
				c.HashedBytes += n
				if progress != nil {
					progress(done, doneBytes)
				}
				mu.Unlock()
			}
		})
	}
	for _, p := range paths {
		select {
		case jobs <- p:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(jobs)
	wg.Wait()
	return ctx.Err()
}

// oxum checks bag-info.txt's Payload-Oxum against the payload counted.
func (c *Check) oxum(root *os.Root) {
	info, err := root.ReadFile("bag-info.txt")
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		c.problem("bag-info.txt: %v", err)
		return
	}
	fields, bad := parseTagFile(info)
	for _, b := range bad {
		c.problem("bag-info.txt: %s", b)
	}
	oxum := first(fields, "Payload-Oxum")
	if oxum == "" {
		return
	}
	octets, streams, ok := strings.Cut(oxum, ".")
	o, err1 := strconv.ParseInt(octets, 10, 64)
	s, err2 := strconv.Atoi(streams)
	switch {
	case !ok || err1 != nil || err2 != nil:
		c.problem("bag-info.txt: Payload-Oxum %q is not OCTETS.FILES", oxum)
	case o != c.Bytes || s != c.Files:
		c.problem("bag-info.txt: Payload-Oxum %s, but the payload holds %d bytes in %d files", oxum, c.Bytes, c.Files)
	}
}

// tagManifest checks the tag files one tag manifest lists.
func (c *Check) tagManifest(root *os.Root, name string) {
	alg := strings.TrimSuffix(strings.TrimPrefix(name, "tagmanifest-"), ".txt")
	malg, ok := verifyAlgs[alg]
	if !ok {
		c.problem("%s: rsx cannot compute %s digests", name, alg)
		return
	}
	data, err := root.ReadFile(name)
	if err != nil {
		c.problem("%s: %v", name, err)
		return
	}
	forEachManifestLine(data, func(n int, digest, p, literal string, lineErr string) {
		if lineErr != "" {
			c.problem("%s line %d: %s", name, n, lineErr)
			return
		}
		if _, err := root.Stat(p); err != nil && literal != p {
			if _, err := root.Stat(literal); err == nil {
				p = literal // as bagit-python writes it (see payloadManifest)
			}
		}
		if p != path.Clean(p) || strings.HasPrefix(p, "data/") || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "../") || p == ".." {
			c.problem("%s line %d: %q is not a tag file's path", name, n, p)
			return
		}
		f, err := root.Open(p)
		if err != nil {
			c.problem("%s line %d: %s is listed but cannot be read: %v", name, n, p, errors.Unwrap(err))
			return
		}
		d, err := digestOf(malg, f)
		f.Close()
		if err != nil {
			c.problem("%s line %d: %s: %v", name, n, p, err)
			return
		}
		if d != strings.ToLower(digest) {
			c.problem("%s: %s %s where the tag manifest says %s (a tag file was changed)", p, alg, d, strings.ToLower(digest))
		}
	})
}

func digestOf(alg string, r io.Reader) (string, error) {
	d, err := model.Digest(alg, r)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%x", d), nil
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// payloadPath reports whether p names a file under data/ without climbing out.
func payloadPath(p string) bool {
	return strings.HasPrefix(p, "data/") && p == path.Clean(p)
}

// forEachManifestLine calls fn with each line's digest and path, decoded as
// RFC 8493 says and as written (or what is wrong with the line). Lines end in LF or CRLF; a digest and a path
// are separated by one or more spaces or tabs.
func forEachManifestLine(data []byte, fn func(n int, digest, path, literal, lineErr string)) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" {
			continue
		}
		i := strings.IndexAny(line, " \t")
		if i <= 0 {
			fn(n, "", "", "", "not DIGEST PATH")
			continue
		}
		digest := line[:i]
		p := strings.TrimLeft(line[i:], " \t")
		if p == "" {
			fn(n, "", "", "", "no path")
			continue
		}
		if strings.Contains(p, `\`) {
			fn(n, "", "", "", "a path with a backslash (BagIt paths are separated by /)")
			continue
		}
		fn(n, digest, DecodePath(p), p, "")
	}
	if err := sc.Err(); err != nil {
		fn(n+1, "", "", "", err.Error())
	}
}

// parseTagFile reads LABEL: VALUE lines (a line that starts with white space
// continues the value before it).
func parseTagFile(data []byte) (fields []Field, bad []string) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	for n, line := range strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") {
		if line == "" {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			if len(fields) == 0 {
				bad = append(bad, fmt.Sprintf("line %d continues nothing", n+1))
				continue
			}
			fields[len(fields)-1].Value += " " + strings.TrimSpace(line)
			continue
		}
		label, value, ok := strings.Cut(line, ":")
		if !ok {
			bad = append(bad, fmt.Sprintf("line %d is not LABEL: VALUE", n+1))
			continue
		}
		fields = append(fields, Field{Label: strings.TrimSpace(label), Value: strings.TrimSpace(value)})
	}
	return fields, bad
}

func first(fields []Field, label string) string {
	for _, f := range fields {
		if strings.EqualFold(f.Label, label) {
			return f.Value
		}
	}
	return ""
}
