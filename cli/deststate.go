package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"rsx/dest/state"
	"rsx/dest/store"
)

// readDest is a destination opened read-only with its state: what rsx bag
// and rsx log read. Nothing is written to DEST; a folder's shared lock keeps
// a sync from changing it meanwhile.
type readDest struct {
	st   store.Store
	db   *state.DB
	lock *store.Lock
}

func (d *readDest) close() {
	if d.db != nil {
		d.db.Close()
	}
	if d.lock != nil {
		d.lock.Release()
	}
	if d.st != nil {
		d.st.Close()
	}
}

// openReadDest opens dest read-only and its state; what names the command
// in errors.
func (a *app) openReadDest(ctx context.Context, what, dest string) (*readDest, error) {
	d := &readDest{}
	ok := false
	defer func() {
		if !ok {
			d.close()
		}
	}()
	var err error
	d.st, err = store.Open(ctx, dest, store.Options{ReadOnly: true, TempDir: a.tempDir(), Getenv: a.destGetenv(dest)})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: there is no copy in %s, a folder that does not exist (%s URL makes one)", what, dest, command("rsx", "sync", "--dest", dest))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if d.lock, err = d.st.Lock(ctx); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	p, err := d.st.StatePath(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if p == "" {
		return nil, fmt.Errorf("%s: there is no copy in %s (%s URL makes one)", what, dest, command("rsx", "sync", "--dest", dest))
	}
	if d.db, err = state.OpenReadOnly(ctx, p); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	ok = true
	return d, nil
}
