package model

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestMemBlocksInPlace: a document in memory is cut into blocks that are
// slices of it, and a block the parallel path does not accept is decoded
// from the memory again (parCompare's "memory" reader compares every
// document of the parallel tests so).
func TestMemBlocksInPlace(t *testing.T) {
	data := benchResourceList(t, 1000)
	broken := bytes.Replace(data, []byte("</loc>"), []byte("<!-- --></loc>"), 1) // a block the fast path leaves to the general one
	broken = append(broken[:len(broken)/2:len(broken)/2], "<x"...)               // malformed in the middle
	for _, doc := range [][]byte{data, broken} {
		d := NewDecoder(&memSource{b: doc, chunk: 512}, DecoderOptions{Parallel: 2, blockSize: 4096})
		var e Entry
		n := 0
		var err error
		for err = d.Next(&e); err == nil; err = d.Next(&e) {
			n++
		}
		if d.par.mem == nil || d.par.accepted < 10 {
			t.Fatalf("%d entries: mem %v, %d blocks accepted", n, d.par.mem != nil, d.par.accepted)
		}
		want := parDecode(t, bytes.NewReader(doc), DecoderOptions{})
		if len(want.entries) != n || errString(err) != want.err {
			t.Fatalf("%d entries, %v; sequential: %d, %s", n, err, len(want.entries), want.err)
		}
	}
}

// TestValidateBytes: ValidateBytes reports what Validate reports.
func TestValidateBytes(t *testing.T) {
	data := benchResourceList(t, 3000)
	dup := bytes.Replace(data, []byte("item-7.html"), []byte("item-8.pdf"), 1)
	for i, doc := range [][]byte{data, dup, data[:len(data)*2/3], []byte("<html/>"), nil} {
		want := Validate(bytes.NewReader(doc), CheckOptions{})
		for _, p := range []int{1, 2, 3} {
			got := ValidateBytes(doc, nil, CheckOptions{}, DecoderOptions{Parallel: p})
			if !reflect.DeepEqual(want, got) {
				t.Fatalf("document %d, Parallel %d:\n got %+v\nwant %+v", i, p, got, want)
			}
		}
	}
}

// TestMemFaultIsAnError: a fault reading the memory (a mapped file cut
// short) becomes a read error, wherever it happens.
func TestMemFaultIsAnError(t *testing.T) {
	err := errors.New("x")
	func() {
		defer func() { err = faultError(recover()) }()
		panic(fakeFault{})
	}()
	if err != errMemFault {
		t.Fatalf("a fault gave %v", err)
	}
	func() {
		defer func() {
			if r := recover(); r == nil || fmt.Sprint(r) != "not a fault" {
				t.Fatalf("another panic gave %v", r)
			}
		}()
		defer func() { faultError(recover()) }()
		panic("not a fault")
	}()
	if !strings.Contains(errMemFault.Error(), "cut short") {
		t.Fatal(errMemFault)
	}
}

// fakeFault is a recovered value like the runtime's for a memory fault.
type fakeFault struct{}

func (fakeFault) Addr() uintptr { return 1 }

// TestValidateBytesRelease: what ValidateBytes says will not be read again
// is not: every byte released is overwritten at once, and the report is
// still Validate's (blocks accepted, blocks refused and decoded again).
func TestValidateBytesRelease(t *testing.T) {
	data := benchResourceList(t, 5000)
	broken := bytes.Replace(data, []byte("<loc>"), []byte("<loc><!-- -->"), 2)
	for i, doc := range [][]byte{data, append(bytes.Clone(broken[:len(broken)*3/4]), "<x"...)} {
		want := Validate(bytes.NewReader(doc), CheckOptions{})
		b := bytes.Clone(doc)
		last, calls := 0, 0
		release := func(n int) {
			if n < last || n > len(b) {
				t.Fatalf("document %d: release(%d) after release(%d), of %d bytes", i, n, last, len(b))
			}
			for k := range b[:n] {
				b[k] = 0xff
			}
			last = n
			calls++
		}
		got := ValidateBytes(b, release, CheckOptions{}, DecoderOptions{Parallel: 2, blockSize: 4096})
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("document %d:\n got %+v\nwant %+v", i, got, want)
		}
		if calls < 10 || last < len(doc)/2 {
			t.Fatalf("document %d: %d calls, the last of %d bytes of %d", i, calls, last, len(doc))
		}
	}
}

// FuzzValidateBytes: ValidateBytes, the parallel path over the document in
// memory (the entry fast path, the checks computed beside the entries, the
// release of what was decoded), reports what the sequential Validate reports,
// and never reads again what it released (overwritten at once here).
func FuzzValidateBytes(f *testing.F) {
	for _, s := range decFuzzSeeds {
		f.Add([]byte(s), uint8(40))
	}
	f.Add(benchResourceList(f, 40), uint8(200))
	dup := benchResourceList(f, 40)
	dup = bytes.Replace(dup, []byte("item-7."), []byte("item-3."), 1)
	f.Add(dup, uint8(90))
	f.Add(parDoc(parRoot, func(i int) string { return fastCommon(i) + fastVariants["md over lines"] }, 10, "</urlset>"), uint8(101))
	f.Fuzz(func(t *testing.T, data []byte, block uint8) {
		want := Validate(bytes.NewReader(data), CheckOptions{})
		b := bytes.Clone(data)
		last := 0
		release := func(n int) {
			if n < last || n > len(b) {
				t.Fatalf("release(%d) after release(%d), of %d bytes", n, last, len(b))
			}
			for k := range b[last:n] {
				b[last+k] = 0xff
			}
			last = n
		}
		got := ValidateBytes(b, release, CheckOptions{}, DecoderOptions{Parallel: 2, blockSize: 64 + 4*int(block)})
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("reports differ:\n got %+v\nwant %+v", got, want)
		}
	})
}
