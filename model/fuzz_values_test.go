package model

import (
	"testing"
	"time"
)

func FuzzParseDatetime(f *testing.F) {
	for _, s := range []string{
		"2013", "2013-07", "2013-07-16", "2013-07-16T19:20Z", "2013-01-03T09:00:00+01:00",
		"2015-06-04T08:12:45.297844Z", "2016-12-31T23:59:60Z", "2013-01-03T09:00:00-08:00",
		"2013-02-29", "2013-13", "2013-01-03T09:00:00", "0000-01-01T00:00:00+14:00",
		"9999-12-31T23:59:59.9999999999-14:00", "2013-01-03T09:00.5Z", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDatetime(s)
		if (err == nil) != d.OK {
			t.Fatalf("ParseDatetime(%q): OK=%v err=%v", s, d.OK, err)
		}
		if d.Raw != trimASCIISpace(s) {
			t.Fatalf("ParseDatetime(%q).Raw = %q", s, d.Raw)
		}
		if !d.OK {
			return
		}
		if d.Precision == PrecisionNone || d.Time.Location() != time.UTC {
			t.Fatalf("ParseDatetime(%q) = %+v", s, d)
		}
		if (d.Precision > PrecisionDay) != d.HasZone {
			t.Fatalf("ParseDatetime(%q): precision %d with HasZone %v", s, d.Precision, d.HasZone)
		}
		f := d.Format()
		again, err := ParseDatetime(f)
		if err != nil {
			t.Fatalf("Format(%q) = %q does not parse: %v", s, f, err)
		}
		if !again.Time.Equal(d.Time) || again.Compare(d) != 0 {
			t.Fatalf("Format(%q) = %q parses to %v, want %v", s, f, again.Time, d.Time)
		}
		if d.Precision > PrecisionDay {
			w, err := ParseDatetime(FormatDatetime(d.Time))
			if err != nil || !w.Time.Equal(d.Time) {
				t.Fatalf("FormatDatetime(%v) = %q: %v", d.Time, FormatDatetime(d.Time), err)
			}
		}
	})
}

func FuzzParseHashList(f *testing.F) {
	for _, s := range []string{
		"md5:1584abdf8ebdc9802ac0c6a7402c03b6",
		"md5:1e0d5cb8ef6ba40c99b14c0237be735e \n   sha-256:854f61290e2e197a11bc91063afce22e43f8ccc655237050ace766adc68dc784",
		"md5:Yx8m6CqWBJjKT5VBggoWeQ==", "md5:yN__165PfjJ96yI5kvvRPA",
		"sha-256:f4OxZX_x_DFGFDgghgdfb6rtSx-iosjf6735432nklj", "SHA1:DA39A3EE5E6B4B0D3255BFEF95601890AFD80709",
		"md5:a md5:b", ":", "crc32:cbf43926", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		list, err := ParseHashList(s)
		for _, h := range list {
			if (h.Digest == nil) != (h.Encoding == HashInvalid) {
				t.Fatalf("ParseHashList(%q): token %+v", s, h)
			}
			if n := HashSize(h.Alg); n != 0 && h.Digest != nil && len(h.Digest) != n {
				t.Fatalf("ParseHashList(%q): %s digest of %d bytes", s, h.Alg, len(h.Digest))
			}
		}
		if err != nil {
			return
		}
		str := list.String()
		again, err := ParseHashList(str)
		if err != nil {
			t.Fatalf("String() of %q = %q does not parse: %v", s, str, err)
		}
		if again.String() != str || len(again) != len(list) {
			t.Fatalf("String→Parse unstable: %q → %q", str, again.String())
		}
		for i := range list {
			if again[i].Alg != list[i].Alg || again[i].Hex() != list[i].Hex() || again[i].Encoding != HashHex {
				t.Fatalf("String→Parse changed token %d: %+v → %+v", i, list[i], again[i])
			}
		}
	})
}
