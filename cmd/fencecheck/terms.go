package main

import (
	"github.com/fencecheck/fencecheck/verify"
)

// verifyTerms words the battery's settings as verify's flags.
type verifyTerms struct{}

func (verifyTerms) Setting(s verify.Setting) string {
	switch s {
	case verify.RequireExclusive:
		return "--require exclusive"
	case verify.RestartableTarget:
		return "--exec"
	}
	return string(s)
}
