/*
 * kallsyms.h - the kernel's text symbols, read from /proc/kallsyms or
 * from a per-user cache of this boot's, for the quick path's kernel rows
 * (quick.h).  Internal to libpme.
 *
 * The kernel makes the text of /proc/kallsyms anew at every read: some
 * 120,000 lines, tens of milliseconds, more than the rest of a report.
 * The kernel's own symbols (those without a "[module]" tag) do not change
 * while it runs, so they are kept in a file, written once per boot and
 * mapped by later runs, which look up only the sampled addresses.  The
 * symbols of modules, BPF programs and trampolines come and go while the
 * system runs and are not kept: a sampled address outside the span of the
 * kernel's own (where those live) is looked up in /proc/kallsyms, read
 * afresh, as it is without a cache.
 */
#ifndef PME_KALLSYMS_H
#define PME_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>

/* The lowest address of the kernel's half of the address space. */
#define PME_KERNEL_START	UINT64_C(0xffff800000000000)

/* The cache file's name in its directory. */
#define PME_KSYMS_FILE		"kallsyms"

/*
 * The text symbols (types T and t) of the kernel's half, sorted by
 * address, several at one address in kallsyms' order.  Names longer than
 * 255 bytes are cut there.
 */
struct pme_ksyms {
	const uint64_t	*addr;		/* n addresses, ascending */
	const uint32_t	*name;		/* their names' offsets in str */
	const char	*str;		/* strsize bytes, the last a NUL */
	size_t		 n, strsize;
	const uint8_t	*tagged;	/* per symbol: of a module, BPF...
					   (NULL: none, the cache's) */
	int		 cached;	/* from the cache: the kernel's own
					   symbols alone */
	void		*map;		/* the cache's mapping, maplen bytes */
	size_t		 maplen;
	void		*mem;		/* what a read allocated */
};

/*
 * The cache's directory, malloc'd (the caller frees): $XDG_CACHE_HOME/pme
 * when XDG_CACHE_HOME is an absolute path, else $HOME/.cache/pme; NULL
 * when neither is set, when PME_KALLSYMS_CACHE is "0" (no cache), or when
 * memory ran out.
 */
char	*pme_ksyms_cachedir(void);

/*
 * What the cache must have been written for, into buf (len bytes, at
 * least 64): this boot's id (/proc/sys/kernel/random/boot_id) and
 * kernel.kptr_restrict's value.  0, or -1 when they cannot be read.
 */
int	 pme_ksyms_key(char *buf, size_t len);

/*
 * Maps the cache in dir when it is there, was written for key and is
 * sound: a regular file (not a link), the user's own, readable by no one
 * else, in a directory of the user's that no one else can write, whose
 * sizes, counts and strings hold together.  1 with k filled (the kernel's
 * own symbols, k->cached), or 0 with k empty: none, stale or bad.
 */
int	 pme_ksyms_load(struct pme_ksyms *k, const char *dir, const char *key);

/*
 * Reads the kallsyms file at path: 1 with k filled, 0 with k empty when it
 * cannot be read or lists no address (all 0: kernel.kptr_restrict), -1
 * when memory ran out.
 */
int	 pme_ksyms_read(struct pme_ksyms *k, const char *path);

/*
 * Writes the kernel's own symbols of k (read by pme_ksyms_read) to the
 * cache in dir for key: to a new file beside it (O_EXCL, mode 0600),
 * renamed over it, so that a link or another user's file there is
 * replaced, never written through.  dir and its parent ($HOME/.cache) are
 * made (mode 0700) when missing, but only in a directory of the user's.
 * Nothing is written when a symbol of a module lies among the kernel's
 * own (the cache could not stand for them) or anything fails: the cache
 * only saves time.
 */
void	 pme_ksyms_save(const struct pme_ksyms *k, const char *dir,
	    const char *key);

/*
 * The symbol that holds pc: the highest index i with addr[i] <= pc, moved
 * back to the first listed at that address, in *i; its end, the next
 * higher address, in *end.  1 when there is one, 0 when pc is below the
 * first symbol or at or above the last (no end known), -1 when k is the
 * cache and cannot answer for pc (outside the kernel's own symbols: read
 * /proc/kallsyms for it), -2 when k is the cache and is damaged (the
 * symbol's name out of bounds: read /proc/kallsyms and write it anew).
 */
int	 pme_ksyms_find(const struct pme_ksyms *k, uint64_t pc, size_t *i,
	    uint64_t *end);

/* Releases what k holds and empties it. */
void	 pme_ksyms_free(struct pme_ksyms *k);

#endif /* PME_KALLSYMS_H */
