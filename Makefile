# fencecheck: `make demo` runs the seed's replay and checks its traces;
# `make test` is what CI runs.
GO      ?= go
BIN     := bin/fencecheck
PKGS    := ./...
# Every benchmark but BenchmarkCheckers, which has its own target (bench-checker)
# because it takes long and needs gigabytes.
BENCH   ?= ^Benchmark(Record|Read|Evidence|Harness|HarnessHTTP|PlainLoop|PlainLoopHTTP|SQLHarness|SQLPlainLoop|Report|CheckFast|CollectFast|CheckFloor)$$
COUNT   ?= 6

.PHONY: all build demo test fmt-check vet bench bench-checker diff-checker lint fuzz clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/fencecheck

## demo: replay the seed's timeline and judge its traces, then run workers
## under faults against a broken and a correct receiver.
demo: build
	$(BIN) replay --out replay-out
	@echo
	@echo '$$ fencecheck check replay-out/unfenced.jsonl   # expect a violation, exit 1'
	@$(BIN) check replay-out/unfenced.jsonl; test $$? -eq 1
	@echo
	@echo '$$ fencecheck check replay-out/fenced.jsonl     # expect the invariant to hold, exit 0'
	@$(BIN) check replay-out/fenced.jsonl
	@echo
	@echo '$$ fencecheck run --target memory://check-then-set --nemesis pause,delay --seed 7   # exit 1'
	@$(BIN) run --target memory://check-then-set --nemesis pause,delay --seed 7 --store store; test $$? -eq 1
	@echo
	@echo '$$ fencecheck run --target memory://fenced --nemesis pause,delay --seed 7          # exit 0'
	@$(BIN) run --target memory://fenced --nemesis pause,delay --seed 7 --store store
	@echo
	@echo '$$ fencecheck run --target memory://fenced --leases etcd --duration 3s --seed 7    # tokens from an embedded 3-member etcd, exit 0'
	@$(BIN) run --target memory://fenced --leases etcd --duration 3s --seed 7 --store store
	@echo
	@echo '$$ fencecheck run --target sqlite://$(CURDIR)/demo.db --duration 3s --seed 7        # the embedded default, exit 0'
	@rm -f demo.db demo.db-*
	@$(BIN) run --target sqlite://$(CURDIR)/demo.db --duration 3s --seed 7 --store store
	@echo
	@echo 'Open store/latest/report.html, or browse every run with: $(BIN) serve --store store'

## test: formatting, vet, and every test with the race detector (fuzz
## targets run their seed corpus).
test: fmt-check vet
	$(GO) test -race -timeout 20m $(PKGS)

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

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
	$(GO) test ./targets/httptarget/receiver -run '^$$' -fuzz '^FuzzStoreDSN$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/redact -run '^$$' -fuzz '^FuzzSpec$$' -fuzztime $(FUZZTIME)
	$(GO) test ./targets/redistarget -run '^$$' -fuzz '^FuzzAtomicOrder$$' -fuzztime $(FUZZTIME)
	$(GO) test ./targets/redistarget -run '^$$' -fuzz '^FuzzReading$$' -fuzztime $(FUZZTIME)
	$(GO) test ./lease/spec -run '^$$' -fuzz '^FuzzParseNet$$' -fuzztime $(FUZZTIME)
	$(GO) test ./docs/schema -run '^$$' -fuzz '^FuzzLineClasses$$' -fuzztime $(FUZZTIME)

## bench-checker: the fast checker and porcupine side by side on the same
## generated histories (1 and 50 resources, 5 and 50 clients, 10k to 1M
## operations, 0/1/10 % unknown writes, valid and invalid); wall time and
## peak memory of each, in a child process capped at 8 GiB. Takes long.
bench-checker:
	$(GO) test ./check -run '^$$' -bench BenchmarkCheckers -benchtime 1x -timeout 3h

## diff-checker: the 100,000-case differential run of the fast checker
## against porcupine (every go test runs a bounded subset).
diff-checker:
	$(GO) test ./check -run TestFastDifferential -diff.cases=100000 -v

clean:
	rm -rf bin replay-out store bench.txt demo.db demo.db-*
