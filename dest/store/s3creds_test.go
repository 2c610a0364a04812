package store

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// awsHome is a home folder with the AWS shared files: credentials holds
// the profiles default and archive (keys); config holds archive too (other
// keys: the credentials file comes first), a role-only profile and an SSO one.
func awsHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	dir := filepath.Join(home, ".aws")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("credentials", "[default]\naws_access_key_id = AKIDDEFAULT\naws_secret_access_key = sdefault\n\n[archive]\naws_access_key_id = AKIDARCHIVE\naws_secret_access_key = sarchive\n\n[half]\naws_access_key_id = AKIDHALF\n")
	write("config", "[default]\nregion = us-east-1\n\n[profile archive]\naws_access_key_id = AKIDCONFIG\naws_secret_access_key = sconfig\n\n[profile cfgonly]\naws_access_key_id = AKIDCFGONLY\naws_secret_access_key = scfgonly\n\n[profile role]\nrole_arn = arn:aws:iam::1:role/x\nsource_profile = default\n\n[profile sso]\nsso_role_name = r\nsso_account_id = 1\nsso_start_url = https://example.org/start\nsso_region = eu-west-1\n")
	return home
}

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestFindCredentials(t *testing.T) {
	home := awsHome(t)
	creds, conf := filepath.Join(home, ".aws", "credentials"), filepath.Join(home, ".aws", "config")
	for _, c := range []struct {
		name    string
		env     map[string]string
		kind    string
		file    string
		profile string
		problem string
	}{
		{"environment first", map[string]string{"AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s", "HOME": home, "AWS_PROFILE": "archive"}, CredsEnvironment, "", "", ""},
		{"half the environment", map[string]string{"AWS_ACCESS_KEY_ID": "k", "HOME": home}, CredsNone, "", "", "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not"},
		{"default profile", map[string]string{"HOME": home}, CredsSharedCredentials, creds, "default", ""},
		{"AWS_PROFILE", map[string]string{"HOME": home, "AWS_PROFILE": "archive"}, CredsSharedCredentials, creds, "archive", ""},
		{"AWS_SHARED_CREDENTIALS_FILE", map[string]string{"AWS_SHARED_CREDENTIALS_FILE": creds, "AWS_PROFILE": "archive"}, CredsSharedCredentials, creds, "archive", ""},
		{"config file's profile", map[string]string{"HOME": home, "AWS_PROFILE": "cfgonly"}, CredsSharedConfig, conf, "cfgonly", ""},
		{"SSO named, not used", map[string]string{"HOME": home, "AWS_PROFILE": "sso"}, CredsSharedConfig, conf, "sso", ""},
		{"a role rsx cannot assume", map[string]string{"HOME": home, "AWS_PROFILE": "role"}, CredsNone, conf, "role", "assumes a role"},
		{"half a profile", map[string]string{"HOME": home, "AWS_PROFILE": "half"}, CredsNone, creds, "half", "only one of"},
		{"unknown profile", map[string]string{"HOME": home, "AWS_PROFILE": "nope"}, CredsNone, "", "nope", "AWS_PROFILE names the profile nope, which is in neither " + creds + " nor " + conf},
		{"web identity", map[string]string{"AWS_WEB_IDENTITY_TOKEN_FILE": "/t", "AWS_ROLE_ARN": "arn:x"}, CredsWebIdentity, "", "", ""},
		{"container", map[string]string{"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "/v2/x"}, CredsContainer, "", "", ""},
		{"nothing", map[string]string{}, CredsNone, "", "", "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := FindCredentials(envOf(c.env))
			if src.Kind != c.kind || src.File != c.file || src.Profile != c.profile || !strings.Contains(src.Problem, c.problem) || (c.problem == "") != (src.Problem == "") {
				t.Errorf("FindCredentials = %+v; want kind %s, file %q, profile %q, problem %q", src, c.kind, c.file, c.profile, c.problem)
			}
			if strings.Contains(src.String(), "sarchive") || strings.Contains(src.String(), "sdefault") {
				t.Errorf("a secret in %q", src)
			}
		})
	}
}

// keyServer is a bucket endpoint that records the access key of every
// request's signature and answers each as if the bucket existed.
func keyServer(t *testing.T) (*httptest.Server, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var keys []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, cred, _ := strings.Cut(r.Header.Get("Authorization"), "Credential=")
		key, _, _ := strings.Cut(cred, "/")
		mu.Lock()
		keys = append(keys, key)
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), keys...)
	}
}

// A bucket opened with AWS_PROFILE signs with that profile's key from the
// shared credentials file (under HOME, or where AWS_SHARED_CREDENTIALS_FILE
// says); a credential_process of the config file gives its keys; an
// unknown profile is an error naming the files looked in.
func TestS3CredentialsFromTheAWSFiles(t *testing.T) {
	home := awsHome(t)
	if runtime.GOOS != "windows" {
		script := filepath.Join(home, "creds.sh")
		if err := os.WriteFile(script, []byte("#!/bin/sh\necho '{\"Version\": 1, \"AccessKeyId\": \"AKIDPROCESS\", \"SecretAccessKey\": \"sprocess\"}'\n"), 0o700); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(filepath.Join(home, ".aws", "config"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("\n[profile proc]\ncredential_process = /bin/sh " + script + "\n")
		f.Close()
	}
	srv, keys := keyServer(t)
	for _, c := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"HOME's default profile", map[string]string{"HOME": home}, "AKIDDEFAULT"},
		{"AWS_PROFILE", map[string]string{"HOME": home, "AWS_PROFILE": "archive"}, "AKIDARCHIVE"},
		{"AWS_SHARED_CREDENTIALS_FILE", map[string]string{"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(home, ".aws", "credentials"), "AWS_PROFILE": "archive"}, "AKIDARCHIVE"},
		{"the config file", map[string]string{"HOME": home, "AWS_PROFILE": "cfgonly"}, "AKIDCFGONLY"},
		{"the environment first", map[string]string{"HOME": home, "AWS_PROFILE": "archive", "AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": "senv"}, "AKIDENV"},
		{"credential_process", map[string]string{"HOME": home, "AWS_PROFILE": "proc"}, "AKIDPROCESS"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.want == "AKIDPROCESS" && runtime.GOOS == "windows" {
				t.Skip("the credential_process is a shell script")
			}
			before := len(keys())
			st, err := Open(context.Background(), "s3://bkt/p?endpoint="+srv.URL+"&region=us-east-1", Options{ReadOnly: true, Getenv: envOf(c.env), CacheDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			st.Close()
			got := keys()[before:]
			if len(got) == 0 {
				t.Fatal("no request reached the bucket")
			}
			for _, k := range got {
				if k != c.want {
					t.Errorf("signed with %q, want %q", k, c.want)
				}
			}
		})
	}
	_, err := Open(context.Background(), "s3://bkt/p?endpoint="+srv.URL, Options{ReadOnly: true, Getenv: envOf(map[string]string{"HOME": home, "AWS_PROFILE": "nope"}), CacheDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "no credentials: AWS_PROFILE names the profile nope, which is in neither") {
		t.Errorf("unknown profile: %v", err)
	}
	_, err = Open(context.Background(), "s3://bkt/p?endpoint="+srv.URL, Options{ReadOnly: true, Getenv: envOf(map[string]string{}), CacheDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY") {
		t.Errorf("no credentials at all: %v", err)
	}
}

// Against a real S3 server: AWS_PROFILE=archive reads the profile's keys
// from the shared credentials file, and a profile with the wrong keys is
// refused by the server.
func TestS3ProfileAgainstVersitygw(t *testing.T) {
	g := startGateway(t, "copy")
	file := filepath.Join(t.TempDir(), "credentials")
	if err := os.WriteFile(file, []byte("[archive]\naws_access_key_id = "+testAccess+"\naws_secret_access_key = "+testSecret+"\n[wrong]\naws_access_key_id = "+testAccess+"\naws_secret_access_key = not-the-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"AWS_SHARED_CREDENTIALS_FILE": file, "AWS_PROFILE": "archive"}
	s := openS3(t, g, "copy/p", Options{Getenv: envOf(env)})
	ctx := context.Background()
	l, err := s.Lock(ctx)
	if err != nil {
		t.Fatalf("lock with the profile's keys: %v", err)
	}
	l.Release()
	s.Close()
	env["AWS_PROFILE"] = "wrong"
	if _, err := Open(ctx, g.url("copy/p"), Options{Getenv: envOf(env), CacheDir: t.TempDir()}); err == nil {
		t.Error("a profile with the wrong secret opened the bucket")
	}
}
