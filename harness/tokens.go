package harness

import (
	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/targets"
)

// tokensHeadroom is how many tokens a from:N sequence must leave inside
// the receiver's domain: more grants than any run makes on one resource,
// so that no run stops for want of a token.
const tokensHeadroom = 1 << 20

// domain is the largest token the run may send: the smaller of what the
// caller declared (Config.Target.MaxToken) and what the target declares.
func (c *Config) domain() uint64 { return targets.Domain(c.Target.Receiver, c.Target.MaxToken) }

// validateTokens reports a token sequence the run cannot grant. Only the
// run's own lease service numbers its tokens as asked: a real issuer's
// tokens are its own (etcd's revisions, a Redis or PostgreSQL counter),
// and the history records and judges the grants it made, so renumbering
// them would judge tokens no issuer granted.
func (c *Config) validateTokens(bad func(field, format string, args ...any)) {
	if c.Leases.Tokens.IsDense() || c.Target.Receiver == nil {
		return
	}
	if c.Leases.Issuer != nil || c.Leases.Service != nil {
		name := "the lease service in Leases"
		if c.Leases.Issuer != nil {
			name = c.Leases.Issuer.Name()
		}
		bad("Leases.Tokens", "%s needs the run's own lease service: %s grants its own tokens, and fencecheck judges the grants it made rather than renumber them", c.Leases.Tokens, name)
		return
	}
	if c.Leases.Tokens == lease.Sparse() {
		return // it counts up from 1, and jumps only inside the domain
	}
	first, ok := c.Leases.Tokens.Next(0, c.domain())
	if !ok || c.domain()-first < tokensHeadroom {
		bad("Leases.Tokens", "%s leaves fewer than %d tokens below the largest the receiver stores (%s): a run could run out of tokens", c.Leases.Tokens, tokensHeadroom, targets.TokenName(c.domain()))
	}
}

// useTokens makes the run's own lease service grant the configured
// sequence inside the receiver's domain.
func (r *run) useTokens() {
	if l, ok := r.leases.(*lease.Local); ok && r.cfg.Leases.Service == nil {
		l.UseTokens(r.cfg.Leases.Tokens, r.cfg.domain())
	}
}
