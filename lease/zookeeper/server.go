package zklease

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"al.essio.dev/pkg/shellescape"
)

// Java finds a ZooKeeper server to run: the java program and the
// classpath of ZooKeeper's jars.
type Java struct {
	Program   string
	Classpath string
}

// debianJar is Debian's zookeeper package's jar, whose manifest names
// every jar it needs; slf4j-simple, when installed, sends the server's
// log to its output (without it slf4j logs nothing).
const (
	debianJar   = "/usr/share/java/zookeeper.jar"
	slf4jJar    = "/usr/share/java/slf4j-simple.jar"
	upstreamLib = "/usr/share/zookeeper/lib"
)

// ErrNoServer is what FindJava returns when java or ZooKeeper's jars are
// missing.
var ErrNoServer = errors.New("no ZooKeeper server to start (install java and Debian's zookeeper package: apt-get install zookeeper)")

// FindJava finds java on PATH and ZooKeeper's jars: Debian's package's
// (/usr/share/java/zookeeper.jar) or an upstream layout's
// (/usr/share/zookeeper/lib/*.jar).
func FindJava() (Java, error) {
	prog, err := exec.LookPath("java")
	if err != nil {
		return Java{}, fmt.Errorf("%w: %w", ErrNoServer, err)
	}
	if _, err := os.Stat(debianJar); err == nil {
		cp := debianJar
		if _, err := os.Stat(slf4jJar); err == nil {
			cp += ":" + slf4jJar
		}
		return Java{Program: prog, Classpath: cp}, nil
	}
	jars, _ := filepath.Glob(filepath.Join(upstreamLib, "*.jar"))
	for _, j := range jars {
		if strings.HasPrefix(filepath.Base(j), "zookeeper-3") {
			return Java{Program: prog, Classpath: strings.Join(jars, ":")}, nil
		}
	}
	return Java{}, fmt.Errorf("%w: neither %s nor %s/zookeeper-3*.jar found", ErrNoServer, debianJar, upstreamLib)
}

// serverMain runs one standalone server from a zoo.cfg.
const serverMain = "org.apache.zookeeper.server.ZooKeeperServerMain"

// Cmdline is the shell command line that runs the server of the
// configuration file conf.
func (j Java) Cmdline(conf string) string {
	return shellescape.QuoteCommand([]string{j.Program, "-Xmx256m", "-XX:+UseSerialGC", "-cp", j.Classpath, serverMain, conf})
}

// Config is a private server's zoo.cfg.
type Config struct {
	Port    int
	DataDir string
	// Tick is ZooKeeper's tickTime: sessions expire at its granularity,
	// and the shortest session is two ticks (minSessionTimeout).
	Tick time.Duration
}

// maxSession is the longest session a private server grants: the
// store's own asks for mainTimeout.
const maxSession = time.Minute

// TickFor returns the tick of a server whose leases last ttl: half of
// it, so that a session of ttl is two ticks, between 10ms and ZooKeeper's
// default of 2s.
func TickFor(ttl time.Duration) time.Duration {
	return min(max(ttl/2, 10*time.Millisecond), 2*time.Second).Round(time.Millisecond)
}

// Addr is the server's client address.
func (c Config) Addr() string { return fmt.Sprintf("127.0.0.1:%d", c.Port) }

// Write writes the configuration to dir/zoo.cfg and returns its path.
// The data directory is synced on every write (forceSync, the default);
// the admin server (an HTTP port of its own) is off; the four-letter
// word ruok answers readiness checks.
func Write(dir string, c Config) (string, error) {
	if err := os.MkdirAll(c.DataDir, 0o755); err != nil {
		return "", fmt.Errorf("zookeeper config: %w", err)
	}
	text := fmt.Sprintf(`# fencecheck's private ZooKeeper server: deleted with the run's data
tickTime=%d
dataDir=%s
clientPort=%d
clientPortAddress=127.0.0.1
maxSessionTimeout=%d
maxClientCnxns=0
admin.enableServer=false
4lw.commands.whitelist=ruok,srvr
forceSync=yes
`, c.Tick.Milliseconds(), c.DataDir, c.Port, maxSession.Milliseconds())
	path := filepath.Join(dir, "zoo.cfg")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return "", fmt.Errorf("zookeeper config: %w", err)
	}
	return path, nil
}

// Ready is ready once the server at addr answers ruok with imok (it
// answers only once it serves).
func Ready(addr string) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		var d net.Dialer
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return fmt.Errorf("connect to %s: %w", addr, err)
		}
		defer conn.Close()
		if dl, ok := ctx.Deadline(); ok {
			_ = conn.SetDeadline(dl)
		}
		if _, err := conn.Write([]byte("ruok")); err != nil {
			return fmt.Errorf("ruok to %s: %w", addr, err)
		}
		line, _ := bufio.NewReader(conn).ReadString('\n')
		if !strings.HasPrefix(line, "imok") {
			return fmt.Errorf("%s answered ruok with %q, not imok", addr, line)
		}
		return nil
	}
}
