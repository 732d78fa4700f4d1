package judge

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// judgePath is this package's import path.
const judgePath = "github.com/fencecheck/fencecheck/judge"

// TestOnlyTheJudgeDecidesVerdicts: a user relies on every command
// reaching its verdict by the same rules, so no package but this one may
// make a verdict. Elsewhere a verdict constant may only be compared with
// (==, !=, a case of a switch), never assigned, returned or passed; no
// value is converted to a Verdict; no Report is built.
func TestOnlyTheJudgeDecidesVerdicts(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	fset := token.NewFileSet()
	var found []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && (strings.HasPrefix(name, ".") || name == "testdata" || path == filepath.Join(root, "judge")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		found = append(found, verdictsMade(fset, f)...)
		return nil
	})
	require.NoError(t, err)
	assert.Empty(t, found, "verdicts made outside package judge")
}

// TestTheGuardSeesAVerdictMade holds the guard itself to what it must
// find: each way of making a verdict outside the judge, and none of the
// comparisons that only read one.
func TestTheGuardSeesAVerdictMade(t *testing.T) {
	t.Parallel()
	src := `package x

import j "` + judgePath + `"

func made(r j.Report) (j.Verdict, j.Report) {
	v := j.Held                     // 1: assigned
	_ = j.Verdict("held")           // 2: converted
	use(j.Violated)                 // 3: passed
	if r.Verdict == j.Inconclusive { // compared: fine
	}
	switch r.Verdict {
	case j.Held, j.Violated: // compared: fine
	}
	return j.Interrupted, j.Report{} // 4 and 5: returned, and a Report built
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, 0)
	require.NoError(t, err)
	made := verdictsMade(fset, f)
	assert.Len(t, made, 5, "%s", strings.Join(made, "\n"))
}

// verdictsMade lists where f makes a verdict: a verdict constant of the
// judge used other than in a comparison, a conversion to Verdict, a
// Report literal.
func verdictsMade(fset *token.FileSet, f *ast.File) []string {
	local := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == judgePath {
			local = "judge"
			if imp.Name != nil {
				local = imp.Name.Name
			}
		}
	}
	if local == "" {
		return nil
	}
	isJudge := func(e ast.Expr, names ...string) bool {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok || x.Name != local {
			return false
		}
		for _, n := range names {
			if sel.Sel.Name == n {
				return true
			}
		}
		return false
	}
	verdicts := []string{"Held", "Violated", "Inconclusive", "Interrupted"}
	compared := make(map[ast.Expr]bool)
	var out []string
	report := func(n ast.Node, what string) {
		out = append(out, fset.Position(n.Pos()).String()+": "+what)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if n.Op == token.EQL || n.Op == token.NEQ {
				compared[n.X], compared[n.Y] = true, true
			}
		case *ast.CaseClause:
			for _, e := range n.List {
				compared[e] = true
			}
		case *ast.CallExpr:
			if isJudge(n.Fun, "Verdict") {
				report(n, "a conversion to judge.Verdict")
			}
		case *ast.CompositeLit:
			if isJudge(n.Type, "Report") {
				report(n, "a judge.Report built")
			}
		case *ast.SelectorExpr:
			if isJudge(n, verdicts...) && !compared[n] {
				report(n, local+"."+n.Sel.Name+" used other than in a comparison")
			}
		}
		return true
	})
	return out
}
