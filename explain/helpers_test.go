package explain

import (
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/testsupport/histgen"
)

// hb builds a history by hand; IDs follow the order.
type hb = histgen.Builder

const (
	acc = histories.StatusAccepted
	rej = histories.StatusRejected
	unk = histories.StatusUnknown
)
