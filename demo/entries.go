package demo

import (
	"crypto/md5"
	"crypto/sha256"
	"strconv"
	"time"

	"rsx/model"
)

const (
	// profilePath describes the metadata format of the Dublin Core records. A
	// page of the demo rather than the namespace URI, so that every link of the
	// demo can be followed without leaving the loopback interface.
	profilePath = "/profiles/oai_dc.html"
)

// entryBuf is reused across the entries of one document so that filling an
// entry allocates only its strings. With sizeOnly set, no content is generated:
// the length is computed and the digests are zeros (of the right size, so the
// entry is written with the right length).
type entryBuf struct {
	e        model.Entry
	sizeOnly bool
	links    [12]model.Link
	hashes   [2]model.Hash
	md5      [md5.Size]byte
	sha      [sha256.Size]byte
	content  []byte
	path     []byte
}

// entryUse tells which document an entry is for: links and attributes differ.
type entryUse uint8

const (
	useResourceList entryUse = iota
	useChangeList
	useManifest // Resource Dump Manifest or Change Dump Manifest
)

// digest fills the hash list of b.e.MD from content.
func (b *entryBuf) digest(content []byte) model.HashList {
	b.md5 = md5.Sum(content)
	b.sha = sha256.Sum256(content)
	b.hashes[0] = model.Hash{Alg: "md5", Digest: b.md5[:]}
	b.hashes[1] = model.Hash{Alg: "sha-256", Digest: b.sha[:]}
	return b.hashes[:]
}

// linkBuf returns where the links of an entry are put.
func (b *entryBuf) linkBuf() []model.Link { return b.links[:0] }

// fillResource describes one version of a resource as an entry: loc, lastmod,
// rs:md with hash, length and type, and the links of section 14 that the
// resource has. For a change, c is not nil and the md carries change and
// datetime (and no hash, length or type for a deletion).
func (s *Source) fillResource(b *entryBuf, base string, ds, id, version int, lastmod time.Time, c *change, use entryUse) {
	b.path = s.appendResourcePath(b.path[:0], ds, id)
	path := string(b.path)
	k := s.kindOf(ds, id)
	e := &b.e
	*e = model.Entry{Loc: base + path, HasLoc: true}
	e.MD.Present = true
	if c != nil {
		e.MD.Change = c.kind
		e.MD.Datetime.Time = c.at
		if c.kind == model.ChangeDeleted {
			e.Links = b.linkBuf()
			return
		}
	}
	e.Lastmod.Time = lastmod
	if b.sizeOnly {
		b.md5, b.sha = [md5.Size]byte{}, [sha256.Size]byte{}
		b.hashes[0] = model.Hash{Alg: "md5", Digest: b.md5[:]}
		b.hashes[1] = model.Hash{Alg: "sha-256", Digest: b.sha[:]}
		e.MD.Hash = b.hashes[:]
		e.MD.Length, e.MD.LengthOK = int64(s.lengthOf(ds, id, version)), true
	} else {
		b.content = s.appendContent(b.content[:0], ds, id, version)
		e.MD.Hash = b.digest(b.content)
		e.MD.Length, e.MD.LengthOK = int64(len(b.content)), true
	}
	e.MD.Type = k.mediaType()
	links := b.linkBuf()
	add := func(l model.Link) { links = append(links, l) }

	if id%7 == 1 {
		add(model.Link{Rel: "duplicate", Href: base + "/mirror1" + path, Pri: 1, Modified: dt(lastmod)})
		add(model.Link{Rel: "duplicate", Href: base + "/mirror2" + path, Pri: 2, Modified: dt(lastmod)})
	}
	if ds == 1 && k == kindHTML && id%20 == 1 {
		add(model.Link{Rel: "canonical", Href: base + path[:len(path)-len(k.ext())], Modified: dt(lastmod)})
	}
	if ds == 1 && k == kindJSON && id%20 == 3 {
		add(model.Link{Rel: "alternate", Href: base + s.altPath(ds, id), Type: "text/html"})
	}
	if m := s.describedByOf(ds, id); m != 0 {
		add(model.Link{Rel: "describedby", Href: base + s.resourcePath(ds, m), Type: kindDC.mediaType()})
	}
	if r := s.describesOf(ds, id); r != 0 {
		add(model.Link{Rel: "describes", Href: base + s.resourcePath(ds, r), Type: kindJSON.mediaType()})
		add(model.Link{Rel: "profile", Href: base + profilePath})
	}
	if ds == 1 && k == kindHTML && id%10 == 4 {
		add(model.Link{Rel: "collection", Href: base + s.collectionPath(ds, id)})
	}
	if ds == 2 && id%4 == 2 {
		add(model.Link{Rel: "via", Href: base + "/origin/images/" + path[len("/dataset2/res/"):],
			Modified: dt(lastmod), Hash: e.MD.Hash, Length: e.MD.Length, LengthOK: true, Type: e.MD.Type})
	}
	if id%13 == 5 && use != useManifest {
		add(model.Link{Rel: "memento", Href: base + s.mementoPath(ds, id, version),
			Modified: dt(lastmod), Hash: e.MD.Hash, Length: e.MD.Length, LengthOK: true, Type: e.MD.Type})
		add(model.Link{Rel: "timegate", Href: base + "/timegate" + path})
		add(model.Link{Rel: "timemap", Href: base + "/timemap" + path, Type: "application/link-format"})
	}
	if use != useResourceList && c != nil && c.kind == model.ChangeUpdated && k == kindJSON {
		patch := s.patchContent(ds, id, version)
		pm, ps := md5.Sum(patch), sha256.Sum256(patch)
		add(model.Link{Rel: model.RelPatch, Href: base + s.patchPath(ds, id, version), Type: patchType,
			Hash:   model.HashList{{Alg: "md5", Digest: pm[:]}, {Alg: "sha-256", Digest: ps[:]}},
			Length: int64(len(patch)), LengthOK: true})
	}
	e.Links = links
}

func dt(t time.Time) model.Datetime { return model.Datetime{Time: t} }

// Paths of the related resources the links point at.

func (s *Source) altPath(ds, id int) string {
	b := append([]byte("/dataset"), byte('0'+ds))
	b = append(b, "/alt/"...)
	b = appendID(b, id)
	return string(append(b, ".html"...))
}

func (s *Source) collectionPath(ds, id int) string {
	return "/dataset" + strconv.Itoa(ds) + "/collections/" + strconv.Itoa(id/1000+1) + ".html"
}

func (s *Source) mementoPath(ds, id, version int) string {
	b := append([]byte("/dataset"), byte('0'+ds))
	b = append(b, "/versions/v"...)
	b = strconv.AppendInt(b, int64(version), 10)
	b = append(b, '/')
	b = appendID(b, id)
	return string(append(b, s.kindOf(ds, id).ext()...))
}

const patchType = "application/json-patch+json"

func (s *Source) patchPath(ds, id, version int) string {
	b := append([]byte("/dataset"), byte('0'+ds))
	b = append(b, "/patch/"...)
	b = appendID(b, id)
	b = append(b, ".v"...)
	b = strconv.AppendInt(b, int64(version), 10)
	return string(append(b, ".json-patch"...))
}

// patchContent is the JSON Patch (RFC 6902) that turns version-1 of a JSON
// record into version: every field that differs is replaced.
func (s *Source) patchContent(ds, id, version int) []byte {
	cur := s.appendContent(nil, ds, id, version)
	// The abstract is the filler between `"abstract":"` and the closing `"}`.
	const key = `"abstract":"`
	start := indexOf(cur, key) + len(key)
	text := cur[start : len(cur)-3]
	b := []byte(`[{"op":"replace","path":"/revision","value":`)
	b = strconv.AppendInt(b, int64(version), 10)
	b = append(b, `},{"op":"replace","path":"/abstract","value":"`...)
	b = append(b, text...)
	return append(b, "\"}]\n"...)
}

func indexOf(b []byte, sub string) int {
	for i := 0; i+len(sub) <= len(b); i++ {
		if string(b[i:i+len(sub)]) == sub {
			return i
		}
	}
	return 0
}
