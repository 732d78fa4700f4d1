package process

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// carrier is an inner target that carries traces.
type carrier struct{ targets.Target }

func (carrier) CarriesTrace() bool { return true }

// TestAReceiverProcessCarriesWhatItsTargetCarries: an HTTP target
// wrapped by --exec still sends its traceparent headers, and the history
// records their ids; a target that carries none does not start to.
func TestAReceiverProcessCarriesWhatItsTargetCarries(t *testing.T) {
	assert.True(t, targets.CarriesTrace(NewTarget(carrier{memory.NewFenced()}, nil)))
	assert.False(t, targets.CarriesTrace(NewTarget(memory.NewFenced(), nil)))
}
