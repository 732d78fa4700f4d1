package runstore

import (
	"io/fs"
	"os"
	"regexp"
	"strings"
	"time"
)

// component is what a run name or a timestamp may look like: no dots in
// front (so no "." or ".."), no separators, nothing to decode.
var component = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$`)

// ValidComponent reports whether s can be a run name or a timestamp
// folder of the store: a path component that needs no decoding and
// cannot leave its folder.
func ValidComponent(s string) bool { return component.MatchString(s) && s != Latest }

// Entry is one run directory of the store.
type Entry struct {
	Name, Stamp string // store/<Name>/<Stamp>
	Started     time.Time
	Latest      bool // store/latest points at it
}

// Dir is the entry's directory, relative to the store.
func (e Entry) Dir() string { return e.Name + "/" + e.Stamp }

// List returns the run directories of the store open at root, in no
// particular order. Only valid components count, and a link is followed
// only inside the store (os.Root).
func List(root *os.Root) []Entry {
	latest, _ := root.Readlink(Latest)
	var out []Entry
	names, _ := fs.ReadDir(root.FS(), ".")
	for _, n := range names {
		if !ValidComponent(n.Name()) || !isDir(root, n.Name()) {
			continue
		}
		stamps, _ := fs.ReadDir(root.FS(), n.Name())
		for _, st := range stamps {
			e := Entry{Name: n.Name(), Stamp: st.Name(), Started: Started(st.Name())}
			if !ValidComponent(st.Name()) || !isDir(root, e.Dir()) {
				continue
			}
			e.Latest = e.Dir() == latest
			out = append(out, e)
		}
	}
	return out
}

func isDir(root *os.Root, name string) bool {
	st, err := root.Stat(name)
	return err == nil && st.IsDir()
}

// Started parses a run directory's timestamp folder name; the zero time
// when it is not one.
func Started(stamp string) time.Time {
	base, _, _ := strings.Cut(stamp, "-") // quick successive runs get -1, -2
	t, err := time.Parse(TimestampFormat, base)
	if err != nil {
		return time.Time{}
	}
	return t
}
