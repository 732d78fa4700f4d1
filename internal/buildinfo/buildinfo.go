// Package buildinfo says which fencecheck a binary is: the version a
// release build was stamped with, or what the Go toolchain recorded when
// it built the module (go install module@version, or go build in a Git
// checkout). A result names the version that judged it, so that a verdict
// can be traced to the code that gave it.
package buildinfo

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

// Info is what a binary knows of its own build.
type Info struct {
	// Version is the module version: the stamped one (-ldflags -X), else
	// the one go install or go build recorded (a tag, or a pseudo-version
	// such as v0.0.0-20261204180435-f48e962abcde, "+dirty" when the
	// checkout had changes), else "devel" with the revision, else "dev".
	Version string `json:"version"`
	// Revision is the VCS revision the binary was built from, and Time
	// its commit time (RFC 3339); empty when the build recorded none
	// (a module downloaded from a proxy records its version instead).
	Revision string `json:"revision,omitempty"`
	Time     string `json:"time,omitempty"`
	// Modified reports a build from a checkout with uncommitted changes.
	Modified bool `json:"modified"`
	// Go is the toolchain that built the binary, Platform its GOOS/GOARCH.
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

// Read returns the binary's build information. stamped is the version a
// release build set with -ldflags (empty when none was set); it wins over
// what the toolchain recorded.
func Read(stamped string) Info {
	info := Info{Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	if bi != nil {
		info.Go = bi.GoVersion
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				info.Revision = s.Value
			case "vcs.time":
				info.Time = s.Value
			case "vcs.modified":
				info.Modified = s.Value == "true"
			}
		}
	}
	info.Version = version(stamped, bi, info)
	return info
}

// version picks Info.Version; bi is nil when the binary has no build
// information.
func version(stamped string, bi *debug.BuildInfo, info Info) string {
	switch {
	case stamped != "":
		return stamped
	case bi != nil && bi.Main.Version != "" && bi.Main.Version != "(devel)":
		return bi.Main.Version
	case info.Revision != "":
		v := "devel-" + short(info.Revision)
		if info.Modified {
			v += "+dirty"
		}
		return v
	}
	return "dev"
}

// short is the abbreviated revision Git prints.
func short(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}

// String is the version, the revision and the toolchain on one line, as
// fencecheck --version prints them.
func (i Info) String() string {
	var b strings.Builder
	b.WriteString(i.Version)
	if i.Revision != "" && !strings.Contains(i.Version, short(i.Revision)) {
		b.WriteString(" (" + short(i.Revision))
		if i.Modified {
			b.WriteString(", modified")
		}
		b.WriteString(")")
	}
	b.WriteString(", " + i.Go + " " + i.Platform)
	return b.String()
}

// WriteText writes the build as fencecheck version prints it for
// people: the version, the revision with its time and whether the
// checkout had changes (when the build recorded one), and the toolchain,
// one per line.
func (i Info) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "fencecheck %s\n", i.Version)
	if i.Revision != "" {
		fmt.Fprintf(&b, "revision   %s", i.Revision)
		if i.Time != "" {
			fmt.Fprintf(&b, " (%s)", i.Time)
		}
		if i.Modified {
			b.WriteString(", with uncommitted changes")
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "go         %s %s\n", i.Go, i.Platform)
	_, err := io.WriteString(w, b.String())
	return err
}
