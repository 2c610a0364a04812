package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/spf13/cobra"

	"rsx/scratch"
)

// annotationEndsOnSignal marks a command that runs until interrupted (serve,
// watch): for it SIGINT and SIGTERM are the normal end, not a failure.
const annotationEndsOnSignal = "rsx-ends-on-signal"

// errInterrupted is the cause of the command's context once SIGINT or
// SIGTERM arrived.
var errInterrupted = errors.New("interrupted")

// interruption is the cause with the signal's name.
type interruption struct{ sig os.Signal }

func (i *interruption) Error() string { return "interrupted by " + signalName(i.sig) }
func (i *interruption) Unwrap() error { return errInterrupted }

func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}

// signalContext returns a context below parent cancelled, with an
// *interruption as its cause, on the first SIGINT or SIGTERM. A second one calls again (to
// remove the temporaries) and ends the process at once with exit status 2.
// stop releases the signals.
func signalContext(parent context.Context, again func()) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			cancel(&interruption{sig: sig})
		case <-done:
			return
		}
		select {
		case <-sigs:
			again()
			os.Exit(exitFailure)
		case <-done:
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(sigs)
			close(done)
			cancel(nil)
		})
	}
}

// endsOnSignal tells whether cmd runs until interrupted.
func endsOnSignal(cmd *cobra.Command) bool {
	return cmd != nil && cmd.Annotations[annotationEndsOnSignal] != ""
}

// tempFolder is the process's temporary folder, made on first use (see
// package scratch): downloaded packages live there while they are open.
type tempFolder struct {
	mu  sync.Mutex
	dir *scratch.Dir
	err error
}

// path returns the folder's path, making it on first use. When no folder
// can be made, it returns "" (the system's temporary directory) and the
// reason, once.
func (t *tempFolder) path() (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dir != nil {
		return t.dir.Path(), nil
	}
	if t.err != nil {
		return "", nil
	}
	root, err := scratch.Root()
	if err == nil {
		t.dir, err = scratch.Open(root)
	}
	if err != nil {
		t.err = err
		return "", fmt.Errorf("%w; the system's temporary directory is used", err)
	}
	return t.dir.Path(), nil
}

// remove removes the folder with what is left in it.
func (t *tempFolder) remove() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dir != nil {
		_ = t.dir.Close()
	}
}
