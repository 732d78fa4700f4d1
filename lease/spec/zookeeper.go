package leasespec

import (
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/fencecheck/fencecheck/lease"
	zklease "github.com/fencecheck/fencecheck/lease/zookeeper"
)

// zookeeperIssuer returns the issuer of "zookeeper" (a private server)
// or zookeeper://HOST:PORT,… (servers the user runs).
func zookeeperIssuer(spec string, opts Options) (lease.Issuer, error) {
	if spec == "zookeeper" {
		return zklease.NewPrivateIssuer(opts.Poll), nil
	}
	rest, ok := strings.CutPrefix(spec, "zookeeper://")
	if !ok {
		return nil, fmt.Errorf("%q: the private ZooKeeper server takes no settings (want zookeeper or zookeeper://HOST:PORT,…)", spec)
	}
	servers, err := zookeeperServers(rest)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", spec, err)
	}
	return zklease.NewIssuer(spec, servers, opts.Poll), nil
}

// zookeeperServers are the HOST:PORT list of a zookeeper:// spec.
func zookeeperServers(list string) ([]string, error) {
	if strings.Contains(list, "@") {
		return nil, errors.New("a zookeeper:// spec takes no user or password (ZooKeeper authentication is not supported)")
	}
	var servers []string
	for s := range strings.SplitSeq(list, ",") {
		host, port, err := net.SplitHostPort(s)
		if err != nil || host == "" || port == "" || strings.ContainsAny(s, "/?#") {
			return nil, fmt.Errorf("%q is not a HOST:PORT server (want zookeeper://HOST:PORT,…, with no path: fencecheck keeps its locks under a root of its own)", s)
		}
		servers = append(servers, s)
	}
	return servers, nil
}
