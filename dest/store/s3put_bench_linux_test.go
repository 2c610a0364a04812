package store

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
)

// BenchmarkS3PutCPU measures the CPU a small object's PUT costs this
// process and versitygw: the store's write (staged in memory, one PUT with
// the payload's SHA-256 signed) beside what it did before (minio-go's
// PutObject with its streaming signature, aws-chunked; before, from a
// temporary file too), on the same server. The CPU is the process's
// (getrusage) and versitygw's (/proc/PID/stat, 10 ms ticks: run a few
// thousand ops), per op:
//
//	RSX_VERSITYGW=$(scripts/versitygw) go test ./dest/store/ -run '^$' -bench S3PutCPU -benchtime 3000x -count 3
func BenchmarkS3PutCPU(b *testing.B) {
	g := startGateway(b, "bench")
	st, err := Open(context.Background(), g.url("bench/p"), Options{Getenv: getenv, CacheDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	s := st.(*S3)
	body := bytes.Repeat([]byte("<p>a resource of the demo</p>\n"), 22) // ~650 bytes, the demo's mean
	ctx := context.Background()
	measure := func(b *testing.B, put func(i int) error) {
		g0, p0 := procCPU(b, g.pid), selfCPU()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := put(i); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		g1, p1 := procCPU(b, g.pid), selfCPU()
		b.ReportMetric(float64((g1-g0).Microseconds())/float64(b.N), "gw-cpu-µs/op")
		b.ReportMetric(float64((p1-p0).Microseconds())/float64(b.N), "cpu-µs/op")
	}
	b.Run("store", func(b *testing.B) {
		measure(b, func(i int) error {
			w, err := s.Create(ctx, fmt.Sprintf("store/%d.html", i), Meta{ContentType: "text/html"})
			if err != nil {
				return err
			}
			w.Write(body)
			return w.Commit(ctx)
		})
	})
	b.Run("streaming", func(b *testing.B) {
		measure(b, func(i int) error {
			_, err := s.client.PutObject(ctx, "bench", fmt.Sprintf("p/streaming/%d.html", i), bytes.NewReader(body), int64(len(body)), minio.PutObjectOptions{ContentType: "text/html"})
			return err
		})
	})
}

// procCPU is the user and system CPU time of process pid so far.
func procCPU(b *testing.B, pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Skipf("no /proc: %v", err)
	}
	s := string(raw)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:]) // after "pid (comm) "
	u, _ := strconv.ParseInt(f[11], 10, 64)                  // utime, field 14
	k, _ := strconv.ParseInt(f[12], 10, 64)                  // stime, field 15
	return time.Duration(u+k) * (time.Second / 100)          // USER_HZ
}

// selfCPU is this process's user and system CPU time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
