package demo

import (
	"archive/zip"
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"io"
	"strconv"
	"time"

	"rsx/model"
)

// pkg is a generated ZIP package and the manifest inside it.
type pkg struct {
	zip      []byte
	manifest []byte // as stored in the package
	copy     []byte // the manifest copy served beside the package (contents link)
}

// member is a file to put in a package.
type member struct {
	name string
	data []byte
}

// writeZip writes a deterministic ZIP: stored members, fixed modification times.
func writeZip(manifest []byte, members []member, mod time.Time) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	add := func(name string, data []byte) error {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store, Modified: mod})
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
	if err := add("manifest.xml", manifest); err != nil {
		return nil, err
	}
	for _, m := range members {
		if err := add(m.name, m.data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// packageRange is the id range of Resource Dump package p (1-based) of dataset i.
func (s *Source) packageRange(i, p int) (lo, hi int) {
	lo = (p-1)*s.opts.PackageSize + 1
	hi = min(p*s.opts.PackageSize, s.sets[i].initial)
	return lo, hi
}

// resourcePackage builds package p of the Resource Dump of dataset i: version 1
// of its resources, the state when the history began.
func (s *Source) resourcePackage(base string, i, p int) (*pkg, error) {
	pk, _, err := s.buildResourcePackage(base, i, p, false)
	return pk, err
}

// resourcePackageLength is the length of package p, computed without
// generating or hashing any resource: the manifest is written with zero
// digests (hex digests have a fixed size), and the ZIP layout is arithmetic.
func (s *Source) resourcePackageLength(base string, i, p int) (int64, error) {
	_, n, err := s.buildResourcePackage(base, i, p, true)
	return n, err
}

// Sizes of the ZIP structures archive/zip writes for a stored member with a
// modification time: local header, extended-timestamp extra field (in the local
// and the central header), data descriptor, central directory header; and the
// end of central directory record.
const (
	zipLocalHeader   = 30
	zipTimeExtra     = 9
	zipDescriptor    = 16
	zipCentralHeader = 46
	zipEnd           = 22
)

func zipMemberSize(name string, data int64) int64 {
	return zipLocalHeader + zipTimeExtra + zipDescriptor + zipCentralHeader + zipTimeExtra + 2*int64(len(name)) + data
}

// evilMember is the broken demo's member whose name climbs out of the package.
func evilMember() member {
	return member{"../../evil.txt", []byte("a member whose name climbs out of the extraction directory\n")}
}

func (s *Source) buildResourcePackage(base string, i, p int, sizeOnly bool) (*pkg, int64, error) {
	lo, hi := s.packageRange(i, p)
	ds := s.sets[i].num
	md := model.Metadata{Capability: model.CapResourceDumpManifest, At: dt(s.logStart), Completed: dt(s.logStart)}
	var man bytes.Buffer
	var count countingWriter
	var out io.Writer = &man
	if sizeOnly {
		out = &count
	}
	dw := s.newWriter(out, header(model.RootURLSet, md, s.upLink(base, i)))
	var members []member
	if !sizeOnly {
		members = make([]member, 0, hi-lo+2)
	}
	size := int64(zipEnd)
	b := entryBuf{sizeOnly: sizeOnly}
	for id := lo; id <= hi; id++ {
		s.fillResource(&b, base, ds, id, 1, s.baseLastmod(ds, id), nil, useManifest)
		name := "resources/" + string(b.path[len("/dataset1/res/"):])
		b.e.MD.Path, b.e.MD.HasPath = "/"+name, true
		if sizeOnly {
			size += zipMemberSize(name, b.e.MD.Length)
		} else {
			members = append(members, member{name, bytes.Clone(b.content)})
		}
		if s.opts.Broken && i == 0 && p == 1 && id == lo+1 {
			b.e.MD.Path = "/../../etc/passwd"
		}
		if err := dw.WriteEntry(&b.e); err != nil {
			return nil, 0, err
		}
	}
	if err := dw.Close(); err != nil {
		return nil, 0, err
	}
	if s.opts.Broken && i == 0 && p == 1 {
		evil := evilMember()
		members = append(members, evil)
		size += zipMemberSize(evil.name, int64(len(evil.data)))
	}
	if sizeOnly {
		return nil, size + zipMemberSize("manifest.xml", count.n), nil
	}
	z, err := writeZip(man.Bytes(), members, s.logStart)
	if err != nil {
		return nil, 0, err
	}
	pk := &pkg{zip: z, manifest: man.Bytes(), copy: man.Bytes()}
	if s.opts.Broken && i == 0 && p == 2 {
		// The copy behind the contents link differs from the manifest in the package.
		pk.copy = bytes.Replace(man.Bytes(), []byte(`length="`), []byte(`length="1`), 1)
	}
	return pk, int64(len(z)), nil
}

// countingWriter counts and drops what is written.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}

// resourceDump is the Resource Dump of dataset i (part 0), or part p of it when
// the packages need a Resource Dump Index.
func (s *Source) resourceDump(i, part int) doc {
	return doc{lastMod: s.logStart, ctype: xmlType, write: func(w io.Writer, base string) error {
		md := model.Metadata{Capability: model.CapResourceDump, At: dt(s.logStart), Completed: dt(s.logStart)}
		up := s.upLink(base, i)
		if s.opts.Broken && i == 1 {
			up.Href = base + s.sets[i].prefix() + "/capabilities.xml" // an up link to nowhere
		}
		links := []model.Link{up}
		first, last := 1, s.packages(i)
		if part > 0 {
			links = append(links, link("index", base+s.resourceDumpPath(i)))
			first = (part-1)*s.packagesPerDump() + 1
			last = min(last, part*s.packagesPerDump())
		}
		d := s.newWriter(w, header(model.RootURLSet, md, links...))
		for p := first; p <= last; p++ {
			var md model.Metadata
			var err error
			if part > 0 {
				// A dump large enough for an index: lengths without digests,
				// computed without generating the packages.
				md, err = s.packageLengthMD(sumKey{base, false, i, p})
			} else {
				md, err = s.packageMD(sumKey{base, false, i, p}, func() (*pkg, error) { return s.resourcePackage(base, i, p) })
			}
			if err != nil {
				return err
			}
			e := model.Entry{Loc: base + s.packagePath(i, p), Lastmod: dt(s.logStart), MD: md}
			e.MD.At, e.MD.Completed = dt(s.logStart), dt(s.logStart)
			e.Links = []model.Link{{Rel: "contents", Href: base + s.packageManifestPath(i, p), Type: xmlType}}
			if err := d.WriteEntry(&e); err != nil {
				return err
			}
		}
		return d.Close()
	}}
}

// resourceDumpIndex lists the parts of a Resource Dump with many packages.
func (s *Source) resourceDumpIndex(i int) doc {
	return doc{lastMod: s.logStart, ctype: xmlType, write: func(w io.Writer, base string) error {
		md := model.Metadata{Capability: model.CapResourceDump, At: dt(s.logStart), Completed: dt(s.logStart)}
		d := s.newWriter(w, header(model.RootSitemapIndex, md, s.upLink(base, i)))
		per := s.packagesPerDump()
		parts := (s.packages(i) + per - 1) / per
		for p := 1; p <= parts; p++ {
			e := model.Entry{Loc: base + s.resourceDumpPartPath(i, p)}
			e.MD = model.Metadata{Present: true, At: dt(s.logStart), Completed: dt(s.logStart)}
			if err := d.WriteEntry(&e); err != nil {
				return err
			}
		}
		return d.Close()
	}}
}

// Change Dump of dataset 1: package k (1-based) holds the changes of step k-1.

func (s *Source) changePackage(sn *snapshot, base string, i, k int) (*pkg, error) {
	step := k - 1
	from, until := s.stepStart(step), s.stepStart(step+1)
	md := model.Metadata{Capability: model.CapChangeDumpManifest, From: dt(from), Until: dt(until)}
	var man bytes.Buffer
	dw := s.newWriter(&man, header(model.RootURLSet, md, s.upLink(base, i)))
	changes := stepRange(sn.logs[i].changes, step, step+1)
	ds := s.sets[i].num
	var members []member
	var b entryBuf
	for j := range changes {
		c := &changes[j]
		s.fillResource(&b, base, ds, c.id, c.version, c.at, c, useManifest)
		if c.kind != model.ChangeDeleted {
			name := "changes/" + versionedName(b.path, c.version)
			b.e.MD.Path, b.e.MD.HasPath = "/"+name, true
			members = append(members, member{name, bytes.Clone(b.content)})
			for l := range b.e.Links {
				if model.HasRel(b.e.Links[l].Rel, model.RelPatch) {
					pname := "patches/" + versionedName(b.path, c.version) + "-patch"
					b.e.Links[l].Path, b.e.Links[l].HasPath = "/"+pname, true
					members = append(members, member{pname, s.patchContent(ds, c.id, c.version)})
				}
			}
		}
		if err := dw.WriteEntry(&b.e); err != nil {
			return nil, err
		}
	}
	if err := dw.Close(); err != nil {
		return nil, err
	}
	z, err := writeZip(man.Bytes(), members, until)
	if err != nil {
		return nil, err
	}
	return &pkg{zip: z, manifest: man.Bytes(), copy: man.Bytes()}, nil
}

// versionedName turns /dataset1/res/000123.json into 000123.v2.json.
func versionedName(path []byte, version int) string {
	name := path[bytes.LastIndexByte(path, '/')+1:]
	dot := bytes.IndexByte(name, '.')
	out := append([]byte(nil), name[:dot]...)
	out = append(out, ".v"...)
	out = strconv.AppendInt(out, int64(version), 10)
	return string(append(out, name[dot:]...))
}

// sumKey names a package as served to one Host.
type sumKey struct {
	base   string
	change bool // a Change Dump package, else a Resource Dump package
	i, k   int
}

// pkgSum is what a dump entry says about a package.
type pkgSum struct {
	length int64
	hashed bool // the digests were computed
	md5    [md5.Size]byte
	sha    [sha256.Size]byte
}

func (p pkgSum) md() model.Metadata {
	md := model.Metadata{Present: true, Type: "application/zip", Length: p.length, LengthOK: true}
	if p.hashed {
		md.Hash = model.HashList{{Alg: "md5", Digest: p.md5[:]}, {Alg: "sha-256", Digest: p.sha[:]}}
	}
	return md
}

// packageLengthMD returns the md (type and length, no hash) of a Resource Dump
// package without generating it, cached like packageMD.
func (s *Source) packageLengthMD(key sumKey) (model.Metadata, error) {
	s.mu.Lock()
	sum, ok := s.sums[key]
	s.mu.Unlock()
	if ok {
		return sum.md(), nil
	}
	n, err := s.resourcePackageLength(key.base, key.i, key.k)
	if err != nil {
		return model.Metadata{}, err
	}
	sum = pkgSum{length: n}
	s.remember(key, sum)
	return sum.md(), nil
}

func (s *Source) remember(key sumKey, sum pkgSum) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.sums) >= maxSums {
		clear(s.sums)
	}
	s.sums[key] = sum
}

// maxSums bounds the cache of package sums (a few hundred bytes each).
const maxSums = 1 << 16

// packageMD returns the md of a package, from the cache when it was computed
// before: a Resource Dump package never changes, nor does a Change Dump
// package once its step is over.
func (s *Source) packageMD(key sumKey, build func() (*pkg, error)) (model.Metadata, error) {
	s.mu.Lock()
	sum, ok := s.sums[key]
	s.mu.Unlock()
	if ok {
		return sum.md(), nil
	}
	pk, err := build()
	if err != nil {
		return model.Metadata{}, err
	}
	sum = pkgSum{length: int64(len(pk.zip)), hashed: true, md5: md5.Sum(pk.zip), sha: sha256.Sum256(pk.zip)}
	s.remember(key, sum)
	return sum.md(), nil
}

func (s *Source) changeDump(sn *snapshot, i int) doc {
	first := s.firstLiveDumpStep(sn, i)
	return doc{lastMod: sn.now, version: uint64(sn.steps), ctype: xmlType, write: func(w io.Writer, base string) error {
		md := model.Metadata{Capability: model.CapChangeDump, From: dt(s.stepStart(first))}
		d := s.newWriter(w, header(model.RootURLSet, md, append([]model.Link{s.upLink(base, i)}, s.changeDumpLinks(base, i)...)...))
		if err := s.writeChangePackages(d, sn, base, i, first, sn.steps); err != nil {
			return err
		}
		return d.Close()
	}}
}

// writeChangePackages writes the entries of the Change Dump packages of
// steps [from, until) of dataset i.
func (s *Source) writeChangePackages(d entryWriter, sn *snapshot, base string, i, from, until int) error {
	for k := from + 1; k <= until; k++ {
		md, err := s.packageMD(sumKey{base, true, i, k}, func() (*pkg, error) { return s.changePackage(sn, base, i, k) })
		if err != nil {
			return err
		}
		end := s.stepStart(k)
		e := model.Entry{Loc: base + s.changePackagePath(i, k), Lastmod: dt(end), MD: md}
		e.MD.From, e.MD.Until = dt(s.stepStart(k-1)), dt(end)
		e.Links = []model.Link{{Rel: "contents", Href: base + s.changeManifestPath(i, k), Type: xmlType}}
		if err := d.WriteEntry(&e); err != nil {
			return err
		}
	}
	return nil
}
