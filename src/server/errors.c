/*
 * server/errors.c: tarn's error codes and messages as PostgreSQL SQLSTATE codes, from one
 * table: a row matches a code and, when it has one, a phrase of the message (binder errors
 * share TN_EBIND, so the phrase tells an undefined table from an undefined column).
 */
#include <string.h>

#include "server/pgwireInt.h"

static const struct {
    int code;                    /* TN_E*, or 0 for any */
    const char *phrase;          /* substring of the message, or NULL */
    const char *sqlstate;
} sqlstate_table[] = {
    {TN_ESYNTAX, NULL, "42601"},
    {0, "Table with name", "42P01"},              /* undefined_table */
    {0, "does not exist!", "42883"},              /* "Scalar Function with name f does not exist!" */
    {0, "Referenced column", "42703"},            /* undefined_column */
    {0, "not found in FROM clause", "42703"},
    {0, "invalid byte sequence for encoding", "22021"},   /* character_not_in_repertoire */
    {0, "Division by zero", "22012"},
    {0, "division by zero", "22012"},
    {0, "Could not convert", "22P02"},            /* invalid_text_representation */
    {0, "invalid input syntax", "22P02"},
    {0, "out of range", "22003"},                 /* numeric_value_out_of_range */
    {0, "memory limit", "53200"},
    {0, "unrecognized configuration parameter", "42704"},   /* undefined_object */
    {0, "can only be used in transaction blocks", "25P01"}, /* no_active_sql_transaction */
    {0, "cannot run inside a transaction block", "25001"},  /* active_sql_transaction */
    {TN_ENOTFOUND, "cursor \"", "34000"},       /* invalid_cursor_name */
    {TN_EEXISTS, "cursor \"", "42P03"},         /* duplicate_cursor */
    {TN_ENOTFOUND, "prepared statement \"", "26000"},   /* invalid_sql_statement_name */
    {TN_ECONFLICT, NULL, "40001"},                /* serialization_failure: retry */
    {TN_ENOMEM, NULL, "53200"},
    {TN_EINTERRUPT, NULL, "57014"},               /* query_canceled */
    {TN_EUNSUPPORTED, NULL, "0A000"},
    {TN_EEXISTS, NULL, "42P07"},
    {TN_ENOTFOUND, NULL, "42704"},
    {TN_ECONSTRAINT, NULL, "23502"},
    {TN_ELIMIT, NULL, "54000"},
    {TN_EIO, NULL, "58030"},
    {TN_ECORRUPT, NULL, "XX001"},
    {TN_ECHECKSUM, NULL, "XX001"},
    {TN_EINTERNAL, NULL, "XX000"},
    {TN_EBIND, NULL, "42000"},
    {TN_EINVAL, NULL, "22023"},
};

const char *tn_pg_sqlstate(int code, const char *message) {
    if (!message) message = "";
    for (size_t i = 0; i < sizeof sqlstate_table / sizeof sqlstate_table[0]; i++) {
        if (sqlstate_table[i].code && sqlstate_table[i].code != code) continue;
        if (sqlstate_table[i].phrase && !strstr(message, sqlstate_table[i].phrase)) continue;
        if (!sqlstate_table[i].phrase && sqlstate_table[i].code != code) continue;
        /* phrase rows apply to SQL errors only, not to I/O or corruption */
        if (!sqlstate_table[i].code && (code == TN_EIO || code == TN_ECORRUPT || code == TN_ENOMEM ||
                                        code == TN_EINTERRUPT || code == TN_ECONFLICT))
            continue;
        return sqlstate_table[i].sqlstate;
    }
    return "XX000";
}
