package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/lease"
	pglease "github.com/fencecheck/fencecheck/lease/postgres"
	redislease "github.com/fencecheck/fencecheck/lease/redis"
)

// openNetIssuer returns the issuer of a redis://, rediss://, postgres://
// or postgresql:// lease spec. It connects to nothing: the spec is only
// parsed, so that a malformed one is a usage error before the run, and
// the issuer connects when the run opens it. Neither its errors nor its
// Name carry the spec's password.
func openNetIssuer(spec string) (lease.Issuer, error) {
	// A parser may quote the whole spec in its error, escaped, and the
	// password found in an unparsable spec may not be the part it quotes:
	// the spec itself, in both forms, is masked first.
	var secrets []string
	if spec != "" {
		quoted := strconv.Quote(spec)
		secrets = []string{quoted[1 : len(quoted)-1], spec}
	}
	secrets = append(secrets, redact.Secrets(spec, nil)...)
	bad := func(err error) error {
		return &usageError{redact.Error(fmt.Errorf("lease issuer %s: %w", redact.Spec(spec), err), secrets)}
	}
	scheme, _, _ := strings.Cut(spec, "://")
	switch scheme {
	case "redis", "rediss":
		if _, err := redis.ParseURL(spec); err != nil {
			return nil, bad(err)
		}
		return redislease.NewIssuer(spec, lease.DefaultPollOptions()), nil
	case "postgres", "postgresql":
		if _, err := pgxpool.ParseConfig(spec); err != nil {
			return nil, bad(err)
		}
		return pglease.NewIssuer(spec, lease.DefaultPollOptions()), nil
	}
	return nil, bad(fmt.Errorf("not a Redis or PostgreSQL spec (want redis://HOST:PORT/DB or postgres://USER@HOST/DB)"))
}
