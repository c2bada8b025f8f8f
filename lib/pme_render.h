/*
 * pme_render.h - libpme's report model and its backends: the seed's
 * histogram page on a line printer (text), on a terminal (paged, with the
 * seed's commands), in PostScript, and as CSV.
 *
 * A program builds a struct pme_report (groups of rows, each row a bucket
 * with a count; then summary lines) and hands it to a backend with the
 * FILE it writes to.  Nothing here prints on its own or exits; errors are
 * returned as in pme.h.  pmehisto(1) describes the page layout.
 */
#ifndef PME_RENDER_H
#define PME_RENDER_H

#include <stdint.h>
#include <stdio.h>

#include "pme.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Report flags. */
#define PME_REPORT_COUNTS 0x01	/* a counts column after the percentage */
#define PME_REPORT_CUMUL  0x02	/* a cumulative percentage column */
#define PME_REPORT_SORT	  0x04	/* rows by count, largest first, in each
				   group; else in the order added */
#define PME_REPORT_NOADDR 0x08	/* no address range column on the pages
				   (text, terminal, PostScript), as when
				   each bucket is a whole routine; CSV
				   keeps its start and end columns */

/* One histogram bar: a bucket. */
struct pme_report_row {
	const char	*name;		/* unit name */
	const char	*kind;		/* unit kind, for exports; may be NULL */
	uint32_t	 unit;		/* rows of one unit in a row share their
					   name, printed on the first only */
	uint32_t	 bucket;	/* bucket index, for exports */
	uint64_t	 start, last;	/* the range as printed (relative or
					   absolute), last address included */
	uint64_t	 abs_start;	/* link-time range, for exports */
	uint64_t	 abs_last;
	uint64_t	 count;
	uint64_t	 count2;	/* the second measure, when the report
					   has one (pme_report_count2) */
	const char	*file;		/* its source file (line units: the
					   line's; routines: the declaring
					   one), for CSV; NULL: none */
	uint32_t	 line;		/* its source line; 0: none */
	const char	*module;	/* its load module's path, for CSV;
					   NULL: none */
};

struct pme_report;

/*
 * A report titled title (NULL: "Performance Measurement and Evaluation
 * Histogram").  Strings passed to the pme_report_* functions are copied,
 * escaped (pmehisto(1)): control characters and bytes that are not UTF-8
 * become "\x1b" and the like, so that no backend writes a name from a
 * file raw.
 * total is the count percentages are of (all samples, in buckets or not).
 */
struct pme_report *pme_report_new(const char *title, uint64_t total,
		    struct pme_error *err);
void		 pme_report_free(struct pme_report *r);		/* NULL ok */

/* The subtitle PostScript prints under the title (the command line). */
int		 pme_report_subtitle(struct pme_report *r, const char *s,
		    struct pme_error *err);
/* flags: PME_REPORT_*; cutoff: rows below cutoff percent of the total are
 * left out (0: none), and each group says how many. */
void		 pme_report_options(struct pme_report *r, unsigned flags,
		    double cutoff);
/*
 * A second measure per row, shown after the other columns under the
 * heading name (e.g. "calls", the call counts pmetrace keeps), and as a
 * last CSV column of that name; NULL removes it.
 */
int		 pme_report_count2(struct pme_report *r, const char *name,
		    struct pme_error *err);
/*
 * The unit of the counts when they are amounts, not numbers of samples
 * or events ("ns", "bytes"): the pages scale the bars in it ("Scaling:
 * 3238546 ns/asterisk") and head the counts column with it, and so does
 * CSV its count column; NULL: counts (the default).
 */
int		 pme_report_unit(struct pme_report *r, const char *unit,
		    struct pme_error *err);
/* Starts a group (the statement that made it); rows added next are its. */
int		 pme_report_group(struct pme_report *r, const char *title,
		    struct pme_error *err);
int		 pme_report_row(struct pme_report *r,
		    const struct pme_report_row *row, struct pme_error *err);
/* Counts n rows of count 0 in the last group without adding them: the
 * pages say them among the rows below the cutoff; CSV lists none. */
int		 pme_report_zeros(struct pme_report *r, size_t n,
		    struct pme_error *err);
/*
 * A line of the summary statistics: "label: value", labels aligned; a
 * NULL or empty label continues the previous line's value.
 */
int		 pme_report_summary(struct pme_report *r, const char *label,
		    const char *value, struct pme_error *err);

/*
 * Differential reports (pmehisto -D): each row a bucket of two runs, its
 * count the new run's beside the baseline's.  The pages show the
 * difference as the bar ('+' for growth, '-' for shrinkage, scaled to
 * the largest difference shown), then the columns baseline, new,
 * difference and change (percent of the baseline), and a mark for the
 * rows a gate caught; CSV writes bucket,unit,kind,group,start,end,
 * baseline,new,difference,change,row,gate.  The rows stay in the order
 * added (the caller sorts them); a cutoff leaves out the rows whose
 * counts are both below it.
 */
#define PME_DIFF_APPEARED 0x01	/* in the new run only: no baseline */
#define PME_DIFF_VANISHED 0x02	/* in the baseline only: no new count */
#define PME_DIFF_FAILED	  0x04	/* crossed a gate: marked FAIL */
#define PME_DIFF_NOISE	  0x08	/* over a gate's limit, but within the
				   noise of the counts: marked noise */
#define PME_DIFF_TOTAL	  0x10	/* a total, not a bucket: no bucket
				   index, addresses or bar */

/* Makes r a differential report; before its first row.  0, or -1 (no
 * memory). */
int		 pme_report_diff(struct pme_report *r, struct pme_error *err);
/* A row of a differential report: row->count is the new run's count,
 * base the baseline's (scaled to the new run's runs by the caller),
 * flags PME_DIFF_*. */
int		 pme_report_diff_row(struct pme_report *r,
		    const struct pme_report_row *row, uint64_t base,
		    unsigned flags, struct pme_error *err);

/* Page geometry of the text and terminal backends. */
struct pme_page {
	int		 width;		/* columns, at least 40 */
	int		 lines;		/* lines per page, at least 10 */
	int		 formfeed;	/* a form feed before each page but the
					   first (text) */
};

/* The line-printer histogram (.HIS): pages of pg (NULL: 132 x 60, form
 * feeds).  Returns 0, or -1 when writing fp failed. */
int		 pme_report_text(const struct pme_report *r, FILE *fp,
		    const struct pme_page *pg, struct pme_error *err);
/* Pages in that layout; the summary starts a page of its own. */
int		 pme_report_pages(const struct pme_report *r,
		    const struct pme_page *pg);

/*
 * The seed's terminal display: the pages fitted to cols x rows (a page
 * is rows - 1 lines, then the prompt), each followed by a prompt read
 * from in.  Return shows the next page, R restarts, S shows the summary,
 * K ends, H lists the commands; after the last page the display starts
 * over.  Added to the seed's: Q ends as K, B shows the page before (from
 * the first, the last), a number shows that page, /text shows this page
 * or the next (wrapping) with a row whose name contains text (ASCII case
 * ignored), those rows in reverse video, and / or n alone searches again
 * from the page after this one.  Ends at K, Q or the end of in.  When in
 * is a terminal it is put out of canonical mode and echo for the time of
 * the display (restored at the end, and by a SIGINT, SIGTERM, SIGHUP or
 * SIGQUIT that ends the program): a letter acts at once, '/' and a digit
 * begin a line that Return ends; otherwise each command is a line.
 */
int		 pme_report_term(const struct pme_report *r, FILE *in,
		    FILE *out, int rows, int cols, struct pme_error *err);

/* PostScript, DSC 3.0, US letter pages; the title and subtitle are
 * defined at the top of the prolog for editing. */
int		 pme_report_ps(const struct pme_report *r, FILE *fp,
		    struct pme_error *err);

/* CSV: a header line, then
 * bucket,unit,kind,group,start,end,count,percent,file,line,module per
 * row (start and end link-time, end included, hexadecimal; file, line
 * and module empty when unknown), every row whatever the cutoff; with a
 * second measure, its column last. */
int		 pme_report_csv(const struct pme_report *r, FILE *fp,
		    struct pme_error *err);

#ifdef __cplusplus
}
#endif

#endif /* PME_RENDER_H */
