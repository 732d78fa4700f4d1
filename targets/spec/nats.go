package targetspec

import (
	"context"

	"github.com/fencecheck/fencecheck/targets/natstarget"
)

// parseNATS reads a nats:// spec. nats://embedded (and the bare "nats")
// names the private server, made here, not started, so that the process
// faults can be given it (Process) before the target opens.
func (s *Spec) parseNATS() error {
	o := &s.o
	opts := s.natsOptions()
	if opts.Timeout <= 0 {
		return o.bad("NATS.Timeout", "must be positive")
	}
	if !natstarget.IsEmbedded(s.spec) {
		return nil
	}
	p, err := natstarget.OpenPrivate(s.spec, opts)
	if err != nil {
		return o.bad("Spec", "%w", err)
	}
	s.private = p
	return nil
}

// openNATS opens a NATS target: the private server, which starts when
// the run sets the target up, or the server spec (or the TCP fault
// proxy in front of it) names. A real server on the real clock: never
// deterministic.
func (s *Spec) openNATS(ctx context.Context, spec string) (*Target, error) {
	if s.private != nil {
		return &Target{Target: s.private, Name: named(s.Name(), string(s.private.Mode()), ""), closers: []func() error{s.private.Close}}, nil
	}
	t, err := natstarget.Open(ctx, spec, s.natsOptions())
	if err != nil {
		return nil, err
	}
	return &Target{Target: t, Name: named(t.Name(), string(t.Mode()), ""), closers: []func() error{t.Close}}, nil
}

// natsOptions are the NATS target's options with the run's policy.
func (s *Spec) natsOptions() natstarget.Options {
	o := natstarget.DefaultOptions()
	if s.o.NATS != nil {
		o = *s.o.NATS
	}
	o.AcceptEqual = s.o.AcceptEqual
	return o
}
