package demo

import (
	"encoding/binary"
	"hash/adler32"
	"hash/crc32"
	"strconv"
	"time"
)

// datasetInfo is one set of resources with its own Capability List.
type datasetInfo struct {
	num     int    // 1 or 2: the URL path is /dataset<num>/
	name    string // "articles" or "images"
	initial int    // resources at the start of the history (ids 1..initial)
}

func (d *datasetInfo) prefix() string { return "/dataset" + strconv.Itoa(d.num) }

// kind is a resource's media type, fixed by its dataset and id.
type kind uint8

const (
	kindHTML kind = iota
	kindText
	kindJSON
	kindDC // Dublin Core record describing the JSON record id-1
	kindPNG
	kindSVG
)

func (k kind) ext() string {
	switch k {
	case kindHTML:
		return ".html"
	case kindText:
		return ".txt"
	case kindJSON:
		return ".json"
	case kindDC:
		return ".xml"
	case kindPNG:
		return ".png"
	default:
		return ".svg"
	}
}

func (k kind) mediaType() string {
	switch k {
	case kindHTML:
		return "text/html"
	case kindText:
		return "text/plain"
	case kindJSON:
		return "application/json"
	case kindDC:
		return "application/xml"
	case kindPNG:
		return "image/png"
	default:
		return "image/svg+xml"
	}
}

// lengthRange is the smallest length of a kind and the spread above it. The
// smallest length is larger than the content without filler for any id below
// 10^12, so every length is reached exactly by padding.
func (k kind) lengthRange() (min, spread int) {
	switch k {
	case kindHTML:
		return 460, 800
	case kindText:
		return 200, 600
	case kindJSON:
		return 260, 600
	case kindDC:
		return 520, 400
	case kindPNG:
		return 320, 700
	default:
		return 380, 500
	}
}

// kindOf gives the kind of a resource. In dataset 1, ids ending in 9 are JSON
// records described by the Dublin Core record with the next id (ending in 0);
// the pairs exist only among the initial resources.
func (s *Source) kindOf(ds, id int) kind {
	if ds == 2 {
		if id%3 == 0 {
			return kindSVG
		}
		return kindPNG
	}
	switch id % 10 {
	case 1, 4, 7:
		return kindHTML
	case 2, 5, 8:
		return kindText
	case 0:
		if id <= s.sets[0].initial {
			return kindDC
		}
		return kindText
	default:
		return kindJSON
	}
}

// describedByOf returns the id of the metadata record about a JSON record, 0 when none.
func (s *Source) describedByOf(ds, id int) int {
	if ds == 1 && id%10 == 9 && id+1 <= s.sets[0].initial {
		return id + 1
	}
	return 0
}

// describesOf returns the id of the record a metadata record describes, 0 when none.
func (s *Source) describesOf(ds, id int) int {
	if ds == 1 && id%10 == 0 && id <= s.sets[0].initial {
		return id - 1
	}
	return 0
}

// Salts that keep the pseudo-random streams apart.
const (
	saltLength uint64 = iota + 1
	saltFiller
	saltLastmod
	saltColour
	saltStep
	saltFault
)

// mix hashes the seed and three values into 64 well-mixed bits (splitmix64 finaliser).
func mix(seed int64, a, b, c uint64) uint64 {
	x := uint64(seed)
	for _, v := range [3]uint64{a, b, c} {
		x += 0x9E3779B97F4A7C15 ^ v
		x ^= x >> 30
		x *= 0xBF58476D1CE4E5B9
		x ^= x >> 27
		x *= 0x94D049BB133111EB
		x ^= x >> 31
	}
	return x
}

// lengthOf is the exact length in bytes of a version of a resource.
func (s *Source) lengthOf(ds, id, version int) int {
	k := s.kindOf(ds, id)
	min, spread := k.lengthRange()
	return min + int(mix(s.opts.Seed, uint64(ds)<<56|saltLength, uint64(id), uint64(version))%uint64(spread))
}

// baseLastmod is the last modification of version 1 of an initial resource: up
// to a year before the history begins.
func (s *Source) baseLastmod(ds, id int) time.Time {
	r := mix(s.opts.Seed, uint64(ds)<<56|saltLastmod, uint64(id), 0)
	return s.logStart.Add(-time.Hour - time.Duration(r%(365*24*3600))*time.Second)
}

// resourcePath is the path of a resource at the Source, e.g. /dataset1/res/000042.json.
func (s *Source) resourcePath(ds, id int) string {
	var b [48]byte
	return string(s.appendResourcePath(b[:0], ds, id))
}

func (s *Source) appendResourcePath(b []byte, ds, id int) []byte {
	b = append(b, "/dataset"...)
	b = strconv.AppendInt(b, int64(ds), 10)
	b = append(b, "/res/"...)
	b = appendID(b, id)
	return append(b, s.kindOf(ds, id).ext()...)
}

// appendID writes an id with at least six digits.
func appendID(b []byte, id int) []byte {
	var d [20]byte
	n := len(strconv.AppendInt(d[:0], int64(id), 10))
	for ; n < 6; n++ {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, int64(id), 10)
}

// filler is the text that pads content to its exact length.
const filler = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor " +
	"incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud " +
	"exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat. Duis aute irure " +
	"dolor in reprehenderit in voluptate velit esse cillum dolore eu fugiat nulla pariatur. " +
	"Excepteur sint occaecat cupidatat non proident, sunt in culpa qui officia deserunt " +
	"mollit anim id est laborum. Synchronisation keeps a Destination in step with a Source. "

func appendFiller(b []byte, n int, r uint64) []byte {
	off := int(r % uint64(len(filler)))
	for n > 0 {
		chunk := filler[off:]
		if len(chunk) > n {
			chunk = chunk[:n]
		}
		b = append(b, chunk...)
		n -= len(chunk)
		off = 0
	}
	return b
}

// appendContent appends the bytes of a version of a resource. Version 0 is
// never published: the stale mirror of the broken demo serves it for version 1.
func (s *Source) appendContent(b []byte, ds, id, version int) []byte {
	k := s.kindOf(ds, id)
	total := s.lengthOf(ds, id, version)
	start := len(b)
	r := mix(s.opts.Seed, uint64(ds)<<56|saltFiller, uint64(id), uint64(version))
	// Each kind is prefix + filler + suffix; the suffix is built first at the end
	// of b, then moved after the filler.
	switch k {
	case kindPNG:
		return s.appendPNG(b, ds, id, version, total, r)
	case kindHTML:
		b = append(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Article "...)
		b = appendID(b, id)
		b = append(b, " (revision "...)
		b = strconv.AppendInt(b, int64(version), 10)
		b = append(b, ")</title>\n<link rel=\"resourcesync\" href=\"/dataset1/capabilitylist.xml\">\n</head>\n<body>\n<h1>Article "...)
		b = appendID(b, id)
		b = append(b, "</h1>\n<p>"...)
		return padTo(b, start, total, r, "</p>\n</body>\n</html>\n")
	case kindText:
		b = append(b, "Note "...)
		b = appendID(b, id)
		b = append(b, ", revision "...)
		b = strconv.AppendInt(b, int64(version), 10)
		b = append(b, "\n\n"...)
		return padTo(b, start, total, r, "\n")
	case kindJSON:
		b = append(b, `{"id":"`...)
		b = appendID(b, id)
		b = append(b, `","title":"Record `...)
		b = appendID(b, id)
		b = append(b, `","revision":`...)
		b = strconv.AppendInt(b, int64(version), 10)
		b = append(b, `,"abstract":"`...)
		return padTo(b, start, total, r, "\"}\n")
	case kindDC:
		b = append(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<oai_dc:dc xmlns:oai_dc=\"http://www.openarchives.org/OAI/2.0/oai_dc/\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\">\n<dc:identifier>"...)
		b = s.appendResourcePath(b, ds, id-1)
		b = append(b, "</dc:identifier>\n<dc:title>Record "...)
		b = appendID(b, id-1)
		b = append(b, " (metadata revision "...)
		b = strconv.AppendInt(b, int64(version), 10)
		b = append(b, ")</dc:title>\n<dc:description>"...)
		return padTo(b, start, total, r, "</dc:description>\n</oai_dc:dc>\n")
	default: // kindSVG
		c1, c2 := mix(s.opts.Seed, saltColour, uint64(id), uint64(version)), r>>8
		b = append(b, `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64" fill="#`...)
		b = appendHex6(b, c1)
		b = append(b, `"/><circle cx="32" cy="32" r="`...)
		b = strconv.AppendInt(b, int64(8+c2%20), 10)
		b = append(b, `" fill="#`...)
		b = appendHex6(b, c2>>8)
		b = append(b, `"/><desc>Image `...)
		b = appendID(b, id)
		b = append(b, ", revision "...)
		b = strconv.AppendInt(b, int64(version), 10)
		b = append(b, ". "...)
		return padTo(b, start, total, r, "</desc></svg>\n")
	}
}

// padTo completes content begun at b[start:] with filler and suffix so that it is
// exactly total bytes long (longer only if the prefix and suffix alone are).
func padTo(b []byte, start, total int, r uint64, suffix string) []byte {
	n := total - (len(b) - start) - len(suffix)
	if n > 0 {
		b = appendFiller(b, n, r)
	}
	return append(b, suffix...)
}

func appendHex6(b []byte, v uint64) []byte {
	const digits = "0123456789abcdef"
	for i := 20; i >= 0; i -= 4 {
		b = append(b, digits[(v>>uint(i))&0xf])
	}
	return b
}

// appendPNG writes an 8×8 RGB PNG: IHDR, one IDAT holding a stored (uncompressed)
// zlib block, a tEXt chunk that pads to the exact length, IEND.
func (s *Source) appendPNG(b []byte, ds, id, version, total int, r uint64) []byte {
	const fixed = 8 + (12 + 13) + (12 + 2 + 5 + 200 + 4) + (12 + 8) + 12
	b = append(b, 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n')
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], 8)
	binary.BigEndian.PutUint32(ihdr[4:], 8)
	ihdr[8], ihdr[9] = 8, 2 // 8-bit RGB
	b = appendChunk(b, "IHDR", ihdr[:])

	var raw [200]byte
	c1 := mix(s.opts.Seed, saltColour, uint64(id), uint64(version))
	c2 := r
	for y := 0; y < 8; y++ {
		row := raw[y*25:]
		row[0] = 0
		for x := 0; x < 8; x++ {
			c := c1
			if (x+y)%4 < 2 {
				c = c2
			}
			row[1+x*3], row[2+x*3], row[3+x*3] = byte(c), byte(c>>8)+byte(x*16), byte(c>>16)+byte(y*16)
		}
	}
	var idat [2 + 5 + 200 + 4]byte
	idat[0], idat[1] = 0x78, 0x01
	idat[2] = 1 // final stored block
	binary.LittleEndian.PutUint16(idat[3:], 200)
	binary.LittleEndian.PutUint16(idat[5:], ^uint16(200))
	copy(idat[7:], raw[:])
	binary.BigEndian.PutUint32(idat[207:], adler32.Checksum(raw[:]))
	b = appendChunk(b, "IDAT", idat[:])

	n := total - fixed
	if n < 0 {
		n = 0
	}
	text := make([]byte, 0, 8+n)
	text = append(text, "Comment\x00"...)
	text = appendFiller(text, n, r)
	b = appendChunk(b, "tEXt", text)
	return appendChunk(b, "IEND", nil)
}

func appendChunk(b []byte, typ string, data []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(data)))
	start := len(b)
	b = append(b, typ...)
	b = append(b, data...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:]))
}
