package cliflags

import (
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLineRepeatsTheCommand: the line gives the target first without its
// password, every flag given or forced sorted by name and shell-quoted,
// repeated flags repeated, header values masked, and leaves out what it
// is told to.
func TestLineRepeatsTheCommand(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		args      []string
		effective map[string]string
		skip      []string
		also      []string
		want      string
	}{
		{"given flags", []string{"--target", "memory://fenced", "--workers", "4", "--json"}, nil, nil, nil,
			"fencecheck run --target memory://fenced --json=true --workers 4"},
		{"forced and left out", []string{"--target", "memory://fenced", "--workers", "4"}, map[string]string{"seed": "7", "workers": ""}, nil, nil,
			"fencecheck run --target memory://fenced --seed 7"},
		{"skipped", []string{"--target", "memory://fenced", "--json", "--workers", "4"}, nil, []string{"json"}, nil,
			"fencecheck run --target memory://fenced --workers 4"},
		{"repeated and quoted", []string{"--target", "sqlite:///tmp/a.db", "--setup", "CREATE TABLE t (v)", "--setup", "DELETE FROM t", "--require", "a,b"}, nil, nil, nil,
			"fencecheck run --target sqlite:///tmp/a.db --require a,b --setup 'CREATE TABLE t (v)' --setup 'DELETE FROM t'"},
		{"also a flag fl lacks", []string{"--target", "memory://fenced"}, map[string]string{"extra": "3"}, nil, []string{"extra"},
			"fencecheck run --target memory://fenced --extra 3"},
		{"secrets", []string{"--target", "postgres://u:pw@127.0.0.1/db", "--header", "Authorization: Bearer x"}, nil, nil, nil,
			"fencecheck run --target postgres://u:xxxxx@127.0.0.1/db --header 'Authorization: xxxxx'  # xxxxx marks a secret left out: give it again"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fl := pflag.NewFlagSet("run", pflag.ContinueOnError)
			fl.String("target", "", "")
			fl.Int("workers", 1, "")
			fl.Uint64("seed", 0, "")
			fl.Bool("json", false, "")
			fl.StringArray("setup", nil, "")
			fl.StringSlice("require", nil, "")
			fl.StringArray("header", nil, "")
			require.NoError(t, fl.Parse(tc.args))
			assert.Equal(t, tc.want, Line("run", fl, tc.effective, tc.skip, tc.also))
		})
	}
}

// TestMaskHeader keeps a header's name and masks its value.
func TestMaskHeader(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "Authorization: xxxxx", MaskHeader("Authorization: Bearer abc"))
	assert.Equal(t, "xxxxx", MaskHeader("no colon"))
}
