package histories

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strings"
	"testing"
)

// maxExported caps the exported identifiers of this package: top-level
// funcs, methods (on any type), types, consts and vars of its non-test
// files; struct fields are not counted.
//
// Every other package of fencecheck reads, writes or judges histories
// through this one, so its public form is what a reader of `go doc`
// learns first: one history type (History), one way to read it (Read,
// with the Source options it needs), one way to make it from events in
// memory (Pair) or operations (FromOperations). Each entry point added
// beside one of those (a second reader, a second constructor, a helper
// only one caller or only tests use) makes a reader ask which to call
// and the tests drift apart. The cap keeps the public form small: a new
// identifier must replace one, or move to the package of its one caller,
// or be unexported (tests of this package reach unexported names through
// export_test.go).
const maxExported = 90

// TestExportedIdentifiersStayFew: the package exports at most
// maxExported identifiers.
func TestExportedIdentifiersStayFew(t *testing.T) {
	t.Parallel()
	names := exportedIdentifiers(t, ".")
	t.Logf("%d exported identifiers (at most %d)", len(names), maxExported)
	if len(names) > maxExported {
		t.Fatalf("histories exports %d identifiers, more than %d: fold a new entry point into an existing one, move it to its one caller's package, or unexport it\n%s",
			len(names), maxExported, strings.Join(names, "\n"))
	}
}

// exportedIdentifiers lists the exported top-level identifiers of the
// non-test files in dir, a method as Type.Method.
func exportedIdentifiers(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var names []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, dir+"/"+name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv != nil {
					names = append(names, receiverName(d.Recv.List[0].Type)+"."+d.Name.Name)
				} else {
					names = append(names, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							names = append(names, s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								names = append(names, n.Name)
							}
						}
					}
				}
			}
		}
	}
	slices.Sort(names)
	return names
}

// receiverName is the name of a method's receiver type.
func receiverName(x ast.Expr) string {
	for {
		switch e := x.(type) {
		case *ast.StarExpr:
			x = e.X
		case *ast.IndexExpr:
			x = e.X
		case *ast.IndexListExpr:
			x = e.X
		case *ast.Ident:
			return e.Name
		default:
			return "?"
		}
	}
}
