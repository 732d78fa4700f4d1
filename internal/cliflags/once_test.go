package cliflags

import (
	"errors"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGuardRefusesASecondValue: a single-valued flag, of a command or of
// one below it, takes one value; a flag meant to repeat keeps every
// value; the help and the flag's value type are unchanged.
func TestGuardRefusesASecondValue(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		args    []string
		wantErr string // empty: parses
	}{
		{"string once", []string{"--name", "a"}, ""},
		{"string twice", []string{"--name", "a", "--name", "b"}, "--name given twice: it takes one value"},
		{"bool twice", []string{"--json", "--json"}, "--json given twice: it takes one value"},
		{"duration twice", []string{"--wait", "1s", "--wait=2s"}, "--wait given twice: it takes one value"},
		{"array repeats", []string{"--setup", "a", "--setup", "b"}, ""},
		{"slice repeats", []string{"--require", "a", "--require", "b"}, ""},
		{"persistent twice", []string{"--store", "a", "--store", "b"}, "--store given twice: it takes one value"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := &cobra.Command{Use: "root"}
			sub := &cobra.Command{Use: "sub"}
			root.AddCommand(sub)
			root.PersistentFlags().String("store", "", "")
			fl := sub.Flags()
			fl.String("name", "", "")
			fl.Bool("json", false, "")
			fl.Duration("wait", 0, "wait")
			fl.StringArray("setup", nil, "")
			fl.StringSlice("require", nil, "")
			plainHelp := fl.FlagUsages()
			Guard(root)
			assert.Equal(t, plainHelp, fl.FlagUsages(), "the help is unchanged")
			err := sub.ParseFlags(tc.args)
			if tc.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tc.wantErr, Error(err).Error())
			var r *RepeatedError
			assert.True(t, errors.As(err, &r))
		})
	}
}

// TestUnguarded finds the registered value and default under the guard.
func TestUnguarded(t *testing.T) {
	t.Parallel()
	cmd := &cobra.Command{Use: "c"}
	cmd.Flags().Duration("wait", 0, "")
	cmd.Flags().Bool("json", false, "")
	cmd.Flags().StringArray("setup", nil, "")
	Guard(cmd)
	for name, want := range map[string]string{"wait": "0s", "json": "false"} {
		v, registered, ok := Unguarded(cmd.Flags().Lookup(name).Value)
		require.True(t, ok, name)
		assert.Equal(t, want, registered, name)
		assert.Equal(t, cmd.Flags().Lookup(name).Value.Type(), v.Type(), name)
	}
	_, _, ok := Unguarded(cmd.Flags().Lookup("setup").Value)
	assert.False(t, ok, "a repeatable flag is not guarded")
}
