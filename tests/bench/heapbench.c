/*
 * heapbench.c - an allocation-heavy program for bench_heap.sh: N rounds
 * (argument, default 2000000) of allocations of varied sizes from a few
 * call sites at a few depths, most freed soon, a window of 1000 live
 * blocks, as a program of many short-lived objects does.
 */
#include <stdlib.h>

static void *win[1000];

__attribute__((noinline)) static void *
leaf(size_t n, int depth)
{
	if (depth > 0)
		return leaf(n, depth - 1);
	return malloc(n);
}

__attribute__((noinline)) static void
round_(unsigned long i)
{
	void *p = leaf(16 + i % 200, (int)(i % 5));
	size_t k = i % 1000;

	if (i % 3 == 0) {
		free(p);
		p = calloc(1, 32 + i % 64);
	}
	free(win[k]);
	win[k] = p;
}

int
main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 2000000,
	    i;

	for (i = 0; i < n; i++)
		round_(i);
	for (i = 0; i < 1000; i++)
		free(win[i]);
	return 0;
}
