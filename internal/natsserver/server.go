// Package natsserver runs a private NATS server with JetStream, for the
// NATS target's nats://embedded and the NATS lease issuer: the server of
// the nats-server/v2 module, run from a configuration file fencecheck
// writes, in a process of its own (Serve is what that process runs), so
// that a fault can crash it with SIGKILL, start it again on its store
// and freeze it. It also holds the client settings both share (Connect).
//
// The store is a directory of the caller's; Sync sets the server's
// sync_interval to always, so that every write is fsynced before it is
// acknowledged. Without it the server fsyncs every two minutes: a write
// the server acknowledged is in the operating system's page cache, where
// a SIGKILL of the server does not lose it but a power cut or a kernel
// crash does. fencecheck's faults kill processes; they do not cut power,
// so a run under the default setting measures the first only.
package natsserver

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"al.essio.dev/pkg/shellescape"
	"github.com/nats-io/nats-server/v2/server"
)

// ConfigFile is the name of the configuration file Write leaves in the
// server's directory.
const ConfigFile = "nats-server.conf"

// Config is a private server's configuration.
type Config struct {
	// Port is the loopback port it listens on.
	Port int
	// StoreDir is JetStream's store: the streams and the KV buckets.
	StoreDir string
	// Sync fsyncs every write before the server acknowledges it
	// (sync_interval: always).
	Sync bool
}

// Addr is the host:port the server listens on.
func (c Config) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(c.Port)) }

// URL is the nats:// URL clients connect to.
func (c Config) URL() string { return "nats://" + c.Addr() }

// Text is the configuration in the server's own format, which a
// nats-server binary (2.10 or later, for sync_interval) reads too.
func (c Config) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "listen: %q\n", c.Addr())
	fmt.Fprintf(&b, "jetstream {\n  store_dir: %q\n", c.StoreDir)
	if c.Sync {
		b.WriteString("  sync_interval: always\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// Write writes c to ConfigFile in dir, which it creates, and returns
// the file's path.
func Write(dir string, c Config) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("nats server: create %s: %w", dir, err)
	}
	path := filepath.Join(dir, ConfigFile)
	if err := os.WriteFile(path, []byte(c.Text()), 0o600); err != nil {
		return "", fmt.Errorf("nats server: write its configuration: %w", err)
	}
	return path, nil
}

// Cmdline is the shell command line that runs command with the
// configuration file as its last argument.
func Cmdline(command []string, config string) string {
	return shellescape.QuoteCommand(append(append([]string(nil), command...), config))
}

// readyTimeout bounds Serve's wait for the server to accept clients.
const readyTimeout = 30 * time.Second

// Serve runs the server the configuration file at path describes, in
// this process, until ctx ends, then shuts it down. It is what the
// server's process runs (`fencecheck nats-server CONFIG`).
func Serve(ctx context.Context, path string) error {
	opts, err := server.ProcessConfigFile(path)
	if err != nil {
		return fmt.Errorf("nats server: read %s: %w", path, err)
	}
	opts.NoSigs = true // ctx says when to stop
	s, err := server.NewServer(opts)
	if err != nil {
		return fmt.Errorf("nats server: %w", err)
	}
	s.ConfigureLogger()
	go s.Start()
	if !s.ReadyForConnections(readyTimeout) {
		s.Shutdown()
		return fmt.Errorf("nats server: not ready for connections within %v", readyTimeout)
	}
	<-ctx.Done()
	s.Shutdown()
	s.WaitForShutdown()
	return nil
}
