/*
 * stats.h - stats(1)'s model: an event source (an event file, or a
 * sample file turned into state events), the graphs to draw, and the
 * drawing of one graph over a window of time into a grid of cells with a
 * legend, which the backends (text, PostScript, terminal, CSV, JSON)
 * render.  Internal to stats.
 */
#ifndef STATS_STATS_H
#define STATS_STATS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pme.h"
#include "pme_event.h"
#include "graph.h"

/* ------------------------------------------------------------ sources */

/*
 * Where the events come from.  An event file is read through libpme; a
 * sample file (.PMS) becomes a source whose processors are the threads
 * sampled and whose events are EV_STATE colours, one per routine.
 * Either way the events are streamed (src_events) as often as a drawing
 * needs, never held whole, except by the interactive view's index.
 */
struct src {
	struct pme_eventfile *ef;	/* the event file, or NULL */
	const char	*path;
	struct pme_run	 run;		/* the run (copied, may be amended) */
	/* Colours of a sample file: colour c is names[c]. */
	char		**names;
	size_t		 nnames;
	/* Events of a sample file, in memory (they are few: one per
	 * sample at most). */
	struct pme_ev	*ev;
	size_t		 nev;
	char		**rowname;	/* a sample file's thread names */
	size_t		 nrowname;
};

int	 src_open_events(struct src *s, const char *path, char *err,
	    size_t errlen);
int	 src_open_samples(struct src *s, const char *path,
	    const char *bucketpath, const char *by, char *err, size_t errlen);
/* An event file, or a sample file (told by its kind). */
int	 src_open(struct src *s, const char *path, const char *bucketpath,
	    const char *by, char *err, size_t errlen);
void	 src_close(struct src *s);
/* Streams the events to fn as pme_eventfile_events() does. */
int	 src_events(struct src *s, pme_ev_fn fn, void *arg, char *err,
	    size_t errlen);
/* The type number of an event name, PME_NONE when the source has none. */
uint32_t src_type(const struct src *s, const char *name);
/* A row's name ("3", or the thread's name), in buf. */
const char *src_rowname(const struct src *s, long row, char *buf,
	    size_t len);

/* ------------------------------------------------------------ drawing */

/* An entry of a graph's legend: values lo..hi drawn in rgb. */
struct legend {
	double		 lo, hi;	/* event values (unscaled) */
	uint32_t	 rgb;		/* 0xrrggbb */
	char		 label[96];	/* the map's label or the range */
	double		 occ;		/* time (state) or events (array)
					   in the view */
};

/* The window a graph is drawn over. */
struct window {
	uint64_t	 t0, t1;	/* time [t0, t1) */
	long		 r0, r1;	/* rows r0 .. r1 (graph rows) */
	uint32_t	 ncols;		/* columns of cells */
};

/*
 * One graph drawn over a window: nrows x ncols cells, each the legend
 * entry that held the most time in it (-1: no data).
 */
struct grid {
	const struct graph *g;
	struct window	 w;
	uint32_t	 nrows;
	long		*row;		/* graph row of each grid row */
	int16_t		*cell;		/* nrows * ncols */
	double		*rowocc;	/* nrows * nleg: time (or events) of
					   each entry per row in the window */
	struct legend	*leg;
	size_t		 nleg;
	int		 occ_time;	/* occ is time, else event counts */
	double		 occ_total;
	int		 has_avg;	/* an ArrayGraph without a map */
	double		 avg;		/* its mean value, scaled */
	uint64_t	 nev;		/* events in the window */
	long		 rlo, rhi;	/* the graph's whole row range */
	uint64_t	 tlo, thi;	/* the run's whole time range */
	char		 title[256];	/* the graph's name */
	char		 subtitle[256];	/* the event file, the window */
	const char	*xlabel, *ylabel;
	const struct src *src;
};

/*
 * Prepares g for drawing from s: resolves its row range (symbols from
 * the run: NO_OF_PROCESSORS, the parameters), its event types, and its
 * legend (from its map, or from the values' range for an ArrayGraph
 * without one, which costs a pass over the events).  Returns 0, or -1
 * with "file:line: what" in err (an unknown event, a bad range).
 */
int	 grid_prepare(struct grid *gr, const struct graph *g,
	    const struct src *s, char *err, size_t errlen);
/* Draws the window w: a pass over the events, memory of the grid's
 * size.  Returns 0, or -1 with err. */
int	 grid_draw(struct grid *gr, const struct window *w, char *err,
	    size_t errlen);
void	 grid_free(struct grid *gr);
/* The whole graph: all rows, all time, ncols columns. */
void	 grid_whole(const struct grid *gr, uint32_t ncols, struct window *w);

/* "1,234,567" (the seed's default format), or fmt with v * scale. */
void	 fmt_value(char *buf, size_t len, const struct graph *g, double v);
/* The colour of a graph file colour name. */
uint32_t colour_rgb(const char *name);
/* A legend entry's occupancy as the legends show it: a percentage of
 * the view's, or the time or events themselves. */
void	 occ_text(char *buf, size_t len, const struct grid *gr, double occ,
	    int percent);
/* Whether legend entry i is idle time (it holds the value 0), which a
 * UtilGraph with normalize leaves out. */
int	 legend_idle(const struct grid *gr, size_t i);

/* ----------------------------------------------------------- backends */

struct outopt {
	int		 percent;	/* legend as percentages */
	const char	*title;		/* -t: replaces the graph's name */
	const char	*subtitle;
	const char	*paper;		/* PostScript size: "a4", "letter",
					   "8x10"... NULL: a4 */
	int		 width, height;	/* text: columns, rows */
};

int	 out_text(FILE *fp, const struct grid *gr, const struct outopt *o);
/* The chart columns of a text chart width characters wide. */
uint32_t text_columns(const struct grid *gr, int width);
/*
 * PostScript: the prologue of a document of npages graphs, a graph a
 * page (out_ps, out_histo_ps, out_hsummary_ps), and its trailer.
 * ps_begin() returns -1 with why in err, having written nothing, when
 * o->paper names no size it knows.
 */
int	 ps_begin(FILE *fp, size_t npages, const struct outopt *o, char *err,
	    size_t errlen);
int	 ps_end(FILE *fp);
/* The graph's data: a line per segment of a row's value (start, end,
 * value, label), streamed, not binned. */
int	 out_csv(FILE *fp, struct grid *gr, char *err, size_t errlen);
/* Histometrics: HistoSummary's table (one line per set), and one
 * histometric's bins, as text, CSV or PostScript. */
int	 out_hsummary(FILE *fp, const struct src *s, int csv);
/* The run (Mstats' Summary[]), its metrics and parameters (pd, pdp). */
int	 out_summary(FILE *fp, const struct src *s, int csv);
int	 out_histo(FILE *fp, const struct pme_histo *h, const struct graph *g,
	    int csv, const struct outopt *o);
int	 out_histo_ps(FILE *fp, const struct pme_histo *h,
	    const struct graph *g, const struct outopt *o);
int	 out_ps(FILE *fp, const struct grid *gr, const struct outopt *o);
int	 out_hsummary_ps(FILE *fp, const struct src *s, const struct graph *g,
	    const struct outopt *o);
int	 out_json(FILE *fp, struct src *s, const struct gfile *gf,
	    char *err, size_t errlen);

/*
 * The interactive view (stats(1) KEYS) of graphs gv[0..ng) on the
 * terminal: returns 0 when the user quits, -1 with err.
 */
int	 term_run(struct src *s, const struct graph **gv, size_t ng,
	    int percent, char *err, size_t errlen);

#endif /* STATS_STATS_H */
