package schema

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// T is the part of testing.TB that TempDir uses. *testing.T and
// *testing.B have it; this package takes the interface so that it does
// not import testing outside a test.
type T interface {
	Helper()
	TempDir() string
	Cleanup(func())
	Errorf(format string, args ...any)
	Logf(format string, args ...any)
}

// TempDir is t.TempDir for a test that writes fencecheck's files: when
// the test ends, before the directory is removed, every history and
// result.json under it is validated against the schemas (ValidateDir),
// and the test fails on a file that does not match. Its cleanup is
// registered after t.TempDir's own, so it runs first.
//
// Every test package whose tests write histories or results uses it for
// every temporary directory (TempDirCalls finds the ones that do not, and
// this package's tests fail on them), so that the schemas are checked
// against everything fencecheck writes in its tests, not against a
// sample.
func TempDir(t T) string {
	t.Helper()
	dir := t.TempDir()
	t.Cleanup(func() {
		n, err := ValidateDir(dir)
		if err != nil {
			t.Errorf("files written under %s do not match docs/schema: %v", dir, err)
		}
		if n > 0 {
			t.Logf("docs/schema: validated %d files under %s", n, dir)
		}
	})
	return dir
}

// Exempt is the comment that exempts a temporary directory from
// validation, on the line of its t.TempDir() call or the line above, with
// the reason after it: a directory of hand-made input that is malformed
// on purpose, or of files that are no history and no result.
const Exempt = "not validated:"

// TempDirCalls returns, as file:line, each call X.TempDir() in the test
// files of the package in dir that neither goes through TempDir nor
// carries the Exempt comment. This package's tests ask for none in every
// package whose tests write histories or results, so that a new test
// that writes a run into a plain t.TempDir() fails until it validates
// what it wrote or says why not.
func TempDirCalls(dir string) ([]string, error) {
	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, name := range names {
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", name, err)
		}
		exempt := map[int]bool{}
		for _, g := range f.Comments {
			for _, c := range g.List {
				if i := strings.Index(c.Text, Exempt); i >= 0 && strings.TrimSpace(c.Text[i+len(Exempt):]) != "" {
					exempt[fset.Position(c.Pos()).Line] = true
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 0 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "TempDir" {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "os" {
				return true // os.TempDir names the system's directory, it makes none
			}
			line := fset.Position(call.Pos()).Line
			if !exempt[line] && !exempt[line-1] {
				out = append(out, fmt.Sprintf("%s:%d", filepath.Base(name), line))
			}
			return true
		})
	}
	sort.Strings(out)
	return out, nil
}
