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
// caller declared (Config.MaxToken) and what the target declares.
func (c *Config) domain() uint64 { return targets.Domain(c.Target, c.MaxToken) }

// validateTokens reports a token sequence the run cannot grant. Only the
// run's own lease service numbers its tokens as asked: a real issuer's
// tokens are its own (etcd's revisions, a Redis or PostgreSQL counter),
// and the history records and judges the grants it made, so renumbering
// them would judge tokens no issuer granted.
func (c *Config) validateTokens(bad func(field, format string, args ...any)) {
	if c.Tokens.IsDense() || c.Target == nil {
		return
	}
	if c.Issuer != nil || c.Leases != nil {
		name := "the lease service in Leases"
		if c.Issuer != nil {
			name = c.Issuer.Name()
		}
		bad("Tokens", "%s needs the run's own lease service: %s grants its own tokens, and fencecheck judges the grants it made rather than renumber them", c.Tokens, name)
		return
	}
	if c.Tokens == lease.Sparse() {
		return // it counts up from 1, and jumps only inside the domain
	}
	first, ok := c.Tokens.Next(0, c.domain())
	if !ok || c.domain()-first < tokensHeadroom {
		bad("Tokens", "%s leaves fewer than %d tokens below the largest the receiver stores (%s): a run could run out of tokens", c.Tokens, tokensHeadroom, targets.TokenName(c.domain()))
	}
}

// useTokens makes the run's own lease service grant the configured
// sequence inside the receiver's domain.
func (r *run) useTokens() {
	if l, ok := r.leases.(*lease.Local); ok && r.cfg.Leases == nil {
		l.UseTokens(r.cfg.Tokens, r.cfg.domain())
	}
}
