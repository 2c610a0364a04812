package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/minio/minio-go/v7/pkg/credentials"
	"gopkg.in/ini.v1"
)

// A bucket's credentials are found where the AWS command line, rclone and
// restic find them, in the order the AWS SDKs look: the environment
// (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, with AWS_SESSION_TOKEN),
// then the profile AWS_PROFILE names ("default" when it names none) in the
// shared credentials file (AWS_SHARED_CREDENTIALS_FILE, ~/.aws/credentials)
// and in the shared config file (AWS_CONFIG_FILE, ~/.aws/config: keys,
// credential_process or AWS SSO), then a container's or a web identity's
// role (AWS_CONTAINER_CREDENTIALS_RELATIVE_URI or _FULL_URI,
// AWS_WEB_IDENTITY_TOKEN_FILE). minio-go's providers read them, chained
// (credentials.Chain), so that temporary ones are renewed as they expire.
// Every variable, HOME included, is read through Options.Getenv: a named
// destination of the configuration file chooses what its bucket sees. The
// EC2 instance's metadata service is not asked: off EC2 the question only
// waits for a timeout.

// Kinds of CredentialSource.
const (
	CredsEnvironment       = "environment"
	CredsSharedCredentials = "shared-credentials"
	CredsSharedConfig      = "shared-config"
	CredsContainer         = "container"
	CredsWebIdentity       = "web-identity"
	CredsNone              = "none"
)

// CredentialSource says where a bucket's credentials come from: a kind of
// source, and the file, profile or variables of it; never a secret.
type CredentialSource struct {
	Kind     string `json:"kind"`
	File     string `json:"file,omitempty"`
	Profile  string `json:"profile,omitempty"`
	Variable string `json:"variable,omitempty"` // the variable that names it (AWS_ACCESS_KEY_ID, AWS_PROFILE, …)
	// Method is how a profile gives them: "keys", "credential_process" or
	// "sso".
	Method string `json:"method,omitempty"`
	// Problem says why none is found, or why the one found cannot be used.
	Problem string `json:"problem,omitempty"`
}

// String says the source in words.
func (s CredentialSource) String() string {
	switch s.Kind {
	case CredsEnvironment:
		return "the environment (" + s.Variable + ")"
	case CredsSharedCredentials, CredsSharedConfig:
		out := fmt.Sprintf("profile %s of %s", s.Profile, s.File)
		if s.Variable != "" {
			out += " (" + s.Variable + ")"
		}
		if s.Method != "" && s.Method != "keys" {
			out += ", by " + s.Method
		}
		return out
	case CredsContainer:
		return "the container's role (" + s.Variable + ")"
	case CredsWebIdentity:
		return "a web identity's role (" + s.Variable + ")"
	}
	return "none (" + s.Problem + ")"
}

// awsFiles are the shared credentials and config files getenv points at,
// "" for one with neither its variable nor a home folder to be under.
func awsFiles(getenv func(string) string) (creds, conf string) {
	home := getenv("HOME")
	if home == "" && runtime.GOOS == "windows" {
		home = getenv("USERPROFILE")
	}
	creds, conf = getenv("AWS_SHARED_CREDENTIALS_FILE"), getenv("AWS_CONFIG_FILE")
	if creds == "" && home != "" {
		creds = filepath.Join(home, ".aws", "credentials")
	}
	if conf == "" && home != "" {
		conf = filepath.Join(home, ".aws", "config")
	}
	return creds, conf
}

// envKeys are the key and secret of the environment, with the names of
// the variables they came from.
func envKeys(getenv func(string) string) (id, secret, idVar, secretVar string) {
	idVar, secretVar = "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"
	if id = getenv(idVar); id == "" {
		if id = getenv("AWS_ACCESS_KEY"); id != "" {
			idVar = "AWS_ACCESS_KEY"
		}
	}
	if secret = getenv(secretVar); secret == "" {
		if secret = getenv("AWS_SECRET_KEY"); secret != "" {
			secretVar = "AWS_SECRET_KEY"
		}
	}
	return id, secret, idVar, secretVar
}

// FindCredentials says where a bucket's credentials would come from,
// reading the environment through getenv (nil: os.Getenv) and the shared
// files, but running nothing and asking no server: a credential_process
// or an SSO profile is named, not used.
func FindCredentials(getenv func(string) string) CredentialSource {
	if getenv == nil {
		getenv = os.Getenv
	}
	id, secret, idVar, secretVar := envKeys(getenv)
	switch {
	case id != "" && secret != "":
		return CredentialSource{Kind: CredsEnvironment, Variable: idVar}
	case id != "":
		return CredentialSource{Kind: CredsNone, Variable: idVar, Problem: idVar + " is set but " + secretVar + " is not"}
	case secret != "":
		return CredentialSource{Kind: CredsNone, Variable: secretVar, Problem: secretVar + " is set but " + idVar + " is not"}
	}
	profile, profileVar := getenv("AWS_PROFILE"), "AWS_PROFILE"
	if profile == "" {
		profile, profileVar = "default", ""
	}
	credsFile, confFile := awsFiles(getenv)
	var looked []string
	for _, f := range []struct{ kind, path string }{{CredsSharedCredentials, credsFile}, {CredsSharedConfig, confFile}} {
		if f.path == "" {
			continue
		}
		looked = append(looked, f.path)
		src, found := profileIn(f.path, profile)
		if !found {
			continue
		}
		src.Kind, src.File, src.Profile, src.Variable = f.kind, f.path, profile, profileVar
		if src.Problem != "" {
			src.Kind = CredsNone
		}
		return src
	}
	if profileVar != "" {
		where := "no shared file: neither HOME nor AWS_SHARED_CREDENTIALS_FILE is set"
		if len(looked) > 0 {
			where = "in neither " + strings.Join(looked, " nor ")
		}
		return CredentialSource{Kind: CredsNone, Profile: profile, Variable: profileVar,
			Problem: fmt.Sprintf("AWS_PROFILE names the profile %s, which is %s", profile, where)}
	}
	switch {
	case getenv("AWS_WEB_IDENTITY_TOKEN_FILE") != "":
		return CredentialSource{Kind: CredsWebIdentity, Variable: "AWS_WEB_IDENTITY_TOKEN_FILE"}
	case getenv("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI") != "":
		return CredentialSource{Kind: CredsContainer, Variable: "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"}
	case getenv("AWS_CONTAINER_CREDENTIALS_FULL_URI") != "":
		return CredentialSource{Kind: CredsContainer, Variable: "AWS_CONTAINER_CREDENTIALS_FULL_URI"}
	}
	looked = append(looked, "the environment")
	return CredentialSource{Kind: CredsNone, Problem: "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary ones), or give a profile in ~/.aws/credentials (AWS_PROFILE names one other than default); looked in " + strings.Join(looked, ", ")}
}

// profileIn tells whether file holds profile (as [NAME], or [profile NAME]
// as the config file writes it), and how it gives credentials. A file that
// does not exist holds none; one that cannot be read is found, with its
// problem: minio-go stops there too, rather than take credentials from a
// source further down.
func profileIn(file, profile string) (src CredentialSource, found bool) {
	f, err := ini.Load(file)
	if errors.Is(err, fs.ErrNotExist) {
		return CredentialSource{}, false
	}
	if err != nil {
		return CredentialSource{Problem: fmt.Sprintf("cannot read %s: %v", file, err)}, true
	}
	sec, err := f.GetSection(profile)
	if err != nil {
		if sec, err = f.GetSection("profile " + profile); err != nil {
			return CredentialSource{}, false
		}
	}
	id, secret := sec.Key("aws_access_key_id").String(), sec.Key("aws_secret_access_key").String()
	switch {
	case id != "" && secret != "":
		return CredentialSource{Method: "keys"}, true
	case id != "" || secret != "":
		return CredentialSource{Problem: fmt.Sprintf("profile %s of %s has only one of aws_access_key_id and aws_secret_access_key", profile, file)}, true
	case sec.Key("sso_role_name").String() != "":
		return CredentialSource{Method: "sso"}, true
	case strings.TrimSpace(sec.Key("credential_process").String()) != "":
		return CredentialSource{Method: "credential_process"}, true
	case sec.Key("role_arn").String() != "":
		return CredentialSource{Problem: fmt.Sprintf("profile %s of %s assumes a role (role_arn), which rsx cannot do: give it keys, a credential_process or AWS SSO", profile, file)}, true
	}
	// A profile with no credentials (a region only): the next file may
	// give them.
	return CredentialSource{}, false
}

// bucketCredentials are the credentials of a bucket, minio-go's providers
// chained in the order FindCredentials looks, and where they come from;
// an error when there are none, or when its source gives none.
func bucketCredentials(ctx context.Context, getenv func(string) string) (*credentials.Credentials, CredentialSource, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	src := FindCredentials(getenv)
	if src.Kind == CredsNone {
		return nil, src, errors.New("no credentials: " + src.Problem)
	}
	var providers []credentials.Provider
	if id, secret, _, _ := envKeys(getenv); id != "" && secret != "" {
		providers = append(providers, &credentials.Static{Value: credentials.Value{
			AccessKeyID: id, SecretAccessKey: secret, SessionToken: getenv("AWS_SESSION_TOKEN"), SignerType: credentials.SignatureV4,
		}})
	}
	profile := getenv("AWS_PROFILE")
	if profile == "" {
		profile = "default"
	}
	credsFile, confFile := awsFiles(getenv)
	for _, f := range []string{credsFile, confFile} {
		if f != "" {
			providers = append(providers, &credentials.FileAWSCredentials{Filename: f, Profile: profile})
		}
	}
	if src.Kind == CredsContainer || src.Kind == CredsWebIdentity {
		iam := &credentials.IAM{Region: getenv("AWS_REGION")}
		iam.Container.CredentialsRelativeURI = getenv("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI")
		iam.Container.CredentialsFullURI = getenv("AWS_CONTAINER_CREDENTIALS_FULL_URI")
		iam.Container.AuthorizationToken = getenv("AWS_CONTAINER_AUTHORIZATION_TOKEN")
		iam.Container.AuthorizationTokenFile = getenv("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE")
		iam.EKSIdentity.TokenFile = getenv("AWS_WEB_IDENTITY_TOKEN_FILE")
		iam.EKSIdentity.RoleARN = getenv("AWS_ROLE_ARN")
		iam.EKSIdentity.RoleSessionName = getenv("AWS_ROLE_SESSION_NAME")
		providers = append(providers, iam)
	}
	creds := credentials.NewChainCredentials(providers)
	// The chain takes the first provider that gives keys and keeps no
	// error: asked now, the source found can say why it gave none (a
	// credential_process that failed, an SSO login expired).
	cc := &credentials.CredContext{Client: http.DefaultClient, Context: ctx}
	v, err := creds.GetWithContext(cc)
	if err == nil && v.AccessKeyID != "" {
		return creds, src, nil
	}
	why := "it gave none"
	for _, p := range providers {
		if fp, ok := p.(*credentials.FileAWSCredentials); ok && fp.Filename != src.File {
			continue
		}
		if _, ok := p.(*credentials.Static); ok {
			continue
		}
		if _, err := p.RetrieveWithCredContext(cc); err != nil {
			why = err.Error()
			break
		}
	}
	return nil, src, fmt.Errorf("no credentials from %s: %s", src, why)
}
