package dump

import (
	"archive/zip"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// benchPackage builds a package of n members of size bytes each, every one
// declared with md5, sha-256 and length.
func benchPackage(b testing.TB, n, size int, method uint16) []byte {
	b.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	members := make([]zm, n)
	entries := make([]string, n)
	for i := range members {
		data := make([]byte, size)
		for j := 0; j+8 <= len(data); j += 8 {
			v := rng.Uint64()
			if method == zip.Deflate {
				v &= 0x0f0f0f0f0f0f0f0f // compressible, like text
			}
			for k := 0; k < 8; k++ {
				data[j+k] = byte(v >> (8 * k))
			}
		}
		name := fmt.Sprintf("resources/%06d.bin", i)
		members[i] = zm{name: name, data: data, method: method}
		entries[i] = entry("http://example.com/"+name, "/"+name, data)
	}
	return buildZip(b, append([]zm{{name: ManifestName, data: manifest(entries...)}}, members...)...)
}

// BenchmarkVerifyPackage verifies a 100 MB package (100 members of 1 MB,
// md5 and sha-256 each): MB/s is uncompressed bytes verified per second.
func BenchmarkVerifyPackage(b *testing.B) {
	for _, m := range []struct {
		name   string
		method uint16
	}{{"stored", zip.Store}, {"deflated", zip.Deflate}} {
		b.Run(m.name, func(b *testing.B) {
			z := benchPackage(b, 100, 1<<20, m.method)
			p := openBytes(b, z, Options{})
			b.SetBytes(100 << 20)
			b.ReportAllocs()
			cpu0 := cpuTime()
			n := 0
			for b.Loop() {
				r, err := p.Verify(context.Background(), nil)
				if err != nil || r.Verified != 100 {
					b.Fatalf("%+v %v", r, err)
				}
				n++
			}
			// CPU time is steadier than wall time on a shared machine.
			b.ReportMetric(float64(n)*100*(1<<20)/1e6/(cpuTime()-cpu0).Seconds(), "MB/cpu-s")
		})
	}
}

// cpuTime is the CPU time (user and system) used by the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkExtractPackage extracts the same stored package to disk.
func BenchmarkExtractPackage(b *testing.B) {
	z := benchPackage(b, 100, 1<<20, zip.Store)
	p := openBytes(b, z, Options{})
	b.SetBytes(100 << 20)
	dir := b.TempDir()
	for b.Loop() {
		r, err := p.Extract(context.Background(), dir, nil)
		if err != nil || r.Extracted != 100 {
			b.Fatalf("%+v %v", r, err)
		}
	}
}

// TestWriteBenchPackage writes the whole-process benchmark package (100
// stored members of 1 MiB, md5 and sha-256 each) to the folder named by
// RSX_SPEED_OUT (scripts/bench-whole runs it).
func TestWriteBenchPackage(t *testing.T) {
	dir := os.Getenv("RSX_SPEED_OUT")
	if dir == "" {
		t.Skip("set RSX_SPEED_OUT=DIR to write the benchmark package there")
	}
	if err := os.WriteFile(filepath.Join(dir, "pkg100.zip"), benchPackage(t, 100, 1<<20, zip.Store), 0o644); err != nil {
		t.Fatal(err)
	}
}
