package spawn

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
)

// lowestPort is the lowest port FreePort draws: above the well-known and
// most registered services' ports.
const lowestPort = 10000

// handedOut are the ports FreePort returned in this process (two servers
// started at once must not be given the same one), and the port its walk
// tries next (0 before the first draw).
var handedOut = struct {
	sync.Mutex
	ports map[int]bool
	next  int
}{ports: map[int]bool{}}

// FreePort returns a loopback TCP port that nothing listened on when it
// was asked and that it never returned before in this process, for a
// server fencecheck starts as a child (a receiver, a private issuer, an
// etcd member), which binds it later.
//
// The port is taken below the kernel's ephemeral range
// (net.ipv4.ip_local_port_range). The kernel hands the ports of that
// range to every listener on port 0 and to every outgoing connection, and
// a run has many of both (fault proxies, test servers, database clients):
// a port taken from it by listening on port 0 and closing the listener
// was, on a loaded machine, given to one of those before the child bound
// it. Below the range, only another process choosing the same way can
// take it, between the choice and the bind: process.Child refuses to
// test whatever answers there instead, and the private issuers then
// choose again.
//
// Each process walks the range from a random start, one port after the
// next, rather than drawing each port at random: two processes that
// choose k ports each then meet only when their walks overlap, with a
// chance of about 2k in the size of the range, where independent draws
// would meet with a chance of about k² in it (with k = 20, 0.2 % against
// 1.8 %).
func FreePort() (int, error) {
	handedOut.Lock()
	defer handedOut.Unlock()
	low, high := lowestPort, ephemeralLow()-1
	if high-low < 1000 {
		return 0, fmt.Errorf("find a free loopback port: the kernel's ephemeral range starts at %d, leaving too few ports below it", high+1)
	}
	if handedOut.next < low || handedOut.next > high {
		handedOut.next = low + rand.IntN(high-low+1)
	}
	for range 200 {
		port := handedOut.next
		handedOut.next++
		if handedOut.next > high {
			handedOut.next = low
		}
		if handedOut.ports[port] {
			continue
		}
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			continue // taken
		}
		_ = ln.Close()
		handedOut.ports[port] = true
		return port, nil
	}
	return 0, errors.New("find a free loopback port: the next 200 ports were all taken")
}

// FreePorts returns n distinct ports from FreePort.
func FreePorts(n int) ([]int, error) {
	ports := make([]int, n)
	for i := range ports {
		p, err := FreePort()
		if err != nil {
			return nil, err
		}
		ports[i] = p
	}
	return ports, nil
}

// ephemeralLow is the first port of the kernel's ephemeral range, or
// 32768 (Linux's default; the BSDs and macOS start at 49152) where it
// cannot be read.
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	fields := strings.Fields(string(b))
	if len(fields) != 2 {
		return 32768
	}
	low, err := strconv.Atoi(fields[0])
	if err != nil || low <= 0 || low > 65535 {
		return 32768
	}
	return low
}
