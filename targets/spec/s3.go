package targetspec

import (
	"context"

	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/s3target"
)

// openS3 opens an s3:// target at spec (the user's store, or the
// embedded one's address) with o.
func (s *Spec) openS3(ctx context.Context, spec string, o s3target.Options) (*Target, error) {
	// A real store on the real clock: never deterministic.
	t, err := s3target.Open(ctx, spec, o)
	if err != nil {
		return nil, err
	}
	return &Target{Target: t, Name: named(t.Name(), string(t.Mode()), ""), closers: []func() error{t.Close}}, nil
}

// openEmbeddedS3 starts the embedded S3 store of s3://embedded/BUCKET
// and opens the target on it, behind the TCP fault proxy when a fault
// acts there, as for a store the user runs: so the faults act on real
// connections to a real listener. The target keeps the spec's name, and
// its Close stops the store.
func (s *Spec) openEmbeddedS3(ctx context.Context, faults []nemesis.Fault) (*Target, error) {
	srv, err := s3target.StartEmbedded()
	if err != nil {
		return nil, s.o.bad("Spec", "%w", err)
	}
	direct, err := s3target.Direct(s.spec, srv)
	if err != nil {
		_ = srv.Close()
		return nil, s.o.bad("Spec", "%w", err)
	}
	o := s.s3Options()
	c := srv.Credentials()
	o.Credentials = &c
	t, err := s.openThroughTCPProxy(direct, faults, func(spec string) (*Target, error) { return s.openS3(ctx, spec, o) })
	if err != nil {
		_ = srv.Close()
		return nil, err
	}
	st := t.Target.(*s3target.Target)
	st.Rename(s.Name())
	t.Name = named(s.Name(), string(st.Mode()), "")
	t.closers = append([]func() error{srv.Close}, t.closers...) // closed last
	t.MaxToken = targets.Domain(t.Target, s.o.MaxToken)
	return t, nil
}
