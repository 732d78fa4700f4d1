package process

import (
	"debug/buildinfo"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fencecheck/fencecheck/logscan"
)

// launchers are programs that run the receiver's command line rather
// than being the receiver: the shell every child starts under, and the
// usual wrappers.
var launchers = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ash": true, "busybox": true,
	"env": true, "timeout": true, "nohup": true, "setsid": true, "stdbuf": true, "nice": true, "ionice": true, "taskset": true}

// runtimes name the runtime of an interpreter by the start of its file
// name.
var runtimes = []struct{ prefix, name string }{
	{"python", "Python"}, {"pypy", "Python"}, {"java", "Java"}, {"node", "Node"}, {"nodejs", "Node"},
	{"deno", "JavaScript (Deno)"}, {"bun", "JavaScript (Bun)"}, {"ruby", "Ruby"}, {"perl", "Perl"}, {"php", "PHP"}, {"dotnet", ".NET"},
}

// inspect says what program the receiver started under pid runs, for the
// claim about data races: of the processes in its tree (/proc, Linux
// only) apart from the shell and wrappers, the deepest, which is the
// program itself (`go run` starts the compiled receiver under the go
// command). A Go program's build information (debug/buildinfo) says
// whether it was built with the race detector, the only way a log shows
// a race. Several programs of which the receiver is not the last started
// may be misread; the claim then names the program it read.
func inspect(pid int) logscan.Executable {
	picked := 0
	var path string
	for _, p := range treeOf(pid) {
		exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", p))
		if err != nil {
			continue // gone, or no /proc
		}
		exe = strings.TrimSuffix(exe, " (deleted)")
		if launchers[filepath.Base(exe)] {
			continue
		}
		picked, path = p, exe
	}
	if picked == 0 {
		if _, err := os.Stat("/proc/self/exe"); err != nil {
			return logscan.Executable{Unknown: "this system has no /proc to read the receiver's program from"}
		}
		return logscan.Executable{Unknown: "no program of the receiver's command line was found running apart from its shell"}
	}
	return readExecutable(fmt.Sprintf("/proc/%d/exe", picked), path)
}

// readExecutable reads the program at file (path is its name for
// people): a Go program and whether it was built with -race, or the
// runtime its name says.
func readExecutable(file, path string) logscan.Executable {
	e := logscan.Executable{Path: path}
	bi, err := buildinfo.ReadFile(file)
	if err != nil {
		base := filepath.Base(path)
		for _, r := range runtimes {
			if strings.HasPrefix(base, r.prefix) {
				e.Runtime = r.name
				break
			}
		}
		return e
	}
	e.Go = true
	for _, s := range bi.Settings {
		if s.Key == "-race" && s.Value == "true" {
			e.Race = true
		}
	}
	return e
}
