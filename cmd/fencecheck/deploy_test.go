package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/fencecheck/fencecheck/harness"
)

// manifestDir holds the Kubernetes manifests of docs/scale-out.md.
const manifestDir = "../../deploy/kubernetes"

// object is the part of a Kubernetes object the test reads.
type object struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		CompletionMode string `json:"completionMode"`
		Completions    *int   `json:"completions"`
		Parallelism    *int   `json:"parallelism"`
		Replicas       *int   `json:"replicas"`
		ServiceName    string `json:"serviceName"`
		Ports          []struct {
			Name string `json:"name"`
			Port int    `json:"port"`
		} `json:"ports"`
		Template struct {
			Spec struct {
				Containers []struct {
					Name    string   `json:"name"`
					Image   string   `json:"image"`
					Command []string `json:"command"`
					Args    []string `json:"args"`
				} `json:"containers"`
			} `json:"spec"`
		} `json:"template"`
	} `json:"spec"`
}

// readManifests parses every YAML document of every manifest, strictly
// (a key given twice is an error), and returns them by kind/name.
func readManifests(t *testing.T) map[string]object {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(manifestDir, "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	out := make(map[string]object)
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		require.NoError(t, err)
		for i, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(raw), -1) {
			if strings.TrimSpace(regexp.MustCompile(`(?m)^\s*#.*$`).ReplaceAllString(doc, "")) == "" {
				continue
			}
			js, err := yaml.YAMLToJSONStrict([]byte(doc))
			require.NoError(t, err, "%s, document %d", p, i)
			var o object
			require.NoError(t, json.Unmarshal(js, &o), "%s, document %d", p, i)
			require.NotEmpty(t, o.Kind, "%s, document %d", p, i)
			key := o.Kind + "/" + o.Metadata.Name
			require.NotContains(t, out, key, "%s defined twice", key)
			out[key] = o
		}
	}
	return out
}

// commandLine returns the fencecheck command a container runs: its
// command and args, or the fencecheck line of a /bin/sh -c script (with
// its backslash-newlines joined and its quotes removed).
func commandLine(t *testing.T, o object) []string {
	t.Helper()
	cs := o.Spec.Template.Spec.Containers
	require.Len(t, cs, 1, o.Metadata.Name)
	c := cs[0]
	assert.Equal(t, "fencecheck:dev", c.Image, "%s runs the image deploy/kubernetes/Dockerfile builds", o.Metadata.Name)
	line := append(append([]string(nil), c.Command...), c.Args...)
	if len(line) == 3 && line[0] == "/bin/sh" && line[1] == "-c" {
		for _, cmd := range shellCommands(line[2]) {
			if len(cmd) > 0 && cmd[0] == "fencecheck" {
				return cmd
			}
		}
		t.Fatalf("%s: no fencecheck command in its script:\n%s", o.Metadata.Name, line[2])
	}
	require.Equal(t, "fencecheck", line[0], o.Metadata.Name)
	return line
}

// shellCommands splits a script into its commands (one a line, or
// separated by ;) and each into words, as sh would for the plain scripts
// the manifests hold: quotes, backslash-newline; no expansions.
func shellCommands(script string) [][]string {
	var cmds [][]string
	var words []string
	var w strings.Builder
	inWord, quote := false, rune(0)
	end := func() {
		if inWord {
			words = append(words, w.String())
		}
		w.Reset()
		inWord = false
	}
	rs := []rune(script)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '\\' && i+1 < len(rs) && rs[i+1] == '\n':
			i++
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case r == '\n' || r == ';':
			end()
			if len(words) > 0 {
				cmds = append(cmds, words)
			}
			words = nil
		case r == ' ' || r == '\t':
			end()
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	end()
	if len(words) > 0 {
		cmds = append(cmds, words)
	}
	return cmds
}

// accepted parses args as the binary would, up to running the command:
// the command exists, every flag is one it takes with a value it
// accepts, and its arguments are what it wants.
func accepted(t *testing.T, args []string) *cobra.Command {
	t.Helper()
	root := newRootCommand(io.Discard, io.Discard)
	cmd, rest, err := root.Find(args[1:])
	require.NoError(t, err, "%v", args)
	require.NotEqual(t, root, cmd, "%v names no command", args)
	require.NoError(t, cmd.ParseFlags(rest), "%v", args)
	require.NoError(t, cmd.ValidateArgs(cmd.Flags().Args()), "%v", args)
	return cmd
}

func given(t *testing.T, cmd *cobra.Command, name string) string {
	t.Helper()
	f := cmd.Flags().Lookup(name)
	require.NotNil(t, f, "--%s", name)
	require.True(t, f.Changed, "the manifest gives --%s", name)
	return f.Value.String()
}

// TestKubernetesManifests: the manifests of deploy/kubernetes parse, and
// their command lines are ones fencecheck accepts and that fit together:
// an Indexed Job whose N pods run shards 0/N … N-1/N of one job against
// the etcd StatefulSet's members and the receiver's Service, and a check
// of exactly the N histories the shards write.
func TestKubernetesManifests(t *testing.T) {
	t.Parallel()
	objs := readManifests(t)

	etcd, ok := objs["StatefulSet/etcd"]
	require.True(t, ok, "the etcd StatefulSet")
	require.NotNil(t, etcd.Spec.Replicas)
	var members []string
	for i := range *etcd.Spec.Replicas {
		members = append(members, fmt.Sprintf("etcd-%d.%s:%d", i, etcd.Spec.ServiceName, port(t, objs["Service/"+etcd.Spec.ServiceName], "client")))
	}
	receiver := objs["Service/receiver"]

	shards, ok := objs["Job/fencecheck-shards"]
	require.True(t, ok, "the Indexed Job of shards")
	assert.Equal(t, "Indexed", shards.Spec.CompletionMode)
	require.NotNil(t, shards.Spec.Completions)
	require.NotNil(t, shards.Spec.Parallelism)
	n := *shards.Spec.Completions
	assert.Equal(t, n, *shards.Spec.Parallelism, "every shard at once: they test one receiver together")
	line := commandLine(t, shards)
	var histories []string
	owned := 0
	for i := range n {
		args := strings.Fields(strings.NewReplacer("${JOB_COMPLETION_INDEX}", fmt.Sprint(i),
			"${JOB_ID}", "0f6e4c1a-9b7d-4e0f-8a2b-3c5d7e9f1a2b").Replace(strings.Join(line, " ")))
		cmd := accepted(t, args)
		require.Equal(t, "run", cmd.Name())
		sh, err := harness.ParseShard(given(t, cmd, "shard"))
		require.NoError(t, err)
		assert.Equal(t, harness.NewShard(i, n), sh, "pod %d runs shard %d/%d", i, i, n)
		resources, err := cmd.Flags().GetInt("resources")
		require.NoError(t, err)
		names, err := harness.JobResourceNames(given(t, cmd, "job"), resources)
		require.NoError(t, err)
		require.NotEmpty(t, sh.Of(names), "shard %s owns none of the job's resources", sh)
		owned += len(sh.Of(names))

		leases := given(t, cmd, "leases")
		assert.Equal(t, "etcd://"+strings.Join(members, ","), leases, "the shards share the etcd StatefulSet's members")
		_, err = parseLeases(leases)
		require.NoError(t, err)
		target, err := url.Parse(given(t, cmd, "target"))
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprintf("receiver:%d", port(t, receiver, "http")), target.Host, "the shards test the receiver's Service")
		assert.NotEmpty(t, given(t, cmd, "ops"), "runs bounded by their work")
		histories = append(histories, filepath.Join(given(t, cmd, "store"), "latest", "history.jsonl"))
	}
	assert.Equal(t, 64, owned, "every resource is in exactly one shard")

	check := accepted(t, commandLine(t, objs["Job/fencecheck-check"]))
	require.Equal(t, "check", check.Name())
	assert.Equal(t, histories, check.Flags().Args(), "the check reads the history of every shard, and no other")

	recv := accepted(t, commandLine(t, objs["Deployment/receiver"]))
	require.Equal(t, "receiver", recv.Name())
	assert.True(t, strings.HasSuffix(given(t, recv, "listen"), fmt.Sprintf(":%d", port(t, receiver, "http"))), "the receiver listens on its Service's port")
}

// port is the named port of a Service.
func port(t *testing.T, svc object, name string) int {
	t.Helper()
	for _, p := range svc.Spec.Ports {
		if p.Name == name {
			return p.Port
		}
	}
	t.Fatalf("Service %s has no port %q", svc.Metadata.Name, name)
	return 0
}
