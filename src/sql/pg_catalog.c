/*
 * sql/pg_catalog.c: PostgreSQL's system catalogs as PostgreSQL clients (psql's \d commands,
 * pgjdbc's DatabaseMetaData, BI tools' connect-time queries) ask them: pg_catalog.pg_class,
 * pg_namespace, pg_attribute, pg_type, ... and information_schema.tables / columns / ...,
 * each a VALUES plan computed from the warehouse catalog when a statement names it, plus the
 * functions those queries call (version(), current_schema(), format_type, ::regclass, ...).
 *
 * Model: the default schema is "public" (oid 2200), pg_catalog 11, information_schema 13000;
 * other schemas and every table/view get an oid from a hash of their name, so the same name has
 * the same oid in every statement (psql looks a table's oid up, then queries by it). Relations
 * of the default schema (and the catalogs) get oids below 2^30, those of other schemas above:
 * pg_table_is_visible(oid) is that test (search_path is public only). One role (oid 10, the
 * connected user; "tarn" outside the server) owns everything and holds every privilege.
 * Array-typed catalog columns (reloptions, datacl, ...) are VARCHAR in PostgreSQL's array text
 * form or NULL; tarn has no arrays. Catalogs of things tarn has not (indexes, constraints,
 * triggers, rules, inheritance, descriptions, defaults, functions) are empty.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/functions.h"
#include "sql/parse.h"
#include "sql/stmt.h"
#include "tarn.h"

#define NS_CATALOG 11
#define NS_PUBLIC 2200
#define NS_INFO 13000
#define ROLE_OID 10
#define DB_OID 16384
#define OID_VISIBLE_LIMIT INT64_C(1073741824)   /* relations of the default schema and catalogs */

/* ---------------------------------------------------------------------------------------------
 * PostgreSQL's types (pg_type rows) and tarn's types as them.
 */
typedef struct pg_type_def {
    int64_t oid;
    const char *name;
    int16_t len;
    char category;
    int64_t elem, array;          /* element type of an array type; array type of a base type */
} pg_type_def;

static const pg_type_def g_types[] = {
    {16, "bool", 1, 'B', 0, 1000},       {17, "bytea", -1, 'U', 0, 1001},
    {18, "char", 1, 'Z', 0, 1002},       {19, "name", 64, 'S', 0, 1003},
    {20, "int8", 8, 'N', 0, 1016},       {21, "int2", 2, 'N', 0, 1005},
    {22, "int2vector", -1, 'A', 21, 0},  {23, "int4", 4, 'N', 0, 1007},
    {24, "regproc", 4, 'N', 0, 0},       {25, "text", -1, 'S', 0, 1009},
    {26, "oid", 4, 'N', 0, 1028},        {30, "oidvector", -1, 'A', 26, 0},
    {114, "json", -1, 'U', 0, 199},      {700, "float4", 4, 'N', 0, 1021},
    {701, "float8", 8, 'N', 0, 1022},    {705, "unknown", -2, 'X', 0, 0},
    {1000, "_bool", -1, 'A', 16, 0},     {1001, "_bytea", -1, 'A', 17, 0},
    {1003, "_name", -1, 'A', 19, 0},     {1005, "_int2", -1, 'A', 21, 0},
    {1007, "_int4", -1, 'A', 23, 0},     {1009, "_text", -1, 'A', 25, 0},
    {1015, "_varchar", -1, 'A', 1043, 0}, {1016, "_int8", -1, 'A', 20, 0},
    {1021, "_float4", -1, 'A', 700, 0},  {1022, "_float8", -1, 'A', 701, 0},
    {1028, "_oid", -1, 'A', 26, 0},      {1042, "bpchar", -1, 'S', 0, 1014},
    {1043, "varchar", -1, 'S', 0, 1015}, {1082, "date", 4, 'D', 0, 1182},
    {1083, "time", 8, 'D', 0, 1183},     {1114, "timestamp", 8, 'D', 0, 1115},
    {1184, "timestamptz", 8, 'D', 0, 1185}, {1186, "interval", 16, 'T', 0, 1187},
    {1700, "numeric", -1, 'N', 0, 1231}, {2205, "regclass", 4, 'N', 0, 2210},
    {2206, "regtype", 4, 'N', 0, 2211},  {2950, "uuid", 16, 'U', 0, 2951},
    {3802, "jsonb", -1, 'U', 0, 3807},
};
#define NTYPES (sizeof g_types / sizeof g_types[0])

static const pg_type_def *type_by_oid(int64_t oid) {
    for (size_t i = 0; i < NTYPES; i++)
        if (g_types[i].oid == oid) return &g_types[i];
    return NULL;
}

int64_t tn_pg_type_oid(tn_type t) {
    switch (t.id) {
    case TN_TYPE_BOOLEAN: return 16;
    case TN_TYPE_TINYINT:
    case TN_TYPE_SMALLINT: return 21;
    case TN_TYPE_INTEGER: return 23;
    case TN_TYPE_BIGINT: return 20;
    case TN_TYPE_FLOAT: return 700;
    case TN_TYPE_DOUBLE: return 701;
    case TN_TYPE_DECIMAL: return 1700;
    case TN_TYPE_VARBINARY: return 17;
    case TN_TYPE_DATE: return 1082;
    case TN_TYPE_TIMESTAMP: return 1114;
    case TN_TYPE_TIMESTAMP_TZ: return 1184;
    case TN_TYPE_INTERVAL: return 1186;
    default: return 25;
    }
}

static int32_t type_mod(tn_type t) {
    return t.id == TN_TYPE_DECIMAL ? (int32_t)(((uint32_t)t.precision << 16) | t.scale) + 4 : -1;
}

/* format_type(oid, typmod) text into buf: PostgreSQL's SQL spelling. */
static const char *format_type(int64_t oid, int64_t mod, bool has_mod, char *buf, size_t cap) {
    static const struct { int64_t oid; const char *sql; } sqlname[] = {
        {16, "boolean"}, {20, "bigint"}, {21, "smallint"}, {23, "integer"}, {25, "text"},
        {700, "real"}, {701, "double precision"}, {1043, "character varying"}, {1042, "character"},
        {1114, "timestamp without time zone"}, {1184, "timestamp with time zone"},
        {1083, "time without time zone"}, {18, "\"char\""}};
    const char *n = NULL;
    for (size_t i = 0; i < sizeof sqlname / sizeof sqlname[0]; i++)
        if (sqlname[i].oid == oid) n = sqlname[i].sql;
    const pg_type_def *d = type_by_oid(oid);
    if (!n && d && d->elem) {
        char e[64];
        snprintf(buf, cap, "%s[]", format_type(d->elem, -1, false, e, sizeof e));
        return buf;
    }
    if (!n) n = d ? d->name : "???";
    if (oid == 1700 && has_mod && mod >= 4) snprintf(buf, cap, "numeric(%d,%d)", (int)((mod - 4) >> 16), (int)((mod - 4) & 0xffff));
    else if ((oid == 1043 || oid == 1042) && has_mod && mod >= 4) snprintf(buf, cap, "%s(%d)", n, (int)(mod - 4));
    else snprintf(buf, cap, "%s", n);
    return buf;
}

/* ---------------------------------------------------------------------------------------------
 * The catalog relations: columns as "name type" pairs, type o oid (BIGINT), i int4, s int2,
 * b bool, v text (also "char", name and arrays), f float4.
 */
typedef enum rel_id {
    R_NAMESPACE, R_CLASS, R_ATTRIBUTE, R_TYPE, R_DATABASE, R_AM, R_INDEX, R_DESCRIPTION, R_ATTRDEF, R_PROC,
    R_ROLES, R_USER, R_TABLESPACE, R_COLLATION, R_INHERITS, R_CONSTRAINT, R_EXTENSION, R_ENUM, R_TABLES,
    R_VIEWS, R_MATVIEWS, R_TRIGGER, R_REWRITE, R_SHDESCRIPTION, R_SETTINGS,
    I_SCHEMATA, I_TABLES, I_COLUMNS, I_VIEWS, I_TABLE_CONSTRAINTS, I_KEY_COLUMN_USAGE,
    R_COUNT
} rel_id;

typedef struct rel_def {
    int64_t oid;
    bool info;                  /* information_schema (else pg_catalog) */
    const char *name;
    const char *cols;
} rel_def;

#define ISCOLS_TABLE "table_catalog v table_schema v table_name v "
static const rel_def g_rels[R_COUNT] = {
    [R_NAMESPACE] = {2615, false, "pg_namespace", "oid o nspname v nspowner o nspacl v"},
    [R_CLASS] = {1259, false, "pg_class",
                 "oid o relname v relnamespace o reltype o reloftype o relowner o relam o relfilenode o "
                 "reltablespace o relpages i reltuples f relallvisible i reltoastrelid o relhasindex b "
                 "relisshared b relpersistence v relkind v relnatts s relchecks s relhasrules b relhastriggers b "
                 "relhassubclass b relrowsecurity b relforcerowsecurity b relispopulated b relreplident v "
                 "relispartition b relrewrite o relfrozenxid o relminmxid o relacl v reloptions v relpartbound v"},
    [R_ATTRIBUTE] = {1249, false, "pg_attribute",
                     "attrelid o attname v atttypid o attstattarget i attlen s attnum s attndims i attcacheoff i "
                     "atttypmod i attbyval b attalign v attstorage v attcompression v attnotnull b atthasdef b "
                     "atthasmissing b attidentity v attgenerated v attisdropped b attislocal b attinhcount i "
                     "attcollation o attacl v attoptions v attfdwoptions v attmissingval v"},
    [R_TYPE] = {1247, false, "pg_type",
                "oid o typname v typnamespace o typowner o typlen s typbyval b typtype v typcategory v "
                "typispreferred b typisdefined b typdelim v typrelid o typsubscript v typelem o typarray o "
                "typinput v typoutput v typreceive v typsend v typmodin v typmodout v typanalyze v typalign v "
                "typstorage v typnotnull b typbasetype o typtypmod i typndims i typcollation o typdefaultbin v "
                "typdefault v typacl v"},
    [R_DATABASE] = {1262, false, "pg_database",
                    "oid o datname v datdba o encoding i datlocprovider v datistemplate b datallowconn b "
                    "datconnlimit i datfrozenxid o datminmxid o dattablespace o datcollate v datctype v "
                    "daticulocale v datcollversion v datacl v"},
    [R_AM] = {2601, false, "pg_am", "oid o amname v amhandler v amtype v"},
    [R_INDEX] = {2610, false, "pg_index",
                 "indexrelid o indrelid o indnatts s indnkeyatts s indisunique b indnullsnotdistinct b "
                 "indisprimary b indisexclusion b indimmediate b indisclustered b indisvalid b indcheckxmin b "
                 "indisready b indislive b indisreplident b indkey v indcollation v indclass v indoption v "
                 "indexprs v indpred v"},
    [R_DESCRIPTION] = {2609, false, "pg_description", "objoid o classoid o objsubid i description v"},
    [R_ATTRDEF] = {2604, false, "pg_attrdef", "oid o adrelid o adnum s adbin v"},
    [R_PROC] = {1255, false, "pg_proc",
                "oid o proname v pronamespace o proowner o prolang o procost f prorows f provariadic o "
                "prosupport v prokind v prosecdef b proleakproof b proisstrict b proretset b provolatile v "
                "proparallel v pronargs s pronargdefaults s prorettype o proargtypes v proallargtypes v "
                "proargmodes v proargnames v proargdefaults v protrftypes v prosrc v probin v prosqlbody v "
                "proconfig v proacl v"},
    [R_ROLES] = {12001, false, "pg_roles",
                 "rolname v rolsuper b rolinherit b rolcreaterole b rolcreatedb b rolcanlogin b "
                 "rolreplication b rolconnlimit i rolpassword v rolvaliduntil v rolbypassrls b rolconfig v oid o"},
    [R_USER] = {12002, false, "pg_user",
                "usename v usesysid o usecreatedb b usesuper b userepl b usebypassrls b passwd v valuntil v "
                "useconfig v"},
    [R_TABLESPACE] = {1213, false, "pg_tablespace", "oid o spcname v spcowner o spcacl v spcoptions v"},
    [R_COLLATION] = {3456, false, "pg_collation",
                     "oid o collname v collnamespace o collowner o collprovider v collisdeterministic b "
                     "collencoding i collcollate v collctype v colliculocale v collversion v"},
    [R_INHERITS] = {2611, false, "pg_inherits", "inhrelid o inhparent o inhseqno i inhdetachpending b"},
    [R_CONSTRAINT] = {2606, false, "pg_constraint",
                      "oid o conname v connamespace o contype v condeferrable b condeferred b convalidated b "
                      "conrelid o contypid o conindid o conparentid o confrelid o confupdtype v confdeltype v "
                      "confmatchtype v conislocal b coninhcount i connoinherit b conkey v confkey v conbin v"},
    [R_EXTENSION] = {3079, false, "pg_extension",
                     "oid o extname v extowner o extnamespace o extrelocatable b extversion v extconfig v "
                     "extcondition v"},
    [R_ENUM] = {3501, false, "pg_enum", "oid o enumtypid o enumsortorder f enumlabel v"},
    [R_TABLES] = {12003, false, "pg_tables",
                  "schemaname v tablename v tableowner v tablespace v hasindexes b hasrules b hastriggers b "
                  "rowsecurity b"},
    [R_VIEWS] = {12004, false, "pg_views", "schemaname v viewname v viewowner v definition v"},
    [R_MATVIEWS] = {12005, false, "pg_matviews",
                    "schemaname v matviewname v matviewowner v tablespace v hasindexes b ispopulated b definition v"},
    [R_TRIGGER] = {2620, false, "pg_trigger", "oid o tgrelid o tgparentid o tgname v tgfoid o tgtype s tgenabled v "
                                              "tgisinternal b tgconstrrelid o tgconstrindid o tgconstraint o"},
    [R_REWRITE] = {2618, false, "pg_rewrite", "oid o rulename v ev_class o ev_type v ev_enabled v is_instead b"},
    [R_SHDESCRIPTION] = {2396, false, "pg_shdescription", "objoid o classoid o description v"},
    [R_SETTINGS] = {12006, false, "pg_settings",
                     "name v setting v unit v category v short_desc v extra_desc v context v vartype v source v "
                     "min_val v max_val v enumvals v boot_val v reset_val v sourcefile v sourceline i "
                     "pending_restart b"},
    [I_SCHEMATA] = {13001, true, "schemata",
                    "catalog_name v schema_name v schema_owner v default_character_set_catalog v "
                    "default_character_set_schema v default_character_set_name v sql_path v"},
    [I_TABLES] = {13002, true, "tables",
                  ISCOLS_TABLE "table_type v self_referencing_column_name v reference_generation v "
                  "user_defined_type_catalog v user_defined_type_schema v user_defined_type_name v "
                  "is_insertable_into v is_typed v commit_action v"},
    [I_COLUMNS] = {13003, true, "columns",
                   ISCOLS_TABLE "column_name v ordinal_position i column_default v is_nullable v data_type v "
                   "character_maximum_length i character_octet_length i numeric_precision i "
                   "numeric_precision_radix i numeric_scale i datetime_precision i interval_type v "
                   "interval_precision i udt_catalog v udt_schema v udt_name v is_identity v is_generated v "
                   "generation_expression v is_updatable v"},
    [I_VIEWS] = {13004, true, "views",
                 ISCOLS_TABLE "view_definition v check_option v is_updatable v is_insertable_into v "
                 "is_trigger_updatable v is_trigger_deletable v is_trigger_insertable_into v"},
    [I_TABLE_CONSTRAINTS] = {13005, true, "table_constraints",
                             "constraint_catalog v constraint_schema v constraint_name v " ISCOLS_TABLE
                             "constraint_type v is_deferrable v initially_deferred v enforced v nulls_distinct v"},
    [I_KEY_COLUMN_USAGE] = {13006, true, "key_column_usage",
                            "constraint_catalog v constraint_schema v constraint_name v " ISCOLS_TABLE
                            "column_name v ordinal_position i position_in_unique_constraint i"},
};

static rel_id rel_lookup(bool info, const char *name) {
    for (int i = 0; i < R_COUNT; i++)
        if (g_rels[i].info == info && tn_str_iequal(g_rels[i].name, name)) return (rel_id)i;
    return R_COUNT;
}

/* Column k (0-based) of a catalog relation: name and type; false past the last. */
static bool rel_col(const rel_def *d, uint32_t k, char *name, size_t cap, char *type) {
    const char *p = d->cols;
    for (uint32_t i = 0;; i++) {
        while (*p == ' ') p++;
        if (!*p) return false;
        const char *sp = strchr(p, ' ');
        if (i == k) {
            snprintf(name, cap, "%.*s", (int)(sp - p), p);
            *type = sp[1];
            return true;
        }
        p = sp + 2;
    }
}

static tn_type col_type(char t) {
    switch (t) {
    case 'o': return tn_type_make(TN_TYPE_BIGINT);
    case 'i': return tn_type_make(TN_TYPE_INTEGER);
    case 's': return tn_type_make(TN_TYPE_SMALLINT);
    case 'b': return tn_type_make(TN_TYPE_BOOLEAN);
    case 'f': return tn_type_make(TN_TYPE_FLOAT);
    default: return tn_type_make(TN_TYPE_VARCHAR);
    }
}

/* ---------------------------------------------------------------------------------------------
 * Oids of names.
 */
static int64_t name_hash(const char *schema, const char *name) {
    char buf[2 * TN_CATALOG_NAME_MAX + 4];
    int n = snprintf(buf, sizeof buf, "%s.%s", schema, name ? name : "");
    return (int64_t)(tn_hash_bytes(buf, (size_t)n, 0x70675f636174ULL) % (1u << 28));
}

/* A user schema's oid ("" or "public" = the default schema). */
static int64_t schema_oid(const char *schema) {
    if (!*schema || strcmp(schema, "public") == 0) return NS_PUBLIC;
    if (strcmp(schema, "pg_catalog") == 0) return NS_CATALOG;
    if (strcmp(schema, "information_schema") == 0) return NS_INFO;
    return OID_VISIBLE_LIMIT + (INT64_C(1) << 29) + name_hash(schema, NULL);
}

static int64_t rel_oid(const char *schema, const char *name) {
    bool info = strcmp(schema, "information_schema") == 0;
    if (info || strcmp(schema, "pg_catalog") == 0) {
        rel_id r = rel_lookup(info, name);
        return r < R_COUNT ? g_rels[r].oid : 0;
    }
    if (!*schema) schema = "public";          /* 't'::regclass is public.t's oid, as in pg_class */
    if (strcmp(schema, "public") == 0) return 16385 + name_hash(schema, name);
    return OID_VISIBLE_LIMIT + name_hash(schema, name);
}

/* ---------------------------------------------------------------------------------------------
 * Functions of the registry.
 */
#define FN_ARGS const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t n, tn_vector *out
#define STR(k, i) (((const tn_str *)args[k]->data)[TN_ARG_IDX(args[k], i)])
#define I64(k, i) (((const int64_t *)args[k]->data)[TN_ARG_IDX(args[k], i)])
#define I32(k, i) (((const int32_t *)args[k]->data)[TN_ARG_IDX(args[k], i)])

/* 'name' / 'schema.name' / '"Name"' -> oid (0 for a name that cannot be one). */
static int f_regclass_text(FN_ARGS) {
    int64_t *res = out->data;
    for (uint32_t i = 0; i < n; i++) {
        if (!tn_vector_is_valid(out, i)) continue;
        tn_str s = STR(0, i);
        char buf[2 * TN_CATALOG_NAME_MAX + 4], schema[TN_CATALOG_NAME_MAX + 1] = "", name[TN_CATALOG_NAME_MAX + 1];
        size_t k = 0;
        for (uint32_t j = 0; j < s.len && k + 1 < sizeof buf; j++)
            if (s.ptr[j] != '"') buf[k++] = s.ptr[j] >= 'A' && s.ptr[j] <= 'Z' ? (char)(s.ptr[j] + 32) : s.ptr[j];
        buf[k] = 0;
        char *dot = strchr(buf, '.');
        if (dot) {
            *dot = 0;
            snprintf(schema, sizeof schema, "%.128s", buf);
            snprintf(name, sizeof name, "%.128s", dot + 1);
        } else {
            snprintf(name, sizeof name, "%.128s", buf);
            if (rel_lookup(false, name) < R_COUNT) snprintf(schema, sizeof schema, "pg_catalog");
        }
        res[i] = rel_oid(schema, name);
    }
    return 0;
}

static int f_identity_oid(FN_ARGS) {
    for (uint32_t i = 0; i < n; i++) ((int64_t *)out->data)[i] = I64(0, i);
    return 0;
}

static int f_regtype_text(FN_ARGS) {
    for (uint32_t i = 0; i < n; i++) {
        if (!tn_vector_is_valid(out, i)) continue;
        tn_str s = STR(0, i);
        int64_t oid = 0;
        for (size_t k = 0; k < NTYPES; k++)
            if (strlen(g_types[k].name) == s.len && tn_str_iequal_n(s.ptr, s.len, g_types[k].name)) oid = g_types[k].oid;
        ((int64_t *)out->data)[i] = oid;
    }
    return 0;
}

/* oid::regtype shown as text: the type's name (the oid's digits when unknown). */
static int f_regtype_oid(FN_ARGS) {
    for (uint32_t i = 0; i < n; i++) {
        char buf[96];
        if (!tn_vector_is_valid(out, i)) { tn_func_str_empty(out, i); continue; }
        format_type(I64(0, i), -1, false, buf, sizeof buf);
        if (!type_by_oid(I64(0, i))) snprintf(buf, sizeof buf, "%lld", (long long)I64(0, i));
        int rc = tn_vector_set_str(out, i, buf, strlen(buf));
        if (rc) return rc;
    }
    return 0;
}

static int f_format_type(FN_ARGS) {
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r0 = TN_ARG_IDX(args[0], i);
        if (!tn_vector_is_valid(args[0], r0)) { tn_vector_set_null(out, i); tn_func_str_empty(out, i); continue; }
        bool has_mod = nargs > 1 && tn_vector_is_valid(args[1], TN_ARG_IDX(args[1], i));
        char buf[96];
        format_type(I64(0, i), has_mod ? I32(1, i) : -1, has_mod, buf, sizeof buf);
        int rc = tn_vector_set_str(out, i, buf, strlen(buf));
        if (rc) return rc;
    }
    return 0;
}

/* The next element of PostgreSQL's array text a at *j (before end) into el: false at the end;
 * *is_null for an unquoted NULL. */
static bool next_element(tn_str a, uint32_t *j, uint32_t end, tn_buf *el, bool *is_null, int *rc) {
    if (*j >= end) return false;
    el->len = 0;
    bool quoted = a.ptr[*j] == '"';
    if (quoted) (*j)++;
    while (*j < end && (quoted ? a.ptr[*j] != '"' : a.ptr[*j] != ',')) {
        if (a.ptr[*j] == '\\' && *j + 1 < end) (*j)++;
        *rc |= tn_buf_append_byte(el, (uint8_t)a.ptr[(*j)++]);
    }
    if (quoted) (*j)++;
    if (*j < end && a.ptr[*j] == ',') (*j)++;
    *is_null = !quoted && el->len == 4 && tn_str_iequal_n((const char *)el->data, 4, "null");
    return true;
}

static void array_bounds(tn_str a, uint32_t *start, uint32_t *end) {
    *start = a.len && a.ptr[0] == '{' ? 1 : 0;
    *end = a.len && a.ptr[a.len - 1] == '}' ? a.len - 1 : a.len;
}

/* array_to_string('{a,b,"c d"}', sep): the elements of PostgreSQL's array text joined by sep
 * (NULL elements skipped, as PostgreSQL does without a null string). */
static int f_array_to_string(FN_ARGS) {
    tn_buf b = TN_BUF_INIT, el = TN_BUF_INIT;
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (!tn_vector_is_valid(out, i)) { tn_func_str_empty(out, i); continue; }
        tn_str a = STR(0, i), sep = STR(1, i);
        b.len = 0;
        uint32_t j, end;
        array_bounds(a, &j, &end);
        bool first = true, is_null;
        while (!rc && next_element(a, &j, end, &el, &is_null, &rc)) {
            if (is_null) continue;
            if (!first) rc |= tn_buf_append(&b, sep.ptr, sep.len);
            if (el.len) rc |= tn_buf_append(&b, el.data, el.len);
            first = false;
        }
        if (!rc) rc = tn_vector_set_str(out, i, b.data ? (const char *)b.data : "", b.len);
    }
    tn_buf_free(&b);
    tn_buf_free(&el);
    return rc;
}

/* s[k]. On a PostgreSQL array text ('{a,b}': catalog columns), element k (1-based) of the
 * comma-separated elements, NULL when out of range or the element is NULL. On any other string,
 * DuckDB's string subscript: the k-th character (tn_func_str_char_at). */
static int f_array_subscript(FN_ARGS) {
    tn_buf el = TN_BUF_INIT;
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (!tn_vector_is_valid(out, i)) { tn_func_str_empty(out, i); continue; }
        tn_str a = STR(0, i);
        int64_t want = I64(1, i), k = 0;
        if (!(a.len >= 2 && a.ptr[0] == '{' && a.ptr[a.len - 1] == '}')) {
            tn_str c = tn_func_str_char_at(a, want);
            rc = tn_vector_set_str(out, i, c.ptr, c.len);
            continue;
        }
        uint32_t j, end;
        array_bounds(a, &j, &end);
        bool found = false, is_null = false;
        while (!found && next_element(a, &j, end, &el, &is_null, &rc)) found = ++k == want;
        if (!found || is_null) {
            tn_func_str_empty(out, i);
            tn_vector_set_null(out, i);
        } else if (!rc) {
            rc = tn_vector_set_str(out, i, el.data ? (const char *)el.data : "", el.len);
        }
    }
    tn_buf_free(&el);
    return rc;
}

/* pg_array_contains(arr, x): x = ANY (arr), x compared as its text with each element. */
static int f_array_contains(FN_ARGS) {
    tn_buf el = TN_BUF_INIT, xt = TN_BUF_INIT;
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (!tn_vector_is_valid(out, i)) continue;
        tn_str a = STR(0, i);
        tn_value x;
        tn_vector_get_value(args[1], TN_ARG_IDX(args[1], i), &x);
        xt.len = 0;
        rc = tn_value_to_text(&xt, &x);
        uint32_t j, end;
        array_bounds(a, &j, &end);
        bool found = false, is_null;
        while (!found && !rc && next_element(a, &j, end, &el, &is_null, &rc))
            found = !is_null && el.len == xt.len && (!el.len || memcmp(el.data, xt.data, el.len) == 0);
        ((uint8_t *)out->data)[i] = found;
    }
    tn_buf_free(&el);
    tn_buf_free(&xt);
    return rc;
}

static int f_visible(FN_ARGS) {
    for (uint32_t i = 0; i < n; i++) ((uint8_t *)out->data)[i] = I64(0, i) < OID_VISIBLE_LIMIT;
    return 0;
}

static int f_true(FN_ARGS) {
    for (uint32_t i = 0; i < n; i++) ((uint8_t *)out->data)[i] = 1;
    if (out->validity) memset(out->validity, 0xff, ((size_t)n + 63) / 64 * 8);
    return 0;
}

/* Descriptions, defaults, function signatures: tarn keeps none, NULL. */
static int f_null_text(FN_ARGS) {
    for (uint32_t i = 0; i < n; i++) {
        tn_func_str_empty(out, i);
        tn_vector_set_null(out, i);
    }
    return 0;
}

/* PostgreSQL's keywords that quote_ident quotes (all but the unreserved ones), sorted. */
static const char *const g_pg_keywords[] = {
    "all", "analyse", "analyze", "and", "any", "array", "as", "asc", "asymmetric", "authorization", "between",
    "bigint", "binary", "bit", "boolean", "both", "case", "cast", "char", "character", "check", "coalesce",
    "collate", "collation", "column", "concurrently", "constraint", "create", "cross", "current_catalog",
    "current_date", "current_role", "current_schema", "current_time", "current_timestamp", "current_user", "dec",
    "decimal", "default", "deferrable", "desc", "distinct", "do", "else", "end", "except", "exists", "extract",
    "false", "fetch", "float", "for", "foreign", "freeze", "from", "full", "grant", "greatest", "group",
    "grouping", "having", "ilike", "in", "initially", "inner", "inout", "int", "integer", "intersect",
    "interval", "into", "is", "isnull", "join", "lateral", "leading", "least", "left", "like", "limit",
    "localtime", "localtimestamp", "national", "natural", "nchar", "none", "normalize", "not", "notnull", "null",
    "nullif", "numeric", "offset", "on", "only", "or", "order", "out", "outer", "overlaps", "overlay", "placing",
    "position", "precision", "primary", "real", "references", "returning", "right", "row", "select",
    "session_user", "setof", "similar", "smallint", "some", "substring", "symmetric", "system_user", "table",
    "tablesample", "then", "time", "timestamp", "to", "trailing", "treat", "trim", "true", "union", "unique",
    "user", "using", "values", "varchar", "variadic", "verbose", "when", "where", "window", "with",
};

static int kw_cmp(const void *k, const void *e) { return strcmp(k, *(const char *const *)e); }

/* Appends name as PostgreSQL's quote_ident writes it: quoted (inner quotes doubled) unless it
 * is lower-case letters, digits and underscores not starting with a digit, and no keyword. */
static int quote_ident_to(tn_buf *b, const char *p, size_t len) {
    bool plain = len > 0 && !(p[0] >= '0' && p[0] <= '9');
    for (size_t j = 0; j < len && plain; j++)
        plain = (p[j] >= 'a' && p[j] <= 'z') || (p[j] >= '0' && p[j] <= '9') || p[j] == '_';
    if (plain && len < 32) {
        char w[32];
        memcpy(w, p, len);
        w[len] = 0;
        plain = !bsearch(w, g_pg_keywords, sizeof g_pg_keywords / sizeof g_pg_keywords[0], sizeof g_pg_keywords[0],
                         kw_cmp);
    }
    if (plain) return tn_buf_append(b, p, len);
    int rc = tn_buf_append_byte(b, '"');
    for (size_t j = 0; j < len && !rc; j++) {
        if (p[j] == '"') rc = tn_buf_append_byte(b, '"');
        if (!rc) rc = tn_buf_append_byte(b, (uint8_t)p[j]);
    }
    return rc ? rc : tn_buf_append_byte(b, '"');
}

static int f_quote_ident(FN_ARGS) {
    tn_buf b = TN_BUF_INIT;
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (!tn_vector_is_valid(out, i)) { tn_func_str_empty(out, i); continue; }
        tn_str x = STR(0, i);
        b.len = 0;
        rc = quote_ident_to(&b, x.ptr, x.len);
        if (!rc) rc = tn_vector_set_str(out, i, b.data ? (const char *)b.data : "", b.len);
    }
    tn_buf_free(&b);
    return rc;
}

/* pg_regclass_lookup(oid, table): the name of oid in table, the constant text
 * "oid<TAB>name<LF>..." sorted by oid that tn_pg_regclass_name built when the query was bound
 * (parsed once, into bind data); "-" for 0, the number for an oid no relation has. */
typedef struct regclass_map {
    uint32_t n;
    int64_t *oids;
    tn_str *names;                   /* into text */
    char *text;                      /* a copy of the table */
} regclass_map;

static void free_regclass_map(void *p) {
    regclass_map *m = p;
    if (!m) return;
    tn_free(m->oids);
    tn_free(m->names);
    tn_free(m->text);
    tn_free(m);
}

static int bind_regclass_map(tn_func_binding *fb, const tn_value *const *consts, void **bd) {
    (void)fb;
    const tn_value *t = consts[1];
    if (!t || t->is_null) return tn_error_set(TN_EBIND, "pg_regclass_lookup takes a constant relation table");
    regclass_map *m = tn_calloc(1, sizeof *m);
    if (!m) return TN_ENOMEM;
    uint32_t lines = 0;
    for (uint32_t i = 0; i < t->u.s.len; i++) lines += t->u.s.ptr[i] == '\n';
    m->oids = tn_calloc(lines + 1, sizeof *m->oids);
    m->names = tn_calloc(lines + 1, sizeof *m->names);
    m->text = tn_malloc(t->u.s.len + 1);
    if (!m->oids || !m->names || !m->text) {
        free_regclass_map(m);
        return TN_ENOMEM;
    }
    memcpy(m->text, t->u.s.ptr, t->u.s.len);
    m->text[t->u.s.len] = 0;
    const char *p = m->text, *end = p + t->u.s.len;
    while (p < end && m->n < lines) {
        const char *tab = memchr(p, '\t', (size_t)(end - p)), *nl = tab ? memchr(tab, '\n', (size_t)(end - tab)) : NULL;
        if (!tab || !nl) break;
        m->oids[m->n] = strtoll(p, NULL, 10);
        m->names[m->n].ptr = tab + 1;
        m->names[m->n].len = (uint32_t)(nl - tab - 1);
        m->n++;
        p = nl + 1;
    }
    *bd = m;
    return 0;
}

static int f_regclass_lookup(FN_ARGS) {
    const regclass_map *m = call->bind_data;
    for (uint32_t i = 0; i < n; i++) {
        if (!tn_vector_is_valid(out, i)) { tn_func_str_empty(out, i); continue; }
        int64_t oid = I64(0, i);
        uint32_t lo = 0, hi = m ? m->n : 0;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (m->oids[mid] < oid) lo = mid + 1;
            else hi = mid;
        }
        int rc;
        if (m && lo < m->n && m->oids[lo] == oid) {
            rc = tn_vector_set_str(out, i, m->names[lo].ptr, m->names[lo].len);
        } else {
            char num[24];
            int len = oid == 0 ? snprintf(num, sizeof num, "-") : snprintf(num, sizeof num, "%lld", (long long)oid);
            rc = tn_vector_set_str(out, i, num, (size_t)len);
        }
        if (rc) return rc;
    }
    return 0;
}

static int f_encoding_to_char(FN_ARGS) {
    for (uint32_t i = 0; i < n; i++) {
        if (!tn_vector_is_valid(out, i)) { tn_func_str_empty(out, i); continue; }
        const char *e = I32(0, i) == 6 ? "UTF8" : I32(0, i) == 0 ? "SQL_ASCII" : "";
        int rc = tn_vector_set_str(out, i, e, strlen(e));
        if (rc) return rc;
    }
    return 0;
}

#define N TN_SIG_NONE
#define V TN_TYPE_VARCHAR
#define O TN_TYPE_BIGINT
#define A TN_SIG_ANY
#define SN TN_FUNC_SPECIAL_NULLS
const tn_func_def tn_funcs_pg[] = {
    {"regclass", {V, N}, O, 0, f_regclass_text, NULL, NULL},
    {"quote_ident", {V, N}, V, 0, f_quote_ident, NULL, NULL},
    {"pg_regclass_lookup", {O, V, N}, V, 0, f_regclass_lookup, bind_regclass_map, free_regclass_map},
    {"regclass", {O, N}, O, 0, f_identity_oid, NULL, NULL},
    {"regproc", {O, N}, O, 0, f_identity_oid, NULL, NULL},
    {"regnamespace", {O, N}, O, 0, f_identity_oid, NULL, NULL},
    {"regrole", {O, N}, O, 0, f_identity_oid, NULL, NULL},
    {"regtype", {V, N}, O, 0, f_regtype_text, NULL, NULL},
    {"regtype", {O, N}, V, 0, f_regtype_oid, NULL, NULL},
    {"format_type", {O, TN_TYPE_INTEGER, N}, V, SN, f_format_type, NULL, NULL},
    {"array_to_string", {V, V, N}, V, 0, f_array_to_string, NULL, NULL},
    {"pg_array_subscript", {V, O, N}, V, 0, f_array_subscript, NULL, NULL},
    {"pg_array_contains", {V, A, N}, TN_TYPE_BOOLEAN, 0, f_array_contains, NULL, NULL},
    {"pg_table_is_visible", {O, N}, TN_TYPE_BOOLEAN, 0, f_visible, NULL, NULL},
    {"pg_type_is_visible", {O, N}, TN_TYPE_BOOLEAN, 0, f_true, NULL, NULL},
    {"pg_function_is_visible", {O, N}, TN_TYPE_BOOLEAN, 0, f_true, NULL, NULL},
    {"has_table_privilege", {A, N}, TN_TYPE_BOOLEAN, TN_FUNC_VARIADIC | SN, f_true, NULL, NULL},
    {"has_schema_privilege", {A, N}, TN_TYPE_BOOLEAN, TN_FUNC_VARIADIC | SN, f_true, NULL, NULL},
    {"has_database_privilege", {A, N}, TN_TYPE_BOOLEAN, TN_FUNC_VARIADIC | SN, f_true, NULL, NULL},
    {"has_column_privilege", {A, N}, TN_TYPE_BOOLEAN, TN_FUNC_VARIADIC | SN, f_true, NULL, NULL},
    {"has_any_column_privilege", {A, N}, TN_TYPE_BOOLEAN, TN_FUNC_VARIADIC | SN, f_true, NULL, NULL},
    {"pg_get_expr", {A, N}, V, TN_FUNC_VARIADIC | SN, f_null_text, NULL, NULL},
    {"obj_description", {A, N}, V, TN_FUNC_VARIADIC | SN, f_null_text, NULL, NULL},
    {"col_description", {A, N}, V, TN_FUNC_VARIADIC | SN, f_null_text, NULL, NULL},
    {"shobj_description", {A, N}, V, TN_FUNC_VARIADIC | SN, f_null_text, NULL, NULL},
    {"pg_get_function_result", {O, N}, V, SN, f_null_text, NULL, NULL},
    {"pg_get_function_arguments", {O, N}, V, SN, f_null_text, NULL, NULL},
    {"pg_get_indexdef", {A, N}, V, TN_FUNC_VARIADIC | SN, f_null_text, NULL, NULL},
    {"pg_get_constraintdef", {A, N}, V, TN_FUNC_VARIADIC | SN, f_null_text, NULL, NULL},
    {"pg_get_viewdef", {A, N}, V, TN_FUNC_VARIADIC | SN, f_null_text, NULL, NULL},
    {"pg_encoding_to_char", {TN_TYPE_INTEGER, N}, V, 0, f_encoding_to_char, NULL, NULL},
    {NULL, {N}, 0, 0, NULL, NULL, NULL},
};
#undef N
#undef V
#undef O
#undef A

/* ---------------------------------------------------------------------------------------------
 * Functions resolved when bound: the session's user and database, the server's version.
 */
static const char *session_user(const tn_binder *b) {
    const char *u = tn_sql_session_client(b->session, NULL);
    return u && *u ? u : "tarn";
}

bool tn_pg_is_session_function(const char *name) {
    static const char *const names[] = {"version", "current_database", "current_schema", "current_user",
                                        "session_user", "user", "current_role", "current_catalog",
                                        "current_schemas", "pg_get_userbyid", "pg_backend_pid"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (tn_str_iequal(name, names[i])) return true;
    return false;
}

int tn_pg_session_function(tn_binder *b, const char *name, uint32_t nargs, tn_expr **out) {
    char buf[256];
    tn_value v;
    memset(&v, 0, sizeof v);
    v.type = tn_type_make(TN_TYPE_VARCHAR);
    const char *s = NULL;
    const char *db = NULL;
    tn_sql_session_client(b->session, &db);
    if (tn_str_iequal(name, "version")) {
        snprintf(buf, sizeof buf, "PostgreSQL 15.0 (tarn %s) on x86_64-pc-linux-gnu, 64-bit", TARN_VERSION);
        s = buf;
    } else if (tn_str_iequal(name, "current_database") || tn_str_iequal(name, "current_catalog")) {
        s = db && *db ? db : "tarn";
    } else if (tn_str_iequal(name, "current_schema")) {
        s = "public";
    } else if (tn_str_iequal(name, "current_schemas")) {
        s = "{pg_catalog,public}";
    } else if (tn_str_iequal(name, "pg_backend_pid")) {
        v.type = tn_type_make(TN_TYPE_INTEGER);
        v.u.i = 0;
    } else {
        s = session_user(b);     /* current_user, session_user, user, pg_get_userbyid(any) */
    }
    (void)nargs;
    if (s) {
        v.u.s.ptr = tn_arena_strdup(b->arena, s);
        if (!v.u.s.ptr) return TN_ENOMEM;
        v.u.s.len = (uint32_t)strlen(s);
    }
    return tn_expr_constant(out, &v);
}

/* ---------------------------------------------------------------------------------------------
 * Building a relation's rows.
 */
typedef struct pg_out {
    tn_binder *b;
    tn_plan *p;
    tn_expr **cells;
    size_t ncells, cap;
    uint32_t col;
    int rc;
} pg_out;

static void put_value(pg_out *o, tn_value *x) {
    if (o->rc) return;
    if (o->ncells == o->cap) {
        size_t ncap = o->cap ? o->cap * 2 : 256;
        tn_expr **nc = tn_realloc(o->cells, ncap * sizeof *nc);
        if (!nc) { o->rc = TN_ENOMEM; return; }
        o->cells = nc;
        o->cap = ncap;
    }
    x->type = o->p->types[o->col++ % o->p->ncols];
    o->cells[o->ncells] = NULL;
    o->rc = tn_expr_constant(&o->cells[o->ncells], x);
    o->ncells++;
}

static void pi(pg_out *o, int64_t v) {
    tn_value x;
    memset(&x, 0, sizeof x);
    if (o->p->types[o->col % o->p->ncols].id == TN_TYPE_FLOAT) x.u.d = (double)v;
    else if (o->p->types[o->col % o->p->ncols].id == TN_TYPE_BOOLEAN) x.u.b = v != 0;
    else x.u.i = v;
    put_value(o, &x);
}

static void pnull(pg_out *o) {
    tn_value x;
    memset(&x, 0, sizeof x);
    x.is_null = true;
    put_value(o, &x);
}

static void ps(pg_out *o, const char *s) {
    if (!s) { pnull(o); return; }
    tn_value x;
    memset(&x, 0, sizeof x);
    x.u.s.ptr = tn_arena_strdup(o->b->arena, s);
    if (!x.u.s.ptr) { o->rc = TN_ENOMEM; return; }
    x.u.s.len = (uint32_t)strlen(s);
    put_value(o, &x);
}

/* Fills the rest of the row with NULLs. */
static void row_end(pg_out *o) {
    while (o->col % o->p->ncols && !o->rc) pnull(o);
    o->col = 0;
}

/* A relation of the model: a catalog relation, or a table or view of the warehouse. */
typedef struct pg_rel {
    const char *schema;         /* "public", "pg_catalog", "information_schema", or a schema */
    const char *name;
    int64_t oid, nsoid;
    char kind;                  /* 'r' table, 'v' view */
    int catalog;                /* rel_id for catalog relations, -1 else */
    const char *sql;            /* views: the definition */
} pg_rel;

typedef struct pg_model {
    pg_rel *rels;
    uint32_t nrels;
    const char **schemas;       /* user schemas, "public" first */
    uint32_t nschemas;
} pg_model;

static int model_add(tn_binder *b, pg_model *m, uint32_t *cap, const char *schema, const char *name, char kind,
                     int catalog, const char *sql) {
    if (m->nrels == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 64;
        pg_rel *nr = tn_arena_alloc(b->arena, nc * sizeof *nr);
        if (!nr) return TN_ENOMEM;
        if (m->nrels) memcpy(nr, m->rels, m->nrels * sizeof *nr);
        m->rels = nr;
        *cap = nc;
    }
    pg_rel *r = &m->rels[m->nrels++];
    r->schema = schema;
    r->name = tn_arena_strdup(b->arena, name);
    r->sql = sql ? tn_arena_strdup(b->arena, sql) : NULL;
    if (!r->name || (sql && !r->sql)) return TN_ENOMEM;
    r->kind = kind;
    r->catalog = catalog;
    r->nsoid = schema_oid(schema);
    r->oid = catalog >= 0 ? g_rels[catalog].oid : rel_oid(schema, name);
    return 0;
}

static int model_build(tn_binder *b, pg_model *m) {
    memset(m, 0, sizeof *m);
    uint32_t cap = 0;
    int rc = 0;
    for (int i = 0; i < R_COUNT && !rc; i++)
        rc = model_add(b, m, &cap, g_rels[i].info ? "information_schema" : "pg_catalog", g_rels[i].name,
                       g_rels[i].info ? 'v' : 'r', i, NULL);
    if (rc) return rc;
    tn_catalog *cat = NULL;
    if (!b->session->warehouse || tn_stmt_catalog(b, false, &cat)) {
        tn_error_clear();
        m->schemas = tn_arena_alloc(b->arena, sizeof *m->schemas);
        if (!m->schemas) return TN_ENOMEM;
        m->schemas[0] = "public";
        m->nschemas = 1;
        return 0;
    }
    tn_catalog_list sl = {0};
    rc = tn_catalog_schema_list(cat, &sl);
    if (rc) return rc;
    m->schemas = tn_arena_alloc(b->arena, (sl.count + 1) * sizeof *m->schemas);
    if (!m->schemas) { rc = TN_ENOMEM; goto cleanup; }
    for (uint32_t s = 0; s < sl.count && !rc; s++) {
        const char *dir = strcmp(sl.names[s], "default") == 0 ? "" : sl.names[s];
        const char *schema = *dir ? tn_arena_strdup(b->arena, dir) : "public";
        if (!schema) { rc = TN_ENOMEM; break; }
        m->schemas[m->nschemas++] = schema;
        tn_catalog_list tl = {0}, vl = {0};
        rc = tn_catalog_table_list(cat, dir, &tl);
        for (uint32_t t = 0; t < tl.count && !rc; t++) rc = model_add(b, m, &cap, schema, tl.names[t], 'r', -1, NULL);
        if (!rc) rc = tn_catalog_view_list(cat, dir, &vl);
        for (uint32_t v = 0; v < vl.count && !rc; v++) {
            tn_catalog_name cn;
            tn_catalog_view def = {0};
            rc = tn_catalog_name_make(&cn, "view", dir, vl.names[v]);
            if (!rc) rc = tn_catalog_view_get(cat, &cn, &def);
            if (!rc) rc = model_add(b, m, &cap, schema, vl.names[v], 'v', -1, def.sql);
            tn_catalog_view_free(&def);
        }
        tn_catalog_list_free(&tl);
        tn_catalog_list_free(&vl);
    }
cleanup:
    tn_catalog_list_free(&sl);
    return rc;
}

static int rel_cmp(const void *a, const void *b) {
    const pg_rel *x = a, *y = b;
    return x->oid < y->oid ? -1 : x->oid > y->oid;
}

int tn_pg_regclass_name(tn_binder *b, tn_expr *arg, tn_expr **out) {
    pg_model m;
    int rc = model_build(b, &m);
    if (rc) {
        tn_expr_free(arg);
        return rc;
    }
    qsort(m.rels, m.nrels, sizeof *m.rels, rel_cmp);
    tn_buf t = TN_BUF_INIT;
    for (uint32_t i = 0; i < m.nrels && !rc; i++) {
        const pg_rel *r = &m.rels[i];
        if (i && r->oid == m.rels[i - 1].oid) continue;
        rc = tn_buf_printf(&t, "%lld\t", (long long)r->oid);
        /* shown unqualified when its schema is on the search path (public, pg_catalog) */
        if (!rc && strcmp(r->schema, "public") != 0 && strcmp(r->schema, "pg_catalog") != 0) {
            rc = quote_ident_to(&t, r->schema, strlen(r->schema));
            if (!rc) rc = tn_buf_append_byte(&t, '.');
        }
        if (!rc) rc = quote_ident_to(&t, r->name, strlen(r->name));
        if (!rc) rc = tn_buf_append_byte(&t, '\n');
    }
    tn_value v;
    memset(&v, 0, sizeof v);
    v.type = tn_type_make(TN_TYPE_VARCHAR);
    v.u.s.ptr = t.data ? (const char *)t.data : "";
    v.u.s.len = (uint32_t)t.len;
    tn_expr *args[2] = {arg, NULL};
    if (!rc) rc = tn_expr_constant(&args[1], &v);       /* copies the text */
    tn_buf_free(&t);
    if (!rc) return tn_expr_function(out, "pg_regclass_lookup", args, 2);
    tn_expr_free(arg);
    tn_expr_free(args[1]);
    return rc;
}

/* Columns of a relation: names, types, nullability (NULL names when it cannot be read, e.g.
 * a view whose definition no longer binds: it is listed without columns). */
typedef struct pg_cols {
    uint32_t n;
    const char **names;
    tn_type *types;
    bool *nullable;
} pg_cols;

static int rel_columns(tn_binder *b, const pg_rel *r, pg_cols *out) {
    memset(out, 0, sizeof *out);
    if (r->catalog >= 0) {
        const rel_def *d = &g_rels[r->catalog];
        char nm[64], t;
        uint32_t k = 0;
        while (rel_col(d, k, nm, sizeof nm, &t)) k++;
        out->names = tn_arena_alloc(b->arena, (k + 1) * sizeof *out->names);
        out->types = tn_arena_alloc(b->arena, (k + 1) * sizeof *out->types);
        out->nullable = tn_arena_alloc(b->arena, (k + 1) * sizeof *out->nullable);
        if (!out->names || !out->types || !out->nullable) return TN_ENOMEM;
        for (uint32_t i = 0; i < k; i++) {
            rel_col(d, i, nm, sizeof nm, &t);
            out->names[i] = tn_arena_strdup(b->arena, nm);
            if (!out->names[i]) return TN_ENOMEM;
            out->types[i] = col_type(t);
            out->nullable[i] = true;
        }
        out->n = k;
        return 0;
    }
    tn_catalog *cat = NULL;
    int rc = tn_stmt_catalog(b, false, &cat);
    if (rc) return rc;
    tn_catalog_name cn;
    rc = tn_catalog_name_make(&cn, r->kind == 'v' ? "view" : "table", strcmp(r->schema, "public") ? r->schema : NULL,
                              r->name);
    if (rc) return rc;
    if (r->kind == 'v') {
        tn_plan *p = NULL;
        rc = tn_bind_query_text(b, r->sql, "view", &p);
        if (rc) {
            tn_error_clear();
            return rc == TN_ENOMEM ? rc : 0;
        }
        out->n = p->ncols;
        out->names = p->names;
        out->types = p->types;
        out->nullable = tn_arena_alloc(b->arena, (p->ncols + 1) * sizeof *out->nullable);
        if (!out->nullable) rc = TN_ENOMEM;
        for (uint32_t i = 0; !rc && i < p->ncols; i++) out->nullable[i] = true;
        tn_plan_free(p);
        return rc;
    }
    tn_table *t = NULL;
    rc = tn_catalog_table_open(cat, &cn, NULL, &t);
    if (rc) {                  /* dropped meanwhile, or unreadable: listed without columns */
        tn_error_clear();
        return rc == TN_ENOMEM ? rc : 0;
    }
    uint32_t k = tn_table_num_columns(t);
    out->names = tn_arena_alloc(b->arena, (k + 1) * sizeof *out->names);
    out->types = tn_arena_alloc(b->arena, (k + 1) * sizeof *out->types);
    out->nullable = tn_arena_alloc(b->arena, (k + 1) * sizeof *out->nullable);
    if (!out->names || !out->types || !out->nullable) rc = TN_ENOMEM;
    for (uint32_t i = 0; !rc && i < k; i++) {
        const tn_delta_column *c = tn_table_column(t, i);
        out->names[i] = tn_arena_strdup(b->arena, c->name);
        if (!out->names[i]) rc = TN_ENOMEM;
        out->types[i] = c->type;
        out->nullable[i] = c->nullable;
    }
    if (!rc) out->n = k;
    tn_table_close(t);
    return rc;
}

/* The primary key of table r (its 'primary-key' property) as pg_index.indkey: the key columns'
 * attnums in key order ("3 1"); "" for a table without one (or unreadable). */
#define PK_MAX_KEYS 64
static int pk_indkey(tn_binder *b, const pg_rel *r, char *out, size_t cap, uint32_t *nkeys, uint32_t *attnums) {
    out[0] = 0;
    *nkeys = 0;
    tn_catalog *cat = NULL;
    tn_catalog_name cn;
    int rc = tn_stmt_catalog(b, false, &cat);
    if (!rc) rc = tn_catalog_name_make(&cn, "table", strcmp(r->schema, "public") ? r->schema : NULL, r->name);
    tn_table *t = NULL;
    if (!rc) rc = tn_catalog_table_open(cat, &cn, NULL, &t);
    if (rc) {
        tn_error_clear();
        return rc == TN_ENOMEM ? rc : 0;
    }
    size_t len = 0;
    for (const char *p = tn_table_property(t, "primary-key"); p && *p;) {
        while (*p == ' ') p++;
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        while (n && p[n - 1] == ' ') n--;
        for (uint32_t i = 0; i < tn_table_num_columns(t); i++) {
            const char *c = tn_table_column(t, i)->name;
            if (strlen(c) == n && tn_str_iequal_n(p, n, c) && len + 12 < cap && *nkeys < PK_MAX_KEYS) {
                len += (size_t)snprintf(out + len, cap - len, "%s%u", len ? " " : "", i + 1);
                attnums[(*nkeys)++] = i + 1;
                break;
            }
        }
        p = e ? e + 1 : NULL;
    }
    tn_table_close(t);
    return 0;
}

static void class_row(pg_out *o, const pg_rel *r, uint32_t natts) {
    pi(o, r->oid); ps(o, r->name); pi(o, r->nsoid); pi(o, 0); pi(o, 0); pi(o, ROLE_OID);
    pi(o, r->kind == 'r' ? 2 : 0); pi(o, 0); pi(o, 0); pi(o, 0); pi(o, -1); pi(o, 0); pi(o, 0);
    pi(o, 0); pi(o, 0); ps(o, "p"); ps(o, r->kind == 'r' ? "r" : "v"); pi(o, natts); pi(o, 0);
    pi(o, 0); pi(o, 0); pi(o, 0); pi(o, 0); pi(o, 0); pi(o, 1); ps(o, "d"); pi(o, 0); pi(o, 0);
    row_end(o);
}

/* typstorage / attstorage as PostgreSQL 15's: fixed-length plain, numeric main, else extended. */
static const char *type_storage(const pg_type_def *t) {
    return t && t->len > 0 ? "p" : t && t->oid == 1700 ? "m" : "x";
}

static void type_row(pg_out *o, const pg_type_def *t) {
    char buf[32];
    pi(o, t->oid); ps(o, t->name); pi(o, NS_CATALOG); pi(o, ROLE_OID); pi(o, t->len);
    pi(o, t->len > 0 && t->len <= 8); ps(o, "b"); snprintf(buf, sizeof buf, "%c", t->category); ps(o, buf);
    pi(o, t->oid == 25 || t->oid == 701 || t->oid == 1184 || t->oid == 16); pi(o, 1); ps(o, ",");
    pi(o, 0); ps(o, t->elem ? "array_subscript_handler" : "-"); pi(o, t->elem); pi(o, t->array);
    snprintf(buf, sizeof buf, "%s%s", t->elem ? "array_" : t->name, "in"); ps(o, t->elem ? "array_in" : buf);
    snprintf(buf, sizeof buf, "%sout", t->name); ps(o, t->elem ? "array_out" : buf);
    snprintf(buf, sizeof buf, "%srecv", t->name); ps(o, t->elem ? "array_recv" : buf);
    snprintf(buf, sizeof buf, "%ssend", t->name); ps(o, t->elem ? "array_send" : buf);
    ps(o, "-"); ps(o, "-"); ps(o, "-");
    ps(o, t->len == 8 ? "d" : t->len == 4 ? "i" : t->len == 2 ? "s" : t->len == 1 ? "c" : "i");
    ps(o, type_storage(t)); pi(o, 0); pi(o, 0); pi(o, -1); pi(o, 0);
    pi(o, t->category == 'S' ? 100 : 0);
    row_end(o);
}

static const char *is_data_type(tn_type t, char *buf, size_t cap) {
    return format_type(tn_pg_type_oid(t), -1, false, buf, cap);   /* without modifiers, as PostgreSQL */
}

static int rows_of(pg_out *o, rel_id id, const pg_model *m) {
    tn_binder *b = o->b;
    const char *user = session_user(b), *db = NULL;
    tn_sql_session_client(b->session, &db);
    if (!db || !*db) db = "tarn";
    int rc = 0;
    switch (id) {
    case R_NAMESPACE:
    case I_SCHEMATA: {
        const char *sys[] = {"pg_catalog", "information_schema"};
        for (uint32_t i = 0; i < m->nschemas + 2; i++) {
            const char *s = i < 2 ? sys[i] : m->schemas[i - 2];
            if (id == R_NAMESPACE) { pi(o, schema_oid(s)); ps(o, s); pi(o, ROLE_OID); }
            else { ps(o, db); ps(o, s); ps(o, user); }
            row_end(o);
        }
        break;
    }
    case R_CLASS:
    case R_ATTRIBUTE:
    case R_TABLES:
    case R_VIEWS:
    case I_TABLES:
    case I_COLUMNS:
    case I_VIEWS:
        for (uint32_t i = 0; i < m->nrels && !o->rc && !rc; i++) {
            const pg_rel *r = &m->rels[i];
            if (id == R_CLASS) {
                class_row(o, r, r->catalog >= 0 ? 0 : 0);
            } else if (id == R_TABLES || id == R_VIEWS) {
                if ((id == R_TABLES) != (r->kind == 'r')) continue;
                ps(o, r->schema); ps(o, r->name); ps(o, user);
                if (id == R_VIEWS) ps(o, r->sql);
                else { pnull(o); pi(o, 0); pi(o, 0); pi(o, 0); pi(o, 0); }
                row_end(o);
            } else if (id == I_TABLES || id == I_VIEWS) {
                if (id == I_VIEWS && r->kind != 'v') continue;
                ps(o, db); ps(o, r->schema); ps(o, r->name);
                if (id == I_VIEWS) { ps(o, r->sql); ps(o, "NONE"); ps(o, "NO"); ps(o, "NO"); ps(o, "NO"); ps(o, "NO"); ps(o, "NO"); }
                else {
                    ps(o, r->kind == 'v' ? "VIEW" : r->catalog >= 0 ? "SYSTEM TABLE" : "BASE TABLE");
                    pnull(o); pnull(o); pnull(o); pnull(o); pnull(o); ps(o, r->kind == 'r' && r->catalog < 0 ? "YES" : "NO");
                    ps(o, "NO");
                }
                row_end(o);
            } else {
                pg_cols cols;
                rc = rel_columns(b, r, &cols);
                for (uint32_t k = 0; !rc && k < cols.n && !o->rc; k++) {
                    tn_type t = cols.types[k];
                    int64_t toid = tn_pg_type_oid(t);
                    const pg_type_def *td = type_by_oid(toid);
                    if (id == R_ATTRIBUTE) {
                        pi(o, r->oid); ps(o, cols.names[k]); pi(o, toid); pi(o, -1); pi(o, td ? td->len : -1);
                        pi(o, k + 1); pi(o, 0); pi(o, -1); pi(o, type_mod(t)); pi(o, td && td->len > 0 && td->len <= 8);
                        ps(o, td && td->len == 8 ? "d" : "i"); ps(o, type_storage(td)); ps(o, "");
                        pi(o, !cols.nullable[k]); pi(o, 0); pi(o, 0); ps(o, ""); ps(o, ""); pi(o, 0); pi(o, 1);
                        pi(o, 0); pi(o, toid == 25 ? 100 : 0);
                    } else {
                        char buf[96];
                        ps(o, db); ps(o, r->schema); ps(o, r->name); ps(o, cols.names[k]); pi(o, k + 1); pnull(o);
                        ps(o, cols.nullable[k] ? "YES" : "NO"); ps(o, is_data_type(t, buf, sizeof buf));
                        pnull(o); if (toid == 25) pi(o, 1073741824); else pnull(o);
                        bool num = tn_type_is_numeric(t);
                        int prec = t.id == TN_TYPE_DECIMAL ? t.precision : t.id == TN_TYPE_TINYINT || t.id == TN_TYPE_SMALLINT ? 16
                                 : t.id == TN_TYPE_INTEGER ? 32 : t.id == TN_TYPE_BIGINT ? 64 : t.id == TN_TYPE_FLOAT ? 24 : 53;
                        if (num) { pi(o, prec); pi(o, t.id == TN_TYPE_DECIMAL ? 10 : 2); }
                        else { pnull(o); pnull(o); }
                        if (num && t.id != TN_TYPE_FLOAT && t.id != TN_TYPE_DOUBLE) pi(o, t.id == TN_TYPE_DECIMAL ? t.scale : 0);
                        else pnull(o);
                        if (t.id == TN_TYPE_DATE) pi(o, 0);
                        else if (t.id == TN_TYPE_TIMESTAMP || t.id == TN_TYPE_TIMESTAMP_TZ || t.id == TN_TYPE_INTERVAL) pi(o, 6);
                        else pnull(o);
                        pnull(o); pnull(o); ps(o, db); ps(o, "pg_catalog"); ps(o, td ? td->name : "text"); ps(o, "NO");
                        ps(o, "NEVER"); pnull(o); ps(o, r->kind == 'r' && r->catalog < 0 ? "YES" : "NO");
                    }
                    row_end(o);
                }
            }
        }
        break;
    case R_INDEX:
        /* a primary-key table's key as its "<table>_pkey" index (the oid of that name) */
        for (uint32_t i = 0; i < m->nrels && !o->rc && !rc; i++) {
            const pg_rel *r = &m->rels[i];
            if (r->catalog >= 0 || r->kind != 'r') continue;
            char key[512], idx[300], zeros[512];
            uint32_t nk = 0, attnums[PK_MAX_KEYS];
            if ((rc = pk_indkey(b, r, key, sizeof key, &nk, attnums)) || !nk) continue;
            snprintf(idx, sizeof idx, "%s_pkey", r->name);
            size_t zl = 0;
            for (uint32_t k = 0; k < nk && zl + 3 < sizeof zeros; k++) zl += (size_t)snprintf(zeros + zl, sizeof zeros - zl, "%s0", k ? " " : "");
            pi(o, rel_oid(r->schema, idx)); pi(o, r->oid); pi(o, nk); pi(o, nk);
            pi(o, 1); pi(o, 0); pi(o, 1); pi(o, 0); pi(o, 1); pi(o, 0); pi(o, 1); pi(o, 0); pi(o, 1); pi(o, 1); pi(o, 0);
            ps(o, key); ps(o, zeros); ps(o, zeros); ps(o, zeros);
            row_end(o);
        }
        break;
    case R_CONSTRAINT:
    case I_TABLE_CONSTRAINTS:
    case I_KEY_COLUMN_USAGE:
        /* a primary-key table's key as its constraint "<table>_pkey" (the index's name, as
         * PostgreSQL names both); NOT NULL columns are not listed as CHECK constraints */
        for (uint32_t i = 0; i < m->nrels && !o->rc && !rc; i++) {
            const pg_rel *r = &m->rels[i];
            if (r->catalog >= 0 || r->kind != 'r') continue;
            char key[512], name[300];
            uint32_t nk = 0, attnums[PK_MAX_KEYS];
            if ((rc = pk_indkey(b, r, key, sizeof key, &nk, attnums)) || !nk) continue;
            snprintf(name, sizeof name, "%s_pkey", r->name);
            if (id == R_CONSTRAINT) {
                char conkey[520];
                snprintf(conkey, sizeof conkey, "{%s}", key);
                for (char *c = conkey; *c; c++) if (*c == ' ') *c = ',';
                /* oid: its index's + 1 */
                pi(o, rel_oid(r->schema, name) + 1); ps(o, name); pi(o, r->nsoid); ps(o, "p"); pi(o, 0); pi(o, 0);
                pi(o, 1); pi(o, r->oid); pi(o, 0); pi(o, rel_oid(r->schema, name)); pi(o, 0); pi(o, 0); ps(o, " ");
                ps(o, " "); ps(o, " "); pi(o, 1); pi(o, 0); pi(o, 1); ps(o, conkey);
                row_end(o);
            } else if (id == I_TABLE_CONSTRAINTS) {
                ps(o, db); ps(o, r->schema); ps(o, name); ps(o, db); ps(o, r->schema); ps(o, r->name);
                ps(o, "PRIMARY KEY"); ps(o, "NO"); ps(o, "NO"); ps(o, "YES");
                row_end(o);
            } else {
                pg_cols cols;
                if ((rc = rel_columns(b, r, &cols))) break;
                for (uint32_t k = 0; k < nk && !o->rc; k++) {
                    if (attnums[k] > cols.n) continue;
                    ps(o, db); ps(o, r->schema); ps(o, name); ps(o, db); ps(o, r->schema); ps(o, r->name);
                    ps(o, cols.names[attnums[k] - 1]); pi(o, k + 1);
                    row_end(o);
                }
            }
        }
        break;
    case R_TYPE:
        for (size_t i = 0; i < NTYPES; i++) type_row(o, &g_types[i]);
        break;
    case R_DATABASE:
        pi(o, DB_OID); ps(o, db); pi(o, ROLE_OID); pi(o, 6); ps(o, "c"); pi(o, 0); pi(o, 1); pi(o, -1); pi(o, 0);
        pi(o, 0); pi(o, 1663); ps(o, "C"); ps(o, "C"); pnull(o); pnull(o); pnull(o);
        row_end(o);
        break;
    case R_AM:
        pi(o, 2); ps(o, "heap"); ps(o, "heap_tableam_handler"); ps(o, "t"); row_end(o);
        pi(o, 403); ps(o, "btree"); ps(o, "bthandler"); ps(o, "i"); row_end(o);
        break;
    case R_ROLES:
        ps(o, user); pi(o, 0); pi(o, 1); pi(o, 0); pi(o, 0); pi(o, 1); pi(o, 0); pi(o, -1); ps(o, "********");
        pnull(o); pi(o, 0); pnull(o); pi(o, ROLE_OID);
        row_end(o);
        break;
    case R_USER:
        ps(o, user); pi(o, ROLE_OID); pi(o, 0); pi(o, 0); pi(o, 0); pi(o, 0); ps(o, "********");
        row_end(o);
        break;
    case R_TABLESPACE:
        pi(o, 1663); ps(o, "pg_default"); pi(o, ROLE_OID); row_end(o);
        pi(o, 1664); ps(o, "pg_global"); pi(o, ROLE_OID); row_end(o);
        break;
    case R_COLLATION: {
        static const struct { int64_t oid; const char *name, *prov; } c[] = {
            {100, "default", "d"}, {950, "C", "c"}, {951, "POSIX", "c"}};
        for (size_t i = 0; i < 3; i++) {
            pi(o, c[i].oid); ps(o, c[i].name); pi(o, NS_CATALOG); pi(o, ROLE_OID); ps(o, c[i].prov); pi(o, 1);
            pi(o, -1); ps(o, i ? c[i].name : NULL); ps(o, i ? c[i].name : NULL);
            row_end(o);
        }
        break;
    }
    case R_SETTINGS: {
        const char *name, *value, *desc;
        for (int i = 0; b->session->settings_fn && b->session->settings_fn(b->session->settings_ctx, i, &name, &value, &desc);
             i++) {
            ps(o, name); ps(o, value); pnull(o); ps(o, "Server"); ps(o, desc); pnull(o); ps(o, "user"); ps(o, "string");
            ps(o, "session"); pnull(o); pnull(o); pnull(o); ps(o, value); ps(o, value); pnull(o); pnull(o); pi(o, 0);
            row_end(o);
        }
        break;
    }
    default:
        break;                 /* things tarn has not: empty */
    }
    return rc ? rc : o->rc;
}

/* pg_catalog.x / information_schema.x, or an unqualified pg_x when no table or view has that
 * name (PostgreSQL searches pg_catalog implicitly). */
int tn_bind_pg_table(tn_binder *b, tn_sql_tableref *t, bool *found, tn_plan **out) {
    *out = NULL;
    *found = false;
    const tn_sql_qname *q = &t->u.table.name;
    rel_id id = R_COUNT;
    if (q->n == 2 && tn_str_iequal(q->parts[0].name, "pg_catalog")) id = rel_lookup(false, q->parts[1].name);
    else if (q->n == 2 && tn_str_iequal(q->parts[0].name, "information_schema")) id = rel_lookup(true, q->parts[1].name);
    else if (q->n == 1 && strncmp(q->parts[0].name, "pg_", 3) == 0) {
        id = rel_lookup(false, q->parts[0].name);
        if (id < R_COUNT && b->session->warehouse) {
            tn_catalog *cat = NULL;
            tn_catalog_name cn;
            bool is_table = false, is_view = false;
            if (!tn_stmt_catalog(b, false, &cat) && !tn_catalog_name_make(&cn, "table", NULL, q->parts[0].name) &&
                !tn_catalog_table_exists(cat, &cn, &is_table) && !tn_catalog_view_exists(cat, &cn, &is_view) &&
                (is_table || is_view))
                id = R_COUNT;
            tn_error_clear();
        }
    }
    if (id == R_COUNT) return 0;
    *found = true;
    if (t->u.table.travel != TN_SQL_TT_NONE)
        return tn_bind_error_code(b, TN_EUNSUPPORTED, t->pos, "time travel on %s: system catalogs have no versions",
                                  g_rels[id].name);
    const rel_def *d = &g_rels[id];
    uint32_t ncols = 0;
    char nm[64], ty;
    while (rel_col(d, ncols, nm, sizeof nm, &ty)) ncols++;
    tn_plan *p = tn_plan_new(b->arena, TN_PLAN_VALUES, ncols);
    if (!p) return TN_ENOMEM;
    for (uint32_t c = 0; c < ncols; c++) {
        rel_col(d, c, nm, sizeof nm, &ty);
        p->names[c] = tn_arena_strdup(b->arena, nm);
        if (!p->names[c]) return TN_ENOMEM;
        p->types[c] = col_type(ty);
    }
    pg_model m;
    pg_out o = {b, p, NULL, 0, 0, 0, 0};
    int rc = model_build(b, &m);
    if (!rc) rc = rows_of(&o, id, &m);
    if (!rc) {
        p->u.values.nrows = (uint32_t)(o.ncells / ncols);
        p->u.values.exprs = tn_arena_calloc(b->arena, (o.ncells + 1) * sizeof(tn_expr *));
        if (!p->u.values.exprs) rc = TN_ENOMEM;
        else if (o.ncells) memcpy(p->u.values.exprs, o.cells, o.ncells * sizeof(tn_expr *));
        p->est_rows = p->u.values.nrows;
    }
    if (rc) {
        for (size_t i = 0; i < o.ncells; i++) tn_expr_free(o.cells[i]);
        tn_free(o.cells);
        return rc == TN_ENOMEM ? rc : tn_bind_error_at(b, rc, t->pos);
    }
    tn_free(o.cells);
    *out = p;
    return 0;
}
