package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rsx/internal/s3test"
)

// startVersitygw starts a real S3 server (internal/s3test: versitygw or
// SeaweedFS, as RSX_VERSITYGW, RSX_SEAWEEDFS and RSX_S3_SERVER say) with
// the bucket named, and returns its endpoint; it skips the test without one.
func startVersitygw(t *testing.T, access, secret, bucket string) string {
	t.Helper()
	return s3test.Start(t, s3test.Options{Access: access, Secret: secret, Bucket: bucket}).Endpoint
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
