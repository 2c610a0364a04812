package plan

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"rsx/dest/state"
	"rsx/model"
)

// The planning budget: against a state of 1,000,000 resources, a plan takes at
// most 10 s and 300 MB peak RSS. BenchmarkPlan1M builds such a state once, then
// runs each plan in a process of its own (this test binary, in the mode
// TestMain starts), so that the peak RSS it reports is the plan's alone:
//
//	go test -run '^$' -bench Plan1M -benchtime 1x ./dest/plan/
//
// RSX_PLAN_ROWS sets another state size (for a quick look); RSX_PLAN_VIEW=1
// plans changes through the View whatever their number; RSX_PLAN_CPUPROFILE
// and RSX_PLAN_MEMPROFILE write profiles of the plan processes.

const planChildEnv = "RSX_PLAN_CHILD" // scenario:path:rows

func TestMain(m *testing.M) {
	if spec := os.Getenv(planChildEnv); spec != "" {
		code := planChild(spec)
		os.Exit(code)
	}
	os.Exit(m.Run())
}

func benchURI(i int) string       { return fmt.Sprintf("http://example.org/dataset1/res/%07d.html", i) }
func benchDigest(i, v int) string { return fmt.Sprintf("md5:%016x%016x", i, v) }
func benchLastmod(i, v int) time.Time {
	return time.Date(2013, 1, 2, 0, 0, 0, 0, time.UTC).Add(time.Duration(i)*time.Second + time.Duration(v)*time.Hour)
}

func BenchmarkPlan1M(b *testing.B) {
	rows := 1_000_000
	if s := os.Getenv("RSX_PLAN_ROWS"); s != "" {
		rows, _ = strconv.Atoi(s)
	}
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "state.db")
	start := time.Now()
	db, err := state.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	src, _ := db.EnsureSource(ctx, "http://example.org/dataset1/capabilitylist.xml")
	w := db.NewWriter(state.WriterOptions{BatchSize: 50000, MaxDelay: time.Hour})
	now := time.Now()
	for i := 0; i < rows; i++ {
		r := state.Resource{SourceID: src.ID, URI: benchURI(i), Path: strings.TrimPrefix(benchURI(i), "http://"),
			Length: int64(1000 + i%9000), Digests: state.Digests(benchDigest(i, 0)), Lastmod: benchLastmod(i, 0), FetchedAt: now, VerifiedAt: now}
		if err := w.PutResource(ctx, &r); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(ctx); err != nil {
		b.Fatal(err)
	}
	db.Close()
	fi, _ := os.Stat(path)
	b.Logf("state of %d resources built in %v (%d MB)", rows, time.Since(start).Round(time.Millisecond), fi.Size()>>20)

	for _, sc := range []struct {
		name    string
		changes int
	}{
		{"changes-10k", 10_000},
		{"changes-100k", 100_000},
		{"changes-1M", 1_000_000},
		{"snapshot-1M", 0},
		{"baseline-1M", 0},
	} {
		b.Run(sc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s:%s:%d:%d", planChildEnv, sc.name, path, rows, sc.changes))
				out, err := cmd.CombinedOutput()
				if err != nil {
					b.Fatalf("%s: %v\n%s", sc.name, err, out)
				}
				ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
				fields := strings.Fields(string(out))
				secs, _ := strconv.ParseFloat(fields[0], 64)
				cpu := (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
				b.ReportMetric(secs, "s/plan")
				b.ReportMetric(cpu, "CPU-s/process")
				b.ReportMetric(float64(ru.Maxrss)/1024, "MB-peak-RSS")
				b.Logf("%s: %s s (process CPU %.2f s), peak RSS %d MB, %s", sc.name, fields[0], cpu, ru.Maxrss/1024, strings.Join(fields[1:], " "))
			}
		})
	}
}

// planChild runs one plan against the state at path and prints its wall time
// (from opening the state to the last item) and its summary.
func planChild(spec string) int {
	parts := strings.Split(spec, ":")
	if len(parts) != 4 {
		fmt.Println("bad spec", spec)
		return 2
	}
	name, path := parts[0], parts[1]
	rows, _ := strconv.Atoi(parts[2])
	changes, _ := strconv.Atoi(parts[3])
	ctx := context.Background()
	if prof := os.Getenv("RSX_PLAN_CPUPROFILE"); prof != "" {
		f, _ := os.Create(prof)
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	start := time.Now()
	db, err := state.Open(ctx, path)
	if err != nil {
		fmt.Println(err)
		return 1
	}
	srcURL := "http://example.org/dataset1/capabilitylist.xml"
	if name == "baseline-1M" {
		srcURL = "http://example.org/dataset2/capabilitylist.xml" // a Source with no state yet
		if _, err := db.EnsureSource(ctx, srcURL); err != nil {
			fmt.Println(err)
			return 1
		}
	}
	src, err := db.Source(ctx, srcURL)
	if err != nil {
		fmt.Println(err)
		return 1
	}
	items := 0
	emit := func(Item) error { items++; return nil }
	var sum Summary
	if strings.HasPrefix(name, "snapshot") || strings.HasPrefix(name, "baseline") {
		st, err := ForLookups(ctx, db, src.ID, rows)
		if err != nil {
			fmt.Println(err)
			return 1
		}
		p, err := NewSnapshot(ctx, st, Options{})
		if err != nil {
			fmt.Println(err)
			return 1
		}
		// Every resource listed; 1% with a new version, 0.5% gone, 0.5% new.
		for i := 0; i < rows; i++ {
			v := 0
			if i%100 == 7 {
				v = 1
			}
			if i%200 == 3 {
				continue
			}
			if err := p.Add(ctx, Entry{URI: benchURI(i), Length: int64(1000 + i%9000), Digests: state.Digests(benchDigest(i, v)), Lastmod: benchLastmod(i, v)}, emit); err != nil {
				fmt.Println(err)
				return 1
			}
			if i%200 == 5 {
				p.Add(ctx, Entry{URI: benchURI(rows + i), Length: 10, Digests: state.Digests(benchDigest(rows+i, 0))}, emit)
			}
		}
		if sum, err = p.Finish(ctx, emit); err != nil {
			fmt.Println(err)
			return 1
		}
	} else {
		p := NewChanges(ChangesOptions{Options: Options{Delete: true}, Since: benchLastmod(0, 0), TempDir: filepath.Dir(path)})
		defer p.Close()
		list := 0
		for i := 0; i < changes; i++ {
			if i%model.MaxEntriesPerDocument == 0 {
				if i > 0 {
					p.EndList()
				}
				from := benchLastmod(0, 0).Add(time.Duration(list) * time.Hour)
				p.BeginList(ListInfo{URL: fmt.Sprintf("http://example.org/dataset1/changelist-%04d.xml", list), Kind: "changelist", From: from, Until: from.Add(time.Hour)})
				list++
			}
			// 80% updates of resources held (a tenth of them changed twice),
			// 10% created, 10% deleted.
			dt := benchLastmod(0, 0).Add(time.Duration(i) * time.Millisecond)
			e := Entry{Change: model.ChangeUpdated, Datetime: dt, Length: 12345}
			switch i % 10 {
			case 8:
				e.URI, e.Change, e.Digests = benchURI(rows+i), model.ChangeCreated, state.Digests(benchDigest(rows+i, 1))
			case 9:
				e.URI, e.Change, e.Length = benchURI((i*7919)%rows), model.ChangeDeleted, -1
			default:
				k := i
				if i%10 == 1 {
					k = i - 1 // the same resource again
				}
				e.URI, e.Digests = benchURI((k*104729)%rows), state.Digests(benchDigest(k, 2))
			}
			p.Add(e)
		}
		p.EndList()
		var st State = db.View(src.ID)
		if os.Getenv("RSX_PLAN_VIEW") == "" {
			st, err = ForLookups(ctx, db, src.ID, p.Held())
		}
		if err != nil {
			fmt.Println(err)
			return 1
		}
		if sum, err = p.Finish(ctx, st, emit); err != nil {
			fmt.Println(err)
			return 1
		}
	}
	elapsed := time.Since(start)
	if prof := os.Getenv("RSX_PLAN_MEMPROFILE"); prof != "" {
		f, _ := os.Create(prof)
		pprof.Lookup("allocs").WriteTo(f, 0)
		f.Close()
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("%.2f items=%d create=%d update=%d delete=%d unchanged=%d heap-peak-sys=%dMB\n", elapsed.Seconds(), items,
		sum.Create, sum.Update, sum.Delete, sum.Unchanged, ms.HeapSys>>20)
	return 0
}
