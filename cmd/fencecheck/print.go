package main

import (
	"encoding/json"
	"fmt"
	"io"
)

// printResult prints a command's result: as indented JSON with --json,
// else as summary gives it for people.
func printResult(w io.Writer, asJSON bool, v any, summary func() string) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	_, err := fmt.Fprint(w, summary())
	return err
}
