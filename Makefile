# nomic - a formal Nomic engine.  `make` builds build/nomic (and build/nomic-net,
# which it runs for mail and HTTP); `make test` runs every test (unit,
# scenario, CLI, fuzz smoke, and the suite again under AddressSanitizer and
# UndefinedBehaviorSanitizer).

CC      ?= cc
# A user's build: optimised, across files too (link-time optimisation: the
# engine runs about 6% fewer instructions; the links take longer), assert()
# off.  The sanitizer build (`make sanitize`) and `make debug` keep assert()
# on, and do without -flto.  ar's plugin (/usr/lib/bfd-plugins) indexes
# the LTO objects of the archives.
# The user's build is also profile-guided when the compiler is GCC (PGO
# below); a build given its own CFLAGS is not, unless asked with PGO=yes.
ifeq ($(origin CFLAGS),undefined)
PGO_DEFAULT := $(if $(shell $(CC) -v 2>&1 | grep '^gcc version'),yes,no)
endif
CFLAGS  ?= -O2 -g -DNDEBUG -flto=auto
PGO     ?= $(or $(PGO_DEFAULT),no)
WARN    := -std=c11 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -Wall -Wextra \
           -Wshadow -Wwrite-strings -Wmissing-prototypes -Wstrict-prototypes \
           -Wno-unused-parameter -Wno-missing-field-initializers
# A warning stops the build of a developer or of CI (the goals that test),
# never a user's `make`: a newer compiler's new warning must not keep anyone
# from playing.  `make WERROR=` turns it off, `make WERROR=-Werror` on.
ifneq ($(filter check test unit scenarios sanitize debug fuzz,$(MAKECMDGOALS)),)
WERROR  ?= -Werror
endif
export WERROR
WARN    += $(WERROR)
# Each object depends on the headers it includes, as the compiler saw them.
DEPFLAGS = -MMD -MP
# The engine, the store and the game (libnomic-core.a: `nomic` and the
# benchmarks link it alone) need SQLite, GMP and, for an address's one
# form, GLib's Unicode case and libidn2; mail and HTTP (nomic-net) need the
# rest, which cost a process about 10 MiB before it does anything.
PKGS_CORE := glib-2.0 libidn2
PKGS    := $(PKGS_CORE) gmime-3.0 libcurl libmicrohttpd libxml-2.0
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS))
LIBS_CORE := -lsqlite3 -lgmp -lm $(shell pkg-config --libs $(PKGS_CORE))
LIBS    := -lsqlite3 -lgmp -lm $(shell pkg-config --libs $(PKGS))
BUILD   ?= build
LISTEN  ?= 127.0.0.1:8080

# The mail and HTTP parts, and the commands that use them (nomic.c runs
# them in nomic-net); src/cmd/elsewhere.c stands in for them in `nomic`.
SRC_NET := $(wildcard src/server*.c) src/mail_in.c src/mail_mbox.c src/game_postman.c
SRC_CLI := src/cli.c $(filter-out src/cmd/elsewhere.c,$(wildcard src/cmd/*.c))
SRC_CORE := $(filter-out src/nomic.c $(SRC_NET) $(SRC_CLI),$(wildcard src/*.c))
SRC_LIB := $(SRC_CORE) $(SRC_NET) $(SRC_CLI)
SRC_CMD := src/nomic.c
RULESETS := $(sort $(wildcard rulesets/*.nomic)) $(BUILD)/favor-draft.nomic $(BUILD)/suber.nomic \
            $(BUILD)/suber1982.nomic $(BUILD)/agora.nomic
SUGARS  := $(wildcard rulesets/*.sugar) $(BUILD)/favor-draft.sugar $(BUILD)/suber.sugar $(BUILD)/suber1982.sugar \
            $(BUILD)/agora.sugar

WEB     := $(sort $(wildcard web/*.html web/*.css web/*.js web/*.svg))

OBJ_CORE := $(SRC_CORE:src/%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/rulesets_gen.o
OBJ_NET := $(SRC_NET:src/%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/web_gen.o
OBJ_CLI := $(SRC_CLI:src/%.c=$(BUILD)/obj/%.o)
OBJ_LIB := $(OBJ_CORE) $(OBJ_NET) $(OBJ_CLI)
OBJ_CMD := $(SRC_CMD:src/%.c=$(BUILD)/obj/%.o)

.PHONY: all serve demo install uninstall test check debug unit webunit scenarios mail browser fuzz fuzz-smoke sanitize bench docs clean
all: $(BUILD)/nomic $(BUILD)/nomic-net

# Profile-guided optimisation (PGO=yes; docs/engine.md, "The build is
# profile-guided"): the core and the command line are first built
# instrumented in $(BUILD)/pgo, tools/pgo-train.sh plays games of the
# project's own with them (never a benchmark's stream), and every object is
# then compiled knowing which of its branches and calls those games took.
# The code and what it computes are the same; only the layout and the
# inlining change.  Any source changed means a new profile.
PGO_DIR := $(BUILD)/pgo
PGO_GEN := -fprofile-generate
ifeq ($(PGO),yes)
PGO_PROFILE := $(PGO_DIR)/profile
PGO_USE := -fprofile-use -fprofile-partial-training -Wno-missing-profile
endif
# the flags that compile object $(1) with the profile of its instrumented twin
PGO_LINK := $(if $(PGO_PROFILE),$(PGO_USE))
pgo_use = $(if $(PGO_PROFILE),$(PGO_USE) -dumpdir $(dir $(patsubst $(BUILD)/obj/%,$(PGO_DIR)/obj/%,$(1))))

$(BUILD)/obj/%.o: src/%.c $(PGO_PROFILE) | $(BUILD)/obj
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(DEPFLAGS) $(CFLAGS) $(call pgo_use,$@) $(PKG_CFLAGS) -Isrc -c $< -o $@

-include $(wildcard $(BUILD)/obj/*.d $(BUILD)/obj/cmd/*.d $(PGO_DIR)/obj/*.d $(PGO_DIR)/obj/cmd/*.d)

# nomic-net's main: the same table, every command run here (nomic.c).
$(BUILD)/obj/nomic-net.o: src/nomic.c | $(BUILD)/obj
	$(CC) $(WARN) $(DEPFLAGS) $(CFLAGS) $(PKG_CFLAGS) -Isrc -DNOMIC_NET -c $< -o $@

$(BUILD)/obj/rulesets_gen.o: $(BUILD)/rulesets_gen.c $(PGO_PROFILE) | $(BUILD)/obj
	$(CC) $(WARN) $(DEPFLAGS) $(CFLAGS) $(call pgo_use,$@) $(PKG_CFLAGS) -Isrc -c $< -o $@

$(BUILD)/obj/web_gen.o: $(BUILD)/web_gen.c | $(BUILD)/obj
	$(CC) $(WARN) $(DEPFLAGS) $(CFLAGS) $(PKG_CFLAGS) -Isrc -c $< -o $@

# The web page is compiled in too: `nomic serve` needs no files beside it.
$(BUILD)/web_gen.c: $(WEB) tools/embed-web.sh | $(BUILD)/obj
	sh tools/embed-web.sh $(WEB) > $@

# The shipped initial sets are compiled in, so `--ruleset favor` works from
# any directory.  Generated from rulesets/*.nomic, never edited by hand.
$(BUILD)/rulesets_gen.c: $(RULESETS) $(SUGARS) tools/embed.sh | $(BUILD)/obj
	sh tools/embed.sh $(RULESETS) > $@

# favor-draft is favor with the paper's first-draft rule 16 (the scam).
$(BUILD)/favor-draft.nomic: rulesets/favor.nomic tools/favor-draft.sed | $(BUILD)/obj
	sed -f tools/favor-draft.sed rulesets/favor.nomic > $@
	! cmp -s rulesets/favor.nomic $@

$(BUILD)/favor-draft.sugar: rulesets/favor.sugar | $(BUILD)/obj
	cp rulesets/favor.sugar $@

# Suber's two sets share their formal core (rulesets/suber/): each is its
# rule texts, the common formal rules and its variant's own.
$(BUILD)/suber.nomic: rulesets/suber/texts.nomic rulesets/suber/formal.nomic rulesets/suber/formal-revised.nomic | $(BUILD)/obj
	cat $^ > $@

$(BUILD)/suber1982.nomic: rulesets/suber/texts-1982.nomic rulesets/suber/formal.nomic rulesets/suber/formal-1982.nomic | $(BUILD)/obj
	cat $^ > $@

$(BUILD)/suber.sugar $(BUILD)/suber1982.sugar: rulesets/suber/suber.sugar | $(BUILD)/obj
	cp $< $@

# agora: the rules of the SLR as texts, and the formal procedures.
$(BUILD)/agora.nomic: rulesets/agora/texts.nomic rulesets/agora/formal.nomic | $(BUILD)/obj
	cat $^ > $@

$(BUILD)/agora.sugar: rulesets/agora/agora.sugar | $(BUILD)/obj
	cp $< $@

# The engine, the store and the game.
$(BUILD)/libnomic-core.a: $(OBJ_CORE)
	rm -f $@ && ar rcs $@ $^

# Everything: nomic-net and the tests link it.
$(BUILD)/libnomic.a: $(OBJ_LIB)
	rm -f $@ && ar rcs $@ $^

# `nomic`: the command line on the core alone; nomic-net: with mail and
# HTTP, for the commands that need them (nomic.c).
$(BUILD)/nomic: $(OBJ_CMD) $(OBJ_CLI) $(BUILD)/obj/cmd/elsewhere.o $(BUILD)/libnomic-core.a | $(BUILD)/nomic-net
	$(CC) $(CFLAGS) $(PGO_LINK) -o $@ $(OBJ_CMD) $(OBJ_CLI) $(BUILD)/obj/cmd/elsewhere.o $(BUILD)/libnomic-core.a $(LIBS_CORE)

$(BUILD)/nomic-net: $(BUILD)/obj/nomic-net.o $(OBJ_CLI) $(BUILD)/libnomic.a
	$(CC) $(CFLAGS) $(PGO_LINK) -o $@ $(BUILD)/obj/nomic-net.o $(OBJ_CLI) $(BUILD)/libnomic.a $(LIBS)

$(BUILD)/unit: tests/unit/*.c $(BUILD)/libnomic.a
	$(CC) $(WARN) $(CFLAGS) $(PKG_CFLAGS) -Isrc -o $@ tests/unit/*.c $(BUILD)/libnomic.a $(LIBS) -lcmocka

# The benchmarks: the core alone.
$(BUILD)/engine-city: bench/engine_city.c bench/city-favor.nomic $(BUILD)/libnomic-core.a
	$(CC) $(WARN) $(CFLAGS) $(PGO_LINK) $(PKG_CFLAGS) -Isrc -DCITY_SET=\"$(abspath bench/city-favor.nomic)\" -o $@ bench/engine_city.c $(BUILD)/libnomic-core.a $(LIBS_CORE)

$(BUILD)/scams-bench: bench/scams.c $(BUILD)/libnomic-core.a
	$(CC) $(WARN) $(CFLAGS) $(PGO_LINK) $(PKG_CFLAGS) -Isrc -o $@ bench/scams.c $(BUILD)/libnomic-core.a $(LIBS_CORE)

$(BUILD)/suber-random: bench/suber_random.c $(BUILD)/libnomic-core.a
	$(CC) $(WARN) $(CFLAGS) $(PGO_LINK) $(PKG_CFLAGS) -Isrc -o $@ bench/suber_random.c $(BUILD)/libnomic-core.a $(LIBS_CORE)

# eval()'s test driver: lines "TEXT I V" in, values out (tests/eval_property.py).
$(BUILD)/eval-check: tests/eval_check.c $(BUILD)/libnomic.a
	$(CC) $(WARN) $(CFLAGS) $(PKG_CFLAGS) -Isrc -o $@ tests/eval_check.c $(BUILD)/libnomic.a $(LIBS)

$(BUILD)/obj:
	mkdir -p $@

# The instrumented build and its training (PGO=yes).
PGO_OBJ_CORE := $(OBJ_CORE:$(BUILD)/obj/%=$(PGO_DIR)/obj/%)
PGO_OBJ_CMD := $(OBJ_CMD:$(BUILD)/obj/%=$(PGO_DIR)/obj/%) $(OBJ_CLI:$(BUILD)/obj/%=$(PGO_DIR)/obj/%) \
               $(PGO_DIR)/obj/cmd/elsewhere.o

$(PGO_DIR)/obj/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(DEPFLAGS) $(CFLAGS) $(PGO_GEN) $(PKG_CFLAGS) -Isrc -c $< -o $@

$(PGO_DIR)/obj/rulesets_gen.o: $(BUILD)/rulesets_gen.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(DEPFLAGS) $(CFLAGS) $(PGO_GEN) $(PKG_CFLAGS) -Isrc -c $< -o $@

$(PGO_DIR)/libnomic-core.a: $(PGO_OBJ_CORE)
	rm -f $@ && ar rcs $@ $^

$(PGO_DIR)/nomic: $(PGO_OBJ_CMD) $(PGO_DIR)/libnomic-core.a
	$(CC) $(CFLAGS) $(PGO_GEN) -o $@ $^ $(LIBS_CORE)

$(PGO_DIR)/engine-city: bench/engine_city.c bench/city-favor.nomic $(PGO_DIR)/libnomic-core.a
	$(CC) $(WARN) $(CFLAGS) $(PGO_GEN) $(PKG_CFLAGS) -Isrc -DCITY_SET=\"$(abspath bench/city-favor.nomic)\" -o $@ \
	  bench/engine_city.c $(PGO_DIR)/libnomic-core.a $(LIBS_CORE)

$(PGO_DIR)/suber-random: bench/suber_random.c $(PGO_DIR)/libnomic-core.a
	$(CC) $(WARN) $(CFLAGS) $(PGO_GEN) $(PKG_CFLAGS) -Isrc -o $@ bench/suber_random.c $(PGO_DIR)/libnomic-core.a $(LIBS_CORE)

$(PGO_DIR)/profile: $(PGO_DIR)/nomic $(PGO_DIR)/engine-city $(PGO_DIR)/suber-random tools/pgo-train.sh \
                    tools/demo.sh tests/data/city/moves_200_20.txt
	find $(PGO_DIR) -name '*.gcda' -delete
	sh tools/pgo-train.sh $(PGO_DIR)
	touch $@

unit: $(BUILD)/unit
	$(BUILD)/unit

# The page's pure logic (web/format.js, diff.js, proposals.js, scams.js, answer.js) and
# what it asks of the server, with node --test (tests/web/).
webunit: $(BUILD)/nomic
	NOMIC=$(abspath $(BUILD)/nomic) node --test tests/web/

# The inner loop: the unit tests, the golden scenarios and the command
# line's own suite, in well under a minute (tests/README.md).  The slowest
# unit group (deps: the skipping engine against the exhaustive one) runs
# on the second core beside the rest; its output follows theirs.
check: $(BUILD)/nomic $(BUILD)/unit webunit
	python3 tests/modules.py
	$(BUILD)/unit deps > $(BUILD)/unit-deps.log 2>&1 & deps=$$!; \
	  $(BUILD)/unit --except deps && NOMIC=$(abspath $(BUILD)/nomic) python3 tests/run_scenarios.py tests/scenarios && \
	  NOMIC=$(abspath $(BUILD)/nomic) sh tests/t10-cli.sh; rc=$$?; \
	  wait $$deps; drc=$$?; cat $(BUILD)/unit-deps.log; [ $$rc -eq 0 ] && [ $$drc -eq 0 ]

# The shell suites, found by their names as tests/README.md numbers them:
# every tests/tNN-*.sh but t70-mail.sh and t71-postfix.sh, which need a real
# MTA (make mail).  t44 runs the engine-city of this build, EC; the others
# ignore it.
SUITES := $(filter-out tests/t70-mail.sh tests/t71-postfix.sh,$(sort $(wildcard tests/t[0-9][0-9]-*.sh)))

scenarios: $(BUILD)/nomic $(BUILD)/suber-random $(BUILD)/eval-check $(BUILD)/engine-city
	NOMIC=$(abspath $(BUILD)/nomic) python3 tests/run_scenarios.py tests/scenarios
	python3 tests/eval_property.py --cases 20000 $(BUILD)/eval-check
	for t in $(SUITES); do \
	  echo "sh $$t"; NOMIC=$(abspath $(BUILD)/nomic) EC=$(abspath $(BUILD)/engine-city) sh $$t || exit 1; \
	done
	$(BUILD)/suber-random --variant suber --games 100 --quiet
	$(BUILD)/suber-random --variant suber1982 --games 20 --quiet

# Mail through a real MTA (OpenSMTPD, swaks, an aiosmtpd receiver; then
# Postfix), and the page in a real browser (Chromium driven by playwright-core).
mail: $(BUILD)/nomic
	NOMIC=$(abspath $(BUILD)/nomic) sh tests/t70-mail.sh
	NOMIC=$(abspath $(BUILD)/nomic) sh tests/t71-postfix.sh

browser: $(BUILD)/nomic
	sh tests/browser/run.sh $(abspath $(BUILD)/nomic)

# The libFuzzer targets (tests/fuzz), built with clang, ASan and UBSan into
# build/fuzz; tests/fuzz.sh builds them with this target and runs them.
FUZZ_TARGETS := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
fuzz:
	$(MAKE) BUILD=build/fuzz CC=clang PGO=no \
	  CFLAGS="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fsanitize=fuzzer-no-link" \
	  $(FUZZ_TARGETS:%=build/fuzz/fuzz_%)

$(BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(BUILD)/libnomic.a
	$(CC) $(WARN) $(CFLAGS) -fsanitize=fuzzer $(PKG_CFLAGS) -Isrc -o $@ $< $(BUILD)/libnomic.a $(LIBS)

fuzz-smoke:
	sh tests/fuzz.sh smoke

# The whole suite again, built with ASan and UBSan into build/san.
sanitize:
	$(MAKE) BUILD=build/san CC=clang PGO=no \
	  CFLAGS="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
	  unit scenarios

# A developer's build with assert() on and no optimisation, in build/debug.
debug:
	$(MAKE) BUILD=build/debug PGO=no CFLAGS="-O0 -g" all unit

test: all unit webunit scenarios mail browser fuzz-smoke sanitize
	@echo "all tests passed"

# The main job: a game served on SQLite, new the first time (tools/serve.sh).
serve: $(BUILD)/nomic
	NOMIC=$(BUILD)/nomic sh tools/serve.sh $(BUILD)/game.db $(LISTEN)

# Installed as Debian and systemd expect (tools/install.sh): PREFIX (by
# default /usr/local) and DESTDIR (a package's staging root).
PREFIX  ?= /usr/local
install: $(BUILD)/nomic $(BUILD)/nomic-net
	sh tools/install.sh $(BUILD)/nomic "$(DESTDIR)" "$(PREFIX)"

uninstall:
	rm -f "$(DESTDIR)$(PREFIX)/bin/nomic" "$(DESTDIR)$(PREFIX)/lib/nomic/nomic-net" \
	  "$(DESTDIR)$(PREFIX)/share/man/man1/nomic.1" "$(DESTDIR)$(PREFIX)/lib/systemd/system/nomic.service"
	rmdir "$(DESTDIR)$(PREFIX)/lib/nomic" 2>/dev/null || true

# A short game played through the command line, printed as it goes.
demo: $(BUILD)/nomic
	NOMIC=$(BUILD)/nomic sh tools/demo.sh $(BUILD)/demo.db

bench: $(BUILD)/engine-city $(BUILD)/nomic $(BUILD)/suber-random $(BUILD)/scams-bench
	sh bench/engine-city
	sh bench/replay
	sh bench/http
	sh bench/host
	sh bench/suber
	sh bench/scams

# The docs the tables make: the rule language's, the command line's and
# its man page (tests/t10-cli.sh checks they are up to date).
docs: $(BUILD)/nomic
	$(BUILD)/nomic help --markdown > docs/language.md
	$(BUILD)/nomic help --cli-markdown > docs/cli.md
	$(BUILD)/nomic help --man > docs/nomic.1

clean:
	rm -rf build
