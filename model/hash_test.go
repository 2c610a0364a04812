package model

import (
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"os"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

func TestParseHashList(t *testing.T) {
	const (
		md5Hex    = "1584abdf8ebdc9802ac0c6a7402c03b6"
		md5Hex2   = "1e0d5cb8ef6ba40c99b14c0237be735e"
		sha256Hex = "854f61290e2e197a11bc91063afce22e43f8ccc655237050ace766adc68dc784"
	)
	type tok struct {
		alg, algRaw, value string
		digest             string // hex, "" for nil
		enc                HashEncoding
	}
	tests := []struct {
		name    string
		in      string
		want    []tok
		errs    []string // substrings of the error, one per problem
		canonic string   // String() of the result
	}{
		{
			name:    "single md5",
			in:      "md5:" + md5Hex,
			want:    []tok{{"md5", "md5", md5Hex, md5Hex, HashHex}},
			canonic: "md5:" + md5Hex,
		},
		{
			name: "spec example 14, list over two lines",
			in:   "md5:" + md5Hex2 + " \n                   sha-256:" + sha256Hex,
			want: []tok{
				{"md5", "md5", md5Hex2, md5Hex2, HashHex},
				{"sha-256", "sha-256", sha256Hex, sha256Hex, HashHex},
			},
			canonic: "md5:" + md5Hex2 + " sha-256:" + sha256Hex,
		},
		{
			name:    "upper-case hex and algorithm",
			in:      "\tMD5:" + strings.ToUpper(md5Hex) + "\r\n",
			want:    []tok{{"md5", "MD5", strings.ToUpper(md5Hex), md5Hex, HashHex}},
			canonic: "md5:" + md5Hex,
		},
		{
			name:    "sha1 and sha256 spellings",
			in:      "sha1:da39a3ee5e6b4b0d3255bfef95601890afd80709 SHA256:" + sha256Hex,
			want:    []tok{{"sha-1", "sha1", "da39a3ee5e6b4b0d3255bfef95601890afd80709", "da39a3ee5e6b4b0d3255bfef95601890afd80709", HashHex}, {"sha-256", "SHA256", sha256Hex, sha256Hex, HashHex}},
			canonic: "sha-1:da39a3ee5e6b4b0d3255bfef95601890afd80709 sha-256:" + sha256Hex,
		},
		{
			name:    "base64 md5 from resync-client-ruby",
			in:      "md5:Yx8m6CqWBJjKT5VBggoWeQ==",
			want:    []tok{{"md5", "md5", "Yx8m6CqWBJjKT5VBggoWeQ==", "631f26e82a960498ca4f9541820a1679", HashBase64}},
			canonic: "md5:631f26e82a960498ca4f9541820a1679",
		},
		{
			name:    "base64 md5 unpadded",
			in:      "md5:Yx8m6CqWBJjKT5VBggoWeQ",
			want:    []tok{{"md5", "md5", "Yx8m6CqWBJjKT5VBggoWeQ", "631f26e82a960498ca4f9541820a1679", HashBase64}},
			canonic: "md5:631f26e82a960498ca4f9541820a1679",
		},
		{
			name:    "base64 url-safe md5",
			in:      "md5:yN__165PfjJ96yI5kvvRPA==",
			want:    []tok{{"md5", "md5", "yN__165PfjJ96yI5kvvRPA==", "c8dfffd7ae4f7e327deb223992fbd13c", HashBase64}},
			canonic: "md5:c8dfffd7ae4f7e327deb223992fbd13c",
		},
		{
			name:    "wrong-length hex",
			in:      "md5:1584abdf8ebdc9802ac0c6a7402c03",
			want:    []tok{{"md5", "md5", "1584abdf8ebdc9802ac0c6a7402c03", "", HashInvalid}},
			errs:    []string{`hash "md5:1584abdf8ebdc9802ac0c6a7402c03": md5 digest has 30 hex digits, expected 32`},
			canonic: "md5:1584abdf8ebdc9802ac0c6a7402c03",
		},
		{
			name: "sha-256 digest under md5",
			in:   "md5:" + sha256Hex,
			want: []tok{{"md5", "md5", sha256Hex, "", HashInvalid}},
			errs: []string{"md5 digest has 64 hex digits, expected 32"},
		},
		{
			name: "example 27 non-hex digests",
			in:   "sha-256:f4OxZX_x_DFGFDgghgdfb6rtSx-iosjf6735432nklj",
			want: []tok{{"sha-256", "sha-256", "f4OxZX_x_DFGFDgghgdfb6rtSx-iosjf6735432nklj", "", HashInvalid}},
			errs: []string{"digest is neither hex nor base64 of a 32-byte sha-256 digest"},
		},
		{
			name: "example 27 non-hex digest of 44 characters",
			in:   "sha-256:h986gT_t_87HTkjHYE76G558hY-jdfgy76t55sadJUYT",
			want: []tok{{"sha-256", "sha-256", "h986gT_t_87HTkjHYE76G558hY-jdfgy76t55sadJUYT", "", HashInvalid}},
			errs: []string{"digest is neither hex nor base64 of a 32-byte sha-256 digest"},
		},
		{
			name: "duplicated algorithm",
			in:   "md5:" + md5Hex + " MD5:" + md5Hex2,
			want: []tok{{"md5", "md5", md5Hex, md5Hex, HashHex}, {"md5", "MD5", md5Hex2, md5Hex2, HashHex}},
			errs: []string{"algorithm md5 given more than once"},
		},
		{
			name: "duplicated algorithm in two spellings",
			in:   "sha-1:da39a3ee5e6b4b0d3255bfef95601890afd80709 sha1:da39a3ee5e6b4b0d3255bfef95601890afd80709",
			want: []tok{{"sha-1", "sha-1", "da39a3ee5e6b4b0d3255bfef95601890afd80709", "da39a3ee5e6b4b0d3255bfef95601890afd80709", HashHex}, {"sha-1", "sha1", "da39a3ee5e6b4b0d3255bfef95601890afd80709", "da39a3ee5e6b4b0d3255bfef95601890afd80709", HashHex}},
			errs: []string{"algorithm sha-1 given more than once"},
		},
		{
			name:    "unknown algorithm with hex digest",
			in:      "CRC32:cbf43926",
			want:    []tok{{"crc32", "CRC32", "cbf43926", "cbf43926", HashHex}},
			canonic: "crc32:cbf43926",
		},
		{
			name: "unknown algorithm with non-hex digest",
			in:   "foo:xyz",
			want: []tok{{"foo", "foo", "xyz", "", HashInvalid}},
			errs: []string{`digest of unknown algorithm "foo" is not hex`},
		},
		{
			name: "missing algorithm and empty digest",
			in:   md5Hex + " :abc md5:",
			want: []tok{{"md5", "md5", "", "", HashInvalid}},
			errs: []string{"no algorithm", "no algorithm", "empty digest"},
		},
		{
			name: "empty",
			in:   " \n ",
			errs: []string{"no hash values"},
		},
		{
			name: "base64 with mixed alphabets",
			in:   "md5:yN_/165PfjJ96yI5kvvRPA==",
			want: []tok{{"md5", "md5", "yN_/165PfjJ96yI5kvvRPA==", "", HashInvalid}},
			errs: []string{"neither hex nor base64"},
		},
		{
			name: "base64 with non-canonical trailing bits",
			in:   "md5:Yx8m6CqWBJjKT5VBggoWeR==",
			want: []tok{{"md5", "md5", "Yx8m6CqWBJjKT5VBggoWeR==", "", HashInvalid}},
			errs: []string{"neither hex nor base64"},
		},
		{
			name: "base64 with bad padding",
			in:   "md5:Yx8m6CqWBJjKT5VBggoWeQ=",
			want: []tok{{"md5", "md5", "Yx8m6CqWBJjKT5VBggoWeQ=", "", HashInvalid}},
			errs: []string{"neither hex nor base64"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseHashList(tt.in)
			if len(got) != len(tt.want) {
				t.Fatalf("ParseHashList(%q) = %d tokens %+v, want %d", tt.in, len(got), got, len(tt.want))
			}
			for i, w := range tt.want {
				g := got[i]
				if g.Alg != w.alg || g.AlgRaw != w.algRaw || g.Value != w.value || g.Encoding != w.enc || hex.EncodeToString(g.Digest) != w.digest {
					t.Errorf("token %d = {%q %q %q %x %d}, want %+v", i, g.Alg, g.AlgRaw, g.Value, g.Digest, g.Encoding, w)
				}
				if (g.Digest == nil) != (w.digest == "") {
					t.Errorf("token %d: Digest nil = %v", i, g.Digest == nil)
				}
				if g.Hex() != w.digest {
					t.Errorf("token %d: Hex() = %q", i, g.Hex())
				}
			}
			if len(tt.errs) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
			} else {
				var le *HashListError
				if !errors.As(err, &le) {
					t.Fatalf("error %v (%T) is not a *HashListError", err, err)
				}
				if len(le.Problems) != len(tt.errs) {
					t.Errorf("problems = %v, want %d", err, len(tt.errs))
				}
				for i, want := range tt.errs {
					if i < len(le.Problems) && !strings.Contains(le.Problems[i].Error(), want) {
						t.Errorf("problem %d = %q, want it to contain %q", i, le.Problems[i], want)
					}
				}
				var he *HashError
				if !errors.As(err, &he) {
					t.Errorf("errors.As(*HashError) fails on %v", err)
				}
			}
			if tt.canonic != "" {
				if s := got.String(); s != tt.canonic {
					t.Errorf("String() = %q, want %q", s, tt.canonic)
				}
				again, err := ParseHashList(got.String())
				if (err != nil && len(tt.errs) == 0) || again.String() != got.String() {
					t.Errorf("String→Parse: %q, %v", again.String(), err)
				}
			}
		})
	}
}

// Every real-world base64 md5 digest decodes to 16 bytes and none of the hex
// digests of the spec examples is misread.
func TestParseHashListConformance(t *testing.T) {
	re := regexp.MustCompile(`hash="([^"]*)"`)
	var n, b64, invalid int
	for _, path := range decThirdPartyFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(data), -1) {
			list, err := ParseHashList(m[1])
			n++
			ex27 := strings.HasSuffix(path, "resourcesync_ex_27.xml")
			if err != nil && !ex27 {
				t.Errorf("%s: %q: %v", path, m[1], err)
			}
			for _, h := range list {
				switch h.Encoding {
				case HashBase64:
					b64++
					if !strings.Contains(path, "real-world") && !ex27 {
						t.Errorf("%s: %q read as base64", path, h.Value)
					}
				case HashInvalid:
					invalid++
				}
				if h.Digest != nil && len(h.Digest) != HashSize(h.Alg) {
					t.Errorf("%s: %q decoded to %d bytes", path, h.Value, len(h.Digest))
				}
			}
		}
	}
	if b64 == 0 {
		t.Error("no base64 digest found: the real-world documents are not read")
	}
	if n == 0 {
		t.Fatal("no hash attributes found")
	}
	t.Logf("%d hash attributes, %d base64 digests, %d invalid", n, b64, invalid)
}

// Example 27's digests are placeholders, not hex. Three of the four are not
// canonical base64 either; the fourth happens to be valid unpadded URL-safe base64
// of exactly 32 bytes, which is indistinguishable from a real base64url sha-256
// digest: it is read as base64 (and the checker flags base64 as non-hex).
func TestParseHashListExample27(t *testing.T) {
	for _, s := range []string{
		"sha-256:f4OxZX_x_DFGFDgghgdfb6rtSx-iosjf6735432nklj",
		"sha-256:y66dER_t_HWEIKpesdkeb7rtSc-ippjf9823742opld",
		"sha-256:h986gT_t_87HTkjHYE76G558hY-jdfgy76t55sadJUYT",
	} {
		list, err := ParseHashList(s)
		if err == nil || len(list) != 1 || list[0].Encoding != HashInvalid || list[0].Digest != nil {
			t.Errorf("ParseHashList(%q) = %+v, %v; want HashInvalid and an error", s, list, err)
		}
	}
	list, err := ParseHashList("sha-256:f4OxZX_x_FO5LcGBSKHWXfwtSx-j1ncoSt3SABJtkGk")
	if err != nil || list[0].Encoding != HashBase64 || len(list[0].Digest) != 32 {
		t.Errorf("canonical base64url sha-256 = %+v, %v", list, err)
	}
}

// Lists longer than the inline storage: five algorithms, one repeated.
func TestParseHashListLong(t *testing.T) {
	content := []byte("abc")
	var parts []string
	for _, alg := range []string{"md5", "sha-1", "sha-256", "sha-384", "sha-512", "SHA512"} {
		d, _ := Digest(alg, bytes.NewReader(content))
		parts = append(parts, alg+":"+hex.EncodeToString(d))
	}
	list, err := ParseHashList(strings.Join(parts, "\n\t"))
	if len(list) != 6 {
		t.Fatalf("%d hashes", len(list))
	}
	var le *HashListError
	if !errors.As(err, &le) || len(le.Problems) != 1 || !strings.Contains(err.Error(), "sha-512 given more than once") {
		t.Errorf("error = %v", err)
	}
	for i, h := range list {
		if h.Encoding != HashHex || len(h.Digest) != HashSize(h.Alg) || h.String() != strings.ToLower(strings.Replace(parts[i], "SHA512", "sha-512", 1)) {
			t.Errorf("hash %d = %+v", i, h)
		}
	}
	v := NewVerifier(list)
	v.Write(content)
	if !v.OK() || len(v.hashers) != 5 {
		t.Errorf("verifier: %+v", v.Results())
	}
}

func TestHashListGet(t *testing.T) {
	list, _ := ParseHashList("md5:1584abdf8ebdc9802ac0c6a7402c03b6 sha256:854f61290e2e197a11bc91063afce22e43f8ccc655237050ace766adc68dc784")
	for _, alg := range []string{"sha-256", "SHA-256", "sha256"} {
		if h, ok := list.Get(alg); !ok || h.AlgRaw != "sha256" {
			t.Errorf("Get(%q) = %+v, %v", alg, h, ok)
		}
	}
	if _, ok := list.Get("sha-1"); ok {
		t.Error("Get(sha-1) found a hash")
	}
	if h, ok := list.Get("md5"); !ok || h.Hex() != "1584abdf8ebdc9802ac0c6a7402c03b6" {
		t.Errorf("Get(md5) = %+v, %v", h, ok)
	}
}

func TestHashAlgorithms(t *testing.T) {
	for _, tt := range []struct {
		in, norm  string
		supported bool
		size      int
	}{
		{"md5", "md5", true, 16}, {"MD5", "md5", true, 16},
		{"sha-1", "sha-1", true, 20}, {"sha1", "sha-1", true, 20},
		{"sha-256", "sha-256", true, 32}, {"SHA256", "sha-256", true, 32},
		{"sha-384", "sha-384", true, 48}, {"sha384", "sha-384", true, 48},
		{"sha-512", "sha-512", true, 64}, {"sha512", "sha-512", true, 64},
		{"sha-224", "sha-224", false, 0}, {"CRC32", "crc32", false, 0}, {"", "", false, 0},
	} {
		if got := NormalizeHashAlg(tt.in); got != tt.norm {
			t.Errorf("NormalizeHashAlg(%q) = %q, want %q", tt.in, got, tt.norm)
		}
		if SupportedHash(tt.in) != tt.supported || HashSize(tt.in) != tt.size {
			t.Errorf("%q: supported %v size %d", tt.in, SupportedHash(tt.in), HashSize(tt.in))
		}
	}
}

func TestVerifier(t *testing.T) {
	content := []byte("Hello ResourceSync\n")
	m := md5.Sum(content)
	s := sha256.Sum256(content)
	md5Hex, sha256Hex := hex.EncodeToString(m[:]), hex.EncodeToString(s[:])
	md5B64 := base64.StdEncoding.EncodeToString(m[:])

	t.Run("all match in one pass", func(t *testing.T) {
		list, err := ParseHashList("md5:" + md5B64 + " sha-256:" + strings.ToUpper(sha256Hex) + " crc32:cbf43926")
		if err != nil {
			t.Fatal(err)
		}
		v := NewVerifier(list)
		// Written in pieces, as a download would.
		v.Write(content[:5])
		v.Write(content[5:])
		if v.Bytes() != int64(len(content)) {
			t.Errorf("Bytes = %d", v.Bytes())
		}
		res := v.Results()
		want := []HashResult{
			{Alg: "md5", Expected: md5B64, Actual: md5Hex, Match: true, Supported: true, Base64: true},
			{Alg: "sha-256", Expected: strings.ToUpper(sha256Hex), Actual: sha256Hex, Match: true, Supported: true},
			{Alg: "crc32", Expected: "cbf43926"},
		}
		if len(res) != len(want) {
			t.Fatalf("Results = %+v", res)
		}
		for i := range want {
			if res[i] != want[i] {
				t.Errorf("result %d = %+v, want %+v", i, res[i], want[i])
			}
		}
		if !v.OK() {
			t.Error("OK = false")
		}
	})
	t.Run("mismatch", func(t *testing.T) {
		list, _ := ParseHashList("md5:" + md5Hex + " sha-256:" + strings.Repeat("0", 64))
		v := NewVerifier(list)
		v.Write(content)
		res := v.Results()
		if !res[0].Match || res[1].Match || res[1].Actual != sha256Hex || v.OK() {
			t.Errorf("Results = %+v, OK = %v", res, v.OK())
		}
	})
	t.Run("nothing supported", func(t *testing.T) {
		list, _ := ParseHashList("crc32:cbf43926")
		v := NewVerifier(list)
		v.Write(content)
		if v.OK() {
			t.Error("OK with no supported algorithm")
		}
		if v := NewVerifier(nil); v.OK() || len(v.Results()) != 0 {
			t.Error("empty verifier")
		}
	})
	t.Run("invalid digest of a supported algorithm", func(t *testing.T) {
		list, _ := ParseHashList("md5:xyz")
		v := NewVerifier(list)
		v.Write(content)
		if r := v.Results()[0]; !r.Supported || r.Match || r.Actual != md5Hex || v.OK() {
			t.Errorf("Results = %+v", r)
		}
	})
	t.Run("duplicated algorithm computed once", func(t *testing.T) {
		list, _ := ParseHashList("md5:" + md5Hex + " MD5:" + md5B64)
		v := NewVerifier(list)
		if len(v.hashers) != 1 {
			t.Errorf("%d hashers", len(v.hashers))
		}
		v.Write(content)
		if !v.OK() {
			t.Errorf("Results = %+v", v.Results())
		}
	})
}

func TestDigest(t *testing.T) {
	d, err := Digest("SHA256", strings.NewReader("abc"))
	if err != nil || hex.EncodeToString(d) != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("Digest = %x, %v", d, err)
	}
	for _, alg := range []string{"md5", "sha-1", "sha-384", "sha-512"} {
		d, err := Digest(alg, bytes.NewReader(nil))
		if err != nil || len(d) != HashSize(alg) {
			t.Errorf("Digest(%s) = %x, %v", alg, d, err)
		}
	}
	if _, err := Digest("crc32", strings.NewReader("abc")); err == nil {
		t.Error("Digest(crc32) did not fail")
	}
	if _, err := Digest("md5", errReader{}); err == nil {
		t.Error("Digest did not report the read error")
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("boom") }

func TestParseHashListAllocs(t *testing.T) {
	in := "md5:1e0d5cb8ef6ba40c99b14c0237be735e sha-256:854f61290e2e197a11bc91063afce22e43f8ccc655237050ace766adc68dc784"
	allocs := testing.AllocsPerRun(100, func() { ParseHashList(in) })
	if allocs > 1 {
		t.Errorf("ParseHashList allocates %.0f times, want 1 (list and digests together)", allocs)
	}
}

func BenchmarkParseHashList(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		ParseHashList("md5:1584abdf8ebdc9802ac0c6a7402c03b6")
		ParseHashList("md5:Yx8m6CqWBJjKT5VBggoWeQ==")
	}
}

func BenchmarkVerifier(b *testing.B) {
	list, _ := ParseHashList("md5:1584abdf8ebdc9802ac0c6a7402c03b6 sha-256:854f61290e2e197a11bc91063afce22e43f8ccc655237050ace766adc68dc784")
	data := make([]byte, 1<<20)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		v := NewVerifier(list)
		v.Write(data)
		v.Results()
	}
}

// TestDecodeHex8 compares decodeHex8 with encoding/hex for every byte at every
// position of a valid digit run, and for random runs.
func TestDecodeHex8(t *testing.T) {
	check := func(s string) {
		t.Helper()
		want, err := hex.DecodeString(s)
		got, ok := decodeHex8(s)
		if ok != (err == nil) || ok && binary.LittleEndian.Uint32(want) != got {
			t.Fatalf("%q: %08x, %v; encoding/hex: %x, %v", s, got, ok, want, err)
		}
	}
	base := []byte("09afAF7c")
	for pos := range base {
		for c := 0; c < 256; c++ {
			b := bytes.Clone(base)
			b[pos] = byte(c)
			check(string(b))
		}
	}
	rnd := rand.New(rand.NewPCG(3, 4))
	const alphabet = "0123456789abcdefABCDEFgG/:@`\x00\xff"
	for range 200000 {
		var b [8]byte
		for i := range b {
			b[i] = alphabet[rnd.IntN(len(alphabet))]
		}
		check(string(b[:]))
	}
}

// TestParallelVerifier: one goroutine per algorithm gives the sequential
// Verifier's results, for writes of any size, before and after Close.
func TestParallelVerifier(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	data := make([]byte, 1<<20+777)
	for i := range data {
		data[i] = byte(rnd.IntN(256))
	}
	sum := func(v *Verifier) []HashResult {
		for rest := data; len(rest) > 0; {
			n := min(len(rest), 1+rnd.IntN(200000))
			v.Write(rest[:n])
			rest = rest[n:]
		}
		return v.Results()
	}
	list, err := ParseHashList("md5:" + strings.Repeat("0", 32) + " sha-256:" + strings.Repeat("0", 64) + " sha-1:" + strings.Repeat("0", 40))
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	want := sum(NewVerifier(list))
	pv := NewParallelVerifier(list)
	got := sum(pv)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("parallel %+v\nwant %+v", got, want)
	}
	pv.Write(data[:10]) // more after Results
	pv.Close()
	again := pv.Results()
	seq := NewVerifier(list)
	seq.Write(data)
	seq.Write(data[:10])
	if !reflect.DeepEqual(again, seq.Results()) || pv.Bytes() != int64(len(data)+10) {
		t.Fatalf("after Close: %+v", again)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after Close, %d before", n, before)
	}
}
