/*
 * kinds.c - stats' graph kinds, a row each (gkinds[], indexed by enum
 * gkind): the name the graph file gives it, the descriptors it takes,
 * what it is drawn from and how, and its operations.  The parser, the
 * writer, the listing, the drawing and the interactive view read the
 * row, not the kind: adding a kind is a row here, the functions it
 * names, graphfile(5) and a test.
 */
#include <stdio.h>
#include <string.h>

#include "stats.h"
#include "util.h"

/* Whether the source has every event g's actions name. */
static int
events_drawable(const struct graph *g, const struct src *s)
{
	for (size_t i = 0; i < g->nrules; i++)
		if (src_type(s, g->rules[i].event) == PME_NONE)
			return 0;
	return g->nrules > 0;
}

static int
hsummary_drawable(const struct graph *g, const struct src *s)
{
	(void)g;
	return s->ef != NULL;
}

/* The first histometric of s named name, or NULL. */
static const struct pme_histo *
histo_named(const struct src *s, const char *name)
{
	const struct pme_histo *h;
	size_t n = s->ef != NULL ? pme_eventfile_histos(s->ef, &h) : 0;

	for (size_t i = 0; name != NULL && i < n; i++)
		if (strcmp(h[i].name, name) == 0)
			return &h[i];
	return NULL;
}

static int
histo_drawable(const struct graph *g, const struct src *s)
{
	return histo_named(s, g->metric) != NULL;
}

static int
hsummary_draw(FILE *fp, const struct graph *g, const struct src *s,
    enum otype type, const struct outopt *o, struct pme_error *err)
{
	(void)err;
	return type == O_PS ? out_hsummary_ps(fp, s, g, o) :
	    out_hsummary(fp, s, type == O_CSV);
}

static int
histo_draw(FILE *fp, const struct graph *g, const struct src *s,
    enum otype type, const struct outopt *o, struct pme_error *err)
{
	const struct pme_histo *h = histo_named(s, g->metric);

	if (h == NULL) {
		pme_seterr(err, PME_EINVAL,
		    "%s:%u: no histometric '%s' in '%s'",
		    g->file, g->line, g->metric != NULL ? g->metric : "",
		    s->path);
		return -1;
	}
	if (type == O_PS)
		return out_histo_ps(fp, h, g, o);
	return out_histo(fp, h, g, type == O_CSV, o);
}

#define D_ALL	(GD_MENU | GD_NAME | GD_XAXIS | GD_YAXIS | GD_SCALE | \
		 GD_FORMAT | GD_PLOTSET)
#define D_EVENT	(D_ALL | GD_ACTION | GD_MAP)

const struct gkind_ops gkinds[G_NKINDS] = {
	[G_STATE] = { "StateGraph", D_EVENT & ~(GD_SCALE | GD_FORMAT),
	    GK_EVENTS | GK_STATES, events_drawable, NULL },
	[G_ARRAY] = { "ArrayGraph", D_EVENT | GD_BINS, GK_EVENTS | GK_COUNTS,
	    events_drawable, NULL },
	[G_HISTO] = { "HistoGraph", D_ALL | GD_METRIC | GD_BINS, 0,
	    histo_drawable, histo_draw },
	[G_HSUMMARY] = { "HistoSummary", D_ALL & ~GD_PLOTSET, 0,
	    hsummary_drawable, hsummary_draw },
	[G_UTIL] = { "UtilGraph", D_EVENT | GD_NORMALIZE, GK_EVENTS | GK_BARS,
	    events_drawable, NULL },
	[G_LINE] = { "LineGraph", (D_ALL | GD_ACTION) & ~GD_PLOTSET, 0,
	    events_drawable, line_draw },
};
