package store

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// A NameCounter counts the entries of one folder of the destination by
// their names alone, whatever their kind, without looking at any: an
// audit that opened every file of the folders it went through tells by
// their number alone that the destination holds nothing else.
type NameCounter interface {
	CountNames(ctx context.Context, dir string) (int64, error)
}

// CountNames counts the entries of the folder dir of DEST ('/'-separated,
// relative; "." is DEST itself), files, folders, links and others alike,
// but DEST's own .rsx: a read of the folder's names (no lstat of each, which
// os.File.ReadDir makes where the file system does not give the kinds).
func (d *Dir) CountNames(ctx context.Context, dir string) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if d.root == nil {
		return 0, nil
	}
	f, err := d.root.Open(dir)
	if err != nil {
		return 0, fmt.Errorf("count the names of %s: %w", dir, err)
	}
	defer f.Close()
	var n int64
	for {
		names, rerr := f.Readdirnames(walkBatch)
		for _, name := range names {
			if dir == "." && name == ReservedDir {
				continue
			}
			n++
		}
		if errors.Is(rerr, io.EOF) {
			return n, nil
		}
		if rerr != nil {
			return 0, fmt.Errorf("count the names of %s: %w", dir, rerr)
		}
	}
}
