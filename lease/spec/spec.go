// Package leasespec reads a lease spec: the text that says where a run's
// leases and fencing tokens come from (local, etcd, etcd://…, redis,
// redis://…, postgres, postgres://…, nats, nats://…, zookeeper, zookeeper://…), as the CLI's --leases and
// fencetest's FENCETEST_LEASES take it. Parse only reads the spec and
// connects to nothing, so that a bad spec is reported before a run
// starts; the issuer connects, or starts its servers, when the run opens
// it.
package leasespec

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/lease"
	etcdlease "github.com/fencecheck/fencecheck/lease/etcd"
	"github.com/fencecheck/fencecheck/lease/etcd/embedded"
	natslease "github.com/fencecheck/fencecheck/lease/nats"
	pglease "github.com/fencecheck/fencecheck/lease/postgres"
	redislease "github.com/fencecheck/fencecheck/lease/redis"
)

// Local is the spec of the run's own in-memory lease service: the
// default, and the only one a deterministic run can use.
const Local = "local"

// Want lists the spec forms, for messages that say what is accepted.
const Want = "local, etcd, etcd://HOST:PORT,…, redis[?SETTINGS], redis://…, postgres[?SETTINGS], postgres://…, nats[?sync=always], nats://HOST:PORT, zookeeper, zookeeper://HOST:PORT,…"

// Options are the settings of the issuers a spec can name that the spec
// itself does not carry.
type Options struct {
	// Embedded starts the cluster of the spec "etcd".
	Embedded embedded.Options
	// Poll is how the Redis and PostgreSQL issuers wait for a lease.
	Poll lease.PollOptions
	// NATSCommand runs the private server of the spec "nats": a program
	// and its arguments, to which the server's configuration file is
	// appended (`fencecheck nats-server`).
	NATSCommand []string
	_           struct{}
}

// DefaultOptions are a three-member embedded cluster and the default
// polling.
func DefaultOptions() Options {
	return Options{Embedded: embedded.DefaultOptions(), Poll: lease.DefaultPollOptions()}
}

// Parse returns the issuer spec names, or nil for Local (the run's own
// lease service). Its errors begin with the spec, and neither they nor
// the issuer's Name show the spec's password.
func Parse(spec string, opts Options) (lease.Issuer, error) {
	scheme, rest, hasScheme := strings.Cut(spec, "://")
	switch {
	case spec == Local:
		return nil, nil
	case spec == "etcd":
		return embedded.NewIssuer(opts.Embedded), nil
	case isPrivate(spec, "redis"), isPrivate(spec, "postgres"):
		return privateIssuer(spec, opts.Poll)
	case isPrivate(spec, "nats"):
		return privateNATS(spec, opts)
	case hasScheme && scheme == "nats":
		if err := natsAddr(spec); err != nil {
			return nil, fmt.Errorf("%s: %w", redact.Spec(spec), err)
		}
		return natslease.NewIssuer(spec, opts.Poll), nil
	case spec == "zookeeper" || strings.HasPrefix(spec, "zookeeper?") || (hasScheme && scheme == "zookeeper"):
		return zookeeperIssuer(spec, opts)
	case hasScheme && scheme == "etcd":
		endpoints, err := etcdEndpoints(rest)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", redact.Spec(spec), err)
		}
		return etcdlease.New(endpoints), nil
	case hasScheme && (scheme == "redis" || scheme == "rediss" || scheme == "postgres" || scheme == "postgresql"):
		return netIssuer(spec, scheme, opts.Poll)
	}
	return nil, fmt.Errorf("%q is not a lease spec (want %s)", redact.Spec(spec), Want)
}

// isPrivate reports whether spec names a private server of kind (redis,
// postgres), which fencecheck starts itself: the bare word, or the word
// and settings as a query ("redis?appendonly=yes").
func isPrivate(spec, kind string) bool {
	return spec == kind || strings.HasPrefix(spec, kind+"?")
}

// privateIssuer returns the issuer of a private redis or postgres spec,
// once its settings are read.
func privateIssuer(spec string, poll lease.PollOptions) (lease.Issuer, error) {
	kind, query, _ := strings.Cut(spec, "?")
	if kind == "redis" {
		settings, err := redislease.ParseSettings(query)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", redact.Spec(spec), err)
		}
		return redislease.NewPrivateIssuer(settings, poll), nil
	}
	settings, err := pglease.ParseSettings(query)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", redact.Spec(spec), err)
	}
	return pglease.NewPrivateIssuer(settings, poll), nil
}

// etcdEndpoints are the host:port list of an etcd:// spec.
func etcdEndpoints(list string) ([]string, error) {
	var eps []string
	if strings.Contains(list, "@") {
		return nil, errors.New("an etcd:// spec takes no user or password (etcd authentication is not supported yet)")
	}
	for ep := range strings.SplitSeq(list, ",") {
		host, port, err := net.SplitHostPort(ep)
		if err != nil || host == "" || port == "" || strings.ContainsAny(ep, "/?#") {
			return nil, fmt.Errorf("%q is not a HOST:PORT endpoint", ep)
		}
		eps = append(eps, ep)
	}
	return eps, nil
}

// netIssuer returns the issuer of a redis://, rediss://, postgres:// or
// postgresql:// spec, once its driver parsed it.
func netIssuer(spec, scheme string, poll lease.PollOptions) (lease.Issuer, error) {
	// A parser may quote the whole spec in its error, escaped, and the
	// password found in an unparsable spec may not be the part it quotes:
	// the spec itself, in both forms, is masked first.
	quoted := strconv.Quote(spec)
	secrets := append([]string{quoted[1 : len(quoted)-1], spec}, redact.Secrets(spec, nil)...)
	bad := func(err error) error {
		return redact.Error(fmt.Errorf("%s: %w", redact.Spec(spec), err), secrets)
	}
	if scheme == "redis" || scheme == "rediss" {
		if _, err := redis.ParseURL(spec); err != nil {
			return nil, bad(err)
		}
		return redislease.NewIssuer(spec, poll), nil
	}
	if _, err := pgxpool.ParseConfig(spec); err != nil {
		return nil, bad(err)
	}
	return pglease.NewIssuer(spec, poll), nil
}
