# sample/sample.mk - pmeclock's part of the Makefile (included by it):
# the launcher's sources, the libpmeclock runtime (shared, preloaded by
# pmeclock; static, for pme_init/pme_exit), their install and clean.

sample/pmeclock_SRCS = sample/pmeclock.c sample/perf.c sample/collect.c \
    sample/unwind.c
# -e and -l: the events a run watches.
sample/pmeclock_SRCS += sample/events.c
# --count: the events counted, as perf stat.
sample/pmeclock_SRCS += sample/count.c
# The command, held before its exec; the clock readings.
sample/pmeclock_SRCS += sample/child.c
# -p: the perf method attached to a running process.
sample/pmeclock_SRCS += sample/attach.c
# The perf method's reader thread.
sample/pmeclock_SRCS += sample/reader.c
sample/pmeclock: LIBS += -pthread
# -w: the off-CPU intervals from the scheduler's switches.
sample/pmeclock_SRCS += sample/wall.c
# -e io: the I/O calls traced.
sample/pmeclock_SRCS += sample/io.c
# --start/--stop: the samples of the threads' windows.
sample/pmeclock_SRCS += sample/gate.c
# Breaks' uprobes made in tracefs, which new threads inherit.
sample/pmeclock_SRCS += sample/breaks.c
# The vDSO's image as a file, for its mappings.
sample/pmeclock_SRCS += sample/vdso.c

# elfutils' libdw unwinds -g's chains from the CFI when configure found it.
sample/unwind.o: PME_CPPFLAGS += $(DW_CPPFLAGS) $(UNW_CPPFLAGS)
sample/runtime.rt.o: PME_CPPFLAGS += $(UNW_CPPFLAGS)
sample/pmeclock: LIBS += $(DW_LIBS)

# Where make install puts the preload library; pmeclock looks next to
# itself first (the build tree), then here.
PMECLOCK_PRELOAD = $(libdir)/pme/libpmeclock.so
sample/pmeclock.o: PME_CPPFLAGS += \
	-DPMECLOCK_RUNTIME='"$(PMECLOCK_PRELOAD)"'

# The runtime is never sanitized: an ASan runtime cannot be preloaded
# into an uninstrumented program, which is what it is for.  It links
# sample.c, container.c and util.c of libpme (no libelf), compiled with
# hidden visibility: it exports only pme_* and the interposed functions.
RT_CFLAGS = $(STD_CFLAGS) $(WARN_CFLAGS) $(WERROR) \
	$(filter-out $(SANITIZE_FLAGS),$(CFLAGS)) \
	-fPIC -fvisibility=hidden -pthread
RT_LDFLAGS = $(filter-out $(SANITIZE_FLAGS),$(LDFLAGS))
RT_LIB_OBJS = sample/rt_sample.o sample/rt_container.o sample/rt_util.o
RT_CORE_OBJS = sample/runtime.rt.o $(RT_LIB_OBJS)
RT_SONAME = libpmeclock.so.0

sample/%.rt.o: sample/%.c config.mk
	$(CC) $(PME_CPPFLAGS) $(RT_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(RT_LIB_OBJS): sample/rt_%.o: lib/%.c config.mk
	$(CC) $(PME_CPPFLAGS) $(RT_CFLAGS) $(DEPFLAGS) -c -o $@ $<

# The heap recording (-e alloc) interposes the allocator: the shared
# library only.  Frame pointers for its own walk, unwind tables for a
# C++ new that throws through it.
sample/heap.rt.o: RT_CFLAGS += -fno-omit-frame-pointer -fexceptions
RT_SHARED_OBJS = sample/interpose.rt.o sample/heap.rt.o

sample/$(RT_SONAME): $(RT_CORE_OBJS) $(RT_SHARED_OBJS)
	$(CC) -shared -Wl,-soname,$(RT_SONAME) -Wl,--no-undefined \
	    $(RT_LDFLAGS) -o $@ $(RT_CORE_OBJS) $(RT_SHARED_OBJS) \
	    -lz -pthread -ldl

sample/libpmeclock.so: sample/$(RT_SONAME)
	ln -sf $(RT_SONAME) $@

# Without interpose.o: see libpmeclock(3) for threads.  One object whose
# only globals are the five entry points, so that a program may link
# libpme beside it without two copies of libpme's functions clashing.
RT_ENTRIES = pme_init pme_exit pme_sname pme_iname pme_oname
sample/libpmeclock.o: $(RT_CORE_OBJS)
	$(CC) -nostdlib -r -o $@.tmp $(RT_CORE_OBJS)
	objcopy $(addprefix -G ,$(RT_ENTRIES)) $@.tmp $@
	rm -f $@.tmp

sample/libpmeclock.a: sample/libpmeclock.o
	rm -f $@
	$(AR) rcs $@ sample/libpmeclock.o

PMECLOCK_LIBS = sample/$(RT_SONAME) sample/libpmeclock.so \
	sample/libpmeclock.a

install-pmeclock: $(PMECLOCK_LIBS)
	install -d $(DESTDIR)$(libdir)/pme $(DESTDIR)$(includedir)
	install -m 755 sample/$(RT_SONAME) $(DESTDIR)$(libdir)/
	ln -sf $(RT_SONAME) $(DESTDIR)$(libdir)/libpmeclock.so
	ln -sf ../$(RT_SONAME) $(DESTDIR)$(PMECLOCK_PRELOAD)
	install -m 644 sample/libpmeclock.a $(DESTDIR)$(libdir)/
	install -m 644 sample/pmeclock.h $(DESTDIR)$(includedir)/

uninstall-pmeclock:
	rm -f $(DESTDIR)$(libdir)/$(RT_SONAME) \
	    $(DESTDIR)$(libdir)/libpmeclock.so \
	    $(DESTDIR)$(libdir)/libpmeclock.a $(DESTDIR)$(PMECLOCK_PRELOAD) \
	    $(DESTDIR)$(includedir)/pmeclock.h
	-rmdir $(DESTDIR)$(libdir)/pme 2>/dev/null

clean-pmeclock:
	rm -f sample/*.so sample/*.so.*

EXTRA_ALL += $(PMECLOCK_LIBS)
EXTRA_INSTALL += install-pmeclock
EXTRA_UNINSTALL += uninstall-pmeclock
EXTRA_CLEAN += clean-pmeclock
ALL_OBJS += $(RT_CORE_OBJS) $(RT_SHARED_OBJS)

.PHONY: install-pmeclock uninstall-pmeclock clean-pmeclock
