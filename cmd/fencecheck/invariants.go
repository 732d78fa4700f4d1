package main

import (
	"fmt"

	"github.com/fencecheck/fencecheck/model"
)

// parsePolicy parses --policy, the same on every command that judges.
func parsePolicy(s string) (model.Policy, error) {
	p, err := model.ParsePolicy(s)
	if err != nil {
		return p, &usageError{fmt.Errorf("--policy: %w", err)}
	}
	return p, nil
}

// requiresExclusive parses --require: the only extra invariant is
// exclusive (no write accepted that was sent after its lease had ended on
// the issuer or been reassigned).
func requiresExclusive(list []string) (bool, error) {
	exclusive := false
	for _, req := range list {
		if req != "exclusive" {
			return false, &usageError{fmt.Errorf("--require: unknown invariant %q (want exclusive)", req)}
		}
		exclusive = true
	}
	return exclusive, nil
}
