/*
 * view.c - the reports pmehisto -V chooses (pmehisto(1)): the histogram,
 * or a view of the samples' call chains: the Cedar Spy's report (spy.c),
 * a gprof-style call graph and the callers and callees of one routine
 * (callgraph.c).  One table, so that each view is named in one place.
 */
#include <string.h>

#include "histo.h"

static const struct {
	const char	*name;
	enum view_kind	 kind;
	int		 arg;		/* 1: NAME:ARG, the argument needed */
	int		 chains;	/* made from the call chains */
} views[] = {
	{ "histogram", VIEW_HISTOGRAM, 0, 0 },
	{ "spy", VIEW_SPY, 0, 1 },
	{ "callgraph", VIEW_CALLGRAPH, 0, 1 },
	{ "callers", VIEW_CALLERS, 1, 1 },
};

int
view_parse(const char *s, struct view *v)
{
	const char *colon = strchr(s, ':');
	size_t len = colon != NULL ? (size_t)(colon - s) : strlen(s), i;

	for (i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
		if (strlen(views[i].name) != len ||
		    strncmp(s, views[i].name, len) != 0)
			continue;
		if (views[i].arg != (colon != NULL) ||
		    (colon != NULL && colon[1] == '\0'))
			return -1;
		v->kind = views[i].kind;
		v->arg = colon != NULL ? colon + 1 : NULL;
		v->chains = views[i].chains;
		v->name = views[i].name;
		return 0;
	}
	return -1;
}
