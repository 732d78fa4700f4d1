package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/internal/testsupport/gotool"
)

// A user who builds fencecheck with go install, rather than from a
// release, must still be able to say which code judged a run: version
// names the commit.
func TestGoInstallReportsTheCommit(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	rev, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a Git checkout (git rev-parse: %v): go install records no revision to test", err)
	}
	gobin := t.TempDir() // not validated: a GOBIN for go install
	install := exec.Command("go", "install", "./cmd/fencecheck")
	install.Dir = root
	// -buildvcs=auto is Go's default; a machine's go env may turn it off
	// (this one does), which would hide the revision. The other flags
	// are the tests' own (-race among them under go test -race), so that
	// go install reuses their compiled packages: none of them changes
	// what version prints.
	env, err := gotool.Env("-buildvcs=auto")
	require.NoError(t, err)
	install.Env = append(env, "GOBIN="+gobin)
	out, err := install.CombinedOutput()
	require.NoError(t, err, "go install: %s", out)
	bin := filepath.Join(gobin, "fencecheck")

	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, err := exec.Command(bin, args...).CombinedOutput()
		require.NoError(t, err, "%v: %s", args, out)
		t.Logf("fencecheck %s:\n%s", strings.Join(args, " "), out)
		first := strings.SplitN(string(out), "\n", 2)[0]
		assert.Regexp(t, regexp.MustCompile(`^fencecheck (v\d+\.\d+\.\d+\S*|devel-[0-9a-f]{12})`), first)
		assert.NotRegexp(t, `^fencecheck dev\b`, first)
	}
	out, err = exec.Command(bin, "version").CombinedOutput()
	require.NoError(t, err)
	assert.Contains(t, string(out), "revision   "+strings.TrimSpace(string(rev)), "the full revision")
}
