package store

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"

	"github.com/minio/minio-go/v7"
)

// s3MemStage is the most bytes a write to a bucket keeps in memory while the
// caller verifies them; a larger one goes on in a temporary file of the
// cache folder. The demo's resources are well under a kilobyte, and for each
// a temporary file cost a create, a write, a second open (minio-go's
// FPutObject) and an unlink: a fifth of the CPU of a bucket baseline. With
// the engine's 16 workers the memory staged is at most 16 MiB.
const s3MemStage = 1 << 20

// s3SinglePut is the largest write uploaded in one PUT with the checksum
// the writer computed; a larger one is left to minio-go's PutObject, which
// uploads it in parts of this size (its default), each signed as it streams.
const s3SinglePut = 16 << 20

// Create stages the write: in memory up to s3MemStage bytes, then in a
// local temporary file. Nothing in the bucket changes until Commit.
func (s *S3) Create(_ context.Context, p string, meta Meta) (Writer, error) {
	if err := CheckPath(p); err != nil {
		return nil, fmt.Errorf("write to %s: %w", s.loc.Name(), err)
	}
	if s.opts.ReadOnly {
		return nil, fmt.Errorf("write %s to %s: %w", p, s.loc.Name(), ErrReadOnly)
	}
	if err := s.lost(); err != nil {
		return nil, fmt.Errorf("write %s to %s: %w", p, s.loc.Name(), err)
	}
	w := &s3Writer{path: p, s: s, meta: meta}
	if s.secure() {
		w.sum = md5.New()
	} else {
		w.sum = sha256.New()
	}
	return w, nil
}

// secure reports whether the endpoint is reached over TLS.
func (s *S3) secure() bool { return s.client.EndpointURL().Scheme == "https" }

// s3Writer stages one object's bytes and uploads them at Commit.
//
// What the server verifies: the writer hashes the bytes as they are written
// (after the caller's verifier has seen them, so the bytes the Source's
// digest checked are the ones hashed) and sends the hash with the single
// PUT, for the server to check against what it receives before it stores
// the object. Over plain http it is the payload's SHA-256 in the signed
// header X-Amz-Content-Sha256: authenticated by the request's signature, as
// minio-go's streaming signature (aws-chunked, a signature for every 64 KiB
// chunk) authenticated it before, at one hash and one signature a request on
// each side instead of the chunked framing and three signatures. Over https,
// where TLS protects the bytes in flight and minio-go sends UNSIGNED-PAYLOAD,
// it is Content-MD5, which every S3 server checks (BadDigest). Writes over
// s3SinglePut go through minio-go's multipart upload, signed as before.
type s3Writer struct {
	path string // the file's path in the copy
	s    *S3
	meta Meta
	buf  []byte   // the bytes while they fit in s3MemStage
	f    *os.File // the temporary file the bytes go to once they do not
	n    int64
	sum  hash.Hash // SHA-256 (http) or MD5 (https) of the bytes; nil past s3SinglePut
	done bool      // committed, abandoned or rejected
}

func (w *s3Writer) Write(b []byte) (int, error) {
	if w.done {
		return 0, &WriteError{Path: w.path, Err: errWriteDone}
	}
	if w.f == nil && int64(len(w.buf))+int64(len(b)) > s3MemStage {
		f, err := os.CreateTemp(filepath.Join(w.s.cache, "tmp"), "stage-")
		if err != nil {
			return 0, &WriteError{Path: w.path, Err: fmt.Errorf("create a temporary file: %w", err)}
		}
		w.f = f
		if _, err := f.Write(w.buf); err != nil {
			return 0, &WriteError{Path: w.path, Err: err}
		}
		w.buf = nil
	}
	var n int
	var err error
	if w.f != nil {
		n, err = w.f.Write(b)
	} else {
		n = len(b)
		w.buf = append(w.buf, b...)
	}
	if w.sum != nil {
		if w.n+int64(n) > s3SinglePut {
			w.sum = nil // a multipart upload: minio-go signs its parts
		} else {
			w.sum.Write(b[:n])
		}
	}
	w.n += int64(n)
	if err != nil {
		return n, &WriteError{Path: w.path, Err: err}
	}
	return n, nil
}

func (w *s3Writer) Written() int64 { return w.n }

func (w *s3Writer) finish() {
	w.done = true
	w.buf = nil
	if w.f != nil {
		w.f.Close()
		os.Remove(w.f.Name())
	}
}

func (w *s3Writer) upload(ctx context.Context, key string) error {
	if err := w.s.lost(); err != nil {
		return err
	}
	var body io.Reader = bytes.NewReader(w.buf)
	if w.f != nil {
		if _, err := w.f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		body = w.f
	}
	opts := minio.PutObjectOptions{ContentType: w.meta.ContentType}
	if opts.ContentType == "" {
		opts.ContentType = "application/octet-stream" // as minio-go's FPutObject of the staged file sent
	}
	if w.sum == nil {
		_, err := w.s.client.PutObject(ctx, w.s.loc.Bucket, key, body, w.n, opts)
		return err
	}
	var md5Base64, sha256Hex string
	if w.s.secure() {
		md5Base64 = base64.StdEncoding.EncodeToString(w.sum.Sum(nil))
	} else {
		sha256Hex = hex.EncodeToString(w.sum.Sum(nil))
	}
	opts.DisableContentSha256 = true // no streaming signature: the hash above is sent instead
	_, err := minio.Core{Client: w.s.client}.PutObject(ctx, w.s.loc.Bucket, key, body, w.n, md5Base64, sha256Hex, opts)
	return err
}

func (w *s3Writer) Commit(ctx context.Context) error {
	if w.done {
		return fmt.Errorf("commit %s: already committed or abandoned", w.path)
	}
	defer w.finish()
	if err := w.upload(ctx, w.s.loc.Key(w.path)); err != nil {
		return fmt.Errorf("commit %s: upload to %s: %w", w.path, w.s.loc.Name(), err)
	}
	return nil
}

func (w *s3Writer) Abort() error {
	if !w.done {
		w.finish()
	}
	return nil
}

func (w *s3Writer) Reject(ctx context.Context) (string, error) {
	if w.done {
		return "", fmt.Errorf("keep the rejected bytes of %s: already committed or abandoned", w.path)
	}
	defer w.finish()
	key := w.s.loc.Key(ReservedDir + "/rejected/" + w.path)
	if err := w.upload(ctx, key); err != nil {
		return "", fmt.Errorf("keep the rejected bytes of %s: %w", w.path, err)
	}
	return "s3://" + w.s.loc.Bucket + "/" + key, nil
}
