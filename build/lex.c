/*
 * lex.c - splits one .PMD statement into tokens.
 *
 * A statement is one line.  Commas, colons and dashes are tokens of their
 * own; "..." is a string ("" inside it is one quote); '!' or '#' outside a
 * string starts a comment; everything else up to white space is a word.
 */
#include <stdlib.h>
#include <string.h>

#include "pmd.h"

static int
is_word_char(int c)
{
	return c != '\0' && strchr(" \t\r\n\f\v,:-\"!#", c) == NULL;
}

/* Copies the string token starting at the opening quote s[0]; returns the
 * length consumed, or 0 when the string does not end on this line. */
static size_t
lex_string(const char *s, char **dst)
{
	size_t i = 1;
	char *d = *dst;

	for (;;) {
		if (s[i] == '\0' || s[i] == '\n')
			return 0;
		if (s[i] == '"') {
			if (s[i + 1] != '"')
				break;
			i++;
		}
		*d++ = s[i++];
	}
	*d++ = '\0';
	*dst = d;
	return i + 1;
}

/*
 * Tokenizes line.  On success *toks holds *ntoks tokens and a final
 * PMD_T_END, their texts in *store; the caller frees both.  Returns -1 and
 * sets *why on an unterminated string (*toks then holds the tokens so far).
 */
int
pmd_lex(const char *line, struct pmd_token **toks, size_t *ntoks,
    char **store, const char **why)
{
	size_t len = strlen(line), n = 0, i = 0, used;
	struct pmd_token *t;
	char *d;

	*toks = NULL;
	*store = NULL;
	*ntoks = 0;
	/* A line of len bytes holds at most len + 1 tokens and len + (len+1)
	 * bytes of NUL-terminated text. */
	if ((t = calloc(len + 2, sizeof(*t))) == NULL ||
	    (d = *store = malloc(2 * len + 2)) == NULL) {
		free(t);
		*why = "out of memory";
		return -1;
	}
	*toks = t;
	while (line[i] != '\0') {
		char c = line[i];

		if (strchr(" \t\r\n\f\v", c) != NULL) {
			i++;
			continue;
		}
		if (c == '!' || c == '#')
			break;
		t[n].col = i + 1;
		t[n].text = d;
		if (c == '"') {
			if ((used = lex_string(line + i, &d)) == 0) {
				t[n].type = PMD_T_END;
				*ntoks = n;
				*why = "string not closed on this line";
				return -1;
			}
			t[n++].type = PMD_T_STRING;
			i += used;
			continue;
		}
		if (c == ',' || c == ':' || c == '-') {
			t[n++].type = c == ',' ? PMD_T_COMMA :
			    c == ':' ? PMD_T_COLON : PMD_T_DASH;
			*d++ = c;
			*d++ = '\0';
			i++;
			continue;
		}
		t[n++].type = PMD_T_WORD;
		while (is_word_char(line[i]))
			*d++ = line[i++];
		*d++ = '\0';
	}
	t[n].type = PMD_T_END;
	t[n].text = "";
	t[n].col = i + 1;
	*ntoks = n;
	return 0;
}
