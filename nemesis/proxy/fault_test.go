package proxy

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/nemesis/internal/fakeenv"
	"github.com/fencecheck/fencecheck/nemesis/internal/toxic"
)

func TestNew(t *testing.T) {
	t.Parallel()
	for _, name := range Names() {
		f, ok := New(name)
		require.True(t, ok, name)
		assert.Equal(t, name, f.Name())
		assert.False(t, f.Active(), "toxics start switched off")
		_, isToxic := f.(Toxic)
		assert.True(t, isToxic)
		_, attaches := f.(nemesis.Attacher)
		assert.True(t, attaches, "%s takes the run's Env", name)
	}
	_, ok := New("pause")
	assert.False(t, ok)
}

func TestToxics(t *testing.T) {
	t.Parallel()
	hold, latency := NewHold(), NewLatency()
	got := Toxics([]nemesis.Fault{nemesis.NewPause(), hold, nemesis.NewDelay(), latency})
	assert.Equal(t, []Toxic{hold, latency}, got, "the toxics, in order")
}

// TestChosen: a toxic acts only while active; a Selector scripts which
// requests; without one, in a run, each described write is drawn with
// the toxic's probability, and reads and requests outside a run never are.
func TestChosen(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		active   bool
		selector Selector
		attached bool
		draw     float64
		r        *Request
		chosen   bool
	}{
		{name: "inactive", selector: Nth(1), r: write("r", 2)},
		{name: "the n-th request", active: true, selector: Nth(1), r: write("r", 2), chosen: true},
		{name: "not the n-th request", active: true, selector: Nth(2), r: write("r", 2)},
		{name: "the write of a token", active: true, selector: WriteOf("r", 2), r: write("r", 2), chosen: true},
		{name: "another token", active: true, selector: WriteOf("r", 2), r: write("r", 3)},
		{name: "another resource", active: true, selector: WriteOf("r", 2), r: write("s", 2)},
		{name: "a read is no write", active: true, selector: WriteOf("r", 0), r: read("r")},
		{name: "drawn write", active: true, attached: true, draw: 0.1, r: write("r", 2), chosen: true},
		{name: "undrawn write", active: true, attached: true, draw: 0.3, r: write("r", 2)},
		{name: "a read is never drawn", active: true, attached: true, draw: 0, r: read("r")},
		{name: "outside a run nothing is drawn", active: true, r: write("r", 2)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := &fault{Switch: toxic.Switch{FaultName: "x"}, Probability: 0.3, Select: tc.selector}
			f.SetActive(tc.active)
			if tc.attached {
				env := fakeenv.New()
				env.Floats = []float64{tc.draw}
				f.Attach(env)
			}
			assert.Equal(t, tc.chosen, f.Chosen(tc.r, tc.r.IsWrite()))
		})
	}
}

// TestToxicsAreAvailableWhileAProxyHoldsThem: a toxic acts only in a
// started proxy, and knows when one holds it: a run that has it in no
// proxy is refused (nemesis.Fault.Available) unless its site says the
// target will be opened behind one.
func TestToxicsAreAvailableWhileAProxyHoldsThem(t *testing.T) {
	t.Parallel()
	for _, name := range Names() {
		f, _ := New(name)
		err := f.Available(nemesis.Site{})
		var u *nemesis.Unavailable
		require.ErrorAs(t, err, &u, name)
		assert.Equal(t, nemesis.NeedHTTPProxy, u.Needs)
		assert.Contains(t, err.Error(), name+" acts in the HTTP proxy")
		assert.NoError(t, f.Available(nemesis.Site{HTTPProxy: true}), "%s where the site offers the proxy", name)
		assert.Error(t, f.Available(nemesis.Site{TCPProxy: true}), "%s does not act in the TCP proxy", name)

		p, err := Start("http://127.0.0.1:1", Toxics([]nemesis.Fault{f})...)
		require.NoError(t, err)
		assert.NoError(t, f.Available(nemesis.Site{}), "%s in a started proxy", name)
		require.NoError(t, p.Close())
		require.NoError(t, p.Close(), "a second Close")
		assert.Error(t, f.Available(nemesis.Site{}), "%s once the proxy is closed", name)
	}
}
