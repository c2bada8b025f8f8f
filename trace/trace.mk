# trace.mk - pmetrace's sources and the libpmetrace runtime, included by
# the Makefile.  The runtime (trace/runtime.c) is not part of pmetrace; it
# carries the few libpme modules it needs (bucket files: bucket, container,
# fill, util; not the ELF/DWARF readers) and pmetrace's tally, compiled again
# -fPIC and unsanitized, every symbol but its five entry points made
# local.

trace/pmetrace_SRCS = trace/pmetrace.c trace/tally.c \
	trace/callgrind.c trace/pmevg.c trace/step.c trace/qemu.c \
	trace/startstop.c

# pme's own valgrind tool (the pmevg engine), built where valgrind's
# headers and static libraries for tools are (Debian's valgrind package
# has them).  A tool is a static executable at valgrind's load address,
# with no C library: it links valgrind's core (libcoregrind, libvex) as
# valgrind's own tools are linked.  Its folder is VALGRIND_LIB for the
# run, so it holds a link to the system's preload of valgrind's core.
VG_INCDIR = /usr/include/valgrind
VG_LIBDIR = $(firstword $(wildcard /usr/lib/x86_64-linux-gnu/valgrind \
	/usr/lib64/valgrind /usr/lib/valgrind /usr/local/lib/valgrind))
VG_PRELOAD = $(firstword $(wildcard \
	/usr/libexec/valgrind/vgpreload_core-amd64-linux.so \
	$(VG_LIBDIR)/vgpreload_core-amd64-linux.so))
PMEVG_LIBDIR = $(libdir)/pme
trace/pmevg.o: PME_CPPFLAGS += -DPMEVG_LIBDIR='"$(PMEVG_LIBDIR)"'
ifneq ($(and $(wildcard $(VG_INCDIR)/pub_tool_basics.h),$(VG_PRELOAD),\
	$(wildcard $(VG_LIBDIR)/libcoregrind-amd64-linux.a)),)
ifeq ($(shell uname -m),x86_64)
PMEVG_TOOL = trace/vgtool/pmevg-amd64-linux
endif
endif
# The tool is never sanitized (it has no C library to report with); DWARF
# 4, which valgrind reads in its own tool too (see TRACE_RT_CFLAGS).
PMEVG_CFLAGS = -std=gnu99 -O2 -g -gdwarf-4 $(WARN_CFLAGS) -Wno-unused-parameter \
	$(WERROR) -fno-strict-aliasing -fno-builtin -fno-stack-protector \
	-fno-pie -fno-pic -I$(VG_INCDIR) -DVGA_amd64=1 -DVGO_linux=1 \
	-DVGP_amd64_linux=1 -DVGPV_amd64_linux_vanilla=1

trace/vgtool/pmevg.o: trace/vgtool/pmevg.c trace/x86sp.h trace/trace.mk
	$(CC) $(PMEVG_CFLAGS) -c -o $@ $<

trace/vgtool/pmevg-amd64-linux: trace/vgtool/pmevg.o
	$(CC) -o $@ trace/vgtool/pmevg.o -static -nodefaultlibs -nostartfiles \
	    -u _start -Wl,--build-id=none -Wl,-Ttext-segment=0x58000000 \
	    $(VG_LIBDIR)/libcoregrind-amd64-linux.a \
	    $(VG_LIBDIR)/libvex-amd64-linux.a \
	    $(VG_LIBDIR)/libgcc-sup-amd64-linux.a -lgcc
	ln -sf $(VG_PRELOAD) trace/vgtool/vgpreload_core-amd64-linux.so

# pme's TCG plugin for QEMU's user-mode emulator (the qemu engine): it
# needs only its own header of QEMU's plugin interface (qplugin.h), so it
# is built on every x86-64 machine; never sanitized (it is loaded into
# QEMU, which is not).
ifeq ($(shell uname -m),x86_64)
PMEQEMU_PLUGIN = trace/qemu/pmeqemu.so
endif
trace/qemu.o: PME_CPPFLAGS += -DPMEVG_LIBDIR='"$(PMEVG_LIBDIR)"'

trace/qemu/pmeqemu.so: trace/qemu/pmeqemu.c trace/qemu/qplugin.h \
	    trace/qemu/qmark.h trace/x86sp.h \
	    config.mk trace/trace.mk
	$(CC) $(STD_CFLAGS) $(WARN_CFLAGS) $(WERROR) \
	    $(filter-out $(SANITIZE_FLAGS),$(CFLAGS)) -fPIC -shared \
	    -fvisibility=hidden -pthread -o $@ trace/qemu/pmeqemu.c

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

EXTRA_ALL += trace/libpmetrace.a trace/libpmetrace.so $(PMEVG_TOOL) \
	$(PMEQEMU_PLUGIN)
EXTRA_INSTALL += install-trace
EXTRA_UNINSTALL += uninstall-trace
EXTRA_CLEAN += clean-trace

install-trace: trace/libpmetrace.a trace/libpmetrace.so $(PMEVG_TOOL) \
	    $(PMEQEMU_PLUGIN)
	install -d $(DESTDIR)$(libdir) $(DESTDIR)$(includedir)
	if [ -n "$(PMEQEMU_PLUGIN)" ]; then \
	    install -d $(DESTDIR)$(PMEVG_LIBDIR) && \
	    install -m 644 $(PMEQEMU_PLUGIN) $(DESTDIR)$(PMEVG_LIBDIR)/; fi
	if [ -n "$(PMEVG_TOOL)" ]; then \
	    install -d $(DESTDIR)$(PMEVG_LIBDIR) && \
	    install -m 755 $(PMEVG_TOOL) $(DESTDIR)$(PMEVG_LIBDIR)/ && \
	    ln -sf $(VG_PRELOAD) \
	    $(DESTDIR)$(PMEVG_LIBDIR)/vgpreload_core-amd64-linux.so; fi
	install -m 644 trace/libpmetrace.a $(DESTDIR)$(libdir)/
	install -m 755 trace/$(TRACE_SONAME) $(DESTDIR)$(libdir)/
	ln -sf $(TRACE_SONAME) $(DESTDIR)$(libdir)/libpmetrace.so
	install -m 644 trace/pmetrace.h $(DESTDIR)$(includedir)/

uninstall-trace:
	rm -f $(DESTDIR)$(libdir)/libpmetrace.a \
	    $(DESTDIR)$(libdir)/$(TRACE_SONAME) \
	    $(DESTDIR)$(libdir)/libpmetrace.so \
	    $(DESTDIR)$(includedir)/pmetrace.h
	rm -f $(DESTDIR)$(PMEVG_LIBDIR)/pmevg-amd64-linux \
	    $(DESTDIR)$(PMEVG_LIBDIR)/pmeqemu.so \
	    $(DESTDIR)$(PMEVG_LIBDIR)/vgpreload_core-amd64-linux.so

clean-trace:
	rm -f trace/*.rt.o trace/rt_*.o trace/libpmetrace.o trace/*.tmp \
	    trace/libpmetrace.a trace/libpmetrace.so trace/libpmetrace.so.* \
	    trace/vgtool/pmevg.o trace/vgtool/pmevg-amd64-linux \
	    trace/vgtool/vgpreload_core-amd64-linux.so trace/qemu/pmeqemu.so

.PHONY: install-trace uninstall-trace clean-trace
