/*
 * graph.h - stats' graph specifications: the graph file language of
 * graphfile(5), parsed into a list of graphs, merged with the
 * specifications an event file carries, and written back as text
 * (GraphfileTemp).  Internal to stats.
 *
 * Ownership: a struct gfile owns every string, expression and array
 * reachable from it; gfile_free() frees them all.  Nothing here prints:
 * errors fill the caller's struct pme_error (lib/pme.h) with
 * "file:line: what", the program adds its name.
 */
#ifndef STATS_GRAPH_H
#define STATS_GRAPH_H

#include <stddef.h>
#include <stdio.h>

struct pme_error;

enum gkind {
	G_STATE,	/* StateGraph: rows coloured by state */
	G_ARRAY,	/* ArrayGraph: rows of binned values over time */
	G_HISTO,	/* HistoGraph: a histometric's composite and sets */
	G_HSUMMARY,	/* HistoSummary: every histometric as a table */
	G_UTIL,		/* UtilGraph: time per state, a bar per row */
	G_LINE,		/* LineGraph: a value over time, a plot per row */
	G_NKINDS
};

/* An arithmetic expression over numbers and symbols (NO_OF_PROCESSORS,
 * the event file's parameters), resolved when an event file is known. */
enum gop { GE_NUM, GE_SYM, GE_NEG, GE_ADD, GE_SUB, GE_MUL, GE_DIV };
struct gexpr {
	enum gop	 op;
	double		 num;		/* GE_NUM */
	char		*sym;		/* GE_SYM */
	struct gexpr	*a, *b;		/* operands (GE_NEG: a only) */
};

/*
 * Looks a symbol up: 0 with *v set, -1 when it is unknown.
 */
typedef int (*gsym_fn)(const char *sym, void *arg, double *v);

/* An entry of a colour map: event values lo..hi (inclusive) are drawn in
 * colour and labelled label in the legend. */
struct gmap {
	double		 lo, hi;
	char		*color;		/* a colour name or "#rrggbb" */
	char		*label;		/* NULL: the range is the label */
	unsigned	 line;
};

/* An action rule: when an event of type event arrives, op applies to
 * the row the event's processor names (the graph's index variable). */
enum gaction { GA_VALUE, GA_ADD };
struct grule {
	char		*event;		/* event type name, as registered */
	enum gaction	 op;		/* VALUE(x): set, ADD(x): add */
	unsigned	 line;
};

/* Which descriptors a graph's text gave (for merging). */
#define GD_MENU		0x0001
#define GD_NAME		0x0002
#define GD_SCALE	0x0004
#define GD_FORMAT	0x0008
#define GD_XAXIS	0x0010
#define GD_YAXIS	0x0020
#define GD_ACTION	0x0040
#define GD_MAP		0x0080
#define GD_BINS		0x0100
#define GD_NORMALIZE	0x0200
#define GD_PLOTSET	0x0400
#define GD_METRIC	0x0800
#define GD_RANGE	0x1000	/* the (x, lo, hi) header */

struct graph {
	enum gkind	 kind;
	char		*id;		/* the name after the kind */
	char		*var;		/* index variable, "x"; NULL if none */
	struct gexpr	*lo, *hi;	/* its range; NULL if none */
	unsigned	 given;		/* GD_* */
	char		*menu, *name, *x_axis, *y_axis;	/* NULL if not given */
	double		 scale;		/* 1 if not given */
	char		*format;	/* "" if not given: integers, commas */
	char		*metric;	/* HistoGraph: the histometric's name */
	int		 bins;		/* ArrayGraph legend bins; 0: default */
	int		 normalize;	/* UtilGraph: leave idle out, same length */
	long		*plotset;	/* rows to draw, in order; NULL: all */
	size_t		 nplotset;
	struct gmap	*map;		/* colour map; NULL: none */
	size_t		 nmap;
	struct grule	*rules;
	size_t		 nrules;
	char		*file;		/* where it was defined */
	unsigned	 line;
};

struct gfile {
	struct graph	*g;
	size_t		 n;
};

/* The name gfile_parse() is given for the graph file stats ships. */
#define GFILE_SHIPPED	"(default Graphfile)"

/*
 * Parses text[0..len) (need not be NUL-terminated) named name into *out
 * (zeroed first).  Returns 0, or -1 with err holding "name:line: what"
 * (the first error) and *out freed and zeroed.
 */
int	 gfile_parse(const char *text, size_t len, const char *name,
	    struct gfile *out, struct pme_error *err);
/* Reads path and parses it; a read error is "path: strerror". */
int	 gfile_load(const char *path, struct gfile *out, struct pme_error *err);
/*
 * Merges from (the event file's specifications) into dst (the graph
 * file's): a graph of from whose kind and id dst has gets only the
 * descriptors dst's does not give; other graphs of from are appended.
 * Returns 0, or -1 (out of memory) with dst as valid as before.
 */
int	 gfile_merge(struct gfile *dst, const struct gfile *from,
	    struct pme_error *err);
/* Writes f as graph file text that gfile_parse() reads back to the
 * same graphs.  Returns 0, or -1 when fp failed. */
int	 gfile_write(const struct gfile *f, FILE *fp);
void	 gfile_free(struct gfile *f);

/*
 * Evaluates e, looking symbols up with fn (NULL: none is known).  Returns
 * 0, or -1 with "unknown symbol 'X'" or "division by zero" in err: an
 * expression does not know where it was written, the caller puts the
 * graph's "file:line: " before it.
 */
int	 gexpr_eval(const struct gexpr *e, gsym_fn fn, void *arg, double *v,
	    struct pme_error *err);
/* A copy of e (NULL for NULL), or NULL when out of memory. */
struct gexpr *gexpr_dup(const struct gexpr *e);
void	 gexpr_free(struct gexpr *e);
/* Writes e as text gfile_parse() reads back to the same tree; -1 when
 * fp failed. */
int	 gexpr_write(const struct gexpr *e, FILE *fp);
/* Expressions nest at most this deep, so that the recursive functions
 * above are safe on any tree the parser made. */
#define GEXPR_MAXDEPTH	64

/*
 * Checks a format descriptor: exactly one floating conversion
 * (%[flags][width][.precision] then one of f F e E g G a A), "%%" as
 * many times as wished, nothing else with a '%'; widths and precisions
 * of at most two digits.  Returns 0, or -1 with why in err.
 */
int	 gformat_check(const char *fmt, struct pme_error *err);
/* The first graph named id, or NULL. */
struct graph *gfile_find(const struct gfile *f, const char *id);

/*
 * The colour a map entry names, a name of graphfile(5)'s list or
 * "#rrggbb", as 0xrrggbb in *rgb.  Returns 0, or -1 when it is neither.
 */
int	 gcolor_rgb(const char *color, unsigned long *rgb);

#endif /* STATS_GRAPH_H */
