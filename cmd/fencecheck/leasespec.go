package main

import (
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/lease"
	etcdlease "github.com/fencecheck/fencecheck/lease/etcd"
	"github.com/fencecheck/fencecheck/lease/etcd/embedded"
)

// localLeases is the --leases spec of the run's own in-memory lease
// service: the default, and the only one a deterministic run can use.
const localLeases = "local"

// parseLeases returns the issuer a --leases spec names, or nil for the
// run's own lease service (local).
func parseLeases(spec string) (lease.Issuer, error) {
	scheme, rest, hasScheme := strings.Cut(spec, "://")
	switch {
	case spec == localLeases:
		return nil, nil
	case spec == "etcd":
		return embedded.NewIssuer(embedded.DefaultOptions()), nil
	case hasScheme && scheme == "etcd":
		endpoints, err := etcdEndpoints(rest)
		if err != nil {
			return nil, &usageError{fmt.Errorf("--leases %s: %w", redact.Spec(spec), err)}
		}
		return etcdlease.New(endpoints), nil
	case hasScheme && (scheme == "redis" || scheme == "postgres" || scheme == "postgresql"):
		iss, err := openNetIssuer(spec)
		if err != nil {
			return nil, &usageError{fmt.Errorf("--leases %s: %w", redact.Spec(spec), err)}
		}
		return iss, nil
	}
	return nil, &usageError{fmt.Errorf("--leases: %q is not a lease spec (want local, etcd, etcd://HOST:PORT,…, redis://…, postgres://…)", redact.Spec(spec))}
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
