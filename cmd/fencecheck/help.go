package main

import (
	"embed"
	"strings"
)

// helpFiles hold the commands' long help, one text file each: prose that
// reads and diffs better as text than as Go string literals.
//
//go:embed help/*.txt
var helpFiles embed.FS

// help is the long help of the command name, from help/NAME.txt.
func help(name string) string {
	b, err := helpFiles.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic("fencecheck: no help for " + name) // TestEveryCommandHasItsHelp keeps them
	}
	return strings.TrimSuffix(string(b), "\n")
}
