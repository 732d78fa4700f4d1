# fencecheck: `make demo` runs the seed's replay and checks its traces;
# `make test` is what CI runs.
GO      ?= go
BIN     := bin/fencecheck
PKGS    := ./...
# Every benchmark but those with a target of their own (BenchmarkCheckers:
# bench-checker; BenchmarkReadFloor: bench-read), BenchmarkCheckFastScale
# (gigabytes) and BenchmarkTouchFreshMemory (the machine, not fencecheck);
# docs/performance.md gives each one's command and figure.
BENCH   ?= ^Benchmark(Record|Observe|Read|Evidence|Harness|HarnessHTTP|PlainLoop|PlainLoopHTTP|SQLHarness|SQLPlainLoop|SweepFenced|HandlerSynctest|Report|CheckFast|CollectFast|CheckFloor|Stream)$$
COUNT   ?= 6

.PHONY: campaigns race-tests all build demo test fmt-check vet bench bench-pairs bench-checker bench-read diff-checker lint fuzz dist clean explore-table detect-http

all: build

# -buildvcs=auto (Go's default, which a machine's go env can turn off) so
# that fencecheck version names the commit.
build:
	$(GO) build -buildvcs=auto -o $(BIN) ./cmd/fencecheck

## demo: replay the seed's timeline and judge its traces, then run workers
## under faults against a broken and a correct receiver; it ends by naming
## the report of the violated run (the counterexample) and of a passing one.
## The real-time runs are bounded by --ops, not a duration, so that a loaded
## machine does the same work, only more slowly, and still meets the
## stale-write gate.
demo: build
	$(BIN) replay --out replay-out
	@echo
	@echo '$$ fencecheck check replay-out/unfenced.jsonl   # expect a violation, exit 1'
	@$(BIN) check replay-out/unfenced.jsonl; test $$? -eq 1
	@echo
	@echo '$$ fencecheck check replay-out/fenced.jsonl     # expect the invariant to hold, exit 0'
	@$(BIN) check replay-out/fenced.jsonl
	@echo
	@echo '$$ fencecheck run --target memory://check-then-set --nemesis pause,delay --seed 7 --name demo-violated   # exit 1'
	@$(BIN) run --target memory://check-then-set --nemesis pause,delay --seed 7 --name demo-violated --store store; test $$? -eq 1
	@echo
	@echo '$$ fencecheck run --target memory://fenced --nemesis pause,delay --seed 7 --name demo-held               # exit 0'
	@$(BIN) run --target memory://fenced --nemesis pause,delay --seed 7 --name demo-held --store store
	@echo
	@echo '$$ fencecheck run --target memory://fenced --leases etcd --ops 200 --seed 7        # tokens from an embedded 3-member etcd, exit 0'
	@$(BIN) run --target memory://fenced --leases etcd --ops 200 --seed 7 --store store
	@echo
	@echo '$$ fencecheck run --target sqlite://$(CURDIR)/demo.db --ops 200 --seed 7            # the embedded default, exit 0'
	@rm -f demo.db demo.db-*
	@$(BIN) run --target sqlite://$(CURDIR)/demo.db --ops 200 --seed 7 --store store
	@echo
	@echo "The counterexample (memory://check-then-set, violated): $$(ls -d store/demo-violated/*/ | tail -n 1)report.html"
	@echo "A passing run and what it exercised (memory://fenced):  $$(ls -d store/demo-held/*/ | tail -n 1)report.html"
	@echo 'Browse every run with: $(BIN) serve --store store'

## test: formatting, vet, and every test with the race detector (fuzz
## targets run their seed corpus), each run anew (-count=1: never a
## result cached from an earlier run). -trimpath keys the build cache by
## content instead of by the checkout's path, so a new clone reuses what
## an earlier one compiled; GOFLAGS carries it to the go commands the
## tests run themselves (internal/testsupport/gotool). The campaigns run
## beside the race tests (make -j2): the end of the race tests is one
## package's waits, which leaves a core idle. Each prints whole lines;
## make test fails if either fails.
test: export GOFLAGS := $(strip $(shell $(GO) env GOFLAGS) -trimpath)
test: fmt-check vet
	$(MAKE) --no-print-directory -j2 race-tests campaigns

## race-tests: every test with the race detector, each run anew.
race-tests:
	$(GO) test -race -count=1 -timeout 20m $(PKGS)

## campaigns: the randomized differential campaigns at their full counts,
## without the race detector, which slows them tenfold (under -race,
## make test runs their short counts; internal/testsupport/histgen).
CAMPAIGNS = TestFastDifferential|TestStreamAgreesWithWholeCheck|TestStreamCounterexampleIsTheWholeChecks|TestPoliciesNest|TestExplanationsAreTrueOfTheOriginal|TestMeterAgreesWithMeasure
campaigns:
	$(GO) test -timeout 20m -count=1 -run '^($(CAMPAIGNS))$$' ./check/ ./explain/ ./judge/

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

## explore-table: measure the seeds and wall time until the first failure
## of every broken receiver, by random, swarm and PCT sweeps, check that
## the correct ones fail no seed, and write the table into
## docs/exploration.md (about ten minutes on two cores).
explore-table:
	FENCECHECK_TTD_DOC=$(CURDIR)/docs/exploration.md GOGC=400 $(GO) test ./explore -run '^TestTimeToDetectionTable$$' -count=1 -v -timeout 30m

## detect-http: one default `fencecheck run` per seed against the
## reference receiver started with each --bug mode (DETECT_SEEDS, 1-20),
## and against the correct one (DETECT_CORRECT, 1-100), each run against
## a receiver process of its own, DETECT_PARALLEL at once; one summary
## line per mode: how many seeds violated (exit 1), held, were
## inconclusive. Real receivers on loopback: the figures vary with the
## machine and its load (docs/exploration.md quotes them).
DETECT_BIN      ?= $(BIN)
DETECT_SEEDS    ?= 1 20
DETECT_CORRECT  ?= 1 100
DETECT_PARALLEL ?= 2
DETECT_MODES    ?= check-then-set unfenced accept-equal string-tokens lose-acknowledged float-tokens forget-on-restart
detect-http: build
	@for m in $(DETECT_MODES); do scripts/detect-http.sh $(DETECT_BIN) $$m $(DETECT_SEEDS) $(DETECT_PARALLEL) --no-progress 2>/dev/null | tail -n 1; done
	@scripts/detect-http.sh $(DETECT_BIN) none $(DETECT_CORRECT) $(DETECT_PARALLEL) --no-progress 2>/dev/null | tail -n 1

## bench: all benchmarks, COUNT times, into bench.txt for benchstat.
bench:
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -count $(COUNT) $(PKGS) | tee bench.txt
	@echo "compare with: go run golang.org/x/perf/cmd/benchstat@latest old.txt bench.txt"

lint: fmt-check vet
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 $(PKGS)

## fuzz: run each fuzz target for FUZZTIME (default 30s).
FUZZTIME ?= 30s
fuzz:
	$(GO) test ./histories -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME)
	$(GO) test ./histories -run '^$$' -fuzz '^FuzzRead$$' -fuzztime $(FUZZTIME)
	$(GO) test ./histories -run '^$$' -fuzz '^FuzzDecodeMatchesJSON$$' -fuzztime $(FUZZTIME)
	$(GO) test ./targets/httptarget/receiver -run '^$$' -fuzz '^FuzzHandler$$' -fuzztime $(FUZZTIME)
	$(GO) test ./targets/httptarget -run '^$$' -fuzz '^FuzzParseHeader$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/termsafe -run '^$$' -fuzz '^FuzzString$$' -fuzztime $(FUZZTIME)
	$(GO) test ./targets/sqltarget/internal/placeholders -run '^$$' -fuzz '^FuzzTranslate$$' -fuzztime $(FUZZTIME)
	$(GO) test ./targets/sqltarget/internal/placeholders -run '^$$' -fuzz '^FuzzOutline$$' -fuzztime $(FUZZTIME)
	$(GO) test ./histories -run '^$$' -fuzz '^FuzzReadParallelMatchesReader$$' -fuzztime $(FUZZTIME)
	$(GO) test ./check -run '^$$' -fuzz '^FuzzFastMatchesPorcupine$$' -fuzztime $(FUZZTIME)
	$(GO) test ./cmd/fencecheck -run '^$$' -fuzz '^FuzzParseReady$$' -fuzztime $(FUZZTIME)
	$(GO) test ./lease/spec -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/procfs -run '^$$' -fuzz '^FuzzParseStat$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/httpserver -run '^$$' -fuzz '^FuzzParseHost$$' -fuzztime $(FUZZTIME)
	$(GO) test ./sched -run '^$$' -fuzz '^FuzzParseOrder$$' -fuzztime $(FUZZTIME)
	$(GO) test ./targets/httptarget/receiver -run '^$$' -fuzz '^FuzzStoreDSN$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/redact -run '^$$' -fuzz '^FuzzSpec$$' -fuzztime $(FUZZTIME)
	$(GO) test ./targets/redistarget -run '^$$' -fuzz '^FuzzAtomicOrder$$' -fuzztime $(FUZZTIME)
	$(GO) test ./targets/redistarget -run '^$$' -fuzz '^FuzzReading$$' -fuzztime $(FUZZTIME)
	$(GO) test ./targets/natstarget -run '^$$' -fuzz '^FuzzLayout$$' -fuzztime $(FUZZTIME)
	$(GO) test ./lease/spec -run '^$$' -fuzz '^FuzzParseNet$$' -fuzztime $(FUZZTIME)
	$(GO) test ./docs/schema -run '^$$' -fuzz '^FuzzLineClasses$$' -fuzztime $(FUZZTIME)
	$(GO) test ./explore -run '^$$' -fuzz '^FuzzParseSeeds$$' -fuzztime $(FUZZTIME)

## bench-pairs: the harness against the reference HTTP receiver, SQLite,
## PostgreSQL and MariaDB (those that answer; FENCECHECK_POSTGRES_DSN,
## FENCECHECK_MYSQL_DSN) beside a plain client loop doing the same
## requests, PAIRS interleaved pairs from one test binary: the medians and
## the harness's throughput as a fraction of the loop's. Under BENCH_LOCK,
## so that one measurement runs at a time on a shared machine.
PAIRS      ?= 6
BENCH_LOCK ?= $(shell command -v flock >/dev/null 2>&1 && echo flock /tmp/fencecheck-bench.lock)
bench-pairs:
	@mkdir -p bin
	$(GO) test -c -o bin/harness.test ./harness/
	$(GO) build -o bin/benchpairs ./harness/internal/benchpairs
	$(BENCH_LOCK) bin/benchpairs -bin bin/harness.test -pairs $(PAIRS)

## bench-checker: the fast checker and porcupine side by side on the same
## generated histories (1 and 50 resources, 5 and 50 clients, 10k to 1M
## operations, 0/1/10 % unknown writes, valid and invalid; and 10M
## operations with 50 clients and 10 % unknown, valid and with a late
## violation); wall time and peak memory of each, in a child process capped
## at 8 GiB. It fails where the fast checker breaks the rule it is held to
## (fastRule in check/fast_bench_test.go). -v, so that a porcupine cell not
## run says why. Then the whole `fencecheck check` on one resource, 50
## clients, 10 % unknown writes, SHRINK_OPS operations: valid, and with a
## late stale read and a late wrong rejection, each with shrinking and
## without, back to back (scripts/bench-shrink.sh: time, CPU, peak RSS,
## bytes per operation, the minimal counterexample); the histories are
## generated once into SHRINK_DIR. Takes long.
SHRINK_OPS ?= 1000000 10000000
SHRINK_DIR ?= /tmp/fencecheck-bench-shrink
bench-checker: build
	$(GO) test ./check -run '^$$' -bench BenchmarkCheckers -benchtime 1x -timeout 3h -v
	$(GO) build -o bin/benchgen ./check/internal/benchgen
	scripts/bench-shrink.sh $(BIN) bin/benchgen $(SHRINK_DIR) $(SHRINK_OPS)

## bench-read: the history reader beside the floor, on the bytes of one
## 1,000,000-operation benchmark history (generated once into READ_FILE):
## wc -l, then BenchmarkReadFloor: a Go loop that only finds the newlines,
## the decoder on one goroutine, and the whole parallel Read, each in MB/s
## and MB per processor second, with the decoder's ratio to the floor.
READ_FILE ?= /tmp/fencecheck-bench-read/ops1000000-clients50-unknown0.1.jsonl
bench-read:
	@test -s $(READ_FILE) || { mkdir -p $(dir $(READ_FILE)) && \
		$(GO) run ./check/internal/benchgen -ops 1000000 -clients 50 -unknown 0.1 -out $(READ_FILE); }
	@uptime
	@for i in 1 2 3; do \
		s=$$(date +%s.%N); n=$$(wc -l < $(READ_FILE)); e=$$(date +%s.%N); \
		awk -v s=$$s -v e=$$e -v n=$$n -v b=$$(wc -c < $(READ_FILE)) \
			'BEGIN { printf "wc -l: %d lines, %d bytes, %.3f s, %.0f MB/s\n", n, b, e-s, b/1e6/(e-s) }'; \
	done
	$(GO) test ./histories -run '^$$' -bench '^BenchmarkReadFloor$$' -count 3 -read.file $(READ_FILE)

## diff-checker: the 100,000-case differential run of the fast checker
## against porcupine (every go test runs a bounded subset).
diff-checker:
	$(GO) test ./check -run TestFastDifferential -diff.cases=100000 -v

## dist: static release binaries (CGO_ENABLED=0) for linux, darwin and
## windows on amd64 and arm64 in dist/, with their SHA256SUMS; VERSION is
## stamped into each (fencecheck version prints it). The binary for this
## machine is run once to check the stamp. The six links run at once:
## each is one process, mostly on one core.
VERSION   ?= $(shell git describe --tags --match 'v*' --dirty 2>/dev/null || echo devel-$$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown))
PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
dist:
	rm -rf dist && mkdir -p dist
	@set -e; pids=; for p in $(PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; ext=; [ "$$os" = windows ] && ext=.exe; \
		out=dist/fencecheck-$(VERSION)-$$os-$$arch$$ext; echo "$$out"; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -buildvcs=auto \
			-ldflags "-s -w -X main.version=$(VERSION)" -o "$$out" ./cmd/fencecheck & pids="$$pids $$!"; \
	done; \
	for pid in $$pids; do wait $$pid; done
	cd dist && sha256sum fencecheck-* > SHA256SUMS && sha256sum --quiet -c SHA256SUMS
	@host=dist/fencecheck-$(VERSION)-$$($(GO) env GOOS)-$$($(GO) env GOARCH); \
	if [ -x "$$host" ]; then \
		got=$$("$$host" version | head -n1); \
		[ "$$got" = "fencecheck $(VERSION)" ] || { echo "dist: $$host says '$$got', want 'fencecheck $(VERSION)'" >&2; exit 1; }; \
		echo "$$host: $$got"; \
	fi
	@cat dist/SHA256SUMS

clean:
	rm -rf bin dist replay-out store bench.txt demo.db demo.db-*
