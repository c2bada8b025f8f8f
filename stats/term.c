/*
 * term.c - stats' interactive view (stats(1) KEYS): a graph on the
 * terminal in raw mode, redrawn at each key and at each change of the
 * terminal's size, with the seed's views and keys.  ANSI escapes only:
 * 24-bit colour when COLORTERM says truecolor (or 24bit), else the
 * 256-colour cube, else (TERM=dumb, or NO_COLOR set) text.c's legend
 * characters.
 *
 * Rows are drawn as in the text chart, the first on top, a processor a
 * line; when the view has more rows than the screen has lines, two
 * processors share a line in colour: the upper half block (U+2580) is
 * drawn in the first's colour over the second's as background.  The
 * screen's up is the list's: Up, PageUp go towards the first row.
 *
 * Views.  View 1 is the whole graph and stays so (Alt-Up returns to
 * it).  A pan or zoom from the latest view changes it in place; from an
 * earlier one (view 1 included) it appends a new view, which becomes the
 * current one, the seed's rule.  Each graph has its views; switching to
 * a graph over the same time keeps the x range (a view change there by
 * the same rule).  'z' zooms to one row, the one under the cursor (its
 * label in reverse video), which j and k move: the seed's double click.
 *
 * Redraws go through the level-of-detail index (lod.c), built when a
 * graph is first shown: a redraw costs the cells and the events in view.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "stats.h"
#include "util.h"

enum cmode { C_MONO, C_256, C_TRUE };

/* Keys, with modifiers for the arrows. */
enum {
	K_NONE = 0, K_ESC = 0x1b, K_TAB = '\t',
	K_LEFT = 0x100, K_RIGHT, K_UP, K_DOWN, K_PGUP, K_PGDN, K_HOME, K_END,
	K_BTAB
};
#define M_SHIFT	0x1000
#define M_ALT	0x2000
#define M_CTRL	0x4000

struct view {
	uint64_t	 t0, t1;
	long		 r0, r1;
};

struct tgraph {
	const struct graph *g;
	struct grid	 gr;
	struct lod	 lod;
	int		 ready;		/* gr prepared, lod built */
	struct view	*v;
	size_t		 nv, cur;
	long		 cursor;	/* the row 'z' zooms to */
};

struct term {
	struct src	*s;
	struct tgraph	*tg;
	size_t		 ng, gi;
	int		 percent, help;
	enum cmode	 colour;
	int		 rows, cols;
	char		 msg[256];
	char		*buf;		/* the frame being written */
	size_t		 len, cap;
	int		 fd;		/* where frames go */
	/* term_replay(): the keys' bytes, read in place of the terminal's,
	 * and the geometry fixed; else keys is NULL. */
	const uint8_t	*keys;
	size_t		 nkeys, at;
};

/* ------------------------------------------------------ the terminal */

static struct termios saved;
static int raw_on;
static volatile sig_atomic_t resized, resumed;

static const char enter_seq[] = "\033[?1049h\033[?25l\033[H\033[2J";
static const char leave_seq[] = "\033[0m\033[?25h\033[?1049l";

static void
put_fd(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t k = write(fd, s, n);

		if (k <= 0 && errno != EINTR)
			return;
		if (k > 0) {
			s += k;
			n -= (size_t)k;
		}
	}
}

/* Async-signal-safe: tcsetattr and write only. */
static void
term_restore(void)
{
	if (!raw_on)
		return;
	tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
	put_fd(STDOUT_FILENO, leave_seq, sizeof(leave_seq) - 1);
	raw_on = 0;
}

static int
term_raw(void)
{
	struct termios t = saved;

	/* Raw but for ISIG: ^C, ^Z and ^\ stay signals, handled below. */
	t.c_iflag &= ~(tcflag_t)(BRKINT | ICRNL | INPCK | ISTRIP | IXON);
	t.c_oflag &= ~(tcflag_t)OPOST;
	t.c_cflag |= CS8;
	t.c_lflag &= ~(tcflag_t)(ECHO | ICANON | IEXTEN);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &t) == -1)
		return -1;
	raw_on = 1;
	put_fd(STDOUT_FILENO, enter_seq, sizeof(enter_seq) - 1);
	return 0;
}

static void
on_signal(int sig)
{
	int e = errno;

	switch (sig) {
	case SIGWINCH:
		resized = 1;
		break;
	case SIGCONT:
		if (!raw_on)
			term_raw();
		resumed = 1;
		break;
	case SIGTSTP:
		term_restore();
		signal(SIGTSTP, SIG_DFL);
		raise(SIGTSTP);
		/* Here again after SIGCONT. */
		signal(SIGTSTP, on_signal);
		break;
	default:
		term_restore();
		signal(sig, SIG_DFL);
		raise(sig);
	}
	errno = e;
}

static void
handlers(void (*fn)(int))
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT,
	    SIGTSTP, SIGCONT, SIGWINCH };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: poll() returns at a resize. */
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

static void
term_size(struct term *t)
{
	struct winsize ws;

	if (t->keys != NULL)
		return;
	t->rows = 24;
	t->cols = 80;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 &&
	    ws.ws_col > 0) {
		t->rows = ws.ws_row;
		t->cols = ws.ws_col;
	}
}

static enum cmode
colour_mode(void)
{
	const char *term = getenv("TERM"), *ct = getenv("COLORTERM");

	if (getenv("NO_COLOR") != NULL || term == NULL ||
	    strcmp(term, "dumb") == 0)
		return C_MONO;
	if (ct != NULL && (strcmp(ct, "truecolor") == 0 ||
	    strcmp(ct, "24bit") == 0))
		return C_TRUE;
	return C_256;
}

/* ---------------------------------------------------------- the keys */

/* A byte of input, waiting at most ms milliseconds (-1: for ever);
 * -1 when none came, -2 at a signal, -3 at the end of input.  Replayed
 * keys end as a terminal that sends nothing more would: at once. */
static int
get_byte(struct term *t, int ms)
{
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	unsigned char c;
	int n;

	if (t->keys != NULL)
		return t->at < t->nkeys ? t->keys[t->at++] : ms < 0 ? -3 : -1;
	if ((n = poll(&pfd, 1, ms)) == -1)
		return errno == EINTR ? -2 : -1;
	if (n == 0)
		return -1;
	if (read(STDIN_FILENO, &c, 1) != 1)
		return -3;
	return c;
}

/* The modifier of xterm's CSI 1;m: 2 shift, 3 alt, 5 ctrl, sums + 1. */
static int
modifiers(int m)
{
	int k = 0;

	m -= 1;
	if (m & 1)
		k |= M_SHIFT;
	if (m & 2)
		k |= M_ALT;
	if (m & 4)
		k |= M_CTRL;
	return k;
}

static int
csi_final(int c, int p1)
{
	switch (c) {
	case 'A': return K_UP;
	case 'B': return K_DOWN;
	case 'C': return K_RIGHT;
	case 'D': return K_LEFT;
	case 'H': return K_HOME;
	case 'F': return K_END;
	case 'Z': return K_BTAB;
	case '~':
		switch (p1) {
		case 1: case 7: return K_HOME;
		case 4: case 8: return K_END;
		case 5: return K_PGUP;
		case 6: return K_PGDN;
		}
	}
	return K_NONE;
}

/* After ESC [ (or ESC O): parameters, then the final byte. */
static int
read_csi(struct term *t)
{
	int p[2] = { 0, 0 }, np = 0, c, k;

	while ((c = get_byte(t, 50)) >= 0) {
		if (c >= '0' && c <= '9') {
			/* No key has a parameter above 99: a longer one is
			 * held, not overflowed. */
			if (p[np] < 100000)
				p[np] = p[np] * 10 + (c - '0');
			continue;
		}
		if (c == ';') {
			np = np < 1 ? np + 1 : 1;
			continue;
		}
		k = csi_final(c, p[0]);
		return k == K_NONE ? K_NONE : k | (np ? modifiers(p[1]) : 0);
	}
	return K_NONE;
}

/* The next key; -2 when a signal came first, -3 at the end of input. */
static int
get_key(struct term *t)
{
	int c = get_byte(t, -1), d;

	if (c < 0 || c != 0x1b)
		return c;
	if ((d = get_byte(t, 50)) < 0)
		return K_ESC;
	if (d == '[' || d == 'O')
		return read_csi(t);
	if (d == 0x1b) {
		/* ESC-prefixed arrows: Alt with tmux and some xterms. */
		if ((d = get_byte(t, 50)) == '[' || d == 'O')
			return read_csi(t) | M_ALT;
		return K_ESC;
	}
	return K_NONE;
}

/* --------------------------------------------------------- the frame */

static void
out(struct term *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		/* No buffer yet: vsnprintf(NULL, 0) sizes it (NULL + 0 is
		 * undefined). */
		n = vsnprintf(t->buf != NULL ? t->buf + t->len : NULL,
		    t->cap - t->len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < t->cap - t->len) {
			t->len += (size_t)n;
			return;
		}
		if (n < 0)
			return;
		{
			size_t cap = (t->cap + (size_t)n + 1) * 2;
			char *b = realloc(t->buf, cap);

			if (b == NULL)
				return;
			t->buf = b;
			t->cap = cap;
		}
	}
}

static char
mark(int i)
{
	static const char marks[] = "#=+*o%@x:-~^&$!?ABCDEFGHIJKLMNOPQRSTUVW"
	    "XYZabcdefghijklmnopqrstuvwxyz0123456789";

	return i < 0 ? ' ' : marks[i % (int)(sizeof(marks) - 1)];
}

/* Sets the foreground (bg 0) or background (bg 1) to rgb, or the
 * default for -1. */
static void
colour(struct term *t, int bg, long rgb)
{
	unsigned r = (unsigned)(rgb >> 16) & 0xff, g = (unsigned)(rgb >> 8) &
	    0xff, b = (unsigned)rgb & 0xff;

	if (rgb < 0)
		out(t, "\033[%dm", bg ? 49 : 39);
	else if (t->colour == C_TRUE)
		out(t, "\033[%d;2;%u;%u;%um", bg ? 48 : 38, r, g, b);
	else
		out(t, "\033[%d;5;%um", bg ? 48 : 38, 16 + 36 *
		    ((r * 5 + 127) / 255) + 6 * ((g * 5 + 127) / 255) +
		    (b * 5 + 127) / 255);
}

/* Text cut or padded to width bytes, a control byte shown as '?'. */
static void
put_text(struct term *t, const char *s, int width)
{
	int n = 0;

	for (; *s != '\0' && n < width; s++, n++)
		out(t, "%c", (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s);
	for (; n < width; n++)
		out(t, " ");
}

/* A name from a file escaped for a terminal (pme_escape), cut or padded
 * to width characters. */
static void
put_name(struct term *t, const char *s, int width)
{
	char e[1024];
	const char *p;
	int n = 0;

	pme_escape(e, sizeof(e), s);
	for (p = e; *p != '\0'; p++) {
		if (((unsigned char)*p & 0xc0) != 0x80 && n++ == width)
			break;
		out(t, "%c", *p);
	}
	for (; n < width; n++)
		out(t, " ");
}

static long
rgb_of(const struct grid *gr, int leg)
{
	return leg < 0 ? -1 : (long)gr->leg[leg].rgb;
}

static int
label_width(const struct term *t, const struct grid *gr)
{
	char buf[64];
	int w = 3;

	for (long r = gr->rlo; r <= gr->rhi && r < gr->rlo + 4096; r++) {
		int n = (int)strlen(src_rowname(t->s, r, buf, sizeof(buf)));

		w = n > w ? n : w;
	}
	return w > 16 ? 16 : w;
}

/* One line of the chart: grid rows a and b (b < 0: a alone). */
static void
chart_line(struct term *t, const struct tgraph *tg, int lw, long a, long b)
{
	const struct grid *gr = &tg->gr;
	const int16_t *ca = gr->cell + (size_t)a * gr->w.ncols;
	const int16_t *cb = b >= 0 ? gr->cell + (size_t)b * gr->w.ncols : NULL;
	char buf[64];

	if (gr->row[a] == tg->cursor || (b >= 0 && gr->row[b] == tg->cursor))
		out(t, "\033[7m");
	put_name(t, src_rowname(t->s, gr->row[a], buf, sizeof(buf)), lw);
	out(t, "\033[0m|");
	for (uint32_t c = 0; c < gr->w.ncols; c++) {
		if (t->colour == C_MONO)
			out(t, "%c", mark(ca[c]));
		else if (cb == NULL) {
			colour(t, 1, rgb_of(gr, ca[c]));
			out(t, " ");
		} else if (ca[c] < 0 && cb[c] >= 0) {
			colour(t, 0, rgb_of(gr, cb[c]));
			colour(t, 1, -1);
			out(t, "\u2584");
		} else {
			colour(t, 0, rgb_of(gr, ca[c]));
			colour(t, 1, rgb_of(gr, cb[c]));
			out(t, ca[c] < 0 ? " " : "\u2580");
		}
	}
	out(t, "\033[0m|\033[K\r\n");
}

static void
legend(struct term *t, const struct grid *gr, int *lines)
{
	int x = 0, w = 36;

	for (size_t i = 0; i < gr->nleg && *lines > 0; i++) {
		char occ[64];

		if (gr->leg[i].occ == 0 && i + 1 == gr->nleg &&
		    gr->leg[i].lo < -1e300)
			continue;
		if (t->percent || gr->occ_total == 0)
			snprintf(occ, sizeof(occ), "%5.1f%%", gr->occ_total >
			    0 ? 100 * gr->leg[i].occ / gr->occ_total : 0);
		else {
			struct graph plain = *gr->g;

			plain.scale = 1;
			plain.format = "";
			fmt_value(occ, sizeof(occ), &plain, gr->leg[i].occ);
		}
		if (x + w > t->cols) {
			out(t, "\033[K\r\n");
			x = 0;
			if (--*lines == 0)
				return;
		}
		if (t->colour == C_MONO)
			out(t, " %c ", mark((int)i));
		else {
			out(t, " ");
			colour(t, 1, (long)gr->leg[i].rgb);
			out(t, " \033[0m ");
		}
		put_name(t, gr->leg[i].label, w - 16);
		out(t, " %11s ", occ);
		x += w;
	}
	out(t, "\033[K\r\n");
	--*lines;
	if (gr->has_avg && *lines > 0) {
		out(t, " Average value: %g (%llu events)\033[K\r\n", gr->avg,
		    (unsigned long long)gr->nev);
		--*lines;
	}
}

static void
axis(struct term *t, const struct grid *gr, int lw)
{
	struct graph plain = *gr->g;
	char a[64], b[64];
	int gap;

	plain.scale = 1;
	plain.format = "";
	fmt_value(a, sizeof(a), &plain, (double)gr->w.t0);
	fmt_value(b, sizeof(b), &plain, (double)gr->w.t1);
	gap = (int)gr->w.ncols + 2 - (int)strlen(a) - (int)strlen(b);
	out(t, "%*s%s%*s%s\033[K\r\n", lw, "", a, gap > 1 ? gap : 1, "", b);
	out(t, "%*s%s%s\033[K\r\n", lw + 1, "", gr->xlabel != NULL ?
	    gr->xlabel : "Time / ", gr->xlabel != NULL ? "" : src_unit(t->s,
	    a, sizeof(a)));
}

static const char help_text[] =
    "Left/Right pan 20%  S-Left/Right 4%  Up/Down rows  PgUp/PgDn first/"
    "last rows  Home/End  C-Up/C-Down zoom  M-Left/M-Right views  M-Up "
    "view 1  Tab/n/p graph  j/k z row  % legend  P stats.ps  q quit";

/*
 * The help on the last rows: its items (two blanks apart) packed into as
 * many lines as the terminal's width needs, each narrower than it, so
 * that no line wraps and scrolls the view's heading off.
 */
static void
help_lines(struct term *t)
{
	const char *item[32], *p = help_text;
	int len[32], line[32], n = 0, nl = 1, w = 0, i;

	for (; *p != '\0' && n < 32; n++) {
		const char *e = strstr(p, "  ");

		item[n] = p;
		len[n] = e != NULL ? (int)(e - p) : (int)strlen(p);
		if (w > 0 && w + 2 + len[n] > t->cols - 1) {
			nl++;
			w = 0;
		}
		w += (w > 0 ? 2 : 0) + len[n];
		line[n] = nl;
		p = e != NULL ? e + 2 : p + len[n];
	}
	for (i = 0; i < n; i++) {
		if (i == 0 || line[i] != line[i - 1])
			out(t, "%s\033[%d;1H", i > 0 ? "\033[K" : "",
			    t->rows - nl + line[i]);
		else
			out(t, "  ");
		out(t, "%.*s", len[i] < t->cols - 1 ? len[i] : t->cols - 1,
		    item[i]);
	}
	out(t, "\033[K");
}

/* Text (a histometric, a utilization graph) shown as lines. */
static void
text_body(struct term *t, const char *text, int lines)
{
	for (const char *p = text; *p != '\0' && lines > 0; lines--) {
		size_t n = strcspn(p, "\n");

		put_text(t, p, (int)n < t->cols ? (int)n : t->cols);
		out(t, "\033[K\r\n");
		p += n + (p[n] == '\n');
	}
}

static int
body_text(struct term *t, struct tgraph *tg, int lines)
{
	struct outopt o = { .percent = t->percent, .width = t->cols };
	const struct gkind_ops *k = &gkinds[tg->g->kind];
	struct pme_error err;
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	if (fp == NULL)
		return -1;
	/* A graph with nothing to draw shows nothing. */
	if (k->draw != NULL)
		k->draw(fp, tg->g, t->s, O_TEXT, &o, &err);
	else
		out_text(fp, &tg->gr, &o);
	fclose(fp);
	text_body(t, text != NULL ? text : "", lines);
	free(text);
	return 0;
}

/* The lines the chart has, and whether two rows share a line. */
static int
chart_lines(const struct term *t, const struct grid *gr, int *pack)
{
	int avail = t->rows - 6 - 2;	/* header, axis, legend, status */

	if (avail < 1)
		avail = 1;
	*pack = t->colour != C_MONO && (long)gr->rhi - gr->rlo + 1 > avail;
	return avail * (*pack ? 2 : 1);
}

static int
draw(struct term *t, struct pme_error *err)
{
	struct tgraph *tg = &t->tg[t->gi];
	struct grid *gr = &tg->gr;
	struct view *v = &tg->v[tg->cur];
	struct window w = { .t0 = v->t0, .t1 = v->t1, .r0 = v->r0, .r1 = v->r1 };
	int lw = label_width(t, gr), pack, cap = chart_lines(t, gr, &pack);
	int lines = t->rows - 2;
	char a[64], b[64], u[64];
	struct graph plain = *gr->g;

	t->len = 0;
	out(t, "\033[H\033[0m");
	if (w.r1 - w.r0 + 1 > cap)
		w.r1 = w.r0 + cap - 1;
	w.ncols = t->cols - lw - 2 > 1 ? (uint32_t)(t->cols - lw - 2) : 1;
	if (gkinds[gr->g->kind].flags & GK_EVENTS)
		if (lod_draw(&tg->lod, gr, &w, err) == -1)
			return -1;
	plain.scale = 1;
	plain.format = "";
	fmt_value(a, sizeof(a), &plain, (double)v->t0);
	fmt_value(b, sizeof(b), &plain, (double)v->t1);
	out(t, "\033[1mview %zu/%zu\033[0m  ", tg->cur + 1, tg->nv);
	put_name(t, gr->title, (int)strlen(gr->title));
	out(t, "  (graph %zu/%zu)\033[K\r\n", t->gi + 1, t->ng);
	out(t, "%s %s to %s, rows %ld to %ld\033[K\r\n", src_unit(t->s, u,
	    sizeof(u)), a, b, v->r0, v->r1);
	if ((gkinds[gr->g->kind].flags & (GK_EVENTS | GK_BARS)) ==
	    GK_EVENTS) {
		for (uint32_t r = 0; r < gr->nrows; r += pack ? 2 : 1, lines--)
			chart_line(t, tg, lw, r, pack && r + 1 < gr->nrows ?
			    (long)r + 1 : -1);
		axis(t, gr, lw);
		lines -= 4;
		legend(t, gr, &lines);
	} else
		body_text(t, tg, lines - 2);
	if (t->help) {
		out(t, "\033[J");
		help_lines(t);
	} else
		out(t, "\033[J\033[%d;1H%.*s\033[K", t->rows, t->cols - 1,
		    t->msg[0] != '\0' ? t->msg : "? help  q quit");
	t->msg[0] = '\0';
	put_fd(t->fd, t->buf, t->len);
	return 0;
}

/* ---------------------------------------------------------- the views */

static void
clamp(const struct grid *gr, struct view *v)
{
	uint64_t w = v->t1 - v->t0, all = gr->thi - gr->tlo;
	long n = v->r1 - v->r0;

	if (w > all)
		w = all;
	if (w < 2)
		w = 2 > all ? all : 2;
	if (v->t0 < gr->tlo || v->t0 > gr->thi)
		v->t0 = gr->tlo;
	if (v->t0 + w > gr->thi)
		v->t0 = gr->thi - w;
	v->t1 = v->t0 + w;
	if (n > gr->rhi - gr->rlo)
		n = gr->rhi - gr->rlo;
	if (v->r0 < gr->rlo)
		v->r0 = gr->rlo;
	if (v->r0 + n > gr->rhi)
		v->r0 = gr->rhi - n;
	v->r1 = v->r0 + n;
}

/* Applies nv to the graph's views by the rule in the comment on top. */
static void
change(struct tgraph *tg, struct view nv)
{
	struct view *p;

	clamp(&tg->gr, &nv);
	if (memcmp(&nv, &tg->v[tg->cur], sizeof(nv)) == 0)
		return;
	if (tg->cur + 1 == tg->nv && tg->cur > 0) {
		tg->v[tg->cur] = nv;
		return;
	}
	if ((p = realloc(tg->v, (tg->nv + 1) * sizeof(*p))) == NULL)
		return;
	tg->v = p;
	tg->v[tg->nv] = nv;
	tg->cur = tg->nv++;
}

static int
prepare(struct term *t, struct tgraph *tg, struct pme_error *err)
{
	struct window w;

	if (tg->ready)
		return 0;
	if (!(gkinds[tg->g->kind].flags & GK_EVENTS)) {
		memset(&tg->gr, 0, sizeof(tg->gr));
		tg->gr.g = tg->g;
		tg->gr.src = t->s;
		tg->gr.tlo = t->s->run.first;
		tg->gr.thi = t->s->run.last + 1;
		snprintf(tg->gr.title, sizeof(tg->gr.title), "%s",
		    tg->g->name != NULL ? tg->g->name : tg->g->id);
	} else if (grid_prepare(&tg->gr, tg->g, t->s, err) == -1 ||
	    lod_build(&tg->lod, &tg->gr, err) == -1)
		return -1;
	if ((tg->v = calloc(1, sizeof(*tg->v))) == NULL) {
		pme_setnomem(err);
		return -1;
	}
	grid_whole(&tg->gr, 1, &w);
	tg->v[0] = (struct view){ w.t0, w.t1, w.r0, w.r1 };
	tg->nv = 1;
	tg->cursor = w.r0;
	tg->ready = 1;
	return 0;
}

static int
switch_graph(struct term *t, size_t to, struct pme_error *err)
{
	struct tgraph *from = &t->tg[t->gi], *tg = &t->tg[to];
	struct view nv;

	if (prepare(t, tg, err) == -1)
		return -1;
	t->gi = to;
	/* The same time axis: the x range goes along. */
	if (tg->gr.tlo == from->gr.tlo && tg->gr.thi == from->gr.thi) {
		nv = tg->v[tg->cur];
		nv.t0 = from->v[from->cur].t0;
		nv.t1 = from->v[from->cur].t1;
		change(tg, nv);
	}
	return 0;
}

/* Pans or zooms by key k; 0 when k is no such key. */
static int
move(struct term *t, int k)
{
	struct tgraph *tg = &t->tg[t->gi];
	struct view nv = tg->v[tg->cur];
	uint64_t w = nv.t1 - nv.t0, d = w / 5, s = w / 25;
	long nr = nv.r1 - nv.r0 + 1, dr = nr / 5 > 0 ? nr / 5 : 1;
	int pack;
	long cap = chart_lines(t, &tg->gr, &pack);

	if (nr > cap) {
		/* The rows on the screen are the view's. */
		nr = cap;
		nv.r1 = nv.r0 + nr - 1;
		dr = nr / 5 > 0 ? nr / 5 : 1;
	}
	switch (k) {
	case K_LEFT: nv.t0 -= nv.t0 - tg->gr.tlo < d ? nv.t0 - tg->gr.tlo : d;
		break;
	case K_RIGHT: nv.t0 += d; break;
	case K_LEFT | M_SHIFT:
		nv.t0 -= nv.t0 - tg->gr.tlo < s ? nv.t0 - tg->gr.tlo : s;
		break;
	case K_RIGHT | M_SHIFT: nv.t0 += s; break;
	case K_UP: nv.r0 -= dr; nv.r1 -= dr; break;
	case K_DOWN: nv.r0 += dr; nv.r1 += dr; break;
	case K_PGUP: nv.r1 -= nv.r0 - tg->gr.rlo; nv.r0 = tg->gr.rlo; break;
	case K_PGDN: nv.r0 += tg->gr.rhi - nv.r1; nv.r1 = tg->gr.rhi; break;
	case K_HOME: nv.t0 = tg->gr.tlo; break;
	case K_END: nv.t0 = tg->gr.thi - w; break;
	case K_UP | M_CTRL:
		nv.t0 = nv.t0 - tg->gr.tlo < w / 2 ? tg->gr.tlo :
		    nv.t0 - w / 2;
		w *= 2;
		break;
	case K_DOWN | M_CTRL:
		nv.t0 += w / 4;
		w /= 2;
		break;
	default:
		return 0;
	}
	nv.t1 = nv.t0 + w;
	change(tg, nv);
	return 1;
}

/*
 * P: the view as it is on the screen, as PostScript in stats.ps (the
 * seed's WYSIWYG size): the same cells on a page of the terminal's
 * proportions, a tenth of an inch a column, a fifth a line.
 */
static void
ps_view(struct term *t)
{
	struct tgraph *tg = &t->tg[t->gi];
	struct outopt o = { .percent = t->percent };
	struct pme_error err;
	char paper[64];
	struct outfile of;

	if (!(gkinds[tg->g->kind].flags & GK_EVENTS)) {
		snprintf(t->msg, sizeof(t->msg), "P draws charts; for this "
		    "graph: stats -T ps");
		return;
	}
	snprintf(paper, sizeof(paper), "%.1fx%.1f", t->cols * 0.1 > 2 ?
	    t->cols * 0.1 : 2, t->rows * 0.2 > 2 ? t->rows * 0.2 : 2);
	o.paper = paper;
	if (outfile_open(&of, "stats.ps", &err) == -1) {
		snprintf(t->msg, sizeof(t->msg), "%s", pme_strerror(&err));
		return;
	}
	if (ps_begin(of.fp, 1, &o, &err) == -1 ||
	    out_ps(of.fp, &tg->gr, &o) == -1 || ps_end(of.fp) == -1) {
		outfile_abort(&of);
		snprintf(t->msg, sizeof(t->msg), "stats.ps: write failed");
		return;
	}
	if (outfile_commit(&of, &err) == -1) {
		snprintf(t->msg, sizeof(t->msg), "%s", pme_strerror(&err));
		return;
	}
	snprintf(t->msg, sizeof(t->msg), "wrote stats.ps (%s inches)", paper);
}

/* Acts on key k; 1 to quit, -1 on an error. */
static int
key(struct term *t, int k, struct pme_error *err)
{
	struct tgraph *tg = &t->tg[t->gi];
	struct view nv;

	t->help = 0;
	if (move(t, k))
		return 0;
	switch (k) {
	case 'q': case 'Q': case K_ESC:
		return 1;
	case '?': t->help = 1; break;
	case '%': t->percent = !t->percent; break;
	case 'P': ps_view(t); break;
	case K_LEFT | M_ALT: if (tg->cur > 0) tg->cur--; break;
	case K_RIGHT | M_ALT: if (tg->cur + 1 < tg->nv) tg->cur++; break;
	case K_UP | M_ALT: tg->cur = 0; break;
	case K_TAB: case 'n':
		return switch_graph(t, (t->gi + 1) % t->ng, err);
	case K_BTAB: case 'p':
		return switch_graph(t, (t->gi + t->ng - 1) % t->ng, err);
	case 'j':
		if (tg->cursor < tg->v[tg->cur].r1)
			tg->cursor++;
		break;
	case 'k':
		if (tg->cursor > tg->v[tg->cur].r0)
			tg->cursor--;
		break;
	case 'z':
		nv = tg->v[tg->cur];
		nv.r0 = nv.r1 = tg->cursor;
		change(tg, nv);
		break;
	default:
		snprintf(t->msg, sizeof(t->msg), "unknown key (? for help)");
	}
	return 0;
}

/* ------------------------------------------------------------- main */

static int
loop(struct term *t, struct pme_error *err)
{
	int k, rc;

	for (;;) {
		struct tgraph *tg = &t->tg[t->gi];

		if (tg->cursor < tg->v[tg->cur].r0 ||
		    tg->cursor > tg->v[tg->cur].r1)
			tg->cursor = tg->v[tg->cur].r0;
		resized = resumed = 0;
		term_size(t);
		if (draw(t, err) == -1)
			return -1;
		do
			k = get_key(t);
		while (k == K_NONE || (k == -2 && !resized && !resumed));
		if (k == -2)
			continue;
		if (k < 0)
			return 0;	/* the end of input: as q */
		if ((rc = key(t, k, err)) != 0)
			return rc == 1 ? 0 : -1;
	}
}

/* t for graphs gv[0..ng), the first prepared (its events read); 0, or
 * -1 with err (term_free() frees what was made either way). */
static int
term_init(struct term *t, struct src *s, const struct graph **gv,
    size_t ng, int percent, struct pme_error *err)
{
	t->s = s;
	t->ng = ng;
	t->percent = percent;
	t->fd = STDOUT_FILENO;
	if (ng == 0) {
		pme_seterr(err, PME_EINVAL, "no graph to show");
		return -1;
	}
	if ((t->tg = calloc(ng, sizeof(*t->tg))) == NULL) {
		pme_setnomem(err);
		return -1;
	}
	for (size_t i = 0; i < ng; i++)
		t->tg[i].g = gv[i];
	return prepare(t, &t->tg[0], err);
}

static void
term_free(struct term *t)
{
	for (size_t i = 0; t->tg != NULL && i < t->ng; i++) {
		if (t->tg[i].ready &&
		    (gkinds[t->tg[i].g->kind].flags & GK_EVENTS)) {
			lod_free(&t->tg[i].lod);
			grid_free(&t->tg[i].gr);
		}
		free(t->tg[i].v);
	}
	free(t->tg);
	free(t->buf);
}

int
term_run(struct src *s, const struct graph **gv, size_t ng, int percent,
    struct pme_error *err)
{
	struct term t = { 0 };
	int rc = -1;

	if (ng == 0) {
		pme_seterr(err, PME_EINVAL, "no graph to show");
		return -1;
	}
	if (tcgetattr(STDIN_FILENO, &saved) == -1) {
		stats_syserr(err, errno, "standard input: not a terminal: %s",
		    strerror(errno));
		return -1;
	}
	t.colour = colour_mode();
	/* Read the events before the screen changes, so that an error is
	 * told on the normal screen. */
	if (term_init(&t, s, gv, ng, percent, err) == -1)
		goto out;
	handlers(on_signal);
	if (term_raw() == -1) {
		stats_syserr(err, errno, "standard input: %s",
		    strerror(errno));
		goto out;
	}
	rc = loop(&t, err);
	term_restore();
out:
	handlers(SIG_DFL);
	term_free(&t);
	return rc;
}

int
term_replay(struct src *s, const struct graph **gv, size_t ng,
    int percent, const struct term_geom *geom, const uint8_t *keys,
    size_t nkeys, struct pme_error *err)
{
	struct term t = { 0 };
	int rc = -1;

	t.keys = keys != NULL ? keys : (const uint8_t *)"";
	t.nkeys = nkeys;
	t.rows = geom->rows;
	t.cols = geom->cols;
	t.colour = geom->colour == 2 ? C_TRUE : geom->colour == 1 ? C_256 :
	    C_MONO;
	if (term_init(&t, s, gv, ng, percent, err) == 0) {
		t.fd = geom->fd;
		rc = loop(&t, err);
	}
	term_free(&t);
	return rc;
}
