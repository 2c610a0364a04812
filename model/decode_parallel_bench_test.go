package model

import (
	"bytes"
	"io"
	"runtime"
	"strconv"
	"testing"
)

// BenchmarkDecodeParallel50k is BenchmarkCheckDecodeOnly50k with the parallel
// path (DecoderOptions.Parallel = GOMAXPROCS).
func BenchmarkDecodeParallel50k(b *testing.B) {
	data := benchResourceList(b, 50000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		d := NewDecoder(bytes.NewReader(data), DecoderOptions{Parallel: runtime.GOMAXPROCS(0)})
		n := 0
		var e Entry
		for {
			err := d.Next(&e)
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 50000 {
			b.Fatalf("%d entries", n)
		}
	}
}

// BenchmarkCheckValidateSequential50k is BenchmarkCheckValidate50k with the
// sequential decoder (what Validate did before the parallel path).
func BenchmarkCheckValidateSequential50k(b *testing.B) {
	data := benchResourceList(b, 50000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		rep := validate(bytes.NewReader(data), CheckOptions{}, DecoderOptions{})
		if rep.Errors != 0 || rep.Entries != 50000 {
			b.Fatalf("%d entries, %d errors", rep.Entries, rep.Errors)
		}
	}
}

// BenchmarkValidateModes50k: Validate's ways of decoding the 50,000-entry
// Resource List, measured in the same run (BENCHMARKS.md, "Validate"):
// sequential or on all CPUs, with or without reusing entries' memory.
func BenchmarkValidateModes50k(b *testing.B) {
	data := benchResourceList(b, 50000)
	for _, m := range []struct {
		name  string
		dopts DecoderOptions
		mem   bool // the document in memory, decoded in place (ValidateBytes)
	}{
		{"sequential", DecoderOptions{}, false},
		{"sequential-reuse", DecoderOptions{Reuse: true}, false},
		{"parallel", DecoderOptions{Parallel: runtime.GOMAXPROCS(0)}, false},
		{"parallel-reuse", DecoderOptions{Parallel: runtime.GOMAXPROCS(0), Reuse: true}, false},
		{"parallel-reuse-memory", DecoderOptions{Parallel: runtime.GOMAXPROCS(0), Reuse: true}, true},
	} {
		b.Run(m.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			cpu0 := processCPUTime()
			for i := 0; i < b.N; i++ {
				var r io.Reader = bytes.NewReader(data)
				if m.mem {
					r = &memSource{b: data}
				}
				rep := validate(r, CheckOptions{}, m.dopts)
				if rep.Errors != 0 || rep.Entries != 50000 {
					b.Fatalf("%d entries, %d errors", rep.Entries, rep.Errors)
				}
			}
			// CPU time (GC included): a busy machine disturbs it less than wall time.
			b.ReportMetric(float64((processCPUTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// BenchmarkValidateBlockSizes50k: Validate (parallel, Reuse) of the
// 50,000-entry list with blocks of several sizes; smaller blocks hold less
// memory in flight (BENCHMARKS.md, "Memory").
func BenchmarkValidateBlockSizes50k(b *testing.B) {
	data := benchResourceList(b, 50000)
	for _, kib := range []int{16, 32, 48, 64, 128} {
		b.Run(strconv.Itoa(kib)+"KiB", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			cpu0 := processCPUTime()
			for i := 0; i < b.N; i++ {
				rep := validate(bytes.NewReader(data), CheckOptions{}, DecoderOptions{Parallel: runtime.GOMAXPROCS(0), Reuse: true, blockSize: kib << 10})
				if rep.Errors != 0 || rep.Entries != 50000 {
					b.Fatalf("%d entries, %d errors", rep.Entries, rep.Errors)
				}
			}
			b.ReportMetric(float64((processCPUTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}
