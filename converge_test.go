package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// The convergence check of issue 34, as a new user does it with the built
// binary and the demo Source (rsx serve): sync the demo; delete one file,
// overwrite one, add a stray file inside the Source's folders and one at
// DEST's top, and put a file on the protect list (DEST/.rsxignore); rsx
// audit --dest exits 1 naming the stray file and the fix (rsx sync
// --delete); rsx sync --delete exits 0 and moves the stray file to the
// trash; rsx audit --dest exits 0; the top-level file and the protected
// file are untouched. In a folder, and in a bucket (versitygw).
func TestConvergenceWithStrayFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds rsx and runs it as a new user would: skipped in -short mode")
	}
	bin := buildRSX(t)
	base := startServe(t, bin)
	capList := base + "/dataset1/capabilitylist.xml"
	host := strings.ReplaceAll(strings.TrimPrefix(base, "http://"), ":", "+")
	res := host + "/dataset1/res/"
	env := e2eEnv(t)

	t.Run("folder", func(t *testing.T) {
		dest := filepath.Join(t.TempDir(), "copy")
		file := func(p string) string { return filepath.Join(dest, filepath.FromSlash(p)) }
		c := &converge{t: t, bin: bin, env: env, dest: dest, capList: capList,
			put: func(p, body string) {
				t.Helper()
				os.MkdirAll(filepath.Dir(file(p)), 0o755)
				if err := os.WriteFile(file(p), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			remove: func(p string) {
				if err := os.Remove(file(p)); err != nil {
					t.Fatal(err)
				}
			},
			get: func(p string) (string, bool) {
				b, err := os.ReadFile(file(p))
				return string(b), err == nil
			},
			copies: func() []string {
				var out []string
				filepath.WalkDir(file(res), func(p string, d fs.DirEntry, err error) error {
					if err == nil && d.Type().IsRegular() {
						r, _ := filepath.Rel(dest, p)
						out = append(out, filepath.ToSlash(r))
					}
					return nil
				})
				return out
			},
		}
		c.check(res)
	})

	t.Run("bucket", func(t *testing.T) {
		gw := os.Getenv("RSX_VERSITYGW")
		if gw == "" {
			t.Skip("no S3 server: set RSX_VERSITYGW to a versitygw binary (scripts/versitygw)")
		}
		root := t.TempDir()
		os.MkdirAll(filepath.Join(root, "copies"), 0o755) // the bucket
		addr := freePort(t)
		const access, secret = "convergeaccess", "convergesecretkey0123456789"
		gwCmd := exec.Command(gw, "--access", access, "--secret", secret, "--port", addr, "posix", root)
		if err := gwCmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { gwCmd.Process.Kill(); gwCmd.Wait() })
		waitHTTP(t, "http://"+addr+"/")
		mc, err := minio.New(addr, &minio.Options{Creds: credentials.NewStaticV4(access, secret, ""), Region: "us-east-1", BucketLookup: minio.BucketLookupPath})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		key := func(p string) string { return "demo/" + p }
		c := &converge{t: t, bin: bin, dest: "s3://copies/demo?endpoint=http://" + addr + "&region=us-east-1", capList: capList,
			env: append(append([]string{}, env...), "AWS_ACCESS_KEY_ID="+access, "AWS_SECRET_ACCESS_KEY="+secret),
			put: func(p, body string) {
				t.Helper()
				if _, err := mc.PutObject(ctx, "copies", key(p), strings.NewReader(body), int64(len(body)), minio.PutObjectOptions{}); err != nil {
					t.Fatal(err)
				}
			},
			remove: func(p string) {
				if err := mc.RemoveObject(ctx, "copies", key(p), minio.RemoveObjectOptions{}); err != nil {
					t.Fatal(err)
				}
			},
			get: func(p string) (string, bool) {
				o, err := mc.GetObject(ctx, "copies", key(p), minio.GetObjectOptions{})
				if err != nil {
					return "", false
				}
				defer o.Close()
				var b bytes.Buffer
				if _, err := b.ReadFrom(o); err != nil {
					return "", false
				}
				return b.String(), true
			},
			copies: func() []string {
				var out []string
				for o := range mc.ListObjects(ctx, "copies", minio.ListObjectsOptions{Prefix: key(res), Recursive: true}) {
					if o.Err == nil {
						out = append(out, strings.TrimPrefix(o.Key, "demo/"))
					}
				}
				return out
			},
		}
		c.check(res)
	})
}

// converge runs the check on one DEST through the functions that reach
// its files.
type converge struct {
	t             *testing.T
	bin           string
	env           []string
	dest, capList string
	put           func(p, body string)
	remove        func(p string)
	get           func(p string) (string, bool)
	copies        func() []string
}

func (c *converge) rsx(args ...string) (int, string) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.bin, args...)
	cmd.Env = append(os.Environ(), c.env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		c.t.Fatalf("rsx %s: %v", strings.Join(args, " "), err)
	}
	return code, out.String() + errb.String()
}

func (c *converge) check(res string) {
	t := c.t
	if code, out := c.rsx("sync", "--dest", c.dest, c.capList); code != 0 {
		t.Fatalf("sync: exit %d\n%s", code, out)
	}
	copies := c.copies()
	if len(copies) < 3 {
		t.Fatalf("the copy holds %d files", len(copies))
	}
	c.remove(copies[0])
	c.put(copies[1], "overwritten")
	stray, top, kept := res+"zz-stray.txt", "notes.txt", res+"my-notes.txt"
	c.put(stray, "a stray file")
	c.put(top, "the operator's")
	c.put(kept, "kept on purpose")
	c.put(".rsxignore", "# files kept in the copy\nmy-notes.txt\n")

	code, out := c.rsx("audit", "--dest", c.dest, c.capList)
	if code != 1 || !strings.Contains(out, stray) || !strings.Contains(out, "rsx sync --delete --dest") || !strings.Contains(out, c.capList) ||
		strings.Contains(out, "notes.txt\n") || strings.Contains(out, kept) {
		t.Fatalf("audit --dest: exit %d\n%s", code, out)
	}
	code, out = c.rsx("audit", "--dest", c.dest, "--json", c.capList)
	var a struct {
		InSync    bool     `json:"in_sync"`
		Stray     []string `json:"stray"`
		Extra     []string `json:"extra"`
		Protected int      `json:"protected"`
	}
	if err := json.Unmarshal([]byte(out), &a); err != nil || code != 1 || a.InSync || len(a.Stray) != 1 || a.Stray[0] != stray || a.Protected != 1 {
		t.Fatalf("audit --dest --json: exit %d, %+v, %v\n%s", code, a, err, out)
	}

	code, out = c.rsx("sync", "--dest", c.dest, "--delete", "--json", c.capList)
	var s struct {
		Trashed     int     `json:"trashed"`
		TrashFolder *string `json:"trash_folder"`
		Updated     int     `json:"updated"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil || code != 0 || s.Trashed != 1 || s.TrashFolder == nil || s.Updated != 2 {
		t.Fatalf("sync --delete: exit %d, %+v, %v\n%s", code, s, err, out)
	}
	if _, there := c.get(stray); there {
		t.Errorf("%s is still in the copy", stray)
	}
	if body, there := c.get(*s.TrashFolder + "/" + stray); !there || body != "a stray file" {
		t.Errorf("%s is not in the trash (%s)", stray, *s.TrashFolder)
	}
	if code, out := c.rsx("audit", "--dest", c.dest, c.capList); code != 0 || !strings.Contains(out, "in sync") {
		t.Errorf("audit --dest after: exit %d\n%s", code, out)
	}
	for p, want := range map[string]string{top: "the operator's", kept: "kept on purpose"} {
		if body, _ := c.get(p); body != want {
			t.Errorf("%s: %q, want %q", p, body, want)
		}
	}
	if code, out := c.rsx("trash", c.dest); code != 0 || !strings.Contains(out, "1 file") {
		t.Errorf("trash: exit %d\n%s", code, out)
	}
	if code, out := c.rsx("trash", "--empty", c.dest); code != 0 || !strings.Contains(out, "emptied") {
		t.Errorf("trash --empty: exit %d\n%s", code, out)
	}
	if _, there := c.get(*s.TrashFolder + "/" + stray); there {
		t.Error("the trash was not emptied")
	}
}
