/*
 * checkprior.c - the names of earlier programs (TlCheckOpts.prior),
 * so that what the REPL's earlier inputs defined stays visible.
 *
 * Each earlier program gets a scope of its own holding its imported
 * names and its kernels, externs and top-level lets, the oldest
 * outermost; the new program's scope sits inside the newest.  So a
 * name defined again shadows the earlier one without being a duplicate,
 * and the newest definition wins.  Earlier programs were checked
 * without errors in this session: their records are complete and live
 * in the session's arena, and kernels and lets are not checked again
 * (chk_kernel and chk_let see them done).
 */
#include "lang/lang_int.h"

#include <string.h>

/* A program's own name replaces a name it imported. */
static void add_own(Chk *c, Scope *sc, const char *name, void *sym,
                    TlLoc loc)
{
    ScopeEnt *e;

    if (!name || !sym)
        return;
    e = rsv_add(c, sc, name, sym, loc);
    if (!e)
        return;
    e->sym = sym;
    e->loc = loc;
    e->module = NULL;
    e->other = NULL;
}

static Scope *program_scope(Chk *c, Scope *up, TlProgram *p)
{
    Scope *sc = rsv_scope(c, up, "earlier input");
    Scope *save = c->top;

    /* chk_import adds to c->top; the module is loaded and checked
     * already, so this only names its kernels and externs again. */
    c->top = sc;
    for (int i = 0; i < p->items.n; i++) {
        TlItem *it = p->items.v[i];
        if (it && it->kind == IT_IMPORT && it->sym)
            chk_import(c, it);
    }
    c->top = save;
    for (int i = 0; i < p->items.n; i++) {
        TlItem *it = p->items.v[i];
        TlRefKind k = it ? tl_ref_kind(it->sym) : REF__COUNT;
        if (!it)
            continue;
        if ((it->kind == IT_KERNEL && k == REF_KERNEL) ||
            (it->kind == IT_EXTERN && k == REF_EXTERN))
            add_own(c, sc, it->name, it->sym, it->name_loc);
        if (it->kind != IT_STMT || !it->stmt || it->stmt->kind != ST_LET)
            continue;
        for (TlLet *l = it->stmt->sym; l; l = l->next) {
            /* Defined before every item of the new program.  The let
             * is checked (chk_let will not look at pos again), and the
             * interpreter does not read pos. */
            l->pos = -1;
            if (l->name && strcmp(l->name, "_"))
                add_own(c, sc, l->name, l, l->loc);
        }
    }
    return sc;
}

Scope *chk_prior_scope(Chk *c, const TlCheckOpts *opts)
{
    Scope *sc = NULL;

    if (!opts || !opts->prior)
        return NULL;
    for (int i = 0; i < opts->nprior; i++)
        if (opts->prior[i])
            sc = program_scope(c, sc, opts->prior[i]);
    return sc;
}

TlLet *chk_prior_let(Chk *c, TlLet *l)
{
    ScopeEnt *e;

    if (!c->prior || c->module || !l || !l->name)
        return l;
    e = rsv_find(c->prior, l->name);
    return e && tl_ref_kind(e->sym) == REF_LET ? e->sym : l;
}
