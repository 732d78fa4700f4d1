package targetspec

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/targets/httptarget/receiver"
	"github.com/fencecheck/fencecheck/targets/redistarget"
	sqltarget "github.com/fencecheck/fencecheck/targets/sqltarget"
)

// Twin is a receiver of the spec's kind with a bug planted in it, reached
// the way the spec's receiver is: a memory receiver for memory://; the
// reference receiver in a bug mode on loopback for http:// (its protocol,
// without the target's adapter or credentials); the built-in
// check-then-set mode on the same server for SQL and Redis, in a scratch
// table or key of its own. A run in the spec's configuration against a
// twin says how likely that configuration is to catch a receiver broken
// like it (explore.Calibrate). A twin is not the receiver's own bug: it
// measures the run, not the receiver.
type Twin struct {
	// Name is the bug ("check-then-set"); Broken says what it does wrong.
	Name   string
	Broken string
	// Spec opens the twin, with its own faults (Twin.Faults).
	Spec  *Spec
	close func() error
}

// The bugs a twin may have, in words.
const (
	brokenCheckThenSet = "reads the stored token, then writes in a second step another write can pass between"
	brokenUnfenced     = "ignores the token: the last write wins"
)

// Twins returns the spec's twins, started: an http:// spec's twins are
// reference receivers on loopback, which CloseTwins stops. A spec of
// the user's own statements or script gets the built-in check-then-set
// mode as its twin.
func (s *Spec) Twins() ([]Twin, error) {
	base := Options{Workers: s.o.Workers, AcceptEqual: s.o.AcceptEqual, MaxToken: s.o.MaxToken, Terms: s.o.Terms}
	switch s.scheme {
	case "memory":
		var out []Twin
		for _, b := range []struct{ name, broken string }{{"check-then-set", brokenCheckThenSet}, {"unfenced", brokenUnfenced}} {
			t, err := Parse("memory://"+b.name, base)
			if err != nil {
				return nil, err
			}
			out = append(out, Twin{Name: b.name, Broken: b.broken, Spec: t})
		}
		return out, nil
	case "http", "https":
		var out []Twin
		for _, b := range []struct {
			bug    receiver.Bug
			broken string
		}{{receiver.CheckThenSet, brokenCheckThenSet}, {receiver.Unfenced, brokenUnfenced}} {
			tw, err := s.httpTwin(base, b.bug, b.broken)
			if err != nil {
				_ = CloseTwins(out)
				return nil, err
			}
			out = append(out, tw)
		}
		return out, nil
	case "redis", "rediss":
		o := base
		ro := s.redisOptions()
		ro.Mode, ro.Script, ro.ReadScript = redistarget.ModeCheckThenSet, "", ""
		o.Redis = &ro
		t, err := Parse(s.spec, o)
		if err != nil {
			return nil, err
		}
		return []Twin{{Name: "check-then-set", Broken: brokenCheckThenSet, Spec: t}}, nil
	}
	o := base
	so := s.sqlOptions()
	so.Mode, so.Statements = sqltarget.ModeCheckThenSet, sqltarget.Statements{}
	o.SQL = &so
	t, err := Parse(s.spec, o)
	if err != nil {
		return nil, err
	}
	return []Twin{{Name: "check-then-set", Broken: brokenCheckThenSet, Spec: t}}, nil
}

// httpTwin serves the reference receiver with bug on a loopback port of
// its own, over a fresh memory store.
func (s *Spec) httpTwin(base Options, bug receiver.Bug, broken string) (Twin, error) {
	ro := receiver.DefaultOptions()
	ro.Bug = bug
	h, err := receiver.NewHandler(receiver.NewMemory(), ro)
	if err != nil {
		return Twin{}, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return Twin{}, fmt.Errorf("the %s twin: %w", bug, err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	o := base
	o.HTTP.Timeout = s.o.HTTP.Timeout
	t, err := Parse("http://"+ln.Addr().String(), o)
	if err != nil {
		_ = srv.Close()
		return Twin{}, err
	}
	return Twin{Name: bug.String(), Broken: broken, Spec: t, close: srv.Close}, nil
}

// Close stops what the twin started.
func (t *Twin) Close() error {
	if t.close == nil {
		return nil
	}
	return t.close()
}

// CloseTwins closes every twin.
func CloseTwins(twins []Twin) error {
	var errs []error
	for i := range twins {
		errs = append(errs, twins[i].Close())
	}
	return errors.Join(errs...)
}

// Faults are the faults of list ("pause,delay,kill") the twin can take,
// and the names of those it cannot: a twin that runs inside fencecheck
// has no process to kill or pause.
func (t *Twin) Faults(list string) ([]nemesis.Fault, []string, error) {
	var keep, omitted []string
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if _, err := t.Spec.ParseFaults(name); err != nil {
			omitted = append(omitted, name)
			continue
		}
		keep = append(keep, name)
	}
	if len(keep) == 0 {
		keep = []string{"none"}
	}
	faults, err := t.Spec.ParseFaults(strings.Join(keep, ","))
	return faults, omitted, err
}
