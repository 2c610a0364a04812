//go:build !unix

package store

import (
	"io"
	"io/fs"
	"os"
)

// openerSys is the folder a dirOpener keeps open, through os.Root.
type openerSys struct {
	sub *os.Root // the folder opened (d.root for the top), or nil
}

// openedFile is a file a dirOpener opened through os.Root: a plain reader
// (no WriteTo, so that io.CopyBuffer uses the caller's buffer), whose Stat
// is what was found when it was opened.
type openedFile struct {
	f  *os.File
	fi fs.FileInfo
}

func (o *openedFile) Read(p []byte) (int, error) { return o.f.Read(p) }
func (o *openedFile) Close() error               { return o.f.Close() }
func (o *openedFile) Stat() (fs.FileInfo, error) { return o.fi, nil }

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
