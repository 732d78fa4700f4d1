package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// refuseRepeats makes every single-valued flag of cmd and of the commands
// below it refuse a second value. pflag lets the last of
// `--sql-write A --sql-write B` win in silence, and the run then tests a
// statement the user did not mean. Flags meant to repeat (string arrays
// and slices such as --sql-setup and --require, counters, maps) are left
// alone. cobra's own --help and --version are added later, as they run,
// and stay as cobra makes them.
func refuseRepeats(cmd *cobra.Command) {
	guard := func(f *pflag.Flag) {
		if _, done := f.Value.(*onceValue); done || repeatable(f.Value) {
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
		refuseRepeats(c)
	}
}

// repeatable reports whether a flag's value is meant to be given more
// than once.
func repeatable(v pflag.Value) bool {
	if _, ok := v.(pflag.SliceValue); ok {
		return true
	}
	return v.Type() == "count" || strings.HasPrefix(v.Type(), "stringTo")
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
		return &repeatedFlag{o.name}
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

// repeatedFlag is the error of a single-valued flag given twice.
type repeatedFlag struct{ name string }

func (r *repeatedFlag) Error() string {
	return fmt.Sprintf("--%s given twice: it takes one value", r.name)
}

// flagError is the error to report for a flag that could not be parsed.
// A repeat is reported alone: pflag's wording quotes the value, which may
// be a target spec with a password.
func flagError(err error) error {
	var r *repeatedFlag
	if errors.As(err, &r) {
		return r
	}
	return err
}
