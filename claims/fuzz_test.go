package claims

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"net/http"
	"strconv"
	"testing"

	"rsx/model"
)

// FuzzCompare feeds Compare claims and responses parsed from arbitrary
// text: it must never panic, must give one check per field and per declared
// digest, and must give an Unchecked field a reason.
func FuzzCompare(f *testing.F) {
	f.Add("42", "text/html", "2013-01-02T13:00:00Z", "md5:648fb1d2291b94af3fb40d17f398dd91", 200, "text/html; charset=utf-8", "42", "Wed, 02 Jan 2013 13:00:00 GMT", "", []byte(testBody))
	f.Add("ten", "TEXT/HTML;", "2013-13", "sha3-256:ab md5:zz", 404, "", "", "yesterday", "gzip", []byte{})
	f.Add("", "", "", "", 0, ";;;", "-1", "", "identity", []byte("x"))
	f.Add("18446744073709551616", "a/b; c=\"", "2013", "sha-256:AAAA==", 301, "a/b", "18446744073709551616", "Mon, 02 Jan 2006 15:04:05 MST", "br", []byte("abc"))
	f.Fuzz(func(t *testing.T, length, typ, lastmod, hash string, status int, ct, cl, lm, ce string, body []byte) {
		c := Claims{Type: typ, LengthRaw: length}
		if n, err := strconv.ParseInt(length, 10, 64); err == nil && n >= 0 {
			c.Length, c.LengthOK = n, true
		}
		if lastmod != "" {
			c.Lastmod, _ = model.ParseDatetime(lastmod)
			c.Lastmod.Raw = lastmod
		}
		if hash != "" {
			c.Hash, _ = model.ParseHashList(hash)
		}
		h := http.Header{}
		for k, v := range map[string]string{"Content-Type": ct, "Content-Length": cl, "Last-Modified": lm, "Content-Encoding": ce} {
			if v != "" {
				h.Set(k, v)
			}
		}
		v := NewVerifier(c, Limits{Margin: 16})
		_, werr := v.Write(body)
		r := Received{Status: status, Header: h, Bytes: v.Bytes(), Digests: v.Digests(), Truncated: v.Truncated(), Limit: v.Limit(), Err: werr}
		checks := Compare(c, r)
		if want := 4 + max(len(c.Hash), 1); len(checks) != want {
			t.Fatalf("%d checks, want %d", len(checks), want)
		}
		for _, ck := range checks {
			if ck.Verdict > Unchecked {
				t.Fatalf("verdict %d", ck.Verdict)
			}
			if ck.Verdict == Unchecked && ck.Reason == "" {
				t.Fatalf("%s unchecked without a reason: %+v", ck.Field, ck)
			}
		}
		if ty := checks[2]; typ != "" && is2xx(status) && ct != "" && (ty.Verdict == OK) != (MediaType(ct) == MediaType(typ)) {
			t.Fatalf("type %q against %q: %+v", typ, ct, ty)
		}
		res := Result{Target: Target{Claims: c}, Checks: checks}
		if res.NothingChecked() != (res.Explain() != "") {
			t.Fatalf("NothingChecked %v, Explain %q", res.NothingChecked(), res.Explain())
		}
	})
}

// FuzzVerifier: claims made from a body hold for that body and for no
// other body of the same length.
func FuzzVerifier(f *testing.F) {
	f.Add([]byte(testBody), 3)
	f.Add([]byte{}, 0)
	f.Add([]byte{0, 1, 2}, 7)
	f.Fuzz(func(t *testing.T, body []byte, flip int) {
		sum := md5.Sum(body)
		hl, err := model.ParseHashList("md5:" + hex.EncodeToString(sum[:]))
		if err != nil {
			t.Fatal(err)
		}
		c := Claims{Hash: hl, Length: int64(len(body)), LengthRaw: strconv.Itoa(len(body)), LengthOK: true}
		v := NewVerifier(c, Limits{})
		var out bytes.Buffer
		if _, err := v.Writer(&out).Write(body); err != nil {
			t.Fatalf("write: %v", err)
		}
		if err := v.Verify(); err != nil || !bytes.Equal(out.Bytes(), body) {
			t.Fatalf("the body's own claims: %v", err)
		}
		if len(body) == 0 {
			return
		}
		other := bytes.Clone(body)
		other[(flip%len(other)+len(other))%len(other)] ^= 0x80
		v = NewVerifier(c, Limits{})
		_, _ = v.Reader(bytes.NewReader(other)).Read(make([]byte, len(other)+1))
		if v.Bytes() == int64(len(other)) && v.Verify() == nil {
			t.Fatal("a changed body verified")
		}
	})
}
