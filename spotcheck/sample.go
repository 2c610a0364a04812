package spotcheck

import (
	"container/heap"
	"math"
	"sort"
	"sync"
	"sync/atomic"
)

// sampleKey is a resource's place in the random order of seed: a hash of
// its URI (FNV-1a) mixed with the seed through the splitmix64 finaliser,
// so that every seed gives an unrelated order.
func sampleKey(seed uint64, uri string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(uri); i++ {
		h ^= uint64(uri[i])
		h *= 1099511628211
	}
	return mix64(h ^ mix64(seed+0x9E3779B97F4A7C15))
}

func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 27
	x *= 0x94D049BB133111EB
	x ^= x >> 31
	return x
}

// rank orders the candidates of a sample: by key, then (for the same URI
// listed twice) by list and position, so that the order is total and the
// sample does not depend on the order the lists arrive in.
type rank struct {
	key   uint64
	list  string
	index int
}

func (a rank) less(b rank) bool {
	if a.key != b.key {
		return a.key < b.key
	}
	if a.list != b.list {
		return a.list < b.list
	}
	return a.index < b.index
}

// reservoir keeps the n candidates of smallest rank seen so far. It is safe
// for concurrent use; wants is lock-free so that the entries that cannot
// enter (nearly all of them, once it is full) cost a hash and a load.
type reservoir struct {
	n         int
	threshold atomic.Uint64 // the largest key kept once full; MaxUint64 before

	mu    sync.Mutex
	items maxHeap
}

func newReservoir(n int) *reservoir {
	r := &reservoir{n: n}
	r.threshold.Store(math.MaxUint64)
	return r
}

// wants reports whether a candidate of this key may enter.
func (r *reservoir) wants(key uint64) bool { return key <= r.threshold.Load() }

// offer adds it when it ranks among the n smallest.
func (r *reservoir) offer(it *item) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.items) < r.n {
		heap.Push(&r.items, it)
	} else if it.rank.less(r.items[0].rank) {
		r.items[0] = it
		heap.Fix(&r.items, 0)
	} else {
		return
	}
	if len(r.items) == r.n {
		r.threshold.Store(r.items[0].rank.key)
	}
}

// sample returns the items kept, in rank order.
func (r *reservoir) sample() []*item {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := append([]*item(nil), r.items...)
	sort.Slice(out, func(i, j int) bool { return out[i].rank.less(out[j].rank) })
	return out
}

// maxHeap holds the largest rank at the top.
type maxHeap []*item

func (h maxHeap) Len() int           { return len(h) }
func (h maxHeap) Less(i, j int) bool { return h[j].rank.less(h[i].rank) }
func (h maxHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *maxHeap) Push(x any)        { *h = append(*h, x.(*item)) }
func (h *maxHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}
