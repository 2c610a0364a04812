//go:build !unix

package store

import (
	"io"
)

// openFolder opens the folder parent (checked) of the destination.
func (o *dirOpener) openFolder(parent string) error {
	if parent == "." {
		o.sub = o.d.root
		return nil
	}
	var err error
	o.sub, err = o.d.root.OpenRoot(parent)
	return err
}

func (o *dirOpener) closeFolder() error {
	var err error
	if o.sub != nil && o.sub != o.d.root {
		err = o.sub.Close()
	}
	o.sub = nil
	return err
}

// openHere opens the file name of the folder open, the file p.
func (o *dirOpener) openHere(p, name string) (io.ReadCloser, error) {
	f, fi, err := o.d.openIn(o.sub, p, name)
	if err != nil {
		return nil, err
	}
	return &openedFile{f: f, fi: fi}, nil
}
