package cli

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// startVersitygw starts a real S3 server (versitygw: RSX_VERSITYGW, or on
// PATH) with the bucket named, and returns its endpoint; it skips the test
// without one.
func startVersitygw(t *testing.T, access, secret, bucket string) string {
	t.Helper()
	bin := os.Getenv("RSX_VERSITYGW")
	if bin == "" {
		bin, _ = exec.LookPath("versitygw")
	}
	if bin == "" {
		t.Skip("no S3 server to test against: set RSX_VERSITYGW to a versitygw binary (scripts/versitygw builds one)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "--access", access, "--secret", secret, "--port", addr, "posix", t.TempDir())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	client, err := minio.New(addr, &minio.Options{Creds: credentials.NewStaticV4(access, secret, ""), BucketLookup: minio.BucketLookupPath})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, err := client.ListBuckets(ctx); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("versitygw did not answer on %s: %v\n%s", addr, err, out.String())
		}
	}
	if err := client.MakeBucket(ctx, bucket, minio.MakeBucketOptions{}); err != nil {
		t.Fatal(err)
	}
	return "http://" + addr
}

// AWS_PROFILE=archive rsx sync --dest s3://… reads the profile's keys from
// ~/.aws/credentials, as the AWS command line, rclone and restic do, and
// rsx config says where they come from, never the secret.
func TestSyncBucketWithAWSProfile(t *testing.T) {
	const access, secret = "rsxprofilekey", "rsxprofilesecret0123456789"
	endpoint := startVersitygw(t, access, secret, "copy")
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the bucket's state copy
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".aws"), 0o700); err != nil {
		t.Fatal(err)
	}
	credsFile := filepath.Join(home, ".aws", "credentials")
	if err := os.WriteFile(credsFile, []byte("[default]\naws_access_key_id = nobody\naws_secret_access_key = nothing-at-all\n\n[archive]\naws_access_key_id = "+access+"\naws_secret_access_key = "+secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	base := startDemo(t, false)
	dest := "s3://copy/site?endpoint=" + endpoint + "&region=us-east-1"
	env := map[string]string{"HOME": home, "AWS_PROFILE": "archive"}
	_, code, out, errs := runWithConfig(t, "", env, "--no-cache", "--rate", "0", "sync", "--json", "--dest", dest, base+"/dataset1/capabilitylist.xml")
	if code != 0 {
		t.Fatalf("AWS_PROFILE=archive rsx sync --dest %s: exit %d: %s", dest, code, errs)
	}
	if o := decodeOneJSON[syncOut](t, out, "sync"); o.Created == nil || *o.Created == 0 {
		t.Errorf("nothing created: %s", out)
	}
	// The default profile's keys are not the server's.
	delete(env, "AWS_PROFILE")
	if _, code, _, errs := runWithConfig(t, "", env, "--no-cache", "log", dest); code != exitFailure || !strings.Contains(errs, "bucket destination") {
		t.Errorf("with the default profile: exit %d: %s", code, errs)
	}
	env["AWS_PROFILE"] = "archive"
	_, code, out, _ = runWithConfig(t, "", env, "config")
	if code != 0 || !strings.Contains(out, "bucket credentials (a bucket DEST given as s3://…): profile archive of "+credsFile+" (AWS_PROFILE)") || strings.Contains(out, secret) {
		t.Errorf("rsx config: exit %d:\n%s", code, out)
	}
}
