package main

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fencecheck/fencecheck/docs/schema"
)

// TestVerifyFindsLostAcknowledgedWrites: the reference receiver that
// acknowledges every 50th accepted write without storing it passes every
// other row of the battery, and fails acknowledged-writes, which names
// the write and the read; the correct receiver passes it.
func TestVerifyFindsLostAcknowledgedWrites(t *testing.T) {
	t.Parallel()
	cases := []struct {
		bug  string
		code int
		row  string
	}{
		{"none", 0, `\| acknowledged-writes \| 400 writes \(8 resources × 50, increasing tokens\) each accepted and read back at once \| \d+ of 400 accepted, each read back( \(\d+ outcomes unknown.*\))? \| pass \|`},
		{"lose-acknowledged", 1, `\| acknowledged-writes \| .* \| \d+ acknowledged writes lost, 0 rejected, of 400; first: verify-\w+-acknowledged-writes-\d+: ` +
			`write \d+ of 50 \(token \d+, "ack-\d+"\) accepted, then read( "ack-\d+"@\d+|: never written): the acknowledged write was lost \| FAIL \|`},
	}
	for _, tc := range cases {
		t.Run(tc.bug, func(t *testing.T) {
			t.Parallel()
			addr := freeAddr(t)
			r := fencecheck(t, schema.TempDir(t), "verify", "--target", "http://"+addr, "--store", "s",
				"--exec", fmt.Sprintf("%s receiver --listen %s --store sqlite:recv.db --bug %s", fencecheckBinary, addr, tc.bug))
			t.Log(r.stdout)
			assert.Equal(t, tc.code, r.code, r.stdout+r.stderr)
			assert.Regexp(t, tc.row, r.stdout)
			assert.Contains(t, r.stdout, fmt.Sprintf("%d passed, %d failed, 1 info, 0 skipped", 9-tc.code, tc.code),
				"every other row passes: only acknowledged-writes finds the loss")
		})
	}
}
