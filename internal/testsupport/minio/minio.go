// Package minio gives the tests a real S3 server when there is one: the
// store FENCECHECK_S3_ENDPOINT names (HOST:PORT, with its credentials in
// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY), or else a MinIO server
// started from the minio binary on PATH, in a temporary directory on a
// free loopback port, once per test process, and stopped by its PID
// (Stop, from TestMain). Without either, Store says why, for the test to
// skip with.
package minio

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// EnvEndpoint names a store the tests use instead of starting MinIO.
const EnvEndpoint = "FENCECHECK_S3_ENDPOINT"

// Server is a reachable S3 store.
type Server struct {
	Addr                         string // host:port, plain HTTP
	AccessKeyID, SecretAccessKey string
}

var (
	once   sync.Once
	server Server
	reason string
	cmd    *exec.Cmd
	exited chan error // receives cmd.Wait's error
	dir    string
)

// Store returns the store, starting MinIO on the first call, or why
// there is none.
func Store() (Server, string) {
	once.Do(func() { server, reason = find() })
	return server, reason
}

// find looks for a store.
func find() (Server, string) {
	if addr := os.Getenv(EnvEndpoint); addr != "" {
		s := Server{Addr: addr, AccessKeyID: os.Getenv("AWS_ACCESS_KEY_ID"), SecretAccessKey: os.Getenv("AWS_SECRET_ACCESS_KEY")}
		if s.AccessKeyID == "" || s.SecretAccessKey == "" {
			return s, fmt.Sprintf("%s=%s is set without AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY", EnvEndpoint, addr)
		}
		return s, ""
	}
	bin, err := exec.LookPath("minio")
	if err != nil {
		return Server{}, fmt.Sprintf("no real S3 store: %s is unset and no minio binary is on PATH (go install github.com/minio/minio@latest)", EnvEndpoint)
	}
	s, err := start(bin)
	if err != nil {
		return Server{}, fmt.Sprintf("minio on PATH (%s) did not start: %v", bin, err)
	}
	return s, ""
}

// start runs minio server in a temporary directory on free loopback
// ports and waits until its cluster health check answers (the live
// one answers while the object layer still says 503).
func start(bin string) (Server, error) {
	var err error
	if dir, err = os.MkdirTemp("", "fencecheck-minio"); err != nil {
		return Server{}, err
	}
	addr, err := freeAddr()
	if err != nil {
		return Server{}, err
	}
	console, err := freeAddr()
	if err != nil {
		return Server{}, err
	}
	s := Server{Addr: addr, AccessKeyID: "fc" + randomHex(6), SecretAccessKey: randomHex(16)}
	cmd = exec.Command(bin, "server", "--quiet", "--address", addr, "--console-address", console, dir)
	cmd.Env = append(os.Environ(), "MINIO_ROOT_USER="+s.AccessKeyID, "MINIO_ROOT_PASSWORD="+s.SecretAccessKey,
		"MINIO_BROWSER=off", "MINIO_UPDATE=off")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	logf, err := os.Create(dir + ".log")
	if err != nil {
		return Server{}, err
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return Server{}, err
	}
	exited = make(chan error, 1)
	go func() { exited <- cmd.Wait(); logf.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/minio/health/cluster", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		select {
		case err := <-exited:
			cmd = nil
			return Server{}, fmt.Errorf("exited before it answered (%v); its output is in %s.log", err, dir)
		case <-ctx.Done():
			Stop()
			return Server{}, errors.New("no answer on /minio/health/cluster within 60s")
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Stop stops the MinIO server Store started, by its PID, and removes its
// directory; without one it does nothing.
func Stop() {
	if cmd != nil && cmd.Process != nil {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		cmd = nil
	}
	if dir != "" {
		os.RemoveAll(dir)
		os.Remove(dir + ".log")
		dir = ""
	}
}

// freeAddr is a loopback address no one listens on now.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
