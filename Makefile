# Makefile - pme's one, non-recursive Makefile.  configure writes config.mk.
#
# Objects are built next to their sources (build/ is pmebuild's source
# folder, not an output directory).  Adding a program is one line:
#     PROGRAMS += histo/pmehisto
# links histo/pmehisto from every histo/*.c and lib/libpme.a; set
# histo/pmehisto_SRCS to choose its sources instead.

include config.mk

# stats draws with libm (floor, sqrt).
LIBS += -lm

.SUFFIXES:
.DEFAULT_GOAL := all

FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang

PME_CFLAGS = $(STD_CFLAGS) $(WARN_CFLAGS) $(WERROR) $(CFLAGS)
PME_CPPFLAGS = -Ilib $(CPPFLAGS)
DEPFLAGS = -MMD -MP

# --- libpme ---------------------------------------------------------------

LIB_SRCS := $(wildcard lib/*.c)
LIB_OBJS := $(LIB_SRCS:.c=.o)
LIB_PICOBJS := $(LIB_SRCS:.c=.pic.o)
LIB_HEADERS = lib/pme.h lib/pme_symbols.h lib/pme_sample.h lib/pme_render.h \
    lib/pme_event.h
SONAME = libpme.so.0

lib/libpme.a: $(LIB_OBJS)
	rm -f $@
	$(AR) rcs $@ $(LIB_OBJS)

# Exports only the documented API that lib/libpme.map lists.
lib/$(SONAME): $(LIB_PICOBJS) lib/libpme.map
	$(CC) -shared -Wl,-soname,$(SONAME) \
	    -Wl,--version-script=lib/libpme.map $(LDFLAGS) -o $@ \
	    $(LIB_PICOBJS) $(LIBS)

lib/libpme.so: lib/$(SONAME)
	ln -sf $(SONAME) $@

# --- programs --------------------------------------------------------------

PROGRAMS = build/pmebuild sample/pmeclock histo/pmehisto trace/pmetrace \
    stats/stats histo/pmemerge

# pmemerge is one file of histo/ and the messages; pmehisto is the rest
# of the folder.
histo/pmemerge_SRCS = histo/pmemerge.c histo/warn.c
histo/pmehisto_SRCS = $(filter-out histo/pmemerge.c,$(wildcard histo/*.c))
# stats takes pmehisto's sample filters (stats -f run.pms --tid ...).
# and draws a -w run's states and a -e alloc run's heap as pmehisto -V
# states and -V heap count them (and wall.c's measures need io.c's bytes).
stats/stats_SRCS = $(wildcard stats/*.c) histo/filter.c histo/warn.c \
    histo/wall.c histo/heap.c histo/io.c
# The Caliper view disassembles with capstone when configure found it,
# loaded when first used (histo/cslazy.c), not linked.
histo/caliper.o histo/cslazy.o: PME_CPPFLAGS += $(CAPSTONE_CPPFLAGS)
histo/pmehisto: LIBS += $(if $(CAPSTONE_LIBS),-ldl)

# A folder may add rules of its own (runtime libraries, their install) in
# a fragment; it may append files to EXTRA_ALL (built by all) and target
# names to EXTRA_INSTALL, EXTRA_UNINSTALL and EXTRA_CLEAN (made by install,
# uninstall and clean).
-include trace/trace.mk
-include sample/sample.mk

# The modules of pmebuild other than its main, for the unit tests and the
# .PMD fuzz target.
BUILD_MODULES := $(filter-out build/pmebuild.c,$(wildcard build/*.c))

define PROGRAM_template
$(1)_SRCS ?= $$(wildcard $(dir $(1))*.c)
$(1)_OBJS := $$($(1)_SRCS:.c=.o)
ALL_OBJS += $$($(1)_OBJS)
ifneq ($$($(1)_SRCS),)
$(1): $$($(1)_OBJS) lib/libpme.a
	$$(CC) $$(LDFLAGS) -o $$@ $$($(1)_OBJS) lib/libpme.a $$(LIBS)
endif
endef
$(foreach p,$(PROGRAMS),$(eval $(call PROGRAM_template,$(p))))
# A program whose folder has no sources yet is left out.
BUILT_PROGRAMS = $(foreach p,$(PROGRAMS),$(if $($(p)_SRCS),$(p)))

# The modules of stats other than its main (the graph file language), for
# the unit tests and the graph file fuzz target.
STATS_MODULES := $(filter-out stats/stats.c,$(wildcard stats/*.c))
ALL_OBJS += $(STATS_MODULES:.c=.o)

# The modules of pmehisto and pmemerge other than their mains, for the
# unit tests.
HISTO_MODULES := $(filter-out histo/pmehisto.c histo/pmemerge.c,\
    $(wildcard histo/*.c))

# Archives of pmebuild's, stats' and pmehisto's modules; members are
# linked only when used.
TEST_LIBS = $(if $(BUILD_MODULES),build/libpmebuild.a) \
	$(if $(STATS_MODULES),stats/libstats.a) \
	$(if $(HISTO_MODULES),histo/libhisto.a) lib/libpme.a

build/libpmebuild.a: $(BUILD_MODULES:.c=.o)
	rm -f $@
	$(AR) rcs $@ $(BUILD_MODULES:.c=.o)

stats/libstats.a: $(STATS_MODULES:.c=.o)
	rm -f $@
	$(AR) rcs $@ $(STATS_MODULES:.c=.o)

histo/libhisto.a: $(HISTO_MODULES:.c=.o)
	rm -f $@
	$(AR) rcs $@ $(HISTO_MODULES:.c=.o)

# The Graphfile stats ships, compiled in: stats uses it when the current
# directory has none (it is installed too, for copying).
stats/defgraph.h: stats/Graphfile
	{ echo 'static const char default_graphfile[] ='; \
	  sed 's/\\/\\\\/g; s/"/\\"/g; s/^/	"/; s/$$/\\n"/' stats/Graphfile; \
	  echo ';'; } >$@.tmp && mv $@.tmp $@
stats/stats.o: stats/defgraph.h

# --- compiling -------------------------------------------------------------

ALL_OBJS += $(LIB_OBJS) $(LIB_PICOBJS)

%.o: %.c config.mk
	$(CC) $(PME_CPPFLAGS) $(PME_CFLAGS) $(DEPFLAGS) -c -o $@ $<

%.pic.o: %.c config.mk
	$(CC) $(PME_CPPFLAGS) $(PME_CFLAGS) -fPIC $(DEPFLAGS) -c -o $@ $<

# --- unit tests -------------------------------------------------------------

UNIT_SRCS := $(wildcard tests/unit/t_*.c)
UNIT_TESTS := $(UNIT_SRCS:.c=)

tests/unit/t_%: tests/unit/t_%.c $(TEST_LIBS) config.mk
	$(CC) $(PME_CPPFLAGS) -Ibuild -Istats -Ihisto $(PME_CFLAGS) $(DEPFLAGS) \
	    $(LDFLAGS) -o $@ $< $(TEST_LIBS) $(LIBS)

# --- main targets -----------------------------------------------------------

all: lib/libpme.a lib/libpme.so $(BUILT_PROGRAMS) $(UNIT_TESTS) $(EXTRA_ALL)

check: all
	@PME_VALGRIND='$(PME_VALGRIND)' MANDOC='$(MANDOC)' tests/run

MAN_PAGES := $(wildcard man/*.[0-9])

# mandoc prints nothing for a clean page; any output is a failure.
lint-man:
	@if [ -z '$(MAN_PAGES)' ]; then echo 'lint-man: no man pages'; exit 0; fi; \
	out=$$($(or $(MANDOC),mandoc) -T lint -W warning $(MAN_PAGES) 2>&1); \
	if [ -n "$$out" ]; then printf '%s\n' "$$out"; exit 1; fi

# --- demo -------------------------------------------------------------------
# Compiles the bundled example with debug information and runs pmebuild on
# it from its own directory, so the .PMD's EXE "demo" names it.

DEMO_DIR = tests/out/demo
DEMO_SRCS := $(wildcard tests/fixtures/demo/*.c)

$(DEMO_DIR)/demo: $(DEMO_SRCS) tests/fixtures/demo/demo.h
	@mkdir -p $(DEMO_DIR)
	$(CC) -std=c11 -g -O2 -o $@ $(DEMO_SRCS)

# The main job: the whole clock pipeline on the demo program.  pmebuild
# makes PMEFILE.PME from demo.pmd, pmeclock samples a run into PMEFILE.PMS
# (at 1 kHz: the run is short), pmehisto fills the buckets and prints the
# histogram (also kept as PMEFILE.HIS).
demo: build/pmebuild sample/pmeclock histo/pmehisto $(DEMO_DIR)/demo
	cp tests/fixtures/demo/demo.pmd $(DEMO_DIR)/demo.pmd
	cd $(DEMO_DIR) && ../../../build/pmebuild demo.pmd
	cd $(DEMO_DIR) && ../../../sample/pmeclock -F 1000 -- ./demo
	cd $(DEMO_DIR) && ../../../histo/pmehisto -T text </dev/null

# --- fuzzing ----------------------------------------------------------------
# The library and pmebuild's modules are compiled again with clang and the
# sanitizers into tests/out/fuzz; each fuzzer then runs FUZZ_SECONDS.

FUZZ_DIR = tests/out/fuzz
FUZZ_FLAGS = -std=c11 -D_GNU_SOURCE $(WARN_CFLAGS) -g -O1 -fno-omit-frame-pointer \
	-fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_LIB_OBJS := $(patsubst %.c,$(FUZZ_DIR)/%.o,$(LIB_SRCS))
FUZZ_BUILD_OBJS := $(patsubst %.c,$(FUZZ_DIR)/%.o,$(BUILD_MODULES))
FUZZ_STATS_OBJS := $(patsubst %.c,$(FUZZ_DIR)/%.o,$(STATS_MODULES) \
	histo/filter.c histo/warn.c histo/wall.c histo/heap.c histo/io.c)
# pmetrace's tally and engine readers, for fuzz_cgout, fuzz_pvout and
# fuzz_maps (lib/maps.c's reader, and the step engine's use of it on
# x86-64).
FUZZ_TRACE_OBJS := $(patsubst %.c,$(FUZZ_DIR)/%.o,trace/tally.c \
	trace/callgrind.c trace/pmevg.c trace/step.c)
FUZZERS = tests/fuzz/fuzz_bucket tests/fuzz/fuzz_sample tests/fuzz/fuzz_event \
	tests/fuzz/fuzz_map tests/fuzz/fuzz_elf tests/fuzz/fuzz_pager \
	tests/fuzz/fuzz_bucket_rt tests/fuzz/fuzz_sample_rt \
	tests/fuzz/fuzz_event_rt \
	$(if $(BUILD_MODULES),tests/fuzz/fuzz_pmd) \
	$(if $(STATS_MODULES),tests/fuzz/fuzz_gfile tests/fuzz/fuzz_term) \
	tests/fuzz/fuzz_cgout tests/fuzz/fuzz_pvout \
	tests/fuzz/fuzz_maps

$(FUZZ_DIR)/%.o: %.c config.mk
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(PME_CPPFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link \
	    $(DEPFLAGS) -c -o $@ $<

tests/fuzz/fuzz_bucket: tests/fuzz/fuzz_bucket.c $(FUZZ_LIB_OBJS)
	$(FUZZ_CC) $(PME_CPPFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ \
	    $< $(FUZZ_LIB_OBJS) $(LIBS)

tests/fuzz/fuzz_sample: tests/fuzz/fuzz_sample.c $(FUZZ_LIB_OBJS)
	$(FUZZ_CC) $(PME_CPPFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ \
	    $< $(FUZZ_LIB_OBJS) $(LIBS)

tests/fuzz/fuzz_event: tests/fuzz/fuzz_event.c $(FUZZ_LIB_OBJS)
	$(FUZZ_CC) $(PME_CPPFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ \
	    $< $(FUZZ_LIB_OBJS) $(LIBS)

tests/fuzz/fuzz_map tests/fuzz/fuzz_elf tests/fuzz/fuzz_pager \
    tests/fuzz/fuzz_bucket_rt tests/fuzz/fuzz_sample_rt \
    tests/fuzz/fuzz_event_rt: \
    tests/fuzz/%: tests/fuzz/%.c $(FUZZ_LIB_OBJS)
	$(FUZZ_CC) $(PME_CPPFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ \
	    $< $(FUZZ_LIB_OBJS) $(LIBS)

tests/fuzz/fuzz_pmd: tests/fuzz/fuzz_pmd.c $(FUZZ_BUILD_OBJS) $(FUZZ_LIB_OBJS)
	$(FUZZ_CC) $(PME_CPPFLAGS) -Ibuild $(FUZZ_FLAGS) -fsanitize=fuzzer \
	    -o $@ $< $(FUZZ_BUILD_OBJS) $(FUZZ_LIB_OBJS) $(LIBS)

tests/fuzz/fuzz_gfile tests/fuzz/fuzz_term: \
    tests/fuzz/%: tests/fuzz/%.c $(FUZZ_STATS_OBJS) $(FUZZ_LIB_OBJS)
	$(FUZZ_CC) $(PME_CPPFLAGS) -Istats $(FUZZ_FLAGS) -fsanitize=fuzzer \
	    -o $@ $< $(FUZZ_STATS_OBJS) $(FUZZ_LIB_OBJS) $(LIBS)

tests/fuzz/fuzz_cgout tests/fuzz/fuzz_pvout tests/fuzz/fuzz_maps: \
    tests/fuzz/%: tests/fuzz/%.c tests/fuzz/tally.h $(FUZZ_TRACE_OBJS) \
    $(FUZZ_LIB_OBJS)
	$(FUZZ_CC) $(PME_CPPFLAGS) -Itrace $(FUZZ_FLAGS) -fsanitize=fuzzer \
	    -o $@ $< $(FUZZ_TRACE_OBJS) $(FUZZ_LIB_OBJS) $(LIBS)

# Seeds: the golden .PMD files for fuzz_pmd; for fuzz_bucket, the bucket
# files pmebuild makes from them (when it is built) and any the tests left;
# for fuzz_sample, the sample files t_sample writes from pmehisto's golden
# sample texts and runs of pmeclock: clock samples with call chains, I/O
# calls (-e io) and the heap fixture's allocations (-e alloc, HEA2
# chunks; tests/sh/lib/heap.sh's heap_fixture builds it); for fuzz_gfile,
# stats' Graphfile and the bad graph files;
# for fuzz_event and fuzz_event_rt, the event files of stats' test
# programs (sim.c: types, metrics, parameters, names; psevents.c: states
# and a histometric).
fuzz-corpus:
	@mkdir -p $(FUZZ_DIR)/corpus_pmd $(FUZZ_DIR)/corpus_bucket \
	    $(FUZZ_DIR)/corpus_sample $(FUZZ_DIR)/corpus_gfile \
	    $(FUZZ_DIR)/corpus_event
	@if $(CC) -std=c11 -D_GNU_SOURCE -Ilib -o $(FUZZ_DIR)/sim \
	    tests/fixtures/stats/sim.c lib/libpme.a $(LIBS) -lpthread \
	    2>/dev/null; then cd $(FUZZ_DIR)/corpus_event && \
	    ../sim 30 && mv events.sim sim30.sim && ../sim tiny && \
	    mv events.sim tiny.sim; rm -f GraphfileTemp; fi; true
	@$(CC) -std=c11 -D_GNU_SOURCE -Ilib -o $(FUZZ_DIR)/psevents \
	    tests/fixtures/stats/psevents.c lib/libpme.a $(LIBS) -lpthread \
	    2>/dev/null && $(FUZZ_DIR)/psevents small \
	    $(FUZZ_DIR)/corpus_event/ps.sim; true
	@for f in stats/Graphfile tests/stats/*.graph tests/stats/bad/*.graph; do \
	    [ -f "$$f" ] && cp "$$f" $(FUZZ_DIR)/corpus_gfile/; done; true
	@for f in tests/histo/*.smp; do \
	    [ -f "$$f" ] && [ -x tests/unit/t_sample ] || continue; \
	    tests/unit/t_sample write \
	        $(FUZZ_DIR)/corpus_sample/$$(basename "$$f" .smp).pms <"$$f" \
	        >/dev/null 2>&1; done; true
	@for f in tests/golden/*.pmd tests/fuzz/corpus_pmd/*; do \
	    [ -f "$$f" ] && cp "$$f" $(FUZZ_DIR)/corpus_pmd/; done; true
	@for f in tests/golden/*.pmd; do \
	    [ -f "$$f" ] && [ -x build/pmebuild ] || continue; \
	    b=$$(basename "$$f" .pmd); \
	    (cd tests/golden && ../../build/pmebuild -q \
	        -o ../../$(FUZZ_DIR)/corpus_bucket/$$b.pme $$b.pmd) \
	        >/dev/null 2>&1 </dev/null; done; true
	@for f in tests/fuzz/corpus_bucket/* $(DEMO_DIR)/*.pme; do \
	    [ -f "$$f" ] && cp "$$f" $(FUZZ_DIR)/corpus_bucket/; done; true
	@[ -x build/pmebuild ] && build/pmebuild -q -x build/pmebuild -b line \
	    -o $(FUZZ_DIR)/corpus_bucket/lines.pme >/dev/null 2>&1 \
	    </dev/null; true
	@mkdir -p $(FUZZ_DIR)/corpus_bucket_rt $(FUZZ_DIR)/corpus_map \
	    $(FUZZ_DIR)/corpus_elf
	@cp $(FUZZ_DIR)/corpus_bucket/* $(FUZZ_DIR)/corpus_bucket_rt/; true
	@[ -x sample/pmeclock ] && \
	    sample/pmeclock -q -g -F 2000 \
	    -o $(FUZZ_DIR)/corpus_sample/chunks.pms -- sh -c \
	    'i=0; while [ $$i -lt 300000 ]; do i=$$((i + 1)); done' \
	    >/dev/null 2>&1 </dev/null; true
	@[ -x sample/pmeclock ] && \
	    sample/pmeclock -q -e io -o $(FUZZ_DIR)/corpus_sample/io.pms -- \
	    sh -c 'echo x >/dev/null' >/dev/null 2>&1 </dev/null; true
	@[ -x sample/pmeclock ] && \
	    sample/pmeclock -q -w -o $(FUZZ_DIR)/corpus_sample/wall.pms -- \
	    sh -c 'sleep 0.01; echo x | cat >/dev/null' >/dev/null 2>&1 \
	    </dev/null; true
	@[ -x sample/pmeclock ] && (cd $(FUZZ_DIR) && PME_TOP=$(CURDIR) \
	    TMPDIR=$$PWD bash -c '. "$$PME_TOP/tests/sh/lib/common.sh" && \
	    . "$$PME_TOP/tests/sh/lib/heap.sh" && heap_fixture && \
	    "$$PME_TOP/sample/pmeclock" -q -e alloc -o corpus_sample/heap.pms \
	    ./heapfix') >/dev/null 2>&1 </dev/null; true
	@mkdir -p $(FUZZ_DIR)/corpus_sample_rt $(FUZZ_DIR)/corpus_event_rt
	@cp $(FUZZ_DIR)/corpus_sample/* $(FUZZ_DIR)/corpus_sample_rt/; true
	@cp $(FUZZ_DIR)/corpus_event/* $(FUZZ_DIR)/corpus_event_rt/; true
	@cp tests/histo/prog.map $(FUZZ_DIR)/corpus_map/; \
	    printf 'int twice(int x) { return 2 * x; }\nint main(int c, char **v) { (void)v; return twice(c); }\n' \
	    >$(FUZZ_DIR)/seed.c && \
	    $(CC) -g -O1 -Wl,-Map,$(FUZZ_DIR)/corpus_map/seed.map \
	    -o $(FUZZ_DIR)/corpus_elf/seed-O1 $(FUZZ_DIR)/seed.c && \
	    $(CC) -g -gdwarf-4 -O2 -o $(FUZZ_DIR)/corpus_elf/seed-dwarf4 \
	    $(FUZZ_DIR)/seed.c && \
	    $(CC) -O2 -s -o $(FUZZ_DIR)/corpus_elf/seed-stripped \
	    $(FUZZ_DIR)/seed.c; true

fuzz: $(FUZZERS) fuzz-corpus
	tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_DIR) $(FUZZERS)

# --- installing -------------------------------------------------------------

MAN1 := $(wildcard man/*.1)
MAN3 := $(wildcard man/*.3)
MAN5 := $(wildcard man/*.5)
MAN7 := $(wildcard man/*.7)

install: all $(EXTRA_INSTALL)
	install -d $(DESTDIR)$(bindir) $(DESTDIR)$(libdir)/pkgconfig \
	    $(DESTDIR)$(includedir) $(DESTDIR)$(mandir)/man1 \
	    $(DESTDIR)$(mandir)/man3 $(DESTDIR)$(mandir)/man5 \
	    $(DESTDIR)$(mandir)/man7
	$(if $(BUILT_PROGRAMS),install -m 755 $(BUILT_PROGRAMS) $(DESTDIR)$(bindir)/)
	install -m 644 lib/libpme.a $(DESTDIR)$(libdir)/
	install -m 755 lib/$(SONAME) $(DESTDIR)$(libdir)/
	ln -sf $(SONAME) $(DESTDIR)$(libdir)/libpme.so
	install -m 644 $(LIB_HEADERS) $(DESTDIR)$(includedir)/
	sed -e 's|@prefix@|$(PREFIX)|g' -e 's|@libdir@|$(libdir)|g' \
	    -e 's|@includedir@|$(includedir)|g' -e 's|@VERSION@|$(VERSION)|g' \
	    -e 's|@LIBS@|$(strip $(LIBS))|g' \
	    libpme.pc.in >$(DESTDIR)$(libdir)/pkgconfig/libpme.pc
	$(if $(MAN1),install -m 644 $(MAN1) $(DESTDIR)$(mandir)/man1/)
	$(if $(MAN3),install -m 644 $(MAN3) $(DESTDIR)$(mandir)/man3/)
	$(if $(MAN5),install -m 644 $(MAN5) $(DESTDIR)$(mandir)/man5/)
	$(if $(MAN7),install -m 644 $(MAN7) $(DESTDIR)$(mandir)/man7/)

uninstall: $(EXTRA_UNINSTALL)
	rm -f $(addprefix $(DESTDIR)$(bindir)/,$(notdir $(PROGRAMS)))
	rm -f $(DESTDIR)$(libdir)/libpme.a $(DESTDIR)$(libdir)/$(SONAME) \
	    $(DESTDIR)$(libdir)/libpme.so \
	    $(DESTDIR)$(libdir)/pkgconfig/libpme.pc
	rm -f $(addprefix $(DESTDIR)$(includedir)/,$(notdir $(LIB_HEADERS)))
	rm -f $(addprefix $(DESTDIR)$(mandir)/man1/,$(notdir $(MAN1))) \
	    $(addprefix $(DESTDIR)$(mandir)/man3/,$(notdir $(MAN3))) \
	    $(addprefix $(DESTDIR)$(mandir)/man5/,$(notdir $(MAN5))) \
	    $(addprefix $(DESTDIR)$(mandir)/man7/,$(notdir $(MAN7)))

# --- cleaning ---------------------------------------------------------------

SRC_DIRS = lib build sample trace histo stats tests/unit tests/fuzz

clean: $(EXTRA_CLEAN)
	rm -f $(foreach d,$(SRC_DIRS),$(d)/*.o $(d)/*.d $(d)/*.a)
	rm -f lib/libpme.so lib/libpme.so.*
	rm -f $(PROGRAMS) $(UNIT_TESTS) \
	    $(filter-out %.c %.h %.dict,$(wildcard tests/fuzz/fuzz_*))
	rm -f stats/defgraph.h
	rm -rf tests/out

distclean: clean
	rm -f config.mk config.log config.status config.args
	rm -rf autom4te.cache

# Reconfigure when configure is newer than what it made.
config.mk: config.mk.in configure
	@if [ -f config.status ]; then ./config.status --recheck && ./config.status; \
	else echo 'run ./configure (or ./build.sh) first'; exit 1; fi

configure: configure.ac
	autoconf

.PHONY: all check lint-man demo fuzz fuzz-corpus install uninstall clean \
	distclean

-include $(ALL_OBJS:.o=.d) $(UNIT_TESTS:=.d) $(FUZZ_LIB_OBJS:.o=.d) \
	$(FUZZ_BUILD_OBJS:.o=.d) $(FUZZ_STATS_OBJS:.o=.d) $(FUZZ_TRACE_OBJS:.o=.d)
