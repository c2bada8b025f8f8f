# trace.mk - pmetrace's sources and the libpmetrace runtime, included by
# the Makefile.  The runtime (trace/runtime.c) is not part of pmetrace; it
# carries the few libpme modules it needs (bucket files: bucket, container,
# fill, util; not the ELF/DWARF readers) and pmetrace's tally, compiled again
# -fPIC and unsanitized, every symbol but its five entry points made
# local.

trace/pmetrace_SRCS = trace/pmetrace.c trace/tally.c \
	trace/callgrind.c trace/step.c

# The runtime is never sanitized: a sanitizer runtime cannot be loaded
# into the uninstrumented programs it is linked with or preloaded into.
# DWARF 4: the runtime runs under valgrind, whose 3.19 cannot read the
# DWARF 5 forms clang emits (strx1, addrx).
TRACE_RT_CFLAGS = $(STD_CFLAGS) $(WARN_CFLAGS) $(WERROR) \
	$(filter-out $(SANITIZE_FLAGS),$(CFLAGS)) -gdwarf-4 -fPIC -pthread
TRACE_RT_LIB_OBJS = trace/rt_bucket.o trace/rt_container.o trace/rt_fill.o \
	trace/rt_util.o
TRACE_RT_OBJS = trace/runtime.rt.o trace/tally.rt.o $(TRACE_RT_LIB_OBJS)
TRACE_RT_SYMS = pme_init pme_exit pme_iname pme_oname pme_sname
TRACE_SONAME = libpmetrace.so.0

ALL_OBJS += $(TRACE_RT_OBJS)

trace/%.rt.o: trace/%.c config.mk trace/trace.mk
	$(CC) $(PME_CPPFLAGS) $(TRACE_RT_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(TRACE_RT_LIB_OBJS): trace/rt_%.o: lib/%.c config.mk trace/trace.mk
	$(CC) $(PME_CPPFLAGS) $(TRACE_RT_CFLAGS) $(DEPFLAGS) -c -o $@ $<

# One relocatable object whose only global symbols are the entry points,
# so that a program may link libpme beside it.
trace/libpmetrace.o: $(TRACE_RT_OBJS)
	$(CC) -nostdlib -r -o $@.tmp $(TRACE_RT_OBJS)
	objcopy $(addprefix -G ,$(TRACE_RT_SYMS)) $@.tmp $@
	rm -f $@.tmp

trace/libpmetrace.a: trace/libpmetrace.o
	rm -f $@
	$(AR) rcs $@ trace/libpmetrace.o

trace/$(TRACE_SONAME): trace/libpmetrace.o
	$(CC) -shared -Wl,-soname,$(TRACE_SONAME) -Wl,--no-undefined \
	    $(filter-out $(SANITIZE_FLAGS),$(LDFLAGS)) -o $@ \
	    trace/libpmetrace.o -lz -pthread

trace/libpmetrace.so: trace/$(TRACE_SONAME)
	ln -sf $(TRACE_SONAME) $@

EXTRA_ALL += trace/libpmetrace.a trace/libpmetrace.so
EXTRA_INSTALL += install-trace
EXTRA_UNINSTALL += uninstall-trace
EXTRA_CLEAN += clean-trace

install-trace: trace/libpmetrace.a trace/libpmetrace.so
	install -d $(DESTDIR)$(libdir) $(DESTDIR)$(includedir)
	install -m 644 trace/libpmetrace.a $(DESTDIR)$(libdir)/
	install -m 755 trace/$(TRACE_SONAME) $(DESTDIR)$(libdir)/
	ln -sf $(TRACE_SONAME) $(DESTDIR)$(libdir)/libpmetrace.so
	install -m 644 trace/pmetrace.h $(DESTDIR)$(includedir)/

uninstall-trace:
	rm -f $(DESTDIR)$(libdir)/libpmetrace.a \
	    $(DESTDIR)$(libdir)/$(TRACE_SONAME) \
	    $(DESTDIR)$(libdir)/libpmetrace.so \
	    $(DESTDIR)$(includedir)/pmetrace.h

clean-trace:
	rm -f trace/*.rt.o trace/rt_*.o trace/libpmetrace.o trace/*.tmp \
	    trace/libpmetrace.a trace/libpmetrace.so trace/libpmetrace.so.*

.PHONY: install-trace uninstall-trace clean-trace
