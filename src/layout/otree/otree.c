/*
 * layout/otree/otree.c: the otree layout (qbeast-spark's OTree tables): its entry in the layout
 * dispatch table. Scans go to scan.c; writes are refused until the OTree writer lands.
 */
#include "layout/otree/otreeInt.h"

static int otree_open(tn_layout_writer **out, tn_table *t, const tn_layout_write_options *opts) {
    (void)opts;
    *out = NULL;
    return tn_error_set(TN_EUNSUPPORTED, "table '%s' is a qbeast OTree table: writing it is not supported yet",
                        tn_table_path(t));
}
static int otree_write(tn_layout_writer *w, const tn_chunk *chunk) {
    (void)w;
    (void)chunk;
    return TN_EINTERNAL;
}
static int otree_commit(tn_layout_writer *w, tn_table_commit_result *r) {
    (void)w;
    (void)r;
    return TN_EINTERNAL;
}
static void otree_abort(tn_layout_writer *w) { (void)w; }
static uint64_t otree_num_files(const tn_layout_writer *w) {
    (void)w;
    return 0;
}

const tn_layout_impl tn_layout_otree = {
    "otree", otree_open, otree_write, otree_commit, otree_abort, otree_num_files, ot_scan_open, NULL, NULL,
};
