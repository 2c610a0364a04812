package spotcheck

import (
	"context"
	"sync"
)

// queue is work that grows while it is done (an index adds its parts): a
// fixed number of workers take items until none is left and none is busy,
// so that memory holds the waiting items, not a goroutine each.
type queue[T any] struct {
	mu    sync.Mutex
	cond  *sync.Cond
	items []T
	busy  int
}

func newQueue[T any]() *queue[T] {
	q := &queue[T]{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

func (q *queue[T]) push(x T) {
	q.mu.Lock()
	q.items = append(q.items, x)
	q.mu.Unlock()
	q.cond.Signal()
}

// run calls f for every item, pushed before or during the run, with
// workers at once, and returns when all are done or ctx has ended (items
// not started then are dropped).
func (q *queue[T]) run(ctx context.Context, workers int, f func(T)) {
	stop := context.AfterFunc(ctx, func() {
		q.mu.Lock()
		q.cond.Broadcast()
		q.mu.Unlock()
	})
	defer stop()
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			for {
				x, ok := q.take(ctx)
				if !ok {
					return
				}
				f(x)
				q.mu.Lock()
				q.busy--
				q.mu.Unlock()
				q.cond.Broadcast()
			}
		})
	}
	wg.Wait()
}

// take waits for an item; false when there will be none.
func (q *queue[T]) take(ctx context.Context) (T, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 && q.busy > 0 && ctx.Err() == nil {
		q.cond.Wait()
	}
	var zero T
	if len(q.items) == 0 || ctx.Err() != nil {
		return zero, false
	}
	x := q.items[0]
	q.items[0] = zero
	q.items = q.items[1:]
	q.busy++
	return x, true
}
