package leasespec

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/lease"
	natslease "github.com/fencecheck/fencecheck/lease/nats"
)

// privateNATS returns the issuer of "nats" or "nats?sync=always".
func privateNATS(spec string, opts Options) (lease.Issuer, error) {
	_, query, _ := strings.Cut(spec, "?")
	q, err := url.ParseQuery(query)
	sync := q.Get("sync")
	q.Del("sync")
	switch {
	case err != nil || len(q) > 0:
		return nil, fmt.Errorf("%s: the private NATS server takes one setting, sync=always", redact.Spec(spec))
	case sync != "" && sync != "always":
		return nil, fmt.Errorf("%s: sync=%q: the only setting is sync=always (fsync every write before acknowledging it)", redact.Spec(spec), sync)
	case len(opts.NATSCommand) == 0:
		return nil, fmt.Errorf("%s: no command runs the private NATS server (Options.NATSCommand)", redact.Spec(spec))
	}
	return natslease.NewPrivateIssuer(sync == "always", opts.NATSCommand, opts.Poll), nil
}

// natsAddr checks that a nats:// spec names one HOST:PORT and nothing
// else but a user and password.
func natsAddr(spec string) error {
	u, err := url.Parse(spec)
	if err != nil {
		return errors.New("not a URL")
	}
	if _, _, err := net.SplitHostPort(u.Host); err != nil || u.Hostname() == "" {
		return errors.New("want nats://[user:password@]HOST:PORT")
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return errors.New("want nats://[user:password@]HOST:PORT, with no path or parameters")
	}
	return nil
}
