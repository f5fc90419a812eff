/*
 * run_seq.c - sequences in `tdsl run`.  An imported ONNX model whose
 * graph takes or gives a sequence has one kernel parameter (or output)
 * per element, listed by a comment line the importer writes
 * (parser/onnx/onnx_emit.c):
 *     # onnx-sequence-input #0: 'xs' = xs_0, xs_1
 * A --in or --out for the sequence, by its ONNX name or in its place
 * among the bare ones, names one SequenceProto .pb file (ONNX's test
 * data); it is split here into one bind per element, and the outputs
 * of a sequence are written back as one such file.  An optional is
 * the same with an OptionalProto file and a line that says what the
 * model was imported with (tensor, sequence or none):
 *     # onnx-optional-input #0: 'x' = tensor x
 * an input's file must hold the same; an output without an element is
 * written after the run, from the line alone.
 */
#include "cli/cli.h"
#include "interp/interp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Seq {
    char *onnx;             /* the ONNX name */
    int pos;                /* among the graph's inputs or outputs */
    char **ids;             /* the elements' tdsl names */
    int n;
    int taken;              /* a bind names it */
    int opt;                /* an optional's elem_type: 0 none, 1 a
                               tensor, 3 a sequence; -1 a sequence */
} Seq;

static void free_seqs(Seq *q, int n)
{
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < q[i].n; j++)
            free(q[i].ids[j]);
        free(q[i].ids);
        free(q[i].onnx);
    }
    free(q);
}

/* The sequence and optional lines of `kind` in prog's comments. */
static Seq *parse_seqs(const TlProgram *prog, const char *kind, int *nq)
{
    char head[40], ohead[40];
    size_t hn = (size_t)snprintf(head, sizeof head, "# onnx-sequence-%s #",
                                 kind);
    size_t on = (size_t)snprintf(ohead, sizeof ohead,
                                 "# onnx-optional-%s #", kind);
    static const struct {
        const char *word;
        int opt;
    } whats[] = {{" none", 0}, {" tensor", 1}, {" sequence", 3}};
    Seq *q = NULL;

    *nq = 0;
    for (int c = 0; c < prog->comments.n; c++) {
        const char *t = prog->comments.v[c].text, *p, *e;
        char *end;
        long pos;
        int opt = -1;
        size_t skip = hn;
        Seq *s;
        if (!strncmp(t, ohead, on)) {
            opt = -2;       /* what it holds follows */
            skip = on;
        } else if (strncmp(t, head, hn)) {
            continue;
        }
        pos = strtol(t + skip, &end, 10);
        if (end == t + skip || strncmp(end, ": '", 3) ||
            !(e = strstr(end + 3, "' =")))
            continue;
        p = e + 3;
        for (size_t w = 0; opt == -2 && w < sizeof whats / sizeof *whats;
             w++) {
            size_t wn = strlen(whats[w].word);
            if (!strncmp(p, whats[w].word, wn) &&
                (p[wn] == ' ' || !p[wn])) {
                opt = whats[w].opt;
                p += wn;
            }
        }
        if (opt == -2)
            continue;
        q = realloc(q, (size_t)(*nq + 1) * sizeof *q);
        if (!q)
            abort();
        s = &q[(*nq)++];
        memset(s, 0, sizeof *s);
        s->pos = (int)pos;
        s->opt = opt;
        s->onnx = tl_xstrdup(end + 3);
        s->onnx[e - (end + 3)] = '\0';
        while (*p) {
            size_t len;
            while (*p == ' ' || *p == ',')
                p++;
            len = strcspn(p, " ,");
            if (!len)
                break;
            s->ids = tl_xrealloc(s->ids, (size_t)(s->n + 1) *
                                 sizeof *s->ids);
            s->ids[s->n] = tl_xstrdup(p);
            s->ids[s->n++][len] = '\0';
            p += len;
        }
    }
    return q;
}

/* The sequence bound by b (by name, or "NAME=FILE" for a name that is
 * not an identifier), with *file its file; NULL when none. */
static Seq *named_seq(Seq *q, int nq, const Bind *b, const char **file)
{
    for (int i = 0; i < nq; i++) {
        size_t on = strlen(q[i].onnx);
        if (b->name && !strcmp(b->name, q[i].onnx)) {
            *file = b->spec;
            return &q[i];
        }
        if (!b->name && !strncmp(b->spec, q[i].onnx, on) &&
            b->spec[on] == '=') {
            *file = b->spec + on + 1;
            return &q[i];
        }
    }
    return NULL;
}

/* What an optional of elem_type opt holds, in messages. */
static const char *holds(int opt)
{
    return opt == 0 ? "no element" : opt == 1 ? "a tensor" : "a sequence";
}

/* Appends the binds of sequence (or optional) s's elements, of file
 * `file`; an output optional without an element goes to none[]. */
static int add_elems(Bind **v, int *n, Seq *s, const char *file,
                     const char *kind, char ***none, int *nnone)
{
    TlTensor **ts = NULL;
    char err[400];
    int count = 0, got = s->opt;

    if (s->taken)
        return cli_usage("run: %s '%s' is given twice", kind, s->onnx);
    s->taken = 1;
    if (strlen(file) < 3 || strcmp(file + strlen(file) - 3, ".pb"))
        return cli_usage("run: %s '%s' is %s: its file must be an ONNX "
                         "%s (.pb), not '%s'", kind, s->onnx,
                         s->opt < 0 ? "a sequence" : "optional",
                         s->opt < 0 ? "SequenceProto" : "OptionalProto",
                         file);
    if (!strcmp(kind, "input")) {
        ts = s->opt < 0 ? tl_onnx_sequence_read(file, &count, err,
                                                sizeof err)
                        : tl_onnx_optional_read(file, &got, &count, err,
                                                sizeof err);
        if (!ts) {
            fprintf(stderr, "tdsl: input '%s': %s\n", s->onnx, err);
            return EXIT_DIAG;
        }
        if (got != s->opt || count != s->n) {
            if (got != s->opt)
                fprintf(stderr, "tdsl: input '%s': '%s' holds %s but the "
                        "model was imported with %s (import it again with "
                        "--bind)\n", s->onnx, file, holds(got),
                        holds(s->opt));
            else
                fprintf(stderr, "tdsl: input '%s': '%s' holds %d tensor%s "
                        "but the sequence has %d\n", s->onnx, file, count,
                        count == 1 ? "" : "s", s->n);
            for (int i = 0; i < count; i++)
                tl_tensor_unref(ts[i]);
            free(ts);
            return EXIT_DIAG;
        }
    } else if (s->opt == 0) {
        *none = tl_xrealloc(*none, (size_t)(*nnone + 1) * sizeof **none);
        (*none)[(*nnone)++] = tl_xstrdup(file);
    }
    *v = tl_xrealloc(*v, (size_t)(*n + s->n + 1) * sizeof **v);
    for (int i = 0; i < s->n; i++) {
        Bind *b = &(*v)[(*n)++];
        b->name = tl_xstrdup(s->ids[i]);
        b->spec = tl_xstrdup(file);
        b->elem = i;
        b->opt = s->opt;
        b->value = ts ? ts[i] : NULL;
    }
    free(ts);
    return EXIT_OK;
}

static void drop_bind(Bind *b)
{
    free((char *)b->name);
    free(b->spec);
    tl_tensor_unref(b->value);
}

int cli_seq_expand(const TlProgram *prog, TlFunc **f, int n, Bind **b,
                   int *nb, const char *kind, char ***none, int *nnone)
{
    int nq, nv = 0, ng = 0, status = EXIT_OK, next = 0;
    Seq *q = parse_seqs(prog, kind, &nq), **groups;
    int *gparam;
    Bind *v = NULL;

    if (!nq)
        return EXIT_OK;
    /* The graph's inputs (outputs) in order: a sequence's elements are
     * its place, anything else one parameter.  Each group is free
     * unless a named bind takes it. */
    groups = tl_xcalloc((size_t)(n + nq) + 1, sizeof *groups);
    gparam = tl_xcalloc((size_t)(n + nq) + 1, sizeof *gparam);
    for (int j = 0, pos = 0; j < n || pos <= nq + n; pos++) {
        Seq *s = NULL;
        for (int i = 0; i < nq; i++)
            if (q[i].pos == pos)
                s = &q[i];
        if (s) {
            groups[ng] = s;
            gparam[ng++] = -1;
            j += s->n;
        } else if (j < n) {
            groups[ng] = NULL;
            gparam[ng++] = j++;
        } else {
            break;
        }
    }
    for (int i = 0; i < *nb && status == EXIT_OK; i++) {
        const char *file;
        Seq *s = named_seq(q, nq, &(*b)[i], &file);
        if (s) {
            status = add_elems(&v, &nv, s, file, kind, none, nnone);
            drop_bind(&(*b)[i]);
            (*b)[i].name = NULL;
            (*b)[i].spec = NULL;
            (*b)[i].value = NULL;
            (*b)[i].elem = -2;      /* taken apart */
        }
    }
    for (int i = 0; i < *nb && status == EXIT_OK; i++) {
        Bind *x = &(*b)[i];
        if (x->elem == -2)
            continue;
        if (x->name) {
            for (int g = 0; g < ng; g++)
                if (gparam[g] >= 0 && !strcmp(f[gparam[g]]->name, x->name))
                    gparam[g] = -2;     /* taken by name */
            continue;
        }
    }
    for (int i = 0; i < *nb && status == EXIT_OK; i++) {
        Bind *x = &(*b)[i];
        if (x->elem == -2 || x->name)
            continue;
        while (next < ng && (gparam[next] == -2 ||
                             (groups[next] && groups[next]->taken)))
            next++;
        if (next < ng && groups[next]) {
            status = add_elems(&v, &nv, groups[next], x->spec, kind, none,
                               nnone);
            drop_bind(x);
            x->name = NULL;
            x->spec = NULL;
            x->value = NULL;
            x->elem = -2;
        }
        next++;
    }
    /* The binds that stay, then the elements. */
    for (int i = 0; i < *nb; i++)
        if ((*b)[i].elem != -2) {
            v = tl_xrealloc(v, (size_t)(nv + 1) * sizeof *v);
            v[nv++] = (*b)[i];
        }
    free(*b);
    *b = v;
    *nb = nv;
    free(groups);
    free(gparam);
    free_seqs(q, nq);
    return status;
}

int cli_seq_write(TlFunc **f, int n, TlTensor **res, Bind **slot, int i)
{
    TlTensor **ts = tl_xcalloc((size_t)n + 1, sizeof *ts);
    int count = 0;
    char err[400];

    for (int j = 0; j < n; j++) {
        if (!slot[j] || slot[j]->elem < 0 ||
            strcmp(slot[j]->spec, slot[i]->spec))
            continue;
        if (j < i) {
            free(ts);
            return EXIT_OK;         /* written with an earlier one */
        }
        /* Each sequence's elements are numbered from 0: two of them
         * bound to one file meet at an element. */
        if (slot[j]->elem >= n || ts[slot[j]->elem]) {
            fprintf(stderr, "tdsl: output '%s': '%s' is given for two "
                    "sequences\n", f[i]->name, slot[i]->spec);
            free(ts);
            return EXIT_DIAG;
        }
        ts[slot[j]->elem] = res[j];
        count++;
    }
    if (tl_onnx_optional_write(slot[i]->spec, slot[i]->opt, ts, count, err,
                               sizeof err) < 0) {
        fprintf(stderr, "tdsl: output '%s': %s\n", f[i]->name, err);
        free(ts);
        return EXIT_DIAG;
    }
    free(ts);
    return EXIT_OK;
}

int cli_opt_write_none(char **files, int n)
{
    int status = EXIT_OK;
    char err[400];

    for (int i = 0; i < n; i++)
        if (tl_onnx_optional_write(files[i], 0, NULL, 0, err,
                                   sizeof err) < 0) {
            fprintf(stderr, "tdsl: %s\n", err);
            status = EXIT_DIAG;
        }
    return status;
}
