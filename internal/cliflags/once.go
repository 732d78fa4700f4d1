package cliflags

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Guard makes every single-valued flag of cmd and of the commands below
// it refuse a second value with a *RepeatedError. pflag lets the last of
// `--sql-write A --sql-write B` win in silence, and a command then does
// what the user did not mean. Flags meant to repeat (string arrays and
// slices, counters, maps) are left alone. cobra's own --help and
// --version are added later, as they run, and stay as cobra makes them.
// The flags' help is unchanged.
func Guard(cmd *cobra.Command) {
	guard := func(f *pflag.Flag) {
		if _, done := f.Value.(*onceValue); done || Repeatable(f.Value) {
			return
		}
		o := &onceValue{Value: f.Value, name: f.Name, registered: f.DefValue}
		f.Value = o
		if b, ok := o.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			f.Value = &onceBool{o}
		}
		if o.Type() == "duration" && f.DefValue == "0s" {
			// pflag's help leaves out a zero default by the value's
			// concrete type, which the wrapper hides; "0" is zero to
			// it whatever the type, so the help stays as it was.
			f.DefValue = "0"
		}
	}
	cmd.Flags().VisitAll(guard)
	cmd.PersistentFlags().VisitAll(guard)
	for _, c := range cmd.Commands() {
		Guard(c)
	}
}

// Repeatable reports whether a flag's value is meant to be given more
// than once.
func Repeatable(v pflag.Value) bool {
	if _, ok := v.(pflag.SliceValue); ok {
		return true
	}
	return v.Type() == "count" || strings.HasPrefix(v.Type(), "stringTo")
}

// Unguarded returns the value Guard wrapped in v and the flag's default
// as it was registered (before the help's adjustment), if Guard wrapped
// it.
func Unguarded(v pflag.Value) (value pflag.Value, registered string, ok bool) {
	switch o := v.(type) {
	case *onceValue:
		return o.Value, o.registered, true
	case *onceBool:
		return o.Value, o.registered, true
	}
	return nil, "", false
}

// onceValue is a flag's value that takes one Set.
type onceValue struct {
	pflag.Value
	name       string
	registered string // the flag's DefValue as registered, before the help's adjustment
	set        bool
}

func (o *onceValue) Set(s string) error {
	if o.set {
		return &RepeatedError{Flag: o.name}
	}
	if err := o.Value.Set(s); err != nil {
		return err
	}
	o.set = true
	return nil
}

// onceBool is a onceValue of a boolean flag, which pflag lets stand
// without a value (--json).
type onceBool struct{ *onceValue }

func (onceBool) IsBoolFlag() bool { return true }

// RepeatedError is the error of a single-valued flag given twice.
type RepeatedError struct {
	Flag string // its name, without dashes
}

func (r *RepeatedError) Error() string {
	return fmt.Sprintf("--%s given twice: it takes one value", r.Flag)
}

// Error is the error to report for a flag that could not be parsed. A
// repeat is reported alone: pflag's wording quotes the value, which may
// be a secret (a target spec with a password).
func Error(err error) error {
	var r *RepeatedError
	if errors.As(err, &r) {
		return r
	}
	return err
}
