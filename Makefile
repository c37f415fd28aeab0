# OpenBench-style build: `make` builds the engine to $(EXE) (default: lazuli).
EXE ?= lazuli
CARGO ?= cargo

.PHONY: all build test bench clean header

all: build

build:
	$(CARGO) build --release
	cp target/release/lazuli $(EXE)

test:
	$(CARGO) test

bench: build
	./$(EXE) bench

header:
	cbindgen --config cbindgen.toml --output include/lazuli.h

clean:
	$(CARGO) clean
	rm -f $(EXE)
