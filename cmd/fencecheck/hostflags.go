package main

import (
	"fmt"

	"github.com/fencecheck/fencecheck/internal/httpserver"
)

// checkHostFlags refuses a --host value that is not a host name or an IP
// address without a port.
func checkHostFlags(hosts []string) error {
	for _, h := range hosts {
		if _, err := httpserver.ParseName(h); err != nil {
			return &usageError{fmt.Errorf("--host: %w", err)}
		}
	}
	return nil
}

// hostHint ends the answer `serve` and `receiver` give a request for a
// host they do not answer.
func hostHint(host string) string {
	return fmt.Sprintf("To answer it, restart with --host %s (or --allow-remote to answer every host).", host)
}
