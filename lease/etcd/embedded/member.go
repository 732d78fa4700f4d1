package embedded

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"go.etcd.io/etcd/server/v3/embed"
)

// MemberFile is the member's configuration file in its folder, the one
// argument a member process gets (see Options.Command).
const MemberFile = "member.json"

// MemberConfig is what one member needs to run. Start writes it, as JSON,
// to MemberFile in the member's folder; ServeMember reads it.
type MemberConfig struct {
	Name           string `json:"name"`
	DataDir        string `json:"data_dir"`
	LogFile        string `json:"log_file"` // etcd's own log (warnings and errors)
	PeerURL        string `json:"peer_url"`
	ClientURL      string `json:"client_url"`
	InitialCluster string `json:"initial_cluster"` // name=peer URL, …, the same for every member
	ClusterToken   string `json:"cluster_token"`
	// ReadyFD is a file descriptor the member writes "ready\n" to, and
	// then closes, once it serves clients; 0: none. A member process
	// started by a Cluster gets the write end of a pipe there, so that
	// its readiness is an event the cluster reads, not something it polls
	// for; and a member that dies before it is ready closes the pipe, an
	// event too.
	ReadyFD int `json:"ready_fd,omitempty"`
	_       struct{}
}

// embed is the member's configuration as etcd takes it. The initial
// cluster state is "new" on every start: etcd ignores it once the data
// folder holds the member's log, so a restarted member rejoins with what
// it had.
func (m MemberConfig) embed() (*embed.Config, error) {
	peer, err := url.Parse(m.PeerURL)
	if err != nil {
		return nil, fmt.Errorf("member %s: peer URL: %w", m.Name, err)
	}
	client, err := url.Parse(m.ClientURL)
	if err != nil {
		return nil, fmt.Errorf("member %s: client URL: %w", m.Name, err)
	}
	cfg := embed.NewConfig()
	cfg.Name, cfg.Dir = m.Name, m.DataDir
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*peer}, []url.URL{*peer}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*client}, []url.URL{*client}
	cfg.InitialCluster, cfg.InitialClusterToken, cfg.ClusterState = m.InitialCluster, m.ClusterToken, embed.ClusterStateFlagNew
	cfg.Logger, cfg.LogLevel, cfg.LogOutputs = "zap", "warn", []string{m.LogFile}
	return cfg, nil
}

// write writes m to MemberFile in dir and returns the file's path.
func (m MemberConfig) write(dir string) (string, error) {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return "", fmt.Errorf("embedded etcd: member %s: %w", m.Name, err)
	}
	path := filepath.Join(dir, MemberFile)
	if err := os.WriteFile(path, append(data, '\n'), 0o600); err != nil {
		return "", fmt.Errorf("embedded etcd: %w", err)
	}
	return path, nil
}

// ReadMemberConfig reads a member's configuration file.
func ReadMemberConfig(path string) (MemberConfig, error) {
	var m MemberConfig
	data, err := os.ReadFile(path)
	if err != nil {
		return m, fmt.Errorf("etcd member configuration: %w", err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("etcd member configuration %s: %w", path, err)
	}
	if m.Name == "" || m.DataDir == "" || m.PeerURL == "" || m.ClientURL == "" || m.InitialCluster == "" {
		return m, fmt.Errorf("etcd member configuration %s: name, data_dir, peer_url, client_url and initial_cluster are required", path)
	}
	return m, nil
}

// ServeMember runs the member configPath describes in this process until
// ctx ends, the member fails, or etcd stops it: the entry point of a
// member process (`fencecheck leases member CONFIG`, see Options.Command).
// Once the member serves clients it says so on its ReadyFD. It returns
// nil when ctx ended, after the member closed.
func ServeMember(ctx context.Context, configPath string) error {
	m, err := ReadMemberConfig(configPath)
	if err != nil {
		return err
	}
	cfg, err := m.embed()
	if err != nil {
		return err
	}
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return fmt.Errorf("etcd member %s: %w (its log is %s)", m.Name, err, m.LogFile)
	}
	defer e.Close()
	ready := e.Server.ReadyNotify()
	for {
		select {
		case <-ready:
			ready = nil
			if err := notifyReady(m.ReadyFD); err != nil {
				return fmt.Errorf("etcd member %s: %w", m.Name, err)
			}
		case err := <-e.Err():
			return fmt.Errorf("etcd member %s: %w (its log is %s)", m.Name, err, m.LogFile)
		case <-e.Server.StopNotify():
			return fmt.Errorf("etcd member %s: the server stopped (its log is %s)", m.Name, m.LogFile)
		case <-ctx.Done():
			return nil
		}
	}
}

// notifyReady writes "ready\n" to fd and closes it; fd 0 is none.
func notifyReady(fd int) error {
	if fd == 0 {
		return nil
	}
	f := os.NewFile(uintptr(fd), "ready")
	if f == nil {
		return fmt.Errorf("ready file descriptor %d is not open", fd)
	}
	_, err := f.WriteString(readyLine)
	return errors.Join(err, f.Close())
}

// readyLine is what a member writes on its ReadyFD.
const readyLine = "ready\n"
