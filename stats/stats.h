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
#include "util.h"

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
	/* A pmeclock -w run drawn by state: names are the states, rgb
	 * their colours (else NULL: a palette's). */
	int		 states;
	const uint32_t	*rgb;
	/* A pmeclock -e alloc run: events SRC_EV_HEAP, a row per
	 * process, the value its live bytes. */
	int		 heap;
};

/* The event type of a heap source's events (EV_HEAP in a graph file). */
#define SRC_EV_HEAP	2u

int	 src_open_events(struct src *s, const char *path,
	    struct pme_error *err);
/* A sample file, its samples those filter keeps (NULL: all; pmehisto's
 * filters, histo/filter.c). */
struct filter;
int	 src_open_samples(struct src *s, const char *path,
	    const char *bucketpath, const char *by, struct filter *filter,
	    struct pme_error *err);
/* A pmeclock -w run's threads by state (pmehisto's, histo/wall.c). */
int	 src_open_states(struct src *s, const char *path,
	    struct pme_error *err);
/* The run of a sample file read whole into s's ev and rownames (a -w
 * run's states, a heap): times from the earliest event's, in ns, a row
 * a rowname, complete. */
void	 src_whole_run(struct src *s);
/* A pmeclock -e alloc run's heap over time (heapsrc.c). */
int	 src_open_heap(struct src *s, const char *path,
	    struct pme_error *err);
/* An event file, or a sample file (told by its kind): a -w run by state
 * unless by is "routine" or "module", a -e alloc run's heap unless by
 * is one of those; filter as for
 * src_open_samples(), an error with an event file. */
int	 src_open(struct src *s, const char *path, const char *bucketpath,
	    const char *by, struct filter *filter, struct pme_error *err);
void	 src_close(struct src *s);
/* Streams the events to fn as pme_eventfile_events() does. */
int	 src_events(struct src *s, pme_ev_fn fn, void *arg,
	    struct pme_error *err);
/* The type number of an event name, PME_NONE when the source has none. */
uint32_t src_type(const struct src *s, const char *name);
/* The run's time unit escaped for a terminal (pme_escape), in buf. */
const char *src_unit(const struct src *s, char *buf, size_t len);
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
	/* The graph's action, resolved against the source once: rule k
	 * takes events of types[k], adding (add[k]) or setting values. */
	uint32_t	*types;
	int		*add;
	size_t		 ntypes;
};

/*
 * Prepares g for drawing from s: resolves its row range (symbols from
 * the run: NO_OF_PROCESSORS, the parameters), its event types, and its
 * legend (from its map, or from the values' range for an ArrayGraph
 * without one, which costs a pass over the events).  Returns 0, or -1
 * with "file:line: what" in err (an unknown event, a bad range).
 */
int	 grid_prepare(struct grid *gr, const struct graph *g,
	    const struct src *s, struct pme_error *err);
/* Draws the window w: a pass over the events, memory of the grid's
 * size.  Returns 0, or -1 with err. */
int	 grid_draw(struct grid *gr, const struct window *w,
	    struct pme_error *err);
void	 grid_free(struct grid *gr);
/* The rule of gr's action events of type take, or -1 when none does. */
int	 grid_rule(const struct grid *gr, uint32_t type);
/* The whole graph: all rows, all time, ncols columns. */
void	 grid_whole(const struct grid *gr, uint32_t ncols, struct window *w);

/*
 * The parts of grid_draw() another way of drawing (lod.c) shares, so
 * that both make the same cells: grid_begin() takes the window (clamped
 * as grid_draw() does), allocates the cells and the accumulator *acc
 * (nrows * ncols * nleg times, the caller frees it) and zeroes the
 * counts; grid_spread() adds the time [a, b) (inside the window) of
 * entry leg to a row's accumulator acc; grid_end() picks each cell's
 * entry and totals the legend (sum: of the values of the events in the
 * window).  grid_legend() is the entry of value v, or -1.
 */
int	 grid_begin(struct grid *gr, const struct window *w, double **acc,
	    struct pme_error *err);
void	 grid_spread(const struct window *w, double *acc, size_t nleg,
	    uint64_t a, uint64_t b, int leg);
void	 grid_end(struct grid *gr, const double *acc, double sum);
int	 grid_legend(const struct grid *gr, double v);

/*
 * A level-of-detail index of a prepared grid, so that the interactive
 * view redraws at the cost of the cells and the events in view, not of
 * the file.  lod_build() reads the events once: each row's events of the
 * graph's types (times, as grid_draw() orders them, and the entry from
 * then on), and a summary of each row over the run in nb buckets of bw
 * time units (LOD_BUCKETS, fewer when the rows and the entries would
 * take more than 64 MB): the time of each entry, the events and their
 * values per bucket.  lod_draw() draws a window as grid_draw() would:
 * the buckets a column holds whole come from the summary when a column
 * spans LOD_MIN buckets or more, the rest from the row's events in view
 * (found by binary search).  Drawn from the events, the cells are
 * grid_draw()'s exactly; from the summary, too when every column is a
 * whole number of whole buckets (a bucket split between two columns is
 * split in proportion).  The legend's times and counts are exact either
 * way.  Returns 0, or -1 with err; lod_free() frees what lod_build()
 * allocated (the grid is the caller's, and must outlive the index).
 */
#define LOD_BUCKETS	4096
#define LOD_MIN		4
struct lodrow {
	uint64_t	*t;		/* event times, non-decreasing */
	int16_t		*leg;		/* the entry from t[i] on, -1 none */
	double		*v;		/* the value from t[i] on (only with
					   has_avg), else NULL */
	size_t		 n, cap;
	double		 cur;		/* the value of the last event */
	double		*btime;		/* nb * nleg; NULL: no events */
	uint32_t	*bcount;	/* nb * nleg: events of each entry */
	uint32_t	*bnev;		/* nb: events */
	double		*bsum;		/* nb: their values */
};
struct lod {
	struct grid	*gr;
	uint64_t	 tlo, bw;	/* bucket b is [tlo + b bw, + bw) */
	uint32_t	 nb;
	struct lodrow	*row;		/* graph rows rlo .. rhi */
	size_t		 nrows;
	int		 summary;	/* the last draw used the summary */
};

int	 lod_build(struct lod *l, struct grid *gr, struct pme_error *err);
int	 lod_draw(struct lod *l, struct grid *gr, const struct window *w,
	    struct pme_error *err);
void	 lod_free(struct lod *l);

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

/* ------------------------------------------------------ graph kinds */

/* The outputs (-T). */
enum otype { O_TERM, O_TEXT, O_PS, O_CSV, O_JSON };

#define GK_EVENTS	0x01	/* drawn from events by its actions: a grid
				   of rows over time (else from the event
				   file's histometrics) */
#define GK_BARS		0x02	/* the grid as a bar per row (time per
				   entry), not a chart of cells */
#define GK_COUNTS	0x04	/* its legend counts events, made from the
				   values' range when it has no map */
#define GK_STATES	0x08	/* its legend names states (-T json's
				   slices take their names) */
struct outopt;
/*
 * A graph kind (kinds.c): its name in the graph file, the descriptors
 * (GD_*) it takes, GK_* flags; whether a source has what a graph of it
 * draws; and, for a kind not drawn as a grid (draw not NULL), its
 * drawing as text, CSV or PostScript: 0, or -1 with err.
 */
struct gkind_ops {
	const char	*name;
	unsigned	 descs;
	unsigned	 flags;
	int		(*drawable)(const struct graph *, const struct src *);
	int		(*draw)(FILE *, const struct graph *,
			    const struct src *, enum otype,
			    const struct outopt *, struct pme_error *);
};
extern const struct gkind_ops gkinds[G_NKINDS];

/*
 * A LineGraph (line.c): each row's events of the graph's action types
 * as points, a row's value from each point's time on; max its largest
 * (first reached at tmax), cur its last.  line_read() reads them (a
 * pass over the events, memory per point), 0 or -1 with err;
 * line_columns() the largest value row r held in each of ncols columns
 * of the run's time (-1 where it had none yet); line_draw() is the
 * kind's drawing as text, CSV or PostScript.
 */
struct lpoint {
	uint64_t	 time;
	int64_t		 value;
};
struct lrow {
	struct pme_vec	 pt;		/* struct lpoint */
	int64_t		 cur, max;
	uint64_t	 tmax;
};
struct line {
	const struct graph *g;
	const struct src *src;
	uint64_t	 t1;		/* the run's last time */
	struct lrow	*row;		/* by event processor */
	size_t		 nrows;
};
int	 line_read(struct line *l, const struct graph *g,
	    const struct src *s, struct pme_error *err);
void	 line_free(struct line *l);
void	 line_columns(const struct line *l, size_t r, double *col,
	    uint32_t ncols);
struct outopt;
int	 line_draw(FILE *fp, const struct graph *g, const struct src *s,
	    enum otype type, const struct outopt *o, struct pme_error *err);

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
int	 ps_begin(FILE *fp, size_t npages, const struct outopt *o,
	    struct pme_error *err);
int	 ps_end(FILE *fp);
/* The graph's data: a line per segment of a row's value (start, end,
 * value, label), streamed, not binned. */
int	 out_csv(FILE *fp, struct grid *gr, struct pme_error *err);
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
/* A LineGraph's page: a plot a row, the value on y. */
int	 out_line_ps(FILE *fp, const struct line *l, const struct outopt *o);
int	 out_hsummary_ps(FILE *fp, const struct src *s, const struct graph *g,
	    const struct outopt *o);
int	 out_json(FILE *fp, struct src *s, const struct gfile *gf,
	    struct pme_error *err);

/*
 * The interactive view (stats(1) KEYS) of graphs gv[0..ng) on the
 * terminal: returns 0 when the user quits, -1 with err.
 */
int	 term_run(struct src *s, const struct graph **gv, size_t ng,
	    int percent, struct pme_error *err);
/*
 * The same view driven by keys[0..nkeys), the bytes a terminal would
 * send (arrows as ESC [ A and the like), on a screen of the geometry
 * given, its frames written to geom->fd: what term_run() does at each
 * key, without the terminal (no raw mode, no signals, no waiting: the
 * end of the bytes ends an escape sequence, and then the view, as q
 * would).  For the fuzz target fuzz_term.  Returns as term_run() does.
 */
struct term_geom {
	int		 rows, cols;
	int		 colour;	/* 0 text marks, 1 256 colours, 2 24-bit */
	int		 fd;		/* where the frames go */
};
int	 term_replay(struct src *s, const struct graph **gv, size_t ng,
	    int percent, const struct term_geom *geom, const uint8_t *keys,
	    size_t nkeys, struct pme_error *err);

/*
 * An output written whole under a temporary name beside path and renamed
 * into place at outfile_commit(), so that a failed write leaves the
 * previous file; path NULL or "-" is standard output.  outfile_open()
 * returns 0 with o->fp to write to, or -1 with err; outfile_commit()
 * checks the writes, closes and renames, returning 0, or -1 with err and
 * path as it was; outfile_abort() closes and removes what was written
 * (after either, o may be aborted again).
 */
struct outfile {
	FILE		*fp;
	char		*tmp;
	const char	*path;
};
int	 outfile_open(struct outfile *o, const char *path,
	    struct pme_error *err);
int	 outfile_commit(struct outfile *o, struct pme_error *err);
void	 outfile_abort(struct outfile *o);
/* After a failure while writing o: when o's stream failed (a full disk,
 * a file size limit), err says that, naming the file ("'u.ps': write
 * failed: File too large"), rather than what the writer said. */
void	 outfile_why(const struct outfile *o, struct pme_error *err);
/* pme_seterr for an error the system gave: PME_EIO, with e (an errno
 * value, 0 when unknown) in err->sys_errno.  Returns -1. */
int	 stats_syserr(struct pme_error *err, int e, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

#endif /* STATS_STATS_H */
