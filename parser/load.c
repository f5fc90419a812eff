/*
 * load.c - the import hook: finds the file an `import` names, parses it
 * once per session, and reports missing modules and import cycles at
 * the import that caused them.
 *
 *   import std.nn          <std_path>/nn.tdsl   (std.a.b: <std_path>/a/b.tdsl)
 *   import my.lib          <folder of the importing file>/my/lib.tdsl
 *   import "x/k.tdsl"      <folder of the importing file>/x/k.tdsl
 *
 * The hook gets the import's path text and location: the path is a
 * file when the source shows it quoted there, else when it is not a
 * dotted name of identifiers or ends in ".tdsl".
 *
 * Modules are cached in s->modules and recognised by their real path.
 * When a module is first loaded, everything it imports is loaded too
 * (with a work list, not recursion), so that a cycle back to the file
 * that asked can be seen at once: that import is refused with
 * IMPORT_CYCLE, and the hook returns NULL for it, which keeps a checker
 * that follows imports from going round in circles.
 */
#include "parser/parser_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ====================================================================
 * Paths
 * ==================================================================== */

static int has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && strcmp(s + n - m, suf) == 0;
}

static int ident_char(char ch, int first)
{
    return ch == '_' || (ch >= 'a' && ch <= 'z') ||
           (ch >= 'A' && ch <= 'Z') || (!first && ch >= '0' && ch <= '9');
}

/* A dotted name a.b.c of identifiers, not naming a .tdsl file. */
static int is_module_path(const char *p)
{
    if (has_suffix(p, ".tdsl"))
        return 0;
    for (;;) {
        if (!ident_char(*p++, 1))
            return 0;
        while (ident_char(*p, 0))
            p++;
        if (*p == 0)
            return 1;
        if (*p++ != '.')
            return 0;
    }
}

/* The folder part of the path of source `file`, with its trailing '/',
 * or "" (the current folder). */
static const char *folder_of(TlSession *s, int file)
{
    const char *p, *slash;

    if (file < 0 || file >= s->nsrc)
        return "";
    p = s->src[file].path;
    slash = strrchr(p, '/');
    return slash ? arena_strndup(&s->arena, p, (size_t)(slash - p + 1))
                 : "";
}

/* Whether the import at loc was written with a quoted path. */
static int quoted_at(TlSession *s, TlLoc loc)
{
    const char *p;

    if (loc.file < 0 || loc.file >= s->nsrc || loc.off < 0 ||
        (size_t)loc.off + 6 > s->src[loc.file].len)
        return 0;
    p = s->src[loc.file].text + loc.off;
    if (strncmp(p, "import", 6) != 0)
        return 0;
    for (p += 6; *p == ' ' || *p == '\t'; p++)
        continue;
    return *p == '"';
}

/* The file an import path names, seen from source `from` (arena). */
static const char *resolve(TlSession *s, const char *path, int is_file,
                           int from)
{
    char *r, *q;

    if (is_file || !is_module_path(path))
        return path[0] == '/' ? path
                              : arena_printf(&s->arena, "%s%s",
                                             folder_of(s, from), path);
    if (strncmp(path, "std.", 4) == 0) {
        const char *std = s->std_path ? s->std_path : "<no std folder>";
        r = arena_printf(&s->arena, "%s/%s.tdsl", std, path + 4);
        q = r + strlen(std) + 1;
    } else {
        const char *dir = folder_of(s, from);
        r = arena_printf(&s->arena, "%s%s.tdsl", dir, path);
        q = r + strlen(dir);
    }
    /* a.b.c -> a/b/c, leaving the ".tdsl" alone */
    for (; q < r + strlen(r) - 5; q++)
        if (*q == '.')
            *q = '/';
    return r;
}

/* The real path of a file (arena), NULL if it cannot be resolved. */
static const char *real(TlSession *s, const char *file)
{
    char *rp = realpath(file, NULL);
    const char *r;

    if (!rp)
        return NULL;
    r = arena_strdup(&s->arena, rp);
    free(rp);
    return r;
}

static int same(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

/* ====================================================================
 * The module cache
 * ==================================================================== */

/* The loaded module whose file has real path `key`, or NULL. */
static TlProgram *find_module(TlSession *s, const char *key, int *index)
{
    for (int i = 0; i < s->modules.n; i++) {
        TlProgram *p = s->modules.v[i];
        if (same(real(s, s->src[p->file].path), key)) {
            if (index)
                *index = i;
            return p;
        }
    }
    return NULL;
}

/* Parses `file` and adds it to the cache. */
static TlProgram *load_one(TlSession *s, const char *file)
{
    int id = tl_add_file(s, file);
    TlProgram *p;

    if (id < 0)
        return NULL;
    p = prs_parse(s, id);
    vec_push(&s->arena, &s->modules, p);
    return p;
}

/* The real path of the module that `it` (an import in prog) names, if
 * that file exists. */
static const char *import_key(TlSession *s, const TlProgram *prog,
                              const TlItem *it)
{
    return real(s, resolve(s, it->path, it->is_file, prog->file));
}

/* Loads, with a work list, every module that `root` imports directly or
 * not, except the file `skip` (the one asking, which is loaded already).
 * Missing files are left for the hook to report when the checker gets
 * to them. */
static void load_imports(TlSession *s, TlProgram *root, const char *skip)
{
    TlVec work = {0};

    vec_push(&s->arena, &work, root);
    while (work.n > 0) {
        TlProgram *p = work.v[--work.n];
        for (int i = 0; i < p->items.n; i++) {
            const TlItem *it = p->items.v[i];
            const char *key;
            TlProgram *q;
            if (it->kind != IT_IMPORT)
                continue;
            key = import_key(s, p, it);
            if (!key || same(key, skip) || find_module(s, key, NULL))
                continue;
            q = load_one(s, resolve(s, it->path, it->is_file, p->file));
            if (q)
                vec_push(&s->arena, &work, q);
        }
    }
}

/* Whether module `from` imports, directly or through loaded modules, the
 * file with real path `target`. */
static int reaches(TlSession *s, TlProgram *from, const char *target)
{
    TlVec work = {0};
    char *seen = arena_alloc(&s->arena, (size_t)s->modules.n + 1);
    int at;

    vec_push(&s->arena, &work, from);
    if (find_module(s, real(s, s->src[from->file].path), &at))
        seen[at] = 1;
    while (work.n > 0) {
        TlProgram *p = work.v[--work.n];
        for (int i = 0; i < p->items.n; i++) {
            const TlItem *it = p->items.v[i];
            const char *key;
            TlProgram *q;
            if (it->kind != IT_IMPORT)
                continue;
            key = import_key(s, p, it);
            if (same(key, target))
                return 1;
            q = key ? find_module(s, key, &at) : NULL;
            if (q && !seen[at]) {
                seen[at] = 1;
                vec_push(&s->arena, &work, q);
            }
        }
    }
    return 0;
}

/* ====================================================================
 * The hook
 * ==================================================================== */

TlProgram *prs_load_module(TlSession *s, const char *path, TlLoc loc)
{
    const char *file = resolve(s, path, quoted_at(s, loc), loc.file);
    const char *key, *self;
    struct stat st;
    TlProgram *p;

    if (stat(file, &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            diag_error(s, loc, DIAG_MODULE_NOT_FOUND, path, file);
        else
            diag_error(s, loc, DIAG_IMPORT_UNREADABLE, path, file,
                       strerror(errno));
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        diag_error(s, loc, DIAG_IMPORT_UNREADABLE, path, file,
                   "not a regular file");
        return NULL;
    }
    key = real(s, file);
    self = loc.file >= 0 && loc.file < s->nsrc
               ? real(s, s->src[loc.file].path)
               : NULL;
    if (same(key, self)) {
        diag_error(s, loc, DIAG_IMPORT_CYCLE, path);
        return NULL;
    }
    p = find_module(s, key, NULL);
    if (!p) {
        p = load_one(s, file);
        if (!p)
            return NULL;
        load_imports(s, p, self);
    }
    if (self && reaches(s, p, self)) {
        diag_error(s, loc, DIAG_IMPORT_CYCLE, path);
        return NULL;
    }
    /* A module with syntax errors has been reported already; its
     * partial tree would only cause follow-on errors. */
    return p->nerrors ? NULL : p;
}

void prs_install_loader(TlSession *s, const char *std_path)
{
    s->load_module = prs_load_module;
    s->std_path = std_path;
}
