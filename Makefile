# `make` builds the engine to $(EXE) (default: lazuli), as OpenBench expects.
EXE ?= lazuli
CARGO ?= cargo
CC ?= cc
CFLAGS_STRICT = -std=c11 -Wall -Wextra -Werror -pedantic -O2 -pthread
# What the Rust static library needs besides libc (cargo rustc --lib -- --print native-static-libs).
NATIVE_LIBS = -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc
LIB = target/release/liblazuli.a

.PHONY: all build test bench header example c-test c-valgrind bench-c clean

all: build

build:
	$(CARGO) build --release
	cp target/release/lazuli $(EXE)

test:
	$(CARGO) test

bench: build
	./$(EXE) bench

# Regenerate include/lazuli.h from src/ffi/ (cargo test fails while it is stale).
header:
	LAZULI_BLESS=1 $(CARGO) test --test c_api header

lib:
	$(CARGO) build --release --lib

# The C starting point for GUI authors: 2-thread analysis with live info lines.
example: lib
	$(CC) $(CFLAGS_STRICT) -Iinclude examples/analysis.c $(LIB) $(NATIVE_LIBS) -o target/analysis
	./target/analysis

# The C tests against the release libraries, static and shared.
c-test: lib
	mkdir -p target/c
	$(CC) $(CFLAGS_STRICT) -Iinclude tests/c/test_api.c $(LIB) $(NATIVE_LIBS) -o target/c/test_api_static
	$(CC) $(CFLAGS_STRICT) -Iinclude tests/c/test_api.c -Ltarget/release -Wl,-rpath,$(CURDIR)/target/release -llazuli -o target/c/test_api_shared
	target/c/test_api_static
	target/c/test_api_shared

# The C tests under valgrind: no leak, no invalid read or write (exit status 1 otherwise).
VALGRIND = valgrind --leak-check=full --show-leak-kinds=definite,indirect,possible \
	--errors-for-leak-kinds=definite,indirect,possible --suppressions=tests/c/valgrind.supp --error-exitcode=1
c-valgrind: c-test
	$(VALGRIND) target/c/test_api_static
	$(VALGRIND) target/c/test_api_shared

# NPS through the C library against the UCI binary, alternating.
bench-c:
	benches/compare_c.sh

clean:
	$(CARGO) clean
	rm -f $(EXE)
