// Package s3test starts a real S3 server on loopback for the bucket tests
// of rsx: the Versity S3 Gateway (versitygw, whose posix backend keeps each
// object as a file) or SeaweedFS (`weed server -s3`, an S3 gateway in front
// of a filer that keeps its entries in a sorted store, as S3 services list
// from a sorted index). Each Start runs a server of its own, on free
// loopback ports with a temporary folder, and stops it when the test ends.
//
// The server is chosen by the environment:
//
//	RSX_VERSITYGW  the versitygw binary (scripts/versitygw builds it), or versitygw on PATH
//	RSX_SEAWEEDFS  the SeaweedFS binary, weed (scripts/seaweedfs builds it)
//	RSX_S3_SERVER  versitygw or seaweedfs: the one to run when both are given
//	               (versitygw when unset)
//
// A test with neither skips, saying why.
package s3test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// The servers.
const (
	Versitygw = "versitygw"
	SeaweedFS = "seaweedfs"
)

// The keys a server accepts when Options gives none.
const (
	DefaultAccess = "rsxtestaccess"
	DefaultSecret = "rsxtestsecretkey0123456789"
)

// Options describe the server a test wants.
type Options struct {
	Access, Secret string // its one pair of keys (default DefaultAccess, DefaultSecret)
	Bucket         string // a bucket made before Start returns ("": none)
	// Root is versitygw's folder, each bucket a folder of it, each object a
	// file (default: a temporary folder). SeaweedFS keeps its data under
	// it too, in files of its own.
	Root string
}

// Server is a running S3 server.
type Server struct {
	Kind     string // Versitygw or SeaweedFS
	Addr     string // host:port of its S3 endpoint
	Endpoint string // http://Addr
	Access   string
	Secret   string
	Client   *minio.Client // path-style, region us-east-1
	PID      int
	// Files is the folder whose subfolders are the buckets and whose files
	// are their objects (versitygw), "" when objects are not files
	// (SeaweedFS).
	Files string
	// Started is how long the server took from its start to answer a
	// request (SeaweedFS: to accept a write).
	Started time.Duration

	cmd     *exec.Cmd
	exited  chan struct{} // closed when the process has ended
	out     *syncBuffer
	once    sync.Once
	cleanup []string // files of its own it leaves outside its folder
}

// Chosen names the server the environment chooses and its binary; kind is
// "" when there is none, and why says why.
func Chosen() (kind, bin, why string) {
	vgw := os.Getenv("RSX_VERSITYGW")
	if vgw == "" {
		vgw, _ = exec.LookPath("versitygw")
	}
	swfs := os.Getenv("RSX_SEAWEEDFS")
	switch want := os.Getenv("RSX_S3_SERVER"); want {
	case Versitygw:
		if vgw == "" {
			return "", "", "RSX_S3_SERVER=versitygw, but no versitygw: set RSX_VERSITYGW to a versitygw binary (scripts/versitygw builds one)"
		}
		return Versitygw, vgw, ""
	case SeaweedFS:
		if swfs == "" {
			return "", "", "RSX_S3_SERVER=seaweedfs, but RSX_SEAWEEDFS is not set: set it to a SeaweedFS binary (scripts/seaweedfs builds one)"
		}
		return SeaweedFS, swfs, ""
	case "":
	default:
		return "", "", fmt.Sprintf("RSX_S3_SERVER=%s: want versitygw or seaweedfs", want)
	}
	switch {
	case vgw != "":
		return Versitygw, vgw, ""
	case swfs != "":
		return SeaweedFS, swfs, ""
	}
	return "", "", "no S3 server to test against: set RSX_VERSITYGW to a versitygw binary (scripts/versitygw builds one) or RSX_SEAWEEDFS to a SeaweedFS binary (scripts/seaweedfs builds one)"
}

// Available reports whether the environment names a server.
func Available() bool {
	kind, _, _ := Chosen()
	return kind != ""
}

// Start starts the server the environment chooses, or skips t saying why
// there is none. The server stops when t ends.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	kind, bin, why := Chosen()
	if kind == "" {
		t.Skip(why)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("the %s binary: %v", kind, err)
	}
	if o.Access == "" {
		o.Access, o.Secret = DefaultAccess, DefaultSecret
	}
	if o.Root == "" {
		o.Root = t.TempDir()
	}
	// A port chosen free may be taken by another process before the
	// server binds it (SeaweedFS binds eight): the server is started
	// again on other ports.
	for try := 1; ; try++ {
		s, err := start(t, kind, bin, o)
		if err == nil {
			return s
		}
		if try < 3 && strings.Contains(err.Error(), "address already in use") {
			t.Logf("%s, start %d: a port was taken meanwhile: started again", kind, try)
			continue
		}
		t.Fatal(err)
	}
}

// start starts the server once; its error says what it wrote.
func start(t testing.TB, kind, bin string, o Options) (*Server, error) {
	t.Helper()
	s := &Server{Kind: kind, Access: o.Access, Secret: o.Secret, out: &syncBuffer{}}
	var args []string
	var err error
	switch kind {
	case Versitygw:
		args, err = s.versitygwArgs(o)
	case SeaweedFS:
		args, err = s.seaweedArgs(o)
	}
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", kind, err)
	}
	s.Endpoint = "http://" + s.Addr
	s.cmd = exec.Command(bin, args...)
	s.cmd.Stdout, s.cmd.Stderr = s.out, s.out
	// SeaweedFS makes an admin of the keys in AWS_ACCESS_KEY_ID and
	// AWS_SECRET_ACCESS_KEY: only the keys given are the server's.
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "AWS_") {
			s.cmd.Env = append(s.cmd.Env, e)
		}
	}
	t0 := time.Now()
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	s.PID = s.cmd.Process.Pid
	s.exited = make(chan struct{})
	go func() {
		s.cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(s.Stop)
	s.Client, err = minio.New(s.Addr, &minio.Options{Creds: credentials.NewStaticV4(o.Access, o.Secret, ""), BucketLookup: minio.BucketLookupPath, Region: "us-east-1"})
	if err != nil {
		return nil, err
	}
	if err := s.waitReady(o.Bucket); err != nil {
		s.Stop()
		os.RemoveAll(filepath.Join(o.Root, "seaweedfs"))
		return nil, fmt.Errorf("%s did not get ready on %s: %w\n%s", kind, s.Addr, err, s.Output())
	}
	s.Started = time.Since(t0)
	return s, nil
}

// Output is what the server wrote so far.
func (s *Server) Output() string { return s.out.String() }

// PeakRSS is the server's peak resident memory in bytes (Linux: VmHWM), 0
// when it cannot be read.
func (s *Server) PeakRSS() int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.PID))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// Stop ends the server (it may be called again).
func (s *Server) Stop() {
	s.once.Do(func() {
		s.cmd.Process.Kill()
		<-s.exited
		for _, f := range s.cleanup {
			os.Remove(f)
		}
	})
}

func (s *Server) versitygwArgs(o Options) ([]string, error) {
	ports, err := freePorts(1)
	if err != nil {
		return nil, err
	}
	s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[0]))
	s.Files = o.Root
	return []string{"--access", o.Access, "--secret", o.Secret, "--port", s.Addr, "posix", o.Root}, nil
}

// seaweedArgs is the command line of `weed server` with a master, a volume
// server, a filer and the S3 gateway, every port on loopback and chosen
// here (each gRPC port too: SeaweedFS's default, 10000 above the HTTP port,
// may be taken or past 65535), its data, logs and configuration under the
// folder, no telemetry, and the one identity with every right.
func (s *Server) seaweedArgs(o Options) ([]string, error) {
	ports, err := freePorts(8)
	if err != nil {
		return nil, err
	}
	data := filepath.Join(o.Root, "seaweedfs")
	conf := filepath.Join(data, "config")
	if err := os.MkdirAll(conf, 0o755); err != nil {
		return nil, err
	}
	identities := map[string]any{"identities": []any{map[string]any{
		"name":        "rsx",
		"credentials": []any{map[string]string{"accessKey": o.Access, "secretKey": o.Secret}},
		"actions":     []string{"Admin", "Read", "List", "Tagging", "Write"},
	}}}
	b, _ := json.Marshal(identities)
	s3conf := filepath.Join(conf, "s3.json")
	if err := os.WriteFile(s3conf, b, 0o600); err != nil {
		return nil, err
	}
	// A new master holds the first volume's allocation some 5 s back (for
	// the volume servers of a master rebuilt to report theirs): none here.
	if err := os.WriteFile(filepath.Join(conf, "master.toml"), []byte(seaweedMaster), 0o644); err != nil {
		return nil, err
	}
	p := func(i int) string { return strconv.Itoa(ports[i]) }
	s.Addr = net.JoinHostPort("127.0.0.1", p(6))
	// The gRPC services of one process talk over Unix sockets SeaweedFS
	// names by port under /tmp; removed when the server stops.
	for _, svc := range []struct{ name, port string }{{"master", p(1)}, {"volume", p(3)}, {"filer", p(5)}, {"s3", p(7)}} {
		s.cleanup = append(s.cleanup, fmt.Sprintf("/tmp/seaweedfs-%s-grpc-%s.sock", svc.name, svc.port))
	}
	s.cleanup = append(s.cleanup, "/tmp/seaweedfs-filer-"+p(4)+".sock", "/tmp/seaweedfs-s3-"+p(6)+".sock")
	args := []string{
		"-logtostderr", "-v=0", "-config_dir=" + conf,
		"server", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-dir=" + data,
		"-master.port=" + p(0), "-master.port.grpc=" + p(1), "-master.telemetry=false",
		// A bucket is a collection of its own, which grows 7 volumes at
		// its first write: room for a few buckets, each volume up to
		// 1 GiB (written as it fills, not allocated ahead).
		"-master.volumeSizeLimitMB=1024", "-volume.max=64",
		"-volume.port=" + p(2), "-volume.port.grpc=" + p(3), "-volume.preStopSeconds=0",
		"-filer", "-filer.port=" + p(4), "-filer.port.grpc=" + p(5),
		"-s3", "-s3.port=" + p(6), "-s3.port.grpc=" + p(7), "-s3.port.iceberg=0", "-s3.port.lance=0",
		"-s3.config=" + s3conf,
	}
	return args, nil
}

const seaweedMaster = `[master.volume_growth]
allocation_deferral = "0s"
`

// waitReady waits until the server answers (and, when bucket is given,
// makes it and accepts a write in it: SeaweedFS answers before its volume
// server has registered).
func (s *Server) waitReady(bucket string) error {
	ctx := context.Background()
	deadline := time.Now().Add(60 * time.Second)
	wait := func(what string, try func() error) error {
		for {
			err := try()
			if err == nil {
				return nil
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("%s: %w", what, err)
			}
			select {
			case <-s.exited:
				return fmt.Errorf("%s: the server ended (%v)", what, s.cmd.ProcessState)
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	err := wait("list the buckets", func() error {
		_, err := s.Client.ListBuckets(ctx)
		return err
	})
	if err != nil || bucket == "" {
		return err
	}
	if err := s.Client.MakeBucket(ctx, bucket, minio.MakeBucketOptions{}); err != nil {
		return fmt.Errorf("make bucket %s: %w", bucket, err)
	}
	const probe = "s3test-ready"
	err = wait("write to bucket "+bucket, func() error {
		_, err := s.Client.PutObject(ctx, bucket, probe, bytes.NewReader([]byte("ready")), 5, minio.PutObjectOptions{})
		return err
	})
	if err != nil {
		return err
	}
	return s.Client.RemoveObject(ctx, bucket, probe, minio.RemoveObjectOptions{})
}

// freePorts returns n distinct free loopback ports (held open until all
// are chosen, so that none is chosen twice).
func freePorts(n int) ([]int, error) {
	var ports []int
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		lns = append(lns, ln)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// syncBuffer is a bytes.Buffer the server's output goroutines and the test
// share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.b.Len() > 1<<20 {
		return len(p), nil // enough to say why it failed
	}
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
