/*
 * pmevg.c - pme's own valgrind tool: counts every instruction the
 * program executes, exactly, per guest address, and writes the counts
 * for pmetrace(1)'s pmevg engine (trace/pmevg.c) to tally.  Built as
 * pmevg-amd64-linux, a static executable linked with valgrind's core
 * (libcoregrind, libvex); it uses no C library, only the core's.
 *
 * Counting.  A superblock (valgrind's unit of translation: one entry,
 * several exits) gets one 64-bit counter for its entries and one per
 * side exit, which adds the exit's guard (0 or 1) when the exit is
 * reached.  An instruction ran as often as its superblock was entered
 * less the times an exit before it was taken.  Each counter is a load,
 * an add and a store of the translated code: no helper is called.  The
 * counts are worked out only when written.  Valgrind runs one thread at
 * a time, so plain additions are exact with threads.  An instruction is
 * counted as valgrind's callgrind counts it: once per IMark, so a string
 * instruction with a rep prefix once per pass.  Superblocks are not
 * chased across branches (see pv_post_clo_init), so that every
 * instruction of a superblock before its first exit taken ran.
 *
 * Addresses.  Each instruction is kept with the file mapping that held
 * it when it was translated (start, end, file offset, path), so that
 * pmetrace turns its run-time address into its object's link-time
 * address through the object's program headers, PLT stubs, .init and
 * .fini included, and a mapping replaced later changes nothing.  Code
 * in no file (the vdso, generated code) is written with no mapping.
 *
 * Output.  --pmevg-dir=DIR: every dump is a new file DIR/pv.PID.SEQ (the
 * first free SEQ), a text file:
 *	pmevg 1
 *	pid PID
 *	exe PATH			the process's executable
 *	trigger exit|exec|region|dump
 *	map INDEX START END OFFSET PATH	(hexadecimal numbers)
 *	ADDRESS INDEX|- COUNT		(hexadecimal; one per instruction
 *					 counted, an address may repeat)
 *	c ADDRESS INDEX|- COUNT		calls to the routine at ADDRESS
 *	j ADDRESS INDEX|- COUNT FROM	jumps to ADDRESS from code of the
 *					 mapping FROM (INDEX|-); the qemu
 *					 engine's plugin's only
 *	end TOTAL			the sum of the counts, last
 * A process dumps when it ends, before an execve (valgrind starts over
 * in the new image) and at the client requests of libpmetrace's region
 * (callgrind's: CALLGRIND_DUMP_STATS_AT writes a "region" dump,
 * CALLGRIND_ZERO_STATS zeroes).  Each dump zeroes the counters; a forked
 * child starts from zero, so every instruction is in one file.
 */
#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_vkiscnums.h"
#include "valgrind.h"
#include "callgrind.h"
#include "../x86sp.h"

#define NOMAP	0xffffffffU

/* A target an indirect call or jump of a superblock went to. */
struct tgt {
	struct tgt	*next;
	Addr		 addr;
	UInt		 map;
	Bool		 call;		/* taken as a call (is_call) */
	ULong		 n;
};

/* The counters of one translation of a superblock. */
struct sb {
	struct sb	*next;
	UInt		 nins, nexits;
	Bool		 call;		/* ends in a call to calladdr */
	Bool		 isjump;	/* ends in an indirect jump */
	Bool		 switched;	/* after a move into %rsp (x86sp.h) */
	Addr		 calladdr;
	UInt		 callmap;
	struct tgt	*tgts;		/* ends in an indirect call or jump */
	Addr		*xaddr;		/* [e]: exit e's target, when xcall */
	UInt		*xmap;
	Bool		*xcall;		/* [e]: exit e is taken as a call */
	ULong		*cnt;		/* [0] entries, [1 + e] exit e taken */
	UInt		*after;		/* [e]: instructions before exit e */
	Addr		*addr;		/* [nins]: run-time addresses */
	UInt		*map;		/* [nins]: mappings, or NOMAP */
};

/* A file mapping code was translated from. */
struct map {
	Addr		 start, end;
	ULong		 offset;
	HChar		*path;
};

static const HChar *outdir;
/* --pmevg-start, --pmevg-stop ("OFFSET:PATH", a routine's entry): the
 * superblock starting at either changes depth, the starts less the
 * stops, before it counts; every count is weighted by on (0 or 1: depth
 * above 0) when gated. */
static struct {
	ULong		 offset;
	const HChar	*path;
} marks[2];
static Bool gated;
static Long depth;
static ULong on = 1;
static struct sb *sbs;
/* The superblock entered last; at the end, the one a fault stopped in,
 * and the index of the instruction that faulted. */
static struct sb *cur_sb, *fault_sb;
static UInt fault_at;
static struct map *maps;
static UInt nmaps, capmaps, lastmap = NOMAP;

/* The output file being written, buffered. */
static struct {
	Int		 fd;
	Bool		 failed;
	UInt		 len;
	HChar		 buf[65536];
} out;

/* Mark i's "OFFSET:PATH" v. */
static Bool
read_mark(UInt i, const HChar *v)
{
	HChar *end;

	marks[i].offset = VG_(strtoull16)(v, &end);
	if (*end != ':')
		return False;
	marks[i].path = end + 1;
	if (i == 0) {
		gated = True;
		on = 0;
	}
	return True;
}

static Bool
pv_option(const HChar *arg)
{
	const HChar *v;

	if (VG_STR_CLO(arg, "--pmevg-dir", v)) {
		outdir = v;
		return True;
	}
	if (VG_STR_CLO(arg, "--pmevg-start", v))
		return read_mark(0, v);
	if (VG_STR_CLO(arg, "--pmevg-stop", v))
		return read_mark(1, v);
	return False;
}

static void
pv_usage(void)
{
	VG_(printf)("    --pmevg-dir=DIR           write the counts in DIR\n"
	    "    --pmevg-start=OFFSET:PATH count from the routine there\n"
	    "    --pmevg-stop=OFFSET:PATH  (while its entries exceed those of "
	    "--pmevg-stop's)\n");
}

static void
pv_debug_usage(void)
{
}

/* The mapping holding code at a, added when new. */
static UInt
map_of(Addr a)
{
	NSegment const *seg = VG_(am_find_nsegment)(a);
	const HChar *path;
	struct map *m;

	if (seg == NULL || seg->kind != SkFileC ||
	    (path = VG_(am_get_filename)(seg)) == NULL)
		return NOMAP;
	if (lastmap != NOMAP) {
		m = &maps[lastmap];
		if (m->start == seg->start && m->end == seg->end + 1 &&
		    m->offset == (ULong)seg->offset &&
		    VG_(strcmp)(m->path, path) == 0)
			return lastmap;
	}
	for (lastmap = 0; lastmap < nmaps; lastmap++) {
		m = &maps[lastmap];
		if (m->start == seg->start && m->end == seg->end + 1 &&
		    m->offset == (ULong)seg->offset &&
		    VG_(strcmp)(m->path, path) == 0)
			return lastmap;
	}
	if (nmaps == capmaps) {
		capmaps = capmaps ? capmaps * 2 : 64;
		maps = VG_(realloc)("pmevg.maps", maps,
		    capmaps * sizeof(*maps));
	}
	m = &maps[nmaps];
	m->start = seg->start;
	m->end = seg->end + 1;
	m->offset = (ULong)seg->offset;
	m->path = VG_(strdup)("pmevg.path", path);
	return lastmap = nmaps++;
}

/* An entry of --pmevg-start's routine (d 1) or --pmevg-stop's (-1). */
static VG_REGPARM(1) void
pv_toggle(HWord d)
{
	depth += d == 1 ? 1 : -1;	/* 1: start, 2: stop */
	on = depth > 0;
}

/* Whether code at a is --pmevg-start's routine's entry (1), --pmevg-
 * stop's (2) or neither (0). */
static UInt
mark_of(Addr a)
{
	UInt m = map_of(a), i;

	if (m == NOMAP)
		return 0;
	for (i = 0; i < 2; i++)
		if (marks[i].path != NULL && a - maps[m].start +
		    maps[m].offset == marks[i].offset &&
		    VG_(strcmp)(maps[m].path, marks[i].path) == 0)
			return i + 1;
	return 0;
}

/* Adds inc (an atom of type I64) to the counter at p. */
static void
add_count(IRSB *sb, ULong *p, IRExpr *inc)
{
	IRTemp old = newIRTemp(sb->tyenv, Ity_I64);
	IRTemp sum = newIRTemp(sb->tyenv, Ity_I64);

	addStmtToIRSB(sb, IRStmt_WrTmp(old, IRExpr_Load(Iend_LE, Ity_I64,
	    mkIRExpr_HWord((HWord)p))));
	addStmtToIRSB(sb, IRStmt_WrTmp(sum, IRExpr_Binop(Iop_Add64,
	    IRExpr_RdTmp(old), inc)));
	addStmtToIRSB(sb, IRStmt_Store(Iend_LE, mkIRExpr_HWord((HWord)p),
	    IRExpr_RdTmp(sum)));
}

/* The counters of a superblock of nins instructions and nexits exits. */
static struct sb *
new_sb(UInt nins, UInt nexits)
{
	struct sb *s = VG_(malloc)("pmevg.sb", sizeof(*s));

	s->nins = nins;
	s->nexits = nexits;
	s->cnt = VG_(calloc)("pmevg.cnt", 1 + nexits, sizeof(ULong));
	s->after = VG_(malloc)("pmevg.after", (nexits + 1) * sizeof(UInt));
	s->addr = VG_(malloc)("pmevg.addr", nins * sizeof(Addr));
	s->map = VG_(malloc)("pmevg.map", nins * sizeof(UInt));
	s->call = s->isjump = s->switched = False;
	s->tgts = NULL;
	s->xaddr = VG_(malloc)("pmevg.xaddr", (nexits + 1) * sizeof(Addr));
	s->xmap = VG_(malloc)("pmevg.xmap", (nexits + 1) * sizeof(UInt));
	s->xcall = VG_(calloc)("pmevg.xcall", nexits + 1, sizeof(Bool));
	s->next = sbs;
	sbs = s;
	return s;
}

/* Whether a is in a routine the debug information knows. */
static Bool
in_routine(Addr a)
{
	const HChar *name;

	return VG_(get_fnname)(VG_(current_DiEpoch)(), a, &name);
}

/* Whether a is the first instruction of a routine. */
static Bool
is_entry(Addr a)
{
	const HChar *name;

	return VG_(get_fnname_if_entry)(VG_(current_DiEpoch)(), a, &name);
}

/*
 * Whether a jump (not a call, not a return) from the superblock at from
 * to code at to is a call, as callgrind takes it: one to the first
 * instruction of a routine (a tail call), or into another object or
 * another kind of section (a PLT stub jumping to the routine it stands
 * for).  Objects and sections are valgrind's debug information's: code
 * outside .text (PLT stubs, .init, .fini) is in no object for it.
 */
static Bool
is_call(Addr from, Addr to)
{
	DiEpoch ep = VG_(current_DiEpoch)();

	if (is_entry(to))
		return True;
	if (VG_(DebugInfo_sect_kind)(NULL, from) !=
	    VG_(DebugInfo_sect_kind)(NULL, to))
		return True;
	return VG_(find_DebugInfo)(ep, from) != VG_(find_DebugInfo)(ep, to);
}

/* The indirect call or jump that ends superblock s went to target. */
static VG_REGPARM(2) void
pv_indirect(struct sb *s, Addr target)
{
	struct tgt *t, **pp;

	if (!on)
		return;
	for (pp = &s->tgts; (t = *pp) != NULL; pp = &t->next)
		if (t->addr == target) {
			t->n++;
			if (pp != &s->tgts) {
				*pp = t->next;
				t->next = s->tgts;
				s->tgts = t;
			}
			return;
		}
	t = VG_(malloc)("pmevg.tgt", sizeof(*t));
	t->addr = target;
	t->map = map_of(target);
	t->call = !s->isjump || (s->switched && in_routine(target) ?
	    is_entry(target) : is_call(s->addr[0], target));
	t->n = 1;
	t->next = s->tgts;
	s->tgts = t;
}

/* Side exit e of s, to target with jump kind jk: whether it is a call. */
static void
exit_call(struct sb *s, UInt e, IRJumpKind jk, Addr target)
{
	if (jk == Ijk_Ret)
		return;
	s->xcall[e] = jk == Ijk_Call || is_call(s->addr[0], target);
	if (s->xcall[e]) {
		s->xaddr[e] = target;
		s->xmap[e] = map_of(target);
	}
}

/*
 * Calls, the second count, as callgrind counts them: every call, and
 * every jump or fall-through is_call() takes as one.  A side exit's
 * count is its counter's; the end's, the superblock's entries less its
 * side exits.  A superblock ending in an indirect call or jump (not a
 * return) calls pv_indirect() with the target.
 */
static void
count_calls(IRSB *sb, const IRSB *in, struct sb *s)
{
	IRDirty *d;
	Addr target;
	Int i;

	if (in->jumpkind == Ijk_Ret)
		return;
	if (in->next->tag == Iex_Const) {
		target = (Addr)in->next->Iex.Const.con->Ico.U64;
		s->call = in->jumpkind == Ijk_Call ||
		    is_call(s->addr[0], target);
		if (s->call) {
			s->calladdr = target;
			s->callmap = map_of(target);
		}
		return;
	}
	s->isjump = in->jumpkind != Ijk_Call;
	/* A jump after a move into %rsp (longjmp, an exception's landing)
	 * returns into an older frame: into a routine, a call only to its
	 * entry (ld.so's jump to a stripped program's _start stays one). */
	for (i = 0; s->isjump && i < in->stmts_used; i++)
		if (in->stmts[i]->tag == Ist_IMark &&
		    x86_moves_sp((const unsigned char *)(Addr)
		    in->stmts[i]->Ist.IMark.addr, in->stmts[i]->Ist.IMark.len))
			s->switched = True;
	d = unsafeIRDirty_0_N(2, "pv_indirect",
	    VG_(fnptr_to_fnentry)(pv_indirect),
	    mkIRExprVec_2(mkIRExpr_HWord((HWord)s), in->next));
	addStmtToIRSB(sb, IRStmt_Dirty(d));
}

/*
 * What each count of a superblock starting at a adds: 1, or when gated
 * the weight on, read after the superblock's entry of --pmevg-start's or
 * --pmevg-stop's routine has changed it (an atom of type I64).
 */
static IRExpr *
weight(IRSB *sb, Addr a)
{
	IRTemp t;
	UInt m;

	if (!gated)
		return IRExpr_Const(IRConst_U64(1));
	if ((m = mark_of(a)) != 0)
		addStmtToIRSB(sb, IRStmt_Dirty(unsafeIRDirty_0_N(1,
		    "pv_toggle", VG_(fnptr_to_fnentry)(pv_toggle),
		    mkIRExprVec_1(mkIRExpr_HWord(m)))));
	t = newIRTemp(sb->tyenv, Ity_I64);
	addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Load(Iend_LE, Ity_I64,
	    mkIRExpr_HWord((HWord)&on))));
	return IRExpr_RdTmp(t);
}

static IRSB *
pv_instrument(VgCallbackClosure *closure, IRSB *in,
    const VexGuestLayout *layout, const VexGuestExtents *vge,
    const VexArchInfo *archinfo, IRType gwt, IRType hwt)
{
	UInt nins = 0, nexits = 0, k = 0, e = 0;
	IRTemp g, gw;
	IRExpr *w;
	IRStmt *st;
	IRSB *sb;
	struct sb *s;
	Int i;

	for (i = 0; i < in->stmts_used; i++) {
		if (in->stmts[i]->tag == Ist_IMark)
			nins++;
		else if (in->stmts[i]->tag == Ist_Exit && nins > 0)
			nexits++;
	}
	if (nins == 0)
		return in;
	s = new_sb(nins, nexits);
	sb = deepCopyIRSBExceptStmts(in);
	/* The preamble (a self-modifying-code check) stays first. */
	for (i = 0; i < in->stmts_used && in->stmts[i]->tag != Ist_IMark; i++)
		addStmtToIRSB(sb, in->stmts[i]);
	w = weight(sb, in->stmts[i]->Ist.IMark.addr);
	add_count(sb, &s->cnt[0], w);
	addStmtToIRSB(sb, IRStmt_Store(Iend_LE, mkIRExpr_HWord((HWord)&cur_sb),
	    mkIRExpr_HWord((HWord)s)));
	for (; i < in->stmts_used; i++) {
		st = in->stmts[i];
		if (st->tag == Ist_IMark) {
			s->addr[k] = (Addr)st->Ist.IMark.addr;
			s->map[k] = map_of(s->addr[k]);
			k++;
		} else if (st->tag == Ist_Exit) {
			g = newIRTemp(sb->tyenv, Ity_I64);
			addStmtToIRSB(sb, IRStmt_WrTmp(g, IRExpr_Unop(Iop_1Uto64,
			    st->Ist.Exit.guard)));
			s->after[e] = k;
			if (gated) {
				gw = newIRTemp(sb->tyenv, Ity_I64);
				addStmtToIRSB(sb, IRStmt_WrTmp(gw,
				    IRExpr_Binop(Iop_And64, IRExpr_RdTmp(g),
				    w)));
				g = gw;
			}
			add_count(sb, &s->cnt[1 + e], IRExpr_RdTmp(g));
			exit_call(s, e, st->Ist.Exit.jk,
			    (Addr)st->Ist.Exit.dst->Ico.U64);
			e++;
		}
		addStmtToIRSB(sb, st);
	}
	count_calls(sb, in, s);
	return sb;
}

static void
zero_counts(void)
{
	struct tgt *t;
	struct sb *s;

	for (s = sbs; s != NULL; s = s->next) {
		VG_(memset)(s->cnt, 0, (1 + s->nexits) * sizeof(ULong));
		for (t = s->tgts; t != NULL; t = t->next)
			t->n = 0;
	}
}

/* ------------------------------------------------------------- output */

static void
flush(void)
{
	UInt done = 0;
	Int n;

	while (done < out.len && !out.failed) {
		n = VG_(write)(out.fd, out.buf + done, (Int)(out.len - done));
		if (n <= 0)
			out.failed = True;
		else
			done += (UInt)n;
	}
	out.len = 0;
}

static void
emit(const HChar *fmt, ...) PRINTF_CHECK(1, 2);

static void
emit(const HChar *fmt, ...)
{
	va_list ap;
	UInt n;

	if (sizeof(out.buf) - out.len < 4096 + 64)
		flush();
	va_start(ap, fmt);
	n = VG_(vsnprintf)(out.buf + out.len, sizeof(out.buf) - out.len,
	    fmt, ap);
	va_end(ap);
	if (out.len + n >= sizeof(out.buf))
		out.failed = True;	/* a line longer than the buffer */
	else
		out.len += n;
}

/* Opens DIR/pv.PID.SEQ with the first SEQ no file has. */
static Bool
open_dump(HChar *path, SizeT len)
{
	SysRes r;
	UInt seq;

	for (seq = 1; seq < 1000000; seq++) {
		VG_(snprintf)(path, len, "%s/pv.%d.%u", outdir, VG_(getpid)(),
		    seq);
		r = VG_(open)(path, VKI_O_WRONLY | VKI_O_CREAT | VKI_O_EXCL,
		    0600);
		if (!sr_isError(r)) {
			out.fd = (Int)sr_Res(r);
			return True;
		}
		if (sr_Err(r) != VKI_EEXIST)
			break;
	}
	VG_(umsg)("Error: pmevg: '%s': cannot create the counts file\n", path);
	return False;
}

static void
emit_call(Addr a, UInt map, ULong n)
{
	if (map == NOMAP)
		emit("c %lx - %llx\n", a, n);
	else
		emit("c %lx %x %llx\n", a, map, n);
}

/* The calls superblock s made. */
static void
dump_calls(const struct sb *s)
{
	const struct tgt *t;
	ULong n = s->cnt[0];
	UInt e;

	for (t = s->tgts; t != NULL; t = t->next)
		if (t->call && t->n > 0)
			emit_call(t->addr, t->map, t->n);
	for (e = 0; e < s->nexits; e++) {
		n -= s->cnt[1 + e];
		if (s->xcall[e] && s->cnt[1 + e] > 0)
			emit_call(s->xaddr[e], s->xmap[e], s->cnt[1 + e]);
	}
	if (!s->call)
		return;
	if (s == fault_sb)
		n--;	/* it did not reach its end */
	if (n > 0)
		emit_call(s->calladdr, s->callmap, n);
}

/* Writes the counts of every superblock, then zeroes them. */
static void
dump(const HChar *trigger)
{
	HChar path[4096];
	struct sb *s;
	ULong run, total = 0;
	UInt i, e;

	if (outdir == NULL || !open_dump(path, sizeof(path)))
		return;
	out.len = 0;
	out.failed = False;
	emit("pmevg 1\npid %d\nexe %s\ntrigger %s\n", VG_(getpid)(),
	    VG_(args_the_exename) ? VG_(args_the_exename) : "", trigger);
	for (i = 0; i < nmaps; i++)
		emit("map %x %lx %lx %llx %s\n", i, maps[i].start, maps[i].end,
		    maps[i].offset, maps[i].path);
	for (s = sbs; s != NULL; s = s->next) {
		if (s->cnt[0] == 0)
			continue;
		dump_calls(s);
		run = s->cnt[0];
		for (i = 0, e = 0; i < s->nins; i++) {
			while (e < s->nexits && s->after[e] <= i)
				run -= s->cnt[1 + e++];
			if (s == fault_sb && i == fault_at)
				run--;	/* the rest did not run */
			if (run == 0)
				break;
			total += run;
			if (s->map[i] == NOMAP)
				emit("%lx - %llx\n", s->addr[i], run);
			else
				emit("%lx %x %llx\n", s->addr[i], s->map[i],
				    run);
		}
	}
	emit("end %llx\n", total);
	flush();
	VG_(close)(out.fd);
	if (out.failed)
		VG_(umsg)("Error: pmevg: '%s': cannot write the counts\n",
		    path);
	zero_counts();
}

/* ------------------------------------------------------------- events */

static Bool
pv_client_request(ThreadId tid, UWord *args, UWord *ret)
{
	switch (args[0]) {
	case VG_USERREQ__DUMP_STATS_AT:
		dump("region");
		break;
	case VG_USERREQ__DUMP_STATS:
		dump("dump");
		break;
	case VG_USERREQ__ZERO_STATS:
		zero_counts();
		break;
	default:
		return False;
	}
	*ret = 0;
	return True;
}

/* Valgrind starts over in an exec'ed image: what this one counted is
 * written first (and counted from zero again should the exec fail). */
static void
pv_pre_syscall(ThreadId tid, UInt no, UWord *args, UInt nargs)
{
	if (no == __NR_execve || no == __NR_execveat)
		dump("exec");
}

static void
pv_post_syscall(ThreadId tid, UInt no, UWord *args, UInt nargs, SysRes res)
{
}

/* A forked child counts from zero: its parent's counts are its parent's. */
static void
pv_atfork_child(ThreadId tid)
{
	zero_counts();
}

static void
pv_post_clo_init(void)
{
	if (outdir == NULL)
		VG_(fmsg_bad_option)("--pmevg-dir", "pmevg needs --pmevg-dir\n");
	VG_(atfork)(NULL, NULL, pv_atfork_child);
	/*
	 * Chasing lets VEX put both arms of a short if-then-else into one
	 * superblock with no exit between them: an instruction of the arm
	 * not taken would be counted.  Callgrind turns it off too.
	 */
	VG_(clo_vex_control).guest_chase = False;
}

/*
 * A superblock is counted whole when it is entered, so the instructions
 * after one that faulted and ended the program (SIGSEGV) would be
 * counted: the thread whose instruction pointer is inside the last
 * superblock entered (not at its start, where a thread waits to enter
 * it) faulted there: the thread running at the end, the one the fault
 * killed.  Signals sent by others arrive between superblocks.
 */
static void
find_fault(void)
{
	ThreadId tid = VG_(get_running_tid)();
	Addr ip;
	UInt i;

	if (cur_sb == NULL || tid == VG_INVALID_THREADID || !on)
		return;
	ip = VG_(get_IP)(tid);
	for (i = 1; i < cur_sb->nins; i++)
		if (cur_sb->addr[i] == ip) {
			fault_sb = cur_sb;
			fault_at = i;
			return;
		}
}

static void
pv_fini(Int exitcode)
{
	find_fault();
	dump("exit");
}

static void
pv_pre_clo_init(void)
{
	VG_(details_name)("pmevg");
	VG_(details_version)(NULL);
	VG_(details_description)("pme's exact instruction counter");
	VG_(details_copyright_author)("pme; see its COPYING");
	VG_(details_bug_reports_to)("pme's issue tracker");
	VG_(details_avg_translation_sizeB)(300);
	VG_(basic_tool_funcs)(pv_post_clo_init, pv_instrument, pv_fini);
	VG_(needs_command_line_options)(pv_option, pv_usage, pv_debug_usage);
	VG_(needs_client_requests)(pv_client_request);
	VG_(needs_syscall_wrapper)(pv_pre_syscall, pv_post_syscall);
}

VG_DETERMINE_INTERFACE_VERSION(pv_pre_clo_init)
