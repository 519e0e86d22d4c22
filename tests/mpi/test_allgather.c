/*
 * ftc_allgather against MPI's own definition of allgather, every byte checked.
 *
 * Run once per process count (tests/mpi/MpiTests.cmake). For every algorithm
 * (forced 1..7 and the decision table), every predefined datatype, several
 * derived layouts and counts 0, 1, 7 (plus one large count), with and without
 * MPI_IN_PLACE, each rank checks its whole receive buffer:
 *
 *  - the expected buffer is built locally, without communication: every
 *    rank's send data is regenerated here (it is a pure function of the
 *    rank) and moved into its block with MPI_Pack/MPI_Unpack, which is what
 *    "equal type signatures" means in MPI;
 *  - bytes MPI transfers (found by unpacking all-ones) must equal the
 *    expected ones; gaps of derived layouts and guard zones around the
 *    buffer must keep their position-dependent "untouched" values; holes
 *    inside predefined types (the pair types' padding) are outside the type
 *    map, so MPI may or may not write them: they are not compared;
 *  - the send buffer must come back unchanged.
 *
 * Then: what ftc_allgather_last_choice reports for forced algorithms that
 * cannot serve p, repeated calls interleaved with user traffic on
 * MPI_COMM_WORLD, and a type of no bytes with every algorithm.
 *
 * Usage: test_allgather [--large BYTES]
 *   --large BYTES  per-rank payload of the large cases (default 1 MiB; 0: none)
 * Exit status 0 when every element on every rank matched.
 */
#include <float.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "ftcoll.h"
#include "harness.h"

enum { GUARD = 64 };                 /* bytes watched before and after every buffer */
enum { UNTOUCHED_LOW = 0xE0, UNTOUCHED_VALUES = 13 }; /* see untouched_byte() */
enum { MAX_REPORTED_MISMATCHES = 8 }; /* per rank: the first ones say it all */

/* ---- the harness's own failures: not ftcoll's, so stop at once ----------- */

/* die, checked_malloc, mpi_or_die: harness.h */

/* ---- reusable memory --------------------------------------------------------
 *
 * The large cases need tens of MiB per rank. A fresh page costs a page fault
 * on first touch, which (in virtual machines above all) costs more than all
 * the checking, so buffers live from case to case and only ever grow. */
typedef enum {
    BUFFER_SEND,
    BUFFER_SEND_PRISTINE,
    BUFFER_EXPECTED,
    BUFFER_RECV,
    BUFFER_OTHER_SEND,   /* another rank's send data, while building expected */
    BUFFER_MASK,
    BUFFER_PACKED,
    BUFFER_UNTOUCHED,    /* untouched_byte(i) for i = 0, 1, ...: copied, not recomputed */
    BUFFER_COUNT
} buffer_id;

static struct {
    unsigned char *memory;
    size_t size;
} reusable[BUFFER_COUNT];

static unsigned char *reusable_buffer(buffer_id id, size_t bytes)
{
    if (!reusable[id].memory || bytes > reusable[id].size) {
        free(reusable[id].memory);
        reusable[id].memory = checked_malloc(bytes);
        reusable[id].size = bytes;
    }
    return reusable[id].memory;
}

static void free_reusable_buffers(void)
{
    for (int id = 0; id < BUFFER_COUNT; id++) {
        free(reusable[id].memory);
        reusable[id].memory = NULL;
        reusable[id].size = 0;
    }
}

/* ---- the data pattern ------------------------------------------------------ */

/* murmur3's finaliser: neighbouring inputs give unrelated outputs, so a block
 * or element landing in the wrong place never matches by accident. */
static uint32_t mix32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x85EBCA6Bu;
    x ^= x >> 13;
    x *= 0xC2B2AE35u;
    x ^= x >> 16;
    return x;
}

static uint32_t hash3(int rank, size_t element, size_t byte)
{
    return mix32((uint32_t)rank * 0x9E3779B9u + (uint32_t)element * 0x7FEB352Du
                 + (uint32_t)byte * 0x846CA68Bu + 1u);
}

/*
 * What a byte nobody may write holds (gaps, guards, blocks not yet
 * received): a value that depends on its position, so that moving such
 * bytes around (a gap copied over another gap) shows as well as
 * overwriting them. 13 values, a prime, so the cycle never lines up with
 * an extent.
 */
static unsigned char untouched_byte(size_t index)
{
    return (unsigned char)(UNTOUCHED_LOW + index % UNTOUCHED_VALUES);
}

static size_t untouched_filled = 0;

/* Sets bytes [0, n) of `dst` to untouched_byte(i), by copy from a template. */
static void fill_untouched(unsigned char *dst, size_t n)
{
    unsigned char *template = reusable_buffer(BUFFER_UNTOUCHED, n);
    if (untouched_filled < n) {
        for (size_t i = 0; i < n; i++)
            template[i] = untouched_byte(i);
        untouched_filled = n;
    }
    memcpy(dst, template, n);
}

/* Never an untouched value, so a byte ftcoll forgot to write is always caught. */
static unsigned char pattern_byte(int rank, size_t element, size_t byte)
{
    const unsigned char b = (unsigned char)hash3(rank, element, byte);
    const bool looks_untouched = b >= UNTOUCHED_LOW && b < UNTOUCHED_LOW + UNTOUCHED_VALUES;
    return looks_untouched ? (unsigned char)(b ^ 0x40) : b;
}

/* An exactly representable float (24 significant bits), distinct per (rank,
 * element): floating-point fields must hold real numbers, not random bits. */
static double exact_value(int rank, size_t element, int part)
{
    return (double)(hash3(rank, element, 1000u + (size_t)part) >> 8) * 0.25;
}

/* x87 extended precision uses 10 of long double's 16 bytes; the compiler may
 * leave the other 6 undefined when it stores a value, so only the value
 * bytes are copied and the padding keeps its deterministic pattern. */
static size_t long_double_value_bytes(void)
{
    return LDBL_MANT_DIG == 64 ? 10 : sizeof(long double);
}

/* How to write one element so that it is a valid value of its type. */
typedef enum {
    VALUES_BYTES,        /* integer types: every bit pattern is a value */
    VALUES_BOOL,
    VALUES_FLOAT,
    VALUES_DOUBLE,
    VALUES_LONG_DOUBLE,
    VALUES_FLOAT_COMPLEX,
    VALUES_DOUBLE_COMPLEX,
    VALUES_FLOAT_INT,
    VALUES_DOUBLE_INT,
    VALUES_LONG_DOUBLE_INT,
} value_kind;

static void write_float(unsigned char *dst, int rank, size_t element, int part)
{
    const float v = (float)exact_value(rank, element, part);
    memcpy(dst, &v, sizeof(v));
}

static void write_double(unsigned char *dst, int rank, size_t element, int part)
{
    const double v = exact_value(rank, element, part);
    memcpy(dst, &v, sizeof(v));
}

static void write_long_double(unsigned char *dst, int rank, size_t element)
{
    const long double v = (long double)exact_value(rank, element, 0) + 0.125L;
    memcpy(dst, &v, long_double_value_bytes());
}

/* One element of `unit` bytes at dst: pattern bytes everywhere (integers,
 * padding), then floating-point fields overwritten with real numbers. The
 * offsets of the pair types' value fields are 0: MPI defines them as C
 * structs {value; int}. */
static void write_element(value_kind kind, unsigned char *dst, size_t unit, int rank,
                          size_t element)
{
    for (size_t k = 0; k < unit; k++)
        dst[k] = pattern_byte(rank, element, k);
    switch (kind) {
    case VALUES_BYTES: break;
    case VALUES_BOOL: dst[0] = (unsigned char)((rank + element) & 1u); break;
    case VALUES_FLOAT:
    case VALUES_FLOAT_INT: write_float(dst, rank, element, 0); break;
    case VALUES_DOUBLE:
    case VALUES_DOUBLE_INT: write_double(dst, rank, element, 0); break;
    case VALUES_LONG_DOUBLE:
    case VALUES_LONG_DOUBLE_INT: write_long_double(dst, rank, element); break;
    case VALUES_FLOAT_COMPLEX:
        write_float(dst, rank, element, 0);
        write_float(dst + sizeof(float), rank, element, 1);
        break;
    case VALUES_DOUBLE_COMPLEX:
        write_double(dst, rank, element, 0);
        write_double(dst + sizeof(double), rank, element, 1);
        break;
    }
}

/* ---- buffers with guard zones --------------------------------------------- */

/* `count` elements of a type at buf, with GUARD bytes either side. */
typedef struct {
    unsigned char *alloc;
    unsigned char *buf;   /* alloc + GUARD: what MPI is given */
    size_t span;          /* bytes from buf that `count` elements can touch */
    size_t total;         /* span + 2 GUARD */
} region;

typedef struct {
    MPI_Aint lb, extent, true_lb, true_extent;
    int size;
} type_layout;

static type_layout layout_of(MPI_Datatype type)
{
    type_layout l;
    mpi_or_die(MPI_Type_get_extent(type, &l.lb, &l.extent), "MPI_Type_get_extent");
    mpi_or_die(MPI_Type_get_true_extent(type, &l.true_lb, &l.true_extent),
               "MPI_Type_get_true_extent");
    mpi_or_die(MPI_Type_size(type, &l.size), "MPI_Type_size");
    /* Every type below lays its data at or after buf, in increasing order. */
    if (l.true_lb < 0 || l.extent <= 0)
        die("a test datatype has a negative true lower bound or extent");
    return l;
}

static size_t span_of(MPI_Datatype type, size_t count)
{
    if (count == 0)
        return 0;
    const type_layout l = layout_of(type);
    const size_t by_extent = count * (size_t)l.extent;
    const size_t by_data = (count - 1) * (size_t)l.extent + (size_t)(l.true_lb + l.true_extent);
    return by_extent > by_data ? by_extent : by_data;
}

static region region_new(buffer_id id, MPI_Datatype type, size_t count)
{
    region r;
    r.span = span_of(type, count);
    r.total = r.span + 2 * GUARD;
    r.alloc = reusable_buffer(id, r.total);
    r.buf = r.alloc + GUARD;
    fill_untouched(r.alloc, r.total);
    return r;
}

/* MPI's meaning of "same signature": pack one layout, unpack into the other. */
static void typed_copy(const void *src, int scount, MPI_Datatype stype, void *dst, int rcount,
                       MPI_Datatype rtype)
{
    int packed_size = 0, position = 0, in = 0;
    mpi_or_die(MPI_Pack_size(scount, stype, MPI_COMM_SELF, &packed_size), "MPI_Pack_size");
    void *packed = reusable_buffer(BUFFER_PACKED, (size_t)packed_size);
    mpi_or_die(MPI_Pack(src, scount, stype, packed, packed_size, &position, MPI_COMM_SELF),
               "MPI_Pack");
    mpi_or_die(MPI_Unpack(packed, position, &in, dst, rcount, rtype, MPI_COMM_SELF),
               "MPI_Unpack");
}

/* ---- what is tested ---------------------------------------------------------- */

/*
 * A layout case: a send type and a receive type of equal signature. A call
 * with "count" c passes sendcount = c x send_per_count and recvcount =
 * c x recv_per_count. Send buffers are filled element by element in steps
 * of `unit` bytes with values of `kind`, gaps included (MPI must skip them).
 */
typedef struct {
    char name[64];
    MPI_Datatype sendtype, recvtype;
    int send_per_count, recv_per_count;
    value_kind kind;
    size_t unit;
    bool derived;        /* check gap bytes too (predefined: padding is ignored) */
    bool large;          /* also run at the large count */
} layout_case;

typedef struct {
    MPI_Datatype type;
    const char *name;
    value_kind kind;
} predefined_type;

#define PREDEFINED(t, k) { t, #t, k }
static const predefined_type predefined_types[] = {
    PREDEFINED(MPI_CHAR, VALUES_BYTES),
    PREDEFINED(MPI_SIGNED_CHAR, VALUES_BYTES),
    PREDEFINED(MPI_UNSIGNED_CHAR, VALUES_BYTES),
    PREDEFINED(MPI_BYTE, VALUES_BYTES),
    PREDEFINED(MPI_SHORT, VALUES_BYTES),
    PREDEFINED(MPI_UNSIGNED_SHORT, VALUES_BYTES),
    PREDEFINED(MPI_INT, VALUES_BYTES),
    PREDEFINED(MPI_UNSIGNED, VALUES_BYTES),
    PREDEFINED(MPI_LONG, VALUES_BYTES),
    PREDEFINED(MPI_UNSIGNED_LONG, VALUES_BYTES),
    PREDEFINED(MPI_LONG_LONG, VALUES_BYTES),
    PREDEFINED(MPI_UNSIGNED_LONG_LONG, VALUES_BYTES),
    PREDEFINED(MPI_FLOAT, VALUES_FLOAT),
    PREDEFINED(MPI_DOUBLE, VALUES_DOUBLE),
    PREDEFINED(MPI_LONG_DOUBLE, VALUES_LONG_DOUBLE),
    PREDEFINED(MPI_WCHAR, VALUES_BYTES),
    PREDEFINED(MPI_C_BOOL, VALUES_BOOL),
    PREDEFINED(MPI_INT8_T, VALUES_BYTES),
    PREDEFINED(MPI_INT16_T, VALUES_BYTES),
    PREDEFINED(MPI_INT32_T, VALUES_BYTES),
    PREDEFINED(MPI_INT64_T, VALUES_BYTES),
    PREDEFINED(MPI_UINT8_T, VALUES_BYTES),
    PREDEFINED(MPI_UINT16_T, VALUES_BYTES),
    PREDEFINED(MPI_UINT32_T, VALUES_BYTES),
    PREDEFINED(MPI_UINT64_T, VALUES_BYTES),
    PREDEFINED(MPI_C_FLOAT_COMPLEX, VALUES_FLOAT_COMPLEX),
    PREDEFINED(MPI_C_DOUBLE_COMPLEX, VALUES_DOUBLE_COMPLEX),
    PREDEFINED(MPI_AINT, VALUES_BYTES),
    PREDEFINED(MPI_OFFSET, VALUES_BYTES),
    PREDEFINED(MPI_COUNT, VALUES_BYTES),
    PREDEFINED(MPI_FLOAT_INT, VALUES_FLOAT_INT),
    PREDEFINED(MPI_DOUBLE_INT, VALUES_DOUBLE_INT),
    PREDEFINED(MPI_LONG_INT, VALUES_BYTES),
    PREDEFINED(MPI_2INT, VALUES_BYTES),
    PREDEFINED(MPI_SHORT_INT, VALUES_BYTES),
    PREDEFINED(MPI_LONG_DOUBLE_INT, VALUES_LONG_DOUBLE_INT),
};
#define N_PREDEFINED (sizeof(predefined_types) / sizeof(predefined_types[0]))

static const predefined_type *predefined_entry(MPI_Datatype type)
{
    for (size_t i = 0; i < N_PREDEFINED; i++)
        if (predefined_types[i].type == type)
            return &predefined_types[i];
    die("datatype missing from predefined_types");
    return NULL;
}

static layout_case predefined_case(const predefined_type *t)
{
    layout_case c = { .sendtype = t->type, .recvtype = t->type, .send_per_count = 1,
                      .recv_per_count = 1, .kind = t->kind, .derived = false,
                      .large = t->type == MPI_BYTE };
    snprintf(c.name, sizeof(c.name), "%s", t->name);
    c.unit = (size_t)layout_of(t->type).extent;
    return c;
}

static MPI_Datatype committed(MPI_Datatype type)
{
    mpi_or_die(MPI_Type_commit(&type), "MPI_Type_commit");
    return type;
}

/* 3 blocks of 2 ints, 4 ints apart: ints 2,3 and 6,7 of each element are gaps. */
static MPI_Datatype vector_with_gaps(void)
{
    MPI_Datatype t;
    mpi_or_die(MPI_Type_vector(3, 2, 4, MPI_INT, &t), "MPI_Type_vector");
    return committed(t);
}

/* 3 ints at byte 12, lower bound 4, extent 32: element i spans bytes
 * [4 + 32i, 36 + 32i) with its data at [12 + 32i, 24 + 32i), so 8 gap bytes
 * lead the data and 12 trail it; bytes 0..3 of the buffer belong to no
 * element at all. */
static MPI_Datatype resized_positive_lb(void)
{
    MPI_Datatype ints, resized;
    const int blocklength = 3;
    const MPI_Aint displacement = 12;
    MPI_Datatype base = MPI_INT;
    mpi_or_die(MPI_Type_create_struct(1, &blocklength, &displacement, &base, &ints),
               "MPI_Type_create_struct");
    mpi_or_die(MPI_Type_create_resized(ints, 4, 32, &resized), "MPI_Type_create_resized");
    MPI_Type_free(&ints);
    return committed(resized);
}

/* One int per 16 bytes, with a negative lower bound: element i spans
 * [16i - 8, 16i + 8) and holds its int at [16i, 16i + 4). */
static MPI_Datatype resized_negative_lb(void)
{
    MPI_Datatype t;
    mpi_or_die(MPI_Type_create_resized(MPI_INT, -8, 16, &t), "MPI_Type_create_resized");
    return committed(t);
}

/* 3 ints, every other int: same signature as 3 contiguous ints. */
static MPI_Datatype strided_three_ints(void)
{
    MPI_Datatype t;
    mpi_or_die(MPI_Type_vector(3, 1, 2, MPI_INT, &t), "MPI_Type_vector");
    return committed(t);
}

static MPI_Datatype three_contiguous_ints(void)
{
    MPI_Datatype t;
    mpi_or_die(MPI_Type_contiguous(3, MPI_INT, &t), "MPI_Type_contiguous");
    return committed(t);
}

/* Two ints listed in the opposite order of memory: dense (no gaps, extent =
 * size, lb = 0), yet its first element is the int at offset 4. A byte copy
 * to or from it is wrong; MPI swaps the pair. */
static MPI_Datatype swapped_int_pair(void)
{
    MPI_Datatype t;
    const int lengths[2] = { 1, 1 };
    const MPI_Aint offsets[2] = { sizeof(int), 0 };
    const MPI_Datatype types[2] = { MPI_INT, MPI_INT };
    mpi_or_die(MPI_Type_create_struct(2, lengths, offsets, types, &t), "MPI_Type_create_struct");
    return committed(t);
}

/* Derived datatypes the cases use; freed at the end. */
typedef struct {
    MPI_Datatype vector, resized, resized_negative, strided3, contiguous3, swapped2;
} derived_types;

static derived_types derived_types_new(void)
{
    derived_types d = { vector_with_gaps(), resized_positive_lb(), resized_negative_lb(),
                        strided_three_ints(), three_contiguous_ints(), swapped_int_pair() };
    return d;
}

static void derived_types_free(derived_types *d)
{
    MPI_Type_free(&d->vector);
    MPI_Type_free(&d->resized);
    MPI_Type_free(&d->resized_negative);
    MPI_Type_free(&d->strided3);
    MPI_Type_free(&d->contiguous3);
    MPI_Type_free(&d->swapped2);
}

static layout_case derived_case(const char *name, MPI_Datatype sendtype, int send_per_count,
                                MPI_Datatype recvtype, int recv_per_count, bool large)
{
    layout_case c = { .sendtype = sendtype, .recvtype = recvtype,
                      .send_per_count = send_per_count, .recv_per_count = recv_per_count,
                      .kind = VALUES_BYTES, .unit = sizeof(int), .derived = true, .large = large };
    snprintf(c.name, sizeof(c.name), "%s", name);
    return c;
}

/* Fills cases[] (room for N_PREDEFINED + 8); returns how many. */
static int collect_cases(layout_case *cases, const derived_types *d)
{
    int n = 0;
    for (size_t i = 0; i < N_PREDEFINED; i++)
        cases[n++] = predefined_case(&predefined_types[i]);
    cases[n++] = derived_case("vector(3,2,4,int)", d->vector, 1, d->vector, 1, true);
    cases[n++] = derived_case("resized(3 int @12,lb=4,ext=32)", d->resized, 1, d->resized, 1,
                              false);
    cases[n++] = derived_case("resized(int,lb=-8,ext=16)", d->resized_negative, 1,
                              d->resized_negative, 1, false);
    cases[n++] = derived_case("3n int -> n vector(3,1,2,int)", MPI_INT, 3, d->strided3, 1,
                              false);
    cases[n++] = derived_case("n vector(3,1,2,int) -> 3n int", d->strided3, 1, MPI_INT, 3,
                              false);
    cases[n++] = derived_case("n contiguous(3,int) -> n resized", d->contiguous3, 1, d->resized,
                              1, false);
    cases[n++] = derived_case("2n int -> n swapped int pair", MPI_INT, 2, d->swapped2, 1, false);
    cases[n++] = derived_case("n swapped int pair -> 2n int", d->swapped2, 1, MPI_INT, 2, false);
    return n;
}

/* ---- one prepared case: buffers and the expected result ------------------------ */

typedef struct {
    const layout_case *lc;
    int count, sendcount, recvcount;
    int rank, p;
    region send;            /* this rank's send data */
    region send_pristine;   /* a copy, to prove the call leaves sendbuf alone */
    region expected;        /* the receive buffer as it must end */
    region recv;            /* the buffer ftcoll writes */
    unsigned char *mask;    /* per byte of the receive span: MPI transfers it */
    bool compare_all;       /* derived layouts, or no padding: every byte counts */
    MPI_Aint block_stride;  /* bytes from one rank's block to the next */
    MPI_Aint recv_extent;
} prepared;

/* Rank `rank`'s send data: values of lc->kind in steps of lc->unit, gaps included. */
static void fill_send(const layout_case *lc, int rank, region *r)
{
    size_t offset = 0, element = 0;
    for (; offset + lc->unit <= r->span; offset += lc->unit, element++)
        write_element(lc->kind, r->buf + offset, lc->unit, rank, element);
    for (; offset < r->span; offset++)
        r->buf[offset] = pattern_byte(rank, element, offset);
}

static unsigned char *block_of(const prepared *pc, unsigned char *buf, int block)
{
    return buf + (MPI_Aint)block * pc->block_stride;
}

/* Every rank's block, moved into the receive layout as MPI defines it. */
static void build_expected(prepared *pc)
{
    const layout_case *lc = pc->lc;
    region other = region_new(BUFFER_OTHER_SEND, lc->sendtype, (size_t)pc->sendcount);
    for (int b = 0; b < pc->p; b++) {
        fill_send(lc, b, &other);
        typed_copy(other.buf, pc->sendcount, lc->sendtype, block_of(pc, pc->expected.buf, b),
                   pc->recvcount, lc->recvtype);
    }
}

/* The bytes of the receive span MPI writes: unpack all-ones into zeros. */
static unsigned char *transferred_bytes(const prepared *pc)
{
    const int total = pc->recvcount * pc->p;
    unsigned char *mask = reusable_buffer(BUFFER_MASK, pc->expected.span);
    memset(mask, 0, pc->expected.span);
    int packed_size = 0, in = 0;
    mpi_or_die(MPI_Pack_size(total, pc->lc->recvtype, MPI_COMM_SELF, &packed_size),
               "MPI_Pack_size");
    unsigned char *ones = reusable_buffer(BUFFER_PACKED, (size_t)packed_size);
    memset(ones, 0xFF, (size_t)packed_size);
    mpi_or_die(MPI_Unpack(ones, packed_size, &in, mask, total, pc->lc->recvtype, MPI_COMM_SELF),
               "MPI_Unpack");
    for (size_t i = 0; i < pc->expected.span; i++)
        mask[i] = mask[i] != 0;
    return mask;
}

static bool all_set(const unsigned char *mask, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!mask[i])
            return false;
    return true;
}

static void prepare(prepared *pc, const layout_case *lc, int count, int rank, int p)
{
    memset(pc, 0, sizeof(*pc));
    pc->lc = lc;
    pc->count = count;
    pc->sendcount = count * lc->send_per_count;
    pc->recvcount = count * lc->recv_per_count;
    pc->rank = rank;
    pc->p = p;
    pc->recv_extent = layout_of(lc->recvtype).extent;
    pc->block_stride = pc->recv_extent * pc->recvcount;

    pc->send = region_new(BUFFER_SEND, lc->sendtype, (size_t)pc->sendcount);
    fill_send(lc, rank, &pc->send);
    pc->send_pristine = region_new(BUFFER_SEND_PRISTINE, lc->sendtype, (size_t)pc->sendcount);
    memcpy(pc->send_pristine.alloc, pc->send.alloc, pc->send.total);

    const size_t received = (size_t)pc->recvcount * (size_t)p;
    pc->expected = region_new(BUFFER_EXPECTED, lc->recvtype, received);
    pc->recv = region_new(BUFFER_RECV, lc->recvtype, received);
    build_expected(pc);
    pc->mask = transferred_bytes(pc);
    pc->compare_all = lc->derived || all_set(pc->mask, pc->expected.span);
}

/* Untouched values everywhere; with MPI_IN_PLACE the caller's own block is already in place. */
static void reset_recv(prepared *pc, bool in_place)
{
    fill_untouched(pc->recv.alloc, pc->recv.total);
    if (in_place)
        typed_copy(pc->send.buf, pc->sendcount, pc->lc->sendtype,
                   block_of(pc, pc->recv.buf, pc->rank), pc->recvcount, pc->lc->recvtype);
}

/* ---- checking ------------------------------------------------------------------- */

enum { NO_DIFFERENCE = -1 };

static bool byte_counts(const prepared *pc, size_t index)
{
    if (pc->compare_all || index < GUARD || index >= GUARD + pc->expected.span)
        return true;
    return pc->mask[index - GUARD] != 0;
}

/* Index into recv.alloc of the first byte that differs where it counts. */
static long first_difference(const prepared *pc)
{
    if (memcmp(pc->recv.alloc, pc->expected.alloc, pc->recv.total) == 0)
        return NO_DIFFERENCE;
    for (size_t i = 0; i < pc->recv.total; i++)
        if (pc->recv.alloc[i] != pc->expected.alloc[i] && byte_counts(pc, i))
            return (long)i;
    return NO_DIFFERENCE;
}

typedef struct {
    ftc_allgather_algorithm algorithm;
    bool in_place;
} call_variant;

static int reported_mismatches = 0;

/* Says exactly where: block (= source rank), element, byte, and what is there. */
static void report_mismatch(const prepared *pc, call_variant v, long index)
{
    if (reported_mismatches++ >= MAX_REPORTED_MISMATCHES)
        return;
    const long offset = index - GUARD;
    char where[160];
    if (offset < 0)
        snprintf(where, sizeof(where), "guard byte %ld before recvbuf", offset);
    else if ((size_t)offset >= pc->recv.span)
        snprintf(where, sizeof(where), "guard byte %zu after the receive span",
                 (size_t)offset - pc->recv.span);
    else {
        const long block = pc->block_stride ? offset / (long)pc->block_stride : 0;
        const long within = offset - block * (long)pc->block_stride;
        snprintf(where, sizeof(where), "block of rank %ld, element %ld, byte %ld%s", block,
                 within / (long)pc->recv_extent, within % (long)pc->recv_extent,
                 !pc->mask[offset] ? " (a gap: must stay untouched)" : "");
    }
    fprintf(stderr,
            "MISMATCH algorithm=%s type=%s count=%d%s on rank %d of %d: %s: got 0x%02x, "
            "expected 0x%02x\n",
            ftc_allgather_algorithm_name(v.algorithm), pc->lc->name, pc->count,
            v.in_place ? " MPI_IN_PLACE" : "", pc->rank, pc->p, where, pc->recv.alloc[index],
            pc->expected.alloc[index]);
}

static void report_send_modified(const prepared *pc, call_variant v)
{
    if (reported_mismatches++ >= MAX_REPORTED_MISMATCHES)
        return;
    fprintf(stderr, "MISMATCH algorithm=%s type=%s count=%d on rank %d of %d: sendbuf modified\n",
            ftc_allgather_algorithm_name(v.algorithm), pc->lc->name, pc->count, pc->rank, pc->p);
}

/* An error from ftc_allgather may leave other ranks inside the collective:
 * report it and abort rather than hang. */
static void abort_on_error(int rc, const char *call, const char *what, int count)
{
    if (rc == MPI_SUCCESS)
        return;
    int rank = 0, error_class = rc;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Error_class(rc, &error_class);
    fprintf(stderr, "rank %d: %s (%s, count %d) failed with error class %d: %s\n", rank, call,
            what, count, error_class, ftc_error_message());
    MPI_Abort(MPI_COMM_WORLD, 2);
}

/* One call and its check; returns the number of failures (0 or 1). */
static int run_and_check(prepared *pc, call_variant v, ftc_comm_t comm)
{
    const layout_case *lc = pc->lc;
    reset_recv(pc, v.in_place);
    abort_on_error(ftc_allgather_set_algorithm(comm, v.algorithm), "ftc_allgather_set_algorithm",
                   lc->name, pc->count);
    const void *sendbuf = v.in_place ? MPI_IN_PLACE : (const void *)pc->send.buf;
    abort_on_error(ftc_allgather(sendbuf, pc->sendcount, lc->sendtype, pc->recv.buf,
                                 pc->recvcount, lc->recvtype, comm),
                   "ftc_allgather", lc->name, pc->count);
    int failures = 0;
    const long diff = first_difference(pc);
    if (diff != NO_DIFFERENCE) {
        report_mismatch(pc, v, diff);
        failures++;
    }
    if (memcmp(pc->send.alloc, pc->send_pristine.alloc, pc->send.total) != 0) {
        report_send_modified(pc, v);
        failures++;
    }
    return failures;
}

static const ftc_allgather_algorithm all_algorithms[] = {
    FTC_ALLGATHER_AUTO, FTC_ALLGATHER_LINEAR, FTC_ALLGATHER_BRUCK,
    FTC_ALLGATHER_RECURSIVE_DOUBLING, FTC_ALLGATHER_RING, FTC_ALLGATHER_NEIGHBOR_EXCHANGE,
    FTC_ALLGATHER_TWO_PROC, FTC_ALLGATHER_SPARBIT,
};
#define N_ALGORITHMS (sizeof(all_algorithms) / sizeof(all_algorithms[0]))

typedef struct {
    long calls;
    long failures;
} tally;

/* Every algorithm, with and without MPI_IN_PLACE, on one layout and count:
 * the expected buffer is built once and reused. */
static void check_case(const layout_case *lc, int count, ftc_comm_t comm, tally *t)
{
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    prepared pc;
    prepare(&pc, lc, count, rank, p);
    for (size_t a = 0; a < N_ALGORITHMS; a++) {
        for (int in_place = 0; in_place <= 1; in_place++) {
            const call_variant v = { all_algorithms[a], in_place != 0 };
            t->failures += run_and_check(&pc, v, comm);
            t->calls++;
        }
    }
}

/* Elements per count unit such that one rank sends about `bytes`. */
static int large_count(const layout_case *lc, size_t bytes)
{
    const size_t per_count = (size_t)layout_of(lc->sendtype).size * (size_t)lc->send_per_count;
    const size_t count = bytes / per_count;
    return count > 0 ? (int)count : 1;
}

static void check_all_layouts(ftc_comm_t comm, size_t large_bytes, tally *t)
{
    static const int small_counts[] = { 0, 1, 7 };
    layout_case cases[N_PREDEFINED + 8];
    derived_types d = derived_types_new();
    const int n = collect_cases(cases, &d);
    for (int i = 0; i < n; i++) {
        for (size_t c = 0; c < sizeof(small_counts) / sizeof(small_counts[0]); c++)
            check_case(&cases[i], small_counts[c], comm, t);
        if (cases[i].large && large_bytes > 0)
            check_case(&cases[i], large_count(&cases[i], large_bytes), comm, t);
    }
    derived_types_free(&d);
}

/* ---- choice reporting ----------------------------------------------------------- */

/* What ftcoll must run for `requested` on p ranks (the fallbacks of
 * include/ftcoll.h): recursive doubling needs a power of two (else bruck),
 * neighbor exchange an even p (else ring), two_proc p = 2 (else the table). */
static ftc_allgather_algorithm expected_execution(ftc_allgather_algorithm selected, int p,
                                                  size_t block_bytes)
{
    const bool power_of_two = (p & (p - 1)) == 0;
    if (selected == FTC_ALLGATHER_TWO_PROC && p != 2)
        selected = ftc_allgather_decide(p, block_bytes);
    if (selected == FTC_ALLGATHER_RECURSIVE_DOUBLING && !power_of_two)
        return FTC_ALLGATHER_BRUCK;
    if (selected == FTC_ALLGATHER_NEIGHBOR_EXCHANGE && p % 2 != 0 && p != 1)
        return FTC_ALLGATHER_RING;
    return selected;
}

static int choice_failure(ftc_allgather_algorithm alg, int p, const char *what,
                          const ftc_allgather_choice *got)
{
    fprintf(stderr,
            "CHOICE MISMATCH requested=%s p=%d: %s (got requested=%s selected=%s executed=%s "
            "reason=\"%s\")\n",
            ftc_allgather_algorithm_name(alg), p, what,
            ftc_allgather_algorithm_name(got->requested),
            ftc_allgather_algorithm_name(got->selected),
            ftc_allgather_algorithm_name(got->executed), got->reason);
    return 1;
}

/* One call (one int per rank) with `alg` forced; what last_choice then says. */
static ftc_allgather_choice choice_after_call(ftc_allgather_algorithm alg, ftc_comm_t comm, int p)
{
    int mine = p, *all = checked_malloc((size_t)p * sizeof(int));
    abort_on_error(ftc_allgather_set_algorithm(comm, alg), "ftc_allgather_set_algorithm",
                   "choice", 1);
    abort_on_error(ftc_allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, comm), "ftc_allgather",
                   "choice", 1);
    free(all);
    ftc_allgather_choice got;
    abort_on_error(ftc_allgather_last_choice(comm, &got), "ftc_allgather_last_choice", "choice",
                   1);
    return got;
}

static int check_choice_of(ftc_allgather_algorithm alg, ftc_comm_t comm, int p)
{
    const ftc_allgather_choice got = choice_after_call(alg, comm, p);
    const size_t block_bytes = sizeof(int);   /* what each rank contributes */
    const ftc_allgather_algorithm selected =
        alg == FTC_ALLGATHER_AUTO ? ftc_allgather_decide(p, block_bytes) : alg;
    if (got.requested != alg)
        return choice_failure(alg, p, "requested differs", &got);
    if (got.selected != selected)
        return choice_failure(alg, p, "selected differs", &got);
    if (got.executed != expected_execution(selected, p, block_bytes))
        return choice_failure(alg, p, "executed is not the documented fallback", &got);
    if ((got.executed != got.selected) != (got.reason[0] != '\0'))
        return choice_failure(alg, p, "reason must be given exactly when falling back", &got);
    return 0;
}

/* The fallbacks the header spells out, stated directly (not through
 * expected_execution), so that a failure reads as the broken promise. */
static int check_documented_fallbacks(ftc_comm_t comm, int p)
{
    int failures = 0;
    const bool power_of_two = (p & (p - 1)) == 0;
    ftc_allgather_choice got = choice_after_call(FTC_ALLGATHER_RECURSIVE_DOUBLING, comm, p);
    if (!power_of_two && (got.executed != FTC_ALLGATHER_BRUCK || !got.reason[0]))
        failures += choice_failure(got.requested, p,
                                   "recursive_doubling must fall back to bruck, with a reason",
                                   &got);
    got = choice_after_call(FTC_ALLGATHER_NEIGHBOR_EXCHANGE, comm, p);
    if (p % 2 != 0 && p != 1 && (got.executed != FTC_ALLGATHER_RING || !got.reason[0]))
        failures += choice_failure(got.requested, p,
                                   "neighbor_exchange must fall back to ring, with a reason", &got);
    got = choice_after_call(FTC_ALLGATHER_TWO_PROC, comm, p);
    const bool valid = got.executed > FTC_ALLGATHER_AUTO
        && got.executed < FTC_ALLGATHER_ALGORITHM_COUNT && got.executed != FTC_ALLGATHER_TWO_PROC;
    if (p != 2 && (!valid || !got.reason[0]))
        failures += choice_failure(got.requested, p,
                                   "two_proc must fall back to a valid algorithm, with a reason",
                                   &got);
    return failures;
}

static void check_choice_reporting(ftc_comm_t comm, tally *t)
{
    int p;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    for (size_t a = 0; a < N_ALGORITHMS; a++) {
        t->failures += check_choice_of(all_algorithms[a], comm, p);
        t->calls++;
    }
    t->failures += check_documented_fallbacks(comm, p);
    t->calls += 3;
}

/* ---- no mixing with the application's messages --------------------------------- */

enum { INTERLEAVED_ROUNDS = 24 };

/*
 * Each round: wildcard receives (any source, any tag) posted on
 * MPI_COMM_WORLD and user messages sent to both neighbours *before* the
 * allgather, completed after it. If ftcoll used MPI_COMM_WORLD, the wildcard
 * receives would swallow its blocks and its receives the user messages.
 */
static void check_no_mixing_with_user_traffic(ftc_comm_t comm, tally *t)
{
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    for (int round = 0; round < INTERLEAVED_ROUNDS; round++) {
        user_traffic traffic;
        user_traffic_start(&traffic, round);

        const layout_case lc = predefined_case(predefined_entry(MPI_INT));
        prepared pc;
        prepare(&pc, &lc, 1 + round % 9, rank, p);
        const call_variant v = { all_algorithms[round % N_ALGORITHMS], round % 3 == 0 };
        t->failures += run_and_check(&pc, v, comm);
        t->calls++;
    
        t->failures += user_traffic_finish(&traffic);
    }
}

/*
 * A type of no bytes (contiguous(0, int)) with count 5 on every rank is
 * valid and moves nothing: every algorithm, and ftc_allgatherv, succeed
 * and leave the receive buffer untouched (every message is empty, which
 * the received-size check must not take for a wrong count).
 */
static void check_type_of_no_bytes(ftc_comm_t comm, tally *t)
{
    int p;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Datatype none;
    mpi_or_die(MPI_Type_contiguous(0, MPI_INT, &none), "MPI_Type_contiguous");
    mpi_or_die(MPI_Type_commit(&none), "MPI_Type_commit");
    int *counts = malloc((size_t)p * sizeof(int)), *displs = malloc((size_t)p * sizeof(int));
    if (!counts || !displs)
        die("out of memory");
    for (int r = 0; r < p; r++) {
        counts[r] = 5;
        displs[r] = 5 * r;
    }
    unsigned char sendbuf[4] = { 0 }, recvbuf[16];
    for (size_t a = 0; a <= N_ALGORITHMS; a++) {   /* the last one: ftc_allgatherv */
        memset(recvbuf, 0xA5, sizeof(recvbuf));
        int rc;
        if (a < N_ALGORITHMS) {
            abort_on_error(ftc_allgather_set_algorithm(comm, all_algorithms[a]),
                           "ftc_allgather_set_algorithm", "a type of no bytes", 5);
            rc = ftc_allgather(sendbuf, 5, none, recvbuf, 5, none, comm);
        } else {
            rc = ftc_allgatherv(sendbuf, 5, none, recvbuf, counts, displs, none, comm);
        }
        bool untouched = true;
        for (size_t b = 0; b < sizeof(recvbuf); b++)
            untouched = untouched && recvbuf[b] == 0xA5;
        if (rc != MPI_SUCCESS || !untouched) {
            fprintf(stderr, "MISMATCH %s, a type of no bytes: %s%s\n",
                    a < N_ALGORITHMS ? ftc_allgather_algorithm_name(all_algorithms[a])
                                     : "ftc_allgatherv",
                    rc != MPI_SUCCESS ? ftc_error_message() : "",
                    untouched ? "" : " (recvbuf written)");
            t->failures++;
        }
        t->calls++;
    }
    abort_on_error(ftc_allgather_set_algorithm(comm, FTC_ALLGATHER_AUTO),
                   "ftc_allgather_set_algorithm", "auto", 0);
    free(counts);
    free(displs);
    MPI_Type_free(&none);
}

/* ---- main --------------------------------------------------------------------- */

/* --large BYTES: the per-rank payload of the large cases (0: none). */
static size_t large_bytes_option(int argc, char **argv)
{
    size_t large_bytes = 1u << 20;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--large") == 0 && i + 1 < argc) {
            char *end = NULL;
            const unsigned long long v = strtoull(argv[++i], &end, 10);
            if (!end || *end || v > (1ull << 26))
                die("--large wants a byte count up to 64 MiB");
            large_bytes = (size_t)v;
        } else {
            die("usage: test_allgather [--large BYTES]");
        }
    }
    return large_bytes;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const size_t large_bytes = large_bytes_option(argc, argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);

    ftc_comm_t comm = NULL;
    abort_on_error(ftc_comm_create(MPI_COMM_WORLD, &comm), "ftc_comm_create", "-", 0);
    tally t = { 0, 0 };
    check_all_layouts(comm, large_bytes, &t);
    check_choice_reporting(comm, &t);
    check_no_mixing_with_user_traffic(comm, &t);
    check_type_of_no_bytes(comm, &t);
    abort_on_error(ftc_comm_free(&comm), "ftc_comm_free", "-", 0);
    free_reusable_buffers();

    long failures = 0;
    MPI_Allreduce(&t.failures, &failures, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (failures == 0)
            printf("allgather p=%d: %ld cases, all elements checked\n", p, t.calls);
        else
            printf("allgather p=%d: %ld of %ld cases FAILED (summed over ranks)\n", p, failures,
                   t.calls);
    }
    MPI_Finalize();
    return failures == 0 ? 0 : 1;
}
