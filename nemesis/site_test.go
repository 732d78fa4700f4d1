package nemesis

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFaultsSayWhereTheyApply: each fault answers Available from what it
// acts on, so that a run refuses a fault that could never act rather
// than passing without it: the faults on the workers and the leases act
// anywhere, the process faults need the process they were given, the
// issuer faults an issuer whose servers fencecheck started.
func TestFaultsSayWhereTheyApply(t *testing.T) {
	t.Parallel()
	proc := &fakeProcess{lives: 1}
	everything := Site{HTTPProxy: true, TCPProxy: true, IssuerServers: true}
	cases := []struct {
		fault Fault
		needs Need // 0: available at the zero Site
		at    Site // a site where it is available
	}{
		{NewPause(), 0, Site{}},
		{NewDelay(), 0, Site{}},
		{NewExpire(), 0, Site{}},
		{NewDuplicate(), 0, Site{}},
		{NewKill(proc), 0, Site{}},
		{NewPauseReceiver(proc), 0, Site{}},
		{NewKill(nil), NeedProcess, Site{}},
		{NewPauseReceiver(nil), NeedProcess, Site{}},
		{NewIssuerKill(), NeedIssuerServers, Site{IssuerServers: true}},
		{NewIssuerPause(), NeedIssuerServers, Site{IssuerServers: true}},
	}
	for _, tc := range cases {
		t.Run(tc.fault.Name(), func(t *testing.T) {
			t.Parallel()
			err := tc.fault.Available(Site{})
			if tc.needs == 0 {
				assert.NoError(t, err)
				return
			}
			var u *Unavailable
			require.True(t, errors.As(err, &u), "%v", err)
			assert.Equal(t, Unavailable{Fault: tc.fault.Name(), Needs: tc.needs}, *u)
			assert.Contains(t, err.Error(), tc.fault.Name()+" acts "+tc.needs.Acts())
			if tc.needs == NeedProcess {
				assert.Error(t, tc.fault.Available(everything), "no site gives a fault a process")
				return
			}
			assert.NoError(t, tc.fault.Available(tc.at))
		})
	}
}

// TestUnavailablesKeepsTheFaultsOrder: every answer, in the faults'
// order, and none for the faults that can act.
func TestUnavailablesKeepsTheFaultsOrder(t *testing.T) {
	t.Parallel()
	errs := Unavailables([]Fault{NewIssuerPause(), NewPause(), NewKill(nil)}, Site{})
	require.Len(t, errs, 2)
	assert.ErrorContains(t, errs[0], "issuer-pause acts on the token issuer's servers")
	assert.ErrorContains(t, errs[1], "kill acts on the receiver process and needs a receiver process")
	assert.Empty(t, Unavailables([]Fault{NewIssuerPause()}, Site{IssuerServers: true}))
}
