// Package testdb says which database servers the tests can use: the
// loopback servers .ci/run starts (and a developer's machine often runs),
// or the ones the FENCECHECK_*_DSN variables name. A test asks for a
// server's DSN and skips, with the reason, when the server does not
// answer; it never skips only because a variable is unset.
package testdb

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"sync"
	"time"

	"github.com/fencecheck/fencecheck/internal/redact"
)

// Server is one database server the tests may run against.
type Server struct {
	where

	once   sync.Once
	dsn    string
	reason string
}

// where says where a server is found.
type where struct {
	Name    string // what the skip message calls it, e.g. "PostgreSQL"
	Env     string // the variable that overrides Default
	Default string // the DSN of the loopback server
	port    string // the port when a DSN names none
}

// The servers the tests know, one value each: the probe runs once per
// process.
var (
	postgres = &Server{where: where{Name: "PostgreSQL", Env: "FENCECHECK_POSTGRES_DSN",
		Default: "postgres://postgres@127.0.0.1:5432/test?sslmode=disable", port: "5432"}}
	mysql = &Server{where: where{Name: "MariaDB/MySQL", Env: "FENCECHECK_MYSQL_DSN",
		Default: "mysql://root@127.0.0.1:3306/test", port: "3306"}}
	redis = &Server{where: where{Name: "Redis", Env: "FENCECHECK_REDIS_DSN",
		Default: "redis://127.0.0.1:6379/0", port: "6379"}}
	natsServer = &Server{where: where{Name: "NATS (with JetStream)", Env: "FENCECHECK_NATS_URL",
		Default: "nats://127.0.0.1:4222", port: "4222"}}
)

// Postgres is the PostgreSQL server of FENCECHECK_POSTGRES_DSN, else the
// loopback one.
func Postgres() *Server { return postgres }

// MySQL is the MariaDB or MySQL server of FENCECHECK_MYSQL_DSN, else the
// loopback one.
func MySQL() *Server { return mysql }

// Redis is the Redis server of FENCECHECK_REDIS_DSN, else the loopback
// one.
func Redis() *Server { return redis }

// NATS is the NATS server of FENCECHECK_NATS_URL, else the loopback one:
// shared, so a test touches only the buckets it created.
func NATS() *Server { return natsServer }

// probeTimeout bounds the connection probe: a loopback server answers a
// TCP connect at once, and a missing one refuses it at once; the bound is
// for an address that drops packets.
const probeTimeout = 2 * time.Second

// DSN returns the server's DSN when the server answers, or "" and the
// reason to skip, naming the server, the address tried and the variable
// to set. The probe runs once per process.
func (s *Server) DSN() (dsn, skip string) {
	s.once.Do(func() { s.dsn, s.reason = s.lookup(os.Getenv, probeTimeout) })
	return s.dsn, s.reason
}

// lookup picks the DSN (the variable over the default) and probes it.
func (s where) lookup(getenv func(string) string, timeout time.Duration) (dsn, skip string) {
	dsn, from := s.Default, "the default"
	if v := getenv(s.Env); v != "" {
		dsn, from = v, s.Env
	}
	addr, err := s.addr(dsn)
	if err != nil {
		return "", fmt.Sprintf("no %s server to test against: %s (from %s): %v; set %s to a reachable server",
			s.Name, redact.Spec(dsn), from, err, s.Env)
	}
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return "", fmt.Sprintf("no %s server answers on %s (%s, from %s): %v; start one or set %s",
			s.Name, addr, redact.Spec(dsn), from, err, s.Env)
	}
	c.Close()
	return dsn, ""
}

// addr is the host:port a DSN connects to.
func (s where) addr(dsn string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", fmt.Errorf("not a URL: %w", err)
	}
	if u.Hostname() == "" {
		return "", fmt.Errorf("no host in the DSN")
	}
	port := u.Port()
	if port == "" {
		port = s.port
	}
	return net.JoinHostPort(u.Hostname(), port), nil
}
