/*
 * server/copy.c: COPY over the wire: `COPY t [(cols)] FROM STDIN` and `COPY t|(query) TO
 * STDOUT` in text and CSV formats (CopyInResponse / CopyOutResponse, CopyData, CopyDone,
 * CopyFail). Not written yet: refused with a clear error.
 */
#include "server/connInt.h"

bool tn_pg_copy_is_stdio(const tn_sql_stmt *st) {
    (void)st;
    return false;
}

int tn_pg_copy_run(tn_pg_conn *c, tn_sql_script *sc, uint32_t i, const char *text, size_t base) {
    (void)sc;
    (void)i;
    tn_error_set(TN_EUNSUPPORTED, "COPY FROM STDIN / TO STDOUT is not supported yet");
    tn_pg_conn_sql_error(c, TN_EUNSUPPORTED, text, base, false);
    return -1;
}
