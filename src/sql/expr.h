/*
 * sql/expr.h: bound (typed, resolved) scalar expressions and their vectorized evaluator.
 * The binder builds these from the AST; the executor evaluates them per chunk. Independent of
 * the AST. Owns expr_eval.c; the function registry is functions.h.
 */
#ifndef TN_SQL_EXPR_H
#define TN_SQL_EXPR_H

#include "sql/functions.h"

typedef enum tn_expr_kind {
    TN_EXPR_CONSTANT,     /* value */
    TN_EXPR_COLUMN,       /* column: index into the input chunk */
    TN_EXPR_FUNCTION,     /* call + args (operators too: "+", "=", "||", "~~" ...) */
    TN_EXPR_CAST,         /* args[0]; try_cast: NULL instead of an error */
    TN_EXPR_CASE,         /* args = when1, then1, when2, then2, ..., [else] (has_else) */
    TN_EXPR_AND,          /* args[0..n): SQL three-valued logic */
    TN_EXPR_OR,
    TN_EXPR_NOT,          /* args[0] */
    TN_EXPR_IS_NULL,      /* args[0] */
    TN_EXPR_IS_NOT_NULL,  /* args[0] */
    TN_EXPR_IN,           /* args[0] IN (list): list values have args[0]'s type */
    TN_EXPR_COALESCE,     /* args all of the result type */
    TN_EXPR_NULLIF,       /* args[0], args[1] of the result type; eq = the "=" overload */
} tn_expr_kind;

typedef struct tn_expr tn_expr;
struct tn_expr {
    tn_expr_kind kind;
    tn_type type;            /* result type */
    uint32_t nargs;
    tn_expr **args;
    union {
        tn_value value;                      /* CONSTANT (strings owned by the node) */
        uint32_t column;                     /* COLUMN */
        struct {                             /* FUNCTION, NULLIF (the equality) */
            tn_func_call call;
        } func;
        bool try_cast;                       /* CAST */
        bool has_else;                       /* CASE */
        struct {                             /* IN */
            tn_value *values;                /* sorted, non-NULL, strings owned */
            uint32_t nvalues;
            bool has_null;                   /* a NULL in the list */
        } in;
    } u;
};

/*
 * Constructors. Each returns 0 or a negative TN_E* code with the message set, and on success
 * stores a new node in *out that the caller frees with tn_expr_free (children passed in are
 * owned by the new node from the call on, also when it fails — then they are freed).
 */
int tn_expr_constant(tn_expr **out, const tn_value *value);           /* copies strings */
int tn_expr_column(tn_expr **out, uint32_t column, tn_type type);
/* Resolve name(args) (functions.h), insert the CASTs resolution asks for, run bind on constant
 * arguments. arg_flags may be NULL (see TN_FUNC_ARG_STRING_LITERAL). */
int tn_expr_function(tn_expr **out, const char *name, tn_expr **args, uint32_t nargs);
int tn_expr_function_ex(tn_expr **out, const char *name, tn_expr **args, const uint8_t *arg_flags,
                        uint32_t nargs);
/* CAST(arg AS type); a no-op cast returns arg itself. */
int tn_expr_cast(tn_expr **out, tn_expr *arg, tn_type type, bool try_cast);
/* AND / OR of n >= 1 boolean args (others are cast to BOOLEAN, as DuckDB does). */
int tn_expr_and(tn_expr **out, tn_expr **args, uint32_t nargs);
int tn_expr_or(tn_expr **out, tn_expr **args, uint32_t nargs);
int tn_expr_not(tn_expr **out, tn_expr *arg);
int tn_expr_is_null(tn_expr **out, tn_expr *arg, bool negated);
/* CASE WHEN w[i] THEN t[i] ... ELSE e END; e may be NULL. Result type = common type of the
 * THEN/ELSE values (casts inserted). For CASE x WHEN v THEN ... the binder builds x = v. */
int tn_expr_case(tn_expr **out, tn_expr **whens, tn_expr **thens, uint32_t n, tn_expr *else_expr);
int tn_expr_coalesce(tn_expr **out, tn_expr **args, uint32_t nargs);
int tn_expr_nullif(tn_expr **out, tn_expr *a, tn_expr *b);
/* x [NOT] IN (v1, v2, ...) over constant values: each is cast to x's type (or x and the
 * values to their common type). */
int tn_expr_in(tn_expr **out, tn_expr *x, const tn_value *values, uint32_t nvalues, bool negated);
/* x [NOT] BETWEEN lo AND hi, desugared to x >= lo AND x <= hi (x is duplicated). */
int tn_expr_between(tn_expr **out, tn_expr *x, tn_expr *lo, tn_expr *hi, bool negated);
/* x [NOT] LIKE / ILIKE pattern [ESCAPE esc]; esc may be NULL. */
int tn_expr_like(tn_expr **out, tn_expr *x, tn_expr *pattern, tn_expr *escape, bool ilike,
                 bool negated);

tn_expr *tn_expr_copy(const tn_expr *e);    /* deep copy; NULL on out of memory */
void tn_expr_free(tn_expr *e);              /* NULL ok */
/* Whether e contains no column references and no volatile functions. */
bool tn_expr_is_constant(const tn_expr *e);
/* Fold a constant expression to a value: strings in `arena`. */
int tn_expr_fold(const tn_expr *e, tn_arena *arena, tn_value *out);
/* Debug text: "+(#0, 1)". Appends to out. */
int tn_expr_to_text(tn_buf *out, const tn_expr *e);

/*
 * Evaluation. A tn_expr is immutable after construction and may be shared by threads; each
 * thread evaluates with its own tn_expr_state (scratch vectors per node).
 *
 * tn_expr_eval: out must be an initialized vector of e->type; it is reset and receives
 * input->count rows. out's strings may point into input's vectors and into state: valid until
 * the next evaluation with the same state and while input is unchanged.
 * Errors (overflow, failed cast, ...) are returned as a negative TN_E* code with DuckDB's
 * message, e.g. "Overflow in addition of INT32 (2147483647 + 1)!".
 *
 * tn_expr_eval_ref: the same, without the copy when it can: *out is the result vector itself
 * (a column of input or the state's scratch; read-only, valid as out's strings above), or buf
 * (an initialized vector of e->type) filled as tn_expr_eval fills out.
 *
 * tn_expr_filter: pred must be BOOLEAN; writes the row indexes where pred is TRUE (not NULL,
 * not FALSE) in increasing order to sel (room for input->count) and their number to *nsel.
 */
typedef struct tn_expr_state tn_expr_state;
int tn_expr_state_create(const tn_expr *e, tn_expr_state **out);
void tn_expr_state_free(tn_expr_state *state);
int tn_expr_eval(const tn_expr *e, const tn_chunk *input, tn_vector *out, tn_expr_state *state);
int tn_expr_eval_ref(const tn_expr *e, const tn_chunk *input, tn_vector *buf, tn_expr_state *state,
                     const tn_vector **out);
int tn_expr_filter(const tn_expr *pred, const tn_chunk *input, uint32_t *sel, uint32_t *nsel,
                   tn_expr_state *state);

#endif
