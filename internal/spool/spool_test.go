package spool

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestStringsInOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var all []string
	for i := range 5000 {
		all = append(all, fmt.Sprintf("http://example.org/%d/%x", r.IntN(300), i%97))
	}
	want := slices.Clone(all)
	slices.Sort(want)
	for _, run := range []int{1, 3, 1000, 5000, 0, -3, -1000} {
		t.Run(fmt.Sprint(run), func(t *testing.T) {
			dir := t.TempDir()
			l := Strings(dir, "test list", run)
			if run < 0 { // an Unstable list (equal strings are alike)
				l = Strings(dir, "test list", -run).Unstable()
			}
			for _, s := range all {
				l.Add(s)
			}
			if l.Len() != len(all) {
				t.Fatalf("Len %d, want %d", l.Len(), len(all))
			}
			for range 2 { // read back twice
				var got []string
				if err := l.Each(func(s string) error { got = append(got, s); return nil }); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("read back %d items, not in order", len(got))
				}
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Fatalf("Close left %d files", len(left))
			}
		})
	}
}

// Equal items come back in the order they were added, across runs.
func TestStable(t *testing.T) {
	type item struct{ key, seq int }
	l := NewList(t.TempDir(), "items", 4,
		func(b []byte, v *item) []byte {
			return binary.AppendVarint(binary.AppendVarint(b, int64(v.key)), int64(v.seq))
		},
		func(b []byte, v *item) error {
			k, n := binary.Varint(b)
			s, m := binary.Varint(b[n:])
			if n <= 0 || m <= 0 {
				return errors.New("bad item")
			}
			v.key, v.seq = int(k), int(s)
			return nil
		},
		func(a, b *item) int { return cmp.Compare(a.key, b.key) })
	defer l.Close()
	for i := range 40 {
		l.Add(item{key: i % 3, seq: i})
	}
	var got []item
	if err := l.Each(func(v item) error { got = append(got, v); return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.IsSortedFunc(got, func(a, b item) int { return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.seq, b.seq)) }) || len(got) != 40 {
		t.Fatalf("not stable: %v", got)
	}
}

// A spool that cannot be written says so, from Err and Each, and does not
// panic.
func TestUnwritable(t *testing.T) {
	l := Strings(filepath.Join(t.TempDir(), "no such folder"), "missing resources", 2)
	for _, s := range []string{"c", "b", "a"} {
		l.Add(s)
	}
	if l.Err() == nil {
		t.Fatal("no error")
	}
	err := l.Each(func(string) error { return nil })
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Each: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}
