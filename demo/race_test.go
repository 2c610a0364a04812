package demo

import (
	"sync"
	"testing"
)

// TestConcurrentAdvanceAndServe serves documents while the clock advances.
func TestConcurrentAdvanceAndServe(t *testing.T) {
	s := New(Options{Broken: true})
	h := s.Handler()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 40; i++ {
			s.Advance(1)
		}
	}()
	for i := 0; i < 20; i++ {
		for _, p := range []string{"/dataset1/changelist.xml", "/dataset2/changelist.xml", "/dataset1/resourcelist-0005.xml",
			"/dataset1/changedump.xml", "/demo/status", "/dataset1/res/000001.html"} {
			if c := get(t, h, p).Code; c != 200 {
				t.Errorf("%s: %d", p, c)
			}
		}
	}
	wg.Wait()
}
