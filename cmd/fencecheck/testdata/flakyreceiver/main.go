// Command flakyreceiver is the reference receiver with ways to die that
// the end-to-end tests of --exec need: on a GET / (as some receivers do on
// an unknown request), or on the first request after a file appears (a
// receiver that exits on its own in the middle of a run, when the test
// says so), or on a token above 2^63-1 (--int64-tokens: a receiver that
// keeps tokens in a signed 64-bit integer and exits when one does not
// fit, as etcd's contrib/lock/storage example does). With --racy it has a deliberate data race instead: every
// request has two goroutines count it in a package-level variable without
// a lock. Built with go build -race, the race detector reports the race
// on the first request, whatever the scheduling (the two writes are never
// ordered by a happens-before edge), while every answer stays right: only
// its log shows the bug.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/fencecheck/fencecheck/targets/httptarget/receiver"
)

// requests is written by two goroutines per request under --racy,
// without a lock.
var requests int

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on")
	exitOnRoot := flag.Bool("exit-on-root", false, "exit 5 on GET /")
	dieFile := flag.String("die-when", "", "exit 7 on the first request after this file exists")
	storeSpec := flag.String("store", "memory", "memory, or sqlite:PATH")
	racy := flag.Bool("racy", false, "count requests from two goroutines without a lock: a data race")
	int64Tokens := flag.Bool("int64-tokens", false, "exit 1 on a write whose token does not fit a signed 64-bit integer")
	flag.Parse()
	store, err := receiver.ParseStore(*storeSpec)
	if err != nil {
		fmt.Fprintln(os.Stderr, "flakyreceiver:", err)
		os.Exit(2)
	}
	h, err := receiver.NewHandler(store, receiver.DefaultOptions())
	if err != nil {
		fmt.Fprintln(os.Stderr, "flakyreceiver:", err)
		os.Exit(2)
	}
	var served atomic.Int64
	flaky := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if *exitOnRoot && r.URL.Path == "/" {
			fmt.Println("flakyreceiver: GET / is not my API; exiting")
			os.Exit(5)
		}
		if *dieFile != "" {
			if _, err := os.Stat(*dieFile); err == nil {
				fmt.Printf("flakyreceiver: %s exists; exiting after %d requests\n", *dieFile, served.Load())
				os.Exit(7)
			}
		}
		if *int64Tokens && r.Method == http.MethodPut {
			exitAbove2To63(r.Header.Get("Fencing-Token"))
		}
		served.Add(1)
		if *racy {
			race()
		}
		h.ServeHTTP(w, r)
	})
	so := receiver.DefaultServerOptions()
	so.Listen = *listen
	so.Ready = func(addr net.Addr) { fmt.Printf("flakyreceiver: listening on http://%s\n", addr) }
	err = receiver.Serve(context.Background(), flaky, so)
	fmt.Fprintln(os.Stderr, "flakyreceiver:", err)
	os.Exit(1)
}

// exitAbove2To63 exits when token is a decimal that does not fit an
// int64: the receiver dies on the request, which gets no answer.
func exitAbove2To63(token string) {
	if _, err := strconv.ParseUint(token, 10, 64); err != nil {
		return // malformed: the handler answers 400
	}
	if _, err := strconv.ParseInt(token, 10, 64); err != nil {
		fmt.Printf("flakyreceiver: bad fencing token: %v\n", err)
		os.Exit(1)
	}
}

// race counts a request from two goroutines at once, without a lock.
func race() {
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			requests++ // the race
		}()
	}
	wg.Wait()
}
