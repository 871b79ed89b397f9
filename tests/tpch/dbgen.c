/* tests/tpch/dbgen.c: tarn's TPC-H data generator (build/tpch_dbgen), written from the TPC-H
 * specification's rules for dbgen (clause 4.2): the eight tables at a scale factor, with the
 * spec's cardinalities, key spaces (sparse order keys, customers not divisible by 3, the four
 * partsupp suppliers of a part), value domains and derivations (retail price, extended and
 * total price, order status, return flag and line status from CURRENTDATE), and comments cut
 * from a text pool built by the spec's sentence grammar. It is deterministic: the same scale
 * factor gives the same bytes. Its random streams are not dbgen's, so the rows differ from the
 * official answer set's; tests compare tarn with DuckDB on the same generated files instead.
 *
 *   tpch_dbgen -s SF -o DIR      writes DIR/<table>.tbl, '|'-separated, one row a line
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- deterministic random numbers: one stream per table and column group ---- */

typedef struct { uint64_t s; } rng;

static uint64_t rng_next(rng *r) {             /* splitmix64 */
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static int64_t rnd(rng *r, int64_t lo, int64_t hi) {   /* uniform in [lo, hi] */
    return lo + (int64_t)(rng_next(r) % (uint64_t)(hi - lo + 1));
}
static rng stream(uint64_t table, uint64_t column) {
    rng r = {table * 0x100000001b3ULL + column * 0x51ed27ULL + 0x7a726e};
    rng_next(&r);
    return r;
}

/* ---- the spec's word lists (clause 4.2.2.13 and 4.2.3) ---- */

static const char *const colors[] = {
    "almond", "antique", "aquamarine", "azure", "beige", "bisque", "black", "blanched", "blue",
    "blush", "brown", "burlywood", "burnished", "chartreuse", "chiffon", "chocolate", "coral",
    "cornflower", "cornsilk", "cream", "cyan", "dark", "deep", "dim", "dodger", "drab",
    "firebrick", "floral", "forest", "frosted", "gainsboro", "ghost", "goldenrod", "green",
    "grey", "honeydew", "hot", "indian", "ivory", "khaki", "lace", "lavender", "lawn", "lemon",
    "light", "lime", "linen", "magenta", "maroon", "medium", "metallic", "midnight", "mint",
    "misty", "moccasin", "navajo", "navy", "olive", "orange", "orchid", "pale", "papaya",
    "peach", "peru", "pink", "plum", "powder", "puff", "purple", "red", "rose", "rosy", "royal",
    "saddle", "salmon", "sandy", "seashell", "sienna", "sky", "slate", "smoke", "snow",
    "spring", "steel", "tan", "thistle", "tomato", "turquoise", "violet", "wheat", "white",
    "yellow"};
static const char *const type_s1[] = {"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"};
static const char *const type_s2[] = {"ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"};
static const char *const type_s3[] = {"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"};
static const char *const cont_s1[] = {"SM", "LG", "MED", "JUMBO", "WRAP"};
static const char *const cont_s2[] = {"CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"};
static const char *const segments[] = {"AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY",
                                       "HOUSEHOLD"};
static const char *const priorities[] = {"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED",
                                         "5-LOW"};
static const char *const instructs[] = {"DELIVER IN PERSON", "COLLECT COD", "NONE",
                                        "TAKE BACK RETURN"};
static const char *const modes[] = {"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"};
static const struct { const char *name; int region; } nations[25] = {
    {"ALGERIA", 0}, {"ARGENTINA", 1}, {"BRAZIL", 1}, {"CANADA", 1}, {"EGYPT", 4},
    {"ETHIOPIA", 0}, {"FRANCE", 3}, {"GERMANY", 3}, {"INDIA", 2}, {"INDONESIA", 2},
    {"IRAN", 4}, {"IRAQ", 4}, {"JAPAN", 2}, {"JORDAN", 4}, {"KENYA", 0}, {"MOROCCO", 0},
    {"MOZAMBIQUE", 0}, {"PERU", 1}, {"CHINA", 2}, {"ROMANIA", 3}, {"SAUDI ARABIA", 4},
    {"VIETNAM", 2}, {"RUSSIA", 3}, {"UNITED KINGDOM", 3}, {"UNITED STATES", 1}};
static const char *const regions[5] = {"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"};

/* the text grammar's parts of speech (the last nouns repeat: dbgen weights them higher) */
static const char *const nouns[] = {
    "foxes", "ideas", "theodolites", "pinto beans", "instructions", "dependencies", "excuses",
    "platelets", "asymptotes", "courts", "dolphins", "multipliers", "sauternes", "warthogs",
    "frets", "dinos", "attainments", "somas", "Tiresias", "patterns", "forges", "braids",
    "hockey players", "frays", "warhorses", "dugouts", "notornis", "epitaphs", "pearls",
    "tithes", "waters", "orbits", "gifts", "sheaves", "depths", "sentiments", "decoys",
    "realms", "pains", "grouches", "escapades", "packages", "requests", "accounts",
    "deposits", "theodolites", "ideas", "accounts", "packages", "requests", "deposits"};
static const char *const verbs[] = {
    "sleep", "wake", "are", "cajole", "haggle", "nag", "use", "boost", "affix", "detect",
    "integrate", "maintain", "nod", "was", "lose", "sublate", "solve", "thrash", "promise",
    "engage", "hinder", "print", "x-ray", "breach", "eat", "grow", "impress", "mold", "poach",
    "serve", "run", "dazzle", "snooze", "doze", "unwind", "kindle", "play", "hang", "believe",
    "doubt"};
static const char *const adjectives[] = {
    "special", "pending", "unusual", "express", "furious", "sly", "careful", "blithe", "quick",
    "fluffy", "slow", "quiet", "ruthless", "thin", "close", "dogged", "daring", "brave",
    "stealthy", "permanent", "enticing", "idle", "busy", "regular", "final", "ironic", "even",
    "bold", "silent"};
static const char *const adverbs[] = {
    "sometimes", "always", "never", "furiously", "slyly", "carefully", "blithely", "quickly",
    "fluffily", "slowly", "quietly", "ruthlessly", "thinly", "closely", "doggedly", "daringly",
    "bravely", "stealthily", "permanently", "enticingly", "idly", "busily", "regularly",
    "finally", "ironically", "evenly", "boldly", "silently"};
static const char *const prepositions[] = {
    "about", "above", "according to", "across", "after", "against", "along", "alongside of",
    "among", "around", "at", "atop", "before", "behind", "beneath", "beside", "besides",
    "between", "beyond", "by", "despite", "during", "except", "for", "from", "in place of",
    "inside", "instead of", "into", "near", "of", "on", "outside", "over", "past", "since",
    "through", "throughout", "to", "toward", "under", "until", "up", "upon", "without", "with",
    "within"};
static const char *const auxiliaries[] = {
    "do", "may", "might", "shall", "will", "would", "can", "could", "should", "ought to", "must",
    "will have to", "shall have to", "could have to", "should have to", "must have to",
    "need to", "try to"};
static const char *const terminators[] = {".", ";", ":", "?", "!", "--"};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define PICK(r, a) ((a)[rnd((r), 0, (int64_t)COUNT(a) - 1)])

/* ---- the text pool: sentences of the spec's grammar, comments are substrings of it ---- */

typedef struct { char *data; size_t len, cap; } text;

static void text_put(text *t, const char *s) {
    size_t n = strlen(s);
    if (t->len + n + 2 > t->cap) {
        t->cap = (t->len + n + 2) * 2;
        t->data = realloc(t->data, t->cap);
        if (!t->data) { perror("tpch_dbgen"); exit(1); }
    }
    memcpy(t->data + t->len, s, n);
    t->len += n;
    t->data[t->len] = 0;
}

/* noun phrase: noun | adjective noun | adjective, adjective noun | adverb adjective noun */
static void noun_phrase(text *t, rng *r) {
    switch (rnd(r, 0, 3)) {
    case 0: break;
    case 1: text_put(t, PICK(r, adjectives)); text_put(t, " "); break;
    case 2: text_put(t, PICK(r, adjectives)); text_put(t, ", ");
            text_put(t, PICK(r, adjectives)); text_put(t, " "); break;
    default: text_put(t, PICK(r, adverbs)); text_put(t, " ");
             text_put(t, PICK(r, adjectives)); text_put(t, " "); break;
    }
    text_put(t, PICK(r, nouns));
}
/* verb phrase: verb | auxiliary verb | verb adverb | auxiliary verb adverb */
static void verb_phrase(text *t, rng *r) {
    int k = (int)rnd(r, 0, 3);
    if (k & 1) { text_put(t, PICK(r, auxiliaries)); text_put(t, " "); }
    text_put(t, PICK(r, verbs));
    if (k & 2) { text_put(t, " "); text_put(t, PICK(r, adverbs)); }
}
/* sentence: the five forms of clause 4.2.2.14 */
static void sentence(text *t, rng *r) {
    noun_phrase(t, r);
    text_put(t, " ");
    verb_phrase(t, r);
    switch (rnd(r, 0, 4)) {
    case 0: break;
    case 1: text_put(t, " "); text_put(t, PICK(r, prepositions)); text_put(t, " the ");
            noun_phrase(t, r); break;
    case 2: text_put(t, " "); noun_phrase(t, r); break;
    case 3: text_put(t, " "); text_put(t, PICK(r, prepositions)); text_put(t, " the ");
            noun_phrase(t, r); text_put(t, " "); verb_phrase(t, r); break;
    default: text_put(t, " "); noun_phrase(t, r); text_put(t, " ");
             text_put(t, PICK(r, prepositions)); text_put(t, " the "); noun_phrase(t, r); break;
    }
    text_put(t, PICK(r, terminators));
    text_put(t, " ");
}

static text pool;
#define POOL_BYTES (4u << 20)

static void pool_build(void) {
    rng r = stream(99, 0);
    while (pool.len < POOL_BYTES) sentence(&pool, &r);
}

/* a comment of a random length in [lo, hi] starting at a random place of the pool */
static void comment(char *out, rng *r, int lo, int hi) {
    size_t n = (size_t)rnd(r, lo, hi);
    size_t at = (size_t)rnd(r, 0, (int64_t)(pool.len - n - 1));
    memcpy(out, pool.data + at, n);
    out[n] = 0;
    for (size_t i = 0; i < n; i++) if (out[i] == '|') out[i] = ' ';
}

/* a v-string: random characters of [0-9a-zA-Z ,] with a length in [lo, hi] */
static void vstring(char *out, rng *r, int lo, int hi) {
    static const char alphabet[] =
        "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ,";
    int n = (int)rnd(r, lo, hi);
    for (int i = 0; i < n; i++) out[i] = alphabet[rnd(r, 0, (int64_t)sizeof alphabet - 2)];
    out[n] = 0;
}

static void phone(char *out, rng *r, int nation) {
    sprintf(out, "%02d-%03d-%03d-%04d", nation + 10, (int)rnd(r, 100, 999),
            (int)rnd(r, 100, 999), (int)rnd(r, 1000, 9999));
}

/* money and other two-decimal numbers are integers of hundredths */
static void cents(char *out, int64_t v) {
    sprintf(out, "%s%" PRId64 ".%02d", v < 0 ? "-" : "", (v < 0 ? -v : v) / 100,
            (int)((v < 0 ? -v : v) % 100));
}

/* ---- dates: days since 1970-01-01, printed as YYYY-MM-DD ---- */

static int64_t days_from_civil(int y, int m, int d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}
static void date_text(char *out, int64_t z) {
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t y = yoe + era * 400, doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153, d = doy - (153 * mp + 2) / 5 + 1;
    int64_t m = mp + (mp < 10 ? 3 : -9);
    sprintf(out, "%04d-%02d-%02d", (int)(y + (m <= 2)), (int)m, (int)d);
}

/* ---- the tables ---- */

typedef struct {
    double sf;
    int64_t parts, suppliers, customers, orders;
    int64_t start_date, end_date, current_date;
} gen;

static FILE *open_table(const char *dir, const char *name) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.tbl", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) { fprintf(stderr, "tpch_dbgen: %s: %s\n", path, strerror(errno)); exit(1); }
    return f;
}
static void close_table(FILE *f, const char *name) {
    if (fclose(f) != 0) { fprintf(stderr, "tpch_dbgen: writing %s: %s\n", name, strerror(errno)); exit(1); }
}

static int64_t retail_price(int64_t partkey) {          /* in cents (clause 4.2.3) */
    return 90000 + ((partkey / 10) % 20001) + 100 * (partkey % 1000);
}
/* the i-th (0..3) supplier of a part: partsupp's and lineitem's l_suppkey formula */
static int64_t part_supplier(const gen *g, int64_t partkey, int i) {
    int64_t s = g->suppliers;
    return (partkey + (i * ((s / 4) + (partkey - 1) / s))) % s + 1;
}

static void gen_region_nation(const gen *g, const char *dir) {
    rng r = stream(1, 0);
    char c[256];
    FILE *f = open_table(dir, "region");
    for (int i = 0; i < 5; i++) {
        comment(c, &r, 31, 115);
        fprintf(f, "%d|%s|%s\n", i, regions[i], c);
    }
    close_table(f, "region");
    f = open_table(dir, "nation");
    for (int i = 0; i < 25; i++) {
        comment(c, &r, 31, 114);
        fprintf(f, "%d|%s|%d|%s\n", i, nations[i].name, nations[i].region, c);
    }
    close_table(f, "nation");
}

static void gen_part_partsupp(const gen *g, const char *dir) {
    rng r = stream(2, 0), rc = stream(2, 1), rs = stream(3, 0);
    char name[256], type[64], cont[32], c[256], price[32], cost[32];
    FILE *fp = open_table(dir, "part"), *fs = open_table(dir, "partsupp");
    for (int64_t pk = 1; pk <= g->parts; pk++) {
        /* p_name: five distinct colors */
        int picked[5];
        name[0] = 0;
        for (int k = 0; k < 5; k++) {
            int w;
            bool again;
            do {
                w = (int)rnd(&r, 0, (int64_t)COUNT(colors) - 1);
                again = false;
                for (int j = 0; j < k; j++) again |= picked[j] == w;
            } while (again);
            picked[k] = w;
            if (k) strcat(name, " ");
            strcat(name, colors[w]);
        }
        int m = (int)rnd(&r, 1, 5), n = (int)rnd(&r, 1, 5);
        snprintf(type, sizeof type, "%s %s %s", PICK(&r, type_s1), PICK(&r, type_s2),
                 PICK(&r, type_s3));
        int size = (int)rnd(&r, 1, 50);
        snprintf(cont, sizeof cont, "%s %s", PICK(&r, cont_s1), PICK(&r, cont_s2));
        comment(c, &rc, 5, 22);
        cents(price, retail_price(pk));
        fprintf(fp, "%" PRId64 "|%s|Manufacturer#%d|Brand#%d%d|%s|%d|%s|%s|%s\n", pk, name, m, m,
                n, type, size, cont, price, c);
        for (int i = 0; i < 4; i++) {
            cents(cost, rnd(&rs, 100, 100000));
            comment(c, &rs, 49, 198);
            fprintf(fs, "%" PRId64 "|%" PRId64 "|%d|%s|%s\n", pk, part_supplier(g, pk, i),
                    (int)rnd(&rs, 1, 9999), cost, c);
        }
    }
    close_table(fp, "part");
    close_table(fs, "partsupp");
}

static void gen_supplier(const gen *g, const char *dir) {
    rng r = stream(4, 0), rc = stream(4, 1);
    char addr[64], ph[32], bal[32], c[256], fixed[512];
    FILE *f = open_table(dir, "supplier");
    for (int64_t sk = 1; sk <= g->suppliers; sk++) {
        vstring(addr, &r, 10, 40);
        int nation = (int)rnd(&r, 0, 24);
        phone(ph, &r, nation);
        cents(bal, rnd(&r, -99999, 999999));
        comment(c, &rc, 25, 100);
        /* 5 in 10,000 suppliers have "Customer ... Complaints", 5 "Customer ... Recommends"
           inside their comment (clause 4.2.3) */
        int64_t roll = rnd(&rc, 0, 9999);
        if (roll < 10) {
            const char *tail = roll < 5 ? "Complaints" : "Recommends";
            size_t len = strlen(c), need = strlen("Customer ") + strlen(tail);
            size_t at = len > need ? (size_t)rnd(&rc, 0, (int64_t)(len - need)) : 0;
            snprintf(fixed, sizeof fixed, "%.*sCustomer %s%s", (int)at, c, tail,
                     at + need < len ? c + at + need : "");
            memcpy(c, fixed, strlen(fixed) + 1 < sizeof c ? strlen(fixed) + 1 : sizeof c);
            c[sizeof c - 1] = 0;
        }
        fprintf(f, "%" PRId64 "|Supplier#%09" PRId64 "|%s|%d|%s|%s|%s\n", sk, sk, addr, nation,
                ph, bal, c);
    }
    close_table(f, "supplier");
}

static void gen_customer(const gen *g, const char *dir) {
    rng r = stream(5, 0), rc = stream(5, 1);
    char addr[64], ph[32], bal[32], c[256];
    FILE *f = open_table(dir, "customer");
    for (int64_t ck = 1; ck <= g->customers; ck++) {
        vstring(addr, &r, 10, 40);
        int nation = (int)rnd(&r, 0, 24);
        phone(ph, &r, nation);
        cents(bal, rnd(&r, -99999, 999999));
        const char *segment = PICK(&r, segments);
        comment(c, &rc, 29, 116);
        fprintf(f, "%" PRId64 "|Customer#%09" PRId64 "|%s|%d|%s|%s|%s|%s\n", ck, ck, addr,
                nation, ph, bal, segment, c);
    }
    close_table(f, "customer");
}

static void gen_orders_lineitem(const gen *g, const char *dir) {
    rng r = stream(6, 0), rc = stream(6, 1), rl = stream(7, 0), rlc = stream(7, 1);
    FILE *fo = open_table(dir, "orders"), *fl = open_table(dir, "lineitem");
    char c[256], d1[16], d2[16], d3[16], qty[32], ext[32], disc[32], tax[32], total[32];
    int64_t clerks = (int64_t)fmax(1, floor(g->sf * 1000));
    for (int64_t i = 1; i <= g->orders; i++) {
        int64_t ok = ((i - 1) / 8) * 32 + (i - 1) % 8 + 1;   /* sparse keys: 8 of every 32 */
        int64_t ck;
        do ck = rnd(&r, 1, g->customers); while (ck % 3 == 0);
        int64_t odate = rnd(&r, g->start_date, g->end_date - 151);
        const char *prio = PICK(&r, priorities);
        int64_t clerk = rnd(&r, 1, clerks);
        comment(c, &rc, 19, 78);
        char ocomment[256];
        snprintf(ocomment, sizeof ocomment, "%s", c);
        int lines = (int)rnd(&rl, 1, 7), nf = 0, no = 0;
        int64_t total_cents = 0;
        for (int ln = 1; ln <= lines; ln++) {
            int64_t pk = rnd(&rl, 1, g->parts);
            int64_t sk = part_supplier(g, pk, (int)rnd(&rl, 0, 3));
            int64_t q = rnd(&rl, 1, 50), dc = rnd(&rl, 0, 10), tx = rnd(&rl, 0, 8);
            int64_t ep = q * retail_price(pk);
            int64_t ship = odate + rnd(&rl, 1, 121), commit = odate + rnd(&rl, 30, 90);
            int64_t receipt = ship + rnd(&rl, 1, 30);
            const char *flag = receipt <= g->current_date ? (rnd(&rl, 0, 1) ? "R" : "A") : "N";
            bool open = ship > g->current_date;
            open ? no++ : nf++;
            total_cents += ep * (100 + tx) * (100 - dc) / 10000;
            const char *instr = PICK(&rl, instructs), *mode = PICK(&rl, modes);
            comment(c, &rlc, 10, 43);
            date_text(d1, ship); date_text(d2, commit); date_text(d3, receipt);
            cents(qty, q * 100); cents(ext, ep); cents(disc, dc); cents(tax, tx);
            fprintf(fl, "%" PRId64 "|%" PRId64 "|%" PRId64 "|%d|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s\n",
                    ok, pk, sk, ln, qty, ext, disc, tax, flag, open ? "O" : "F", d1, d2, d3,
                    instr, mode, c);
        }
        const char *status = no == 0 ? "F" : nf == 0 ? "O" : "P";
        date_text(d1, odate);
        cents(total, total_cents);
        fprintf(fo, "%" PRId64 "|%" PRId64 "|%s|%s|%s|%s|Clerk#%09" PRId64 "|0|%s\n", ok, ck,
                status, total, d1, prio, clerk, ocomment);
    }
    close_table(fo, "orders");
    close_table(fl, "lineitem");
}

static void usage(void) {
    fprintf(stderr, "usage: tpch_dbgen -s SCALE_FACTOR -o DIR\n"
                    "  writes DIR/{region,nation,part,partsupp,supplier,customer,orders,lineitem}.tbl\n");
    exit(2);
}

int main(int argc, char **argv) {
    double sf = 0;
    const char *dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-s") && i + 1 < argc) {
            char *end;
            sf = strtod(argv[++i], &end);
            if (*end || !(sf > 0) || sf > 1000) {
                fprintf(stderr, "tpch_dbgen: scale factor '%s' is not a number in (0, 1000]\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            dir = argv[++i];
        } else {
            usage();
        }
    }
    if (!(sf > 0) || !dir) usage();
    gen g = {.sf = sf};
    g.parts = (int64_t)fmax(1, llround(200000 * sf));
    g.suppliers = (int64_t)fmax(4, llround(10000 * sf));
    g.customers = (int64_t)fmax(3, llround(150000 * sf));
    g.orders = (int64_t)fmax(1, llround(1500000 * sf));
    g.start_date = days_from_civil(1992, 1, 1);
    g.end_date = days_from_civil(1998, 12, 31);
    g.current_date = days_from_civil(1995, 6, 17);
    pool_build();
    gen_region_nation(&g, dir);
    gen_part_partsupp(&g, dir);
    gen_supplier(&g, dir);
    gen_customer(&g, dir);
    gen_orders_lineitem(&g, dir);
    free(pool.data);
    return 0;
}
