// Package layers holds the test that keeps the pipeline's import
// direction: a package may import packages of its own layer or below,
// never above. The layers are the stages of a run, from the record that
// every stage writes to the orchestrator and its front ends;
// docs/architecture.md explains the order.
package layers

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/fencecheck/fencecheck"

// layers lists every package of the module, lowest first. A path ending
// in "/..." covers the package and everything under it, except what a
// longer entry names: targets/spec, which opens a target behind the
// fault proxies, sits above nemesis, and the other targets below it.
//
// The record (histories) and the clock (sched) import nothing of the
// module: every stage records or reads events, so nothing may sit below
// them, the plumbing of internal/ included.
var layers = [][]string{
	{"histories", "sched"},
	{"internal/...", "logscan", "docs/schema"},
	{"model"},
	{"targets/...", "lease/...", "runstore"},
	{"nemesis/..."},
	{"targets/spec"},
	{"workload"},
	{"check/..."},
	{"explain"},
	{"judge"},
	{"report"},
	{"replay", "verify", "harness/...", "runmetrics"},
	{"explore"},
	{"audit"},
	{"browse", "fencetest", "cmd/..."},
}

// layerOf returns the layer of a package path relative to the module, or
// -1 when no layer names it. The entry that names it most closely wins:
// the package itself, else the longest "/..." above it.
func layerOf(rel string) int {
	layer, matched := -1, -1
	for i, l := range layers {
		for _, p := range l {
			base, tree := strings.CutSuffix(p, "/...")
			switch {
			case rel == base && !tree:
				return i
			case tree && (rel == base || strings.HasPrefix(rel, base+"/")) && len(base) > matched:
				layer, matched = i, len(base)
			}
		}
	}
	return layer
}

// imports returns, for every package of the module, the module packages
// it imports, and "testing" when it imports that (test files excluded: a
// test may use a higher stage to drive a lower one). The tests share one
// go list.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	deps, err := listImports()
	require.NoError(t, err)
	return deps
}

var listImports = sync.OnceValues(func() (map[string][]string, error) {
	root, err := findRoot()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", module+"/...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w: %s", err, stderrOf(err))
	}
	deps := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		pkg := rel(f[0])
		deps[pkg] = nil
		for _, imp := range f[1:] {
			if strings.HasPrefix(imp, module+"/") || imp == "testing" {
				deps[pkg] = append(deps[pkg], rel(imp))
			}
		}
	}
	return deps, sc.Err()
})

func TestNoPackageImportsAHigherLayer(t *testing.T) {
	for pkg, deps := range imports(t) {
		t.Run(pkg, func(t *testing.T) {
			l := layerOf(pkg)
			require.GreaterOrEqual(t, l, 0, "package %s has no layer: add it to layers in %s and to docs/architecture.md", pkg, "internal/layers/layers_test.go")
			for _, d := range deps {
				assert.LessOrEqual(t, layerOf(d), l, "%s (layer %d) imports %s (layer %d), a later stage", pkg, l, d, layerOf(d))
			}
		})
	}
}

// TestOnlyFencetestImportsTesting: library code runs outside go test
// (the CLI, a service), so only the package that adapts the harness to
// go test may import testing.
func TestOnlyFencetestImportsTesting(t *testing.T) {
	for pkg, deps := range imports(t) {
		if pkg != "fencetest" {
			assert.NotContains(t, deps, "testing", "%s imports testing outside its tests", pkg)
		}
	}
}

// TestLayersNameOnlyPackagesThatExist keeps the table honest: a layer
// entry for a package that was moved or deleted would hide a new one.
func TestLayersNameOnlyPackagesThatExist(t *testing.T) {
	deps := imports(t)
	for _, l := range layers {
		for _, p := range l {
			base, _ := strings.CutSuffix(p, "/...")
			found := false
			for pkg := range deps {
				if pkg == base || strings.HasPrefix(pkg, base+"/") {
					found = true
				}
			}
			assert.True(t, found, "layer entry %q matches no package", p)
		}
	}
}

var layoutRow = regexp.MustCompile("^\\| `([a-z0-9/]+)/` \\|")

// folderTable is the manual's page whose folder table a newcomer reads
// to find each stage by its folder.
const folderTable = "docs/architecture.md"

// TestFolderTableMatchesTreeAndLayers: the folder table of
// docs/architecture.md lists every top-level folder that holds Go code,
// each once, in the order of the layers, and nothing else.
func TestFolderTableMatchesTreeAndLayers(t *testing.T) {
	root := moduleRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, folderTable))
	require.NoError(t, err)
	var rows []string
	for line := range strings.SplitSeq(string(doc), "\n") {
		if m := layoutRow.FindStringSubmatch(line); m != nil {
			rows = append(rows, m[1])
		}
	}
	var want []string
	for pkg := range imports(t) {
		top, _, _ := strings.Cut(pkg, "/")
		if !slices.Contains(want, top) {
			want = append(want, top)
		}
	}
	slices.Sort(want)
	got := slices.Clone(rows)
	slices.Sort(got)
	// Compact once: it zeroes the tail it drops but keeps got's length, so
	// a second Compact(got) would count the duplicate's "" as a folder.
	got = slices.Compact(got)
	assert.Equal(t, want, got, "%s's folder table lists these folders", folderTable)
	assert.Len(t, rows, len(got), "a folder is listed twice in %s", folderTable)
	order := slices.Clone(rows)
	slices.SortStableFunc(order, func(a, b string) int { return minLayer(a) - minLayer(b) })
	assert.Equal(t, order, rows, "%s's folder table is not in the order of the layers", folderTable)
}

// minLayer is the lowest layer of any package under the top-level folder.
func minLayer(top string) int {
	for i, l := range layers {
		for _, p := range l {
			if p == top || strings.HasPrefix(p, top+"/") {
				return i
			}
		}
	}
	return len(layers)
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := findRoot()
	require.NoError(t, err)
	return root
}

var findRoot = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w: %s", err, stderrOf(err))
	}
	return filepath.Dir(strings.TrimSpace(string(out))), nil
})

func rel(pkg string) string { return strings.TrimPrefix(pkg, module+"/") }

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return fmt.Sprint(err)
}

// TestLayerOfPicksTheClosestEntry: a package named on its own is in its
// own layer even under a tree another layer covers (targets/spec, above
// nemesis, under targets/..., below it).
func TestLayerOfPicksTheClosestEntry(t *testing.T) {
	t.Parallel()
	nemesis, spec, targets := layerOf("nemesis/proxy"), layerOf("targets/spec"), layerOf("targets/sqltarget")
	assert.Greater(t, spec, nemesis, "targets/spec is above the fault proxies it starts")
	assert.Less(t, targets, nemesis, "the other targets are below the nemesis")
	assert.Equal(t, targets, layerOf("targets"))
	assert.Equal(t, -1, layerOf("nowhere"))
}
