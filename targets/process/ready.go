package process

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"syscall"
	"time"

	"github.com/fencecheck/fencecheck/internal/spawn"
)

// Ready tells whether a started receiver is ready for requests: it
// returns nil once it is. A Child asks it again and again while it waits,
// and takes a nil answer only if the process it started was still alive
// when the answer came: a receiver that died meanwhile (and whatever else
// may answer in its place) is never taken for ready.
type Ready func(ctx context.Context) error

// DialReady is ready once a TCP connection to addr (host:port) is
// accepted, i.e. the receiver listens. It sends no request, so it suits
// receivers that answer only their own API, even one that exits on an
// unknown request. A receiver that listens before it can serve needs
// HTTPGetReady or CommandReady.
func DialReady(addr string) Ready {
	return func(ctx context.Context) error {
		var d net.Dialer
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return fmt.Errorf("connect to %s: %w", addr, err)
		}
		return conn.Close()
	}
}

// HTTPGetReady is ready once GET url gets an HTTP answer, whatever its
// status: a receiver without a health endpoint answers 404 once it serves.
func HTTPGetReady(url string) Ready {
	client := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		return resp.Body.Close()
	}
}

// CommandReady is ready once `sh -c cmdline` exits 0. The command runs in
// a process group of its own, killed whole when ctx ends, so that a probe
// that hangs (a curl without a timeout) does not outlive its attempt.
func CommandReady(cmdline string) Ready {
	return func(ctx context.Context) error {
		cmd := exec.CommandContext(ctx, "/bin/sh", "-c", cmdline)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		cmd.SysProcAttr = spawn.OwnGroup()
		cmd.Cancel = func() error { return spawn.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		// A grandchild that keeps the output pipe open must not hold
		// the probe past its process's exit.
		cmd.WaitDelay = time.Second
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("readiness command %q: %w%s", cmdline, err, outputTail(out.Bytes()))
		}
		return nil
	}
}

// tailBytes is how much of a process's output an error message quotes.
const tailBytes = 600

// outputTail quotes the end of a process's output for an error message.
func outputTail(data []byte) string {
	if tail := lastLines(data); tail != "" {
		return "; its output ends:\n" + tail
	}
	return ""
}

// lastLines is the end of a process's output, up to tailBytes of whole
// lines, without the blank space around it.
func lastLines(data []byte) string {
	data = bytes.TrimSpace(data)
	if len(data) > tailBytes {
		data = data[len(data)-tailBytes:]
		if i := bytes.IndexByte(data, '\n'); i >= 0 && i < len(data)-1 {
			data = data[i+1:] // whole lines only
		}
	}
	return string(data)
}
