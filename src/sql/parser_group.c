/*
 * sql/parser_group.c: the GROUP BY list: plain keys, `GROUPING SETS (...)`, `ROLLUP (...)`,
 * `CUBE (...)` and `()`, in any combination (the cross product of the items' sets, as in
 * DuckDB and PostgreSQL). Every expression is appended to select.group_by (so ordinals and
 * aliases resolve as for plain keys) and the sets are lists of indexes into it; a list that
 * is one set of all its keys stays a plain GROUP BY. Binding is bind_group.c.
 */
#include "sql/parserInt.h"

#include <string.h>

#define MAX_SETS 4096            /* CUBE of 12 keys; DuckDB refuses more than that too */

/* A list of sets, each a tn_vec of int. */
typedef struct set_list {
    tn_vec sets;                 /* of tn_vec (of int) */
} set_list;

static bool word_is(const tn_sql_token *t, const char *w) {
    return t->type == TK_IDENT && strcmp(t->text, w) == 0;
}

static bool add_set(tn_sql_parser *p, set_list *l, const tn_vec *set) {
    if (l->sets.n >= MAX_SETS)
        return tn_sqlp_fail_at(p, tn_sqlp_peek(p, 0)->pos, "Too many grouping sets (more than %d)", MAX_SETS);
    return tn_sqlp_push(p, &l->sets, set, sizeof *set);
}

/* Appends e (a ROW (a, b) stands for its items) to group_by and its indexes to set. */
static bool add_expr(tn_sql_parser *p, tn_vec *keys, tn_sql_expr *e, tn_vec *set) {
    if (e->kind == TN_SQL_E_ROW) {
        for (int i = 0; i < e->u.list.n; i++)
            if (!add_expr(p, keys, e->u.list.items[i], set)) return false;
        return true;
    }
    int k = keys->n;
    return tn_sqlp_push(p, keys, &e, sizeof e) && tn_sqlp_push(p, set, &k, sizeof k);
}

static bool concat(tn_sql_parser *p, tn_vec *dst, const tn_vec *a, const tn_vec *b) {
    memset(dst, 0, sizeof *dst);
    for (int i = 0; i < a->n; i++)
        if (!tn_sqlp_push(p, dst, &((int *)a->data)[i], sizeof(int))) return false;
    for (int i = 0; i < b->n; i++)
        if (!tn_sqlp_push(p, dst, &((int *)b->data)[i], sizeof(int))) return false;
    return true;
}

/* '(' element [, ...] ')' of ROLLUP / CUBE: each element one key or a (a, b) group of keys. */
static bool element_list(tn_sql_parser *p, tn_vec *keys, tn_vec *elems) {
    if (!tn_sqlp_expect(p, TK_LPAREN, "'(' after ROLLUP or CUBE")) return false;
    do {
        tn_vec one = {0};
        tn_sql_expr *e = tn_sqlp_expr(p);
        if (!e || !add_expr(p, keys, e, &one) || !tn_sqlp_push(p, elems, &one, sizeof one)) return false;
    } while (tn_sqlp_accept(p, TK_COMMA));
    return tn_sqlp_expect(p, TK_RPAREN, "')' after the ROLLUP or CUBE list");
}

static bool group_item(tn_sql_parser *p, tn_vec *keys, set_list *out, bool *special);

static bool group_item(tn_sql_parser *p, tn_vec *keys, set_list *out, bool *special) {
    const tn_sql_token *t = tn_sqlp_peek(p, 0);
    memset(out, 0, sizeof *out);
    if (!tn_sqlp_enter(p)) return false;
    bool ok = false;
    if (word_is(t, "grouping") && word_is(tn_sqlp_peek(p, 1), "sets")) {
        *special = true;
        p->i += 2;
        if (!tn_sqlp_expect(p, TK_LPAREN, "'(' after GROUPING SETS")) goto done;
        do {
            set_list sub;
            bool sp = false;
            if (!group_item(p, keys, &sub, &sp)) goto done;
            for (int i = 0; i < sub.sets.n; i++)
                if (!add_set(p, out, &((tn_vec *)sub.sets.data)[i])) goto done;
        } while (tn_sqlp_accept(p, TK_COMMA));
        ok = tn_sqlp_expect(p, TK_RPAREN, "')' after the GROUPING SETS list");
    } else if ((word_is(t, "rollup") || word_is(t, "cube")) && tn_sqlp_peek(p, 1)->type == TK_LPAREN) {
        bool cube = word_is(t, "cube");
        *special = true;
        tn_sqlp_advance(p);
        tn_vec elems = {0};
        if (!element_list(p, keys, &elems)) goto done;
        tn_vec *el = elems.data;
        if (cube) {
            if (elems.n > 12) {
                tn_sqlp_fail_at(p, t->pos, "CUBE can have at most 12 elements");
                goto done;
            }
            for (unsigned m = 0; m < (1u << elems.n); m++) {   /* every subset, the full one first */
                unsigned keep = ((1u << elems.n) - 1) & ~m;
                tn_vec set = {0}, tmp;
                for (int e = 0; e < elems.n; e++)
                    if (keep & (1u << e)) {
                        if (!concat(p, &tmp, &set, &el[e])) goto done;
                        set = tmp;
                    }
                if (!add_set(p, out, &set)) goto done;
            }
        } else {
            for (int len = elems.n; len >= 0; len--) {         /* (a, b, c), (a, b), (a), () */
                tn_vec set = {0}, tmp;
                for (int e = 0; e < len; e++) {
                    if (!concat(p, &tmp, &set, &el[e])) goto done;
                    set = tmp;
                }
                if (!add_set(p, out, &set)) goto done;
            }
        }
        ok = true;
    } else if (t->type == TK_LPAREN && tn_sqlp_peek(p, 1)->type == TK_RPAREN) {
        *special = true;                                       /* () : the empty set */
        p->i += 2;
        tn_vec set = {0};
        ok = add_set(p, out, &set);
    } else {
        tn_sql_expr *e = tn_sqlp_expr(p);
        tn_vec set = {0};
        ok = e && add_expr(p, keys, e, &set) && add_set(p, out, &set);
    }
done:
    tn_sqlp_leave(p);
    return ok;
}

bool tn_sqlp_group_by(tn_sql_parser *p, tn_sql_select *s) {
    tn_vec keys = {0};
    set_list all;
    memset(&all, 0, sizeof all);
    tn_vec empty = {0};
    if (!tn_sqlp_push(p, &all.sets, &empty, sizeof empty)) return false;
    bool special = false;
    do {
        if (keys.n && tn_sqlp_list_ends(p)) break;           /* trailing comma (DuckDB) */
        set_list item;
        if (!group_item(p, &keys, &item, &special)) return false;
        set_list prod;                                         /* all x item */
        memset(&prod, 0, sizeof prod);
        if ((long)all.sets.n * item.sets.n > MAX_SETS)
            return tn_sqlp_fail_at(p, tn_sqlp_peek(p, 0)->pos, "Too many grouping sets (more than %d)", MAX_SETS);
        for (int a = 0; a < all.sets.n; a++)
            for (int b = 0; b < item.sets.n; b++) {
                tn_vec set;
                if (!concat(p, &set, &((tn_vec *)all.sets.data)[a], &((tn_vec *)item.sets.data)[b]) ||
                    !tn_sqlp_push(p, &prod.sets, &set, sizeof set))
                    return false;
            }
        all = prod;
    } while (tn_sqlp_accept(p, TK_COMMA));
    s->group_by.items = keys.data;
    s->group_by.n = keys.n;
    if (!special) return true;                                 /* plain keys: one set of all of them */
    tn_sql_grouping_set *sets = tn_sqlp_alloc(p, (size_t)(all.sets.n + 1) * sizeof *sets);
    if (!sets) return false;
    for (int i = 0; i < all.sets.n; i++) {
        tn_vec *v = &((tn_vec *)all.sets.data)[i];
        sets[i].items = v->data;
        sets[i].n = v->n;
    }
    s->grouping_sets = sets;
    s->n_grouping_sets = all.sets.n;
    return true;
}
