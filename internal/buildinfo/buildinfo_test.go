package buildinfo

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestVersionPrefersWhatNamesTheCode(t *testing.T) {
	t.Parallel()
	module := func(v string) *debug.BuildInfo { return &debug.BuildInfo{Main: debug.Module{Version: v}} }
	cases := []struct {
		name    string
		stamped string
		bi      *debug.BuildInfo
		info    Info
		want    string
	}{
		{"a release stamp wins", "v1.2.0", module("v1.1.0"), Info{Revision: "abc"}, "v1.2.0"},
		{"go install module@version", "", module("v1.1.0"), Info{}, "v1.1.0"},
		{"go install in a checkout", "", module("v0.0.0-20261204181738-a0fb0aa50240+dirty"), Info{Revision: "a0fb0aa50240"}, "v0.0.0-20261204181738-a0fb0aa50240+dirty"},
		{"a build that recorded only the revision", "", module("(devel)"), Info{Revision: "a0fb0aa502401b0325f6", Modified: true}, "devel-a0fb0aa50240+dirty"},
		{"nothing recorded", "", module("(devel)"), Info{}, "dev"},
		{"no build information", "", nil, Info{}, "dev"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, version(tc.stamped, tc.bi, tc.info))
		})
	}
}

func TestStringNamesTheRevisionOnce(t *testing.T) {
	t.Parallel()
	i := Info{Version: "v0.0.0-20261204181738-a0fb0aa50240", Revision: "a0fb0aa502401b0325f6", Go: "go1.26.8", Platform: "linux/amd64"}
	assert.Equal(t, "v0.0.0-20261204181738-a0fb0aa50240, go1.26.8 linux/amd64", i.String())
	i.Version = "v1.0.0"
	assert.Equal(t, "v1.0.0 (a0fb0aa50240), go1.26.8 linux/amd64", i.String())
}

// TestWriteTextGivesALineEach: the version, the revision when one was
// recorded (with its time and whether the checkout had changes), and the
// toolchain.
func TestWriteTextGivesALineEach(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		info Info
		want string
	}{
		{"no revision", Info{Version: "v1.2.0", Go: "go1.26.0", Platform: "linux/amd64"},
			"fencecheck v1.2.0\ngo         go1.26.0 linux/amd64\n"},
		{"a modified checkout", Info{Version: "dev", Revision: "abc", Time: "2026-12-07T05:00:00Z", Modified: true, Go: "go1.26.0", Platform: "linux/amd64"},
			"fencecheck dev\nrevision   abc (2026-12-07T05:00:00Z), with uncommitted changes\ngo         go1.26.0 linux/amd64\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			assert.NoError(t, tc.info.WriteText(&b))
			assert.Equal(t, tc.want, b.String())
		})
	}
}
