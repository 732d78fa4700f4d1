package harness

import (
	"fmt"
	"strings"
)

// Command returns the fencecheck run command line that repeats this run:
// with a deterministic target, the same history byte for byte. A scripted
// nemesis schedule and --read-share are not recorded in the result and
// must be added by hand if they were used.
func (c RunConfig) Command() string {
	args := []string{"fencecheck", "run", "--target", quote(c.Target),
		"--workers", fmt.Sprint(c.Workers), "--resources", fmt.Sprint(c.Resources)}
	if c.Ops > 0 {
		args = append(args, "--ops", fmt.Sprint(c.Ops))
	}
	if c.Duration != "" && c.Duration != "0s" {
		args = append(args, "--duration", c.Duration)
	}
	if c.Rate > 0 {
		args = append(args, "--rate", fmt.Sprint(c.Rate))
	}
	args = append(args, "--lease-ttl", c.LeaseTTL, "--nemesis", faultList(c.Faults), "--seed", fmt.Sprint(c.Seed), "--policy", c.Policy)
	if c.RequireExclusive {
		args = append(args, "--require", "exclusive")
	}
	if c.MinStale > 0 {
		args = append(args, "--min-stale", fmt.Sprint(c.MinStale))
	}
	if !c.Deterministic && strings.HasPrefix(c.Target, "memory://") {
		args = append(args, "--realtime")
	}
	return strings.Join(args, " ")
}

// quote wraps s in single quotes for a POSIX shell if it needs them.
func quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(":/._-@=,+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
