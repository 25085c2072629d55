/* Generated floating-point edge cases (F and D), executed with inline assembly so the
 * exact instruction and static rounding mode are known: fadd/fsub/fmul/fdiv/fsqrt,
 * fmadd/fmsub/fnmadd/fnmsub, every fcvt (including the saturating float->int ones),
 * fmin/fmax/feq/flt/fle/fclass/fsgnj*, NaN payloads and NaN-boxing, subnormals,
 * infinities.  Prints result bits and fflags in hex.  Pass an extra argument for the
 * full per-case listing (otherwise large product spaces are summarised by FNV hashes).
 * Needs hardware F and D (rv32imafdc, rv64gc). */
#include "common.h"
#if !HAVE_HW_DOUBLE
#error "fp_edge needs the D extension"
#endif

static int verbose;

static const uint32_t SV[] = {
    0x00000000, 0x80000000, 0x00000001, 0x807fffff, 0x00800000, 0x3f800000, 0xbf800000, 0x3f800001,
    0x7f7fffff, 0xff7fffff, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0xffc12345, 0x40490fdb,
    0x33800000, 0x4b800000, 0x3effffff, 0xc0200000};
static const uint64_t DV[] = {
    0x0000000000000000ull, 0x8000000000000000ull, 0x0000000000000001ull, 0x800fffffffffffffull,
    0x0010000000000000ull, 0x3ff0000000000000ull, 0xbff0000000000000ull, 0x3ff0000000000001ull,
    0x7fefffffffffffffull, 0xffefffffffffffffull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
    0x7ff8000000000000ull, 0x7ff0000000000001ull, 0xfff8000000012345ull, 0x400921fb54442d18ull,
    0x3ca0000000000000ull, 0x4340000000000000ull, 0x3fdfffffffffffffull, 0xc004000000000000ull};
#define NS (sizeof SV / sizeof SV[0])
#define ND (sizeof DV / sizeof DV[0])

/* Cheap order-sensitive hash of a result and its flags (FNV-style multiply per word). */
static inline uint32_t mix(uint32_t h, uint64_t v) {
    h = (h ^ (uint32_t)v) * 16777619u;
    return (h ^ (uint32_t)(v >> 32)) * 16777619u;
}

static const char *const RM_NAMES[] = {"rne", "rtz", "rdn", "rup", "rmm", "dyn"};
#define NRM 6

static inline void set_frm(unsigned rm) { asm volatile("csrw frm, %0" : : "r"(rm)); }

/* Binary ops: out = a OP b, rounding mode RM; returns fflags. */
#define BIN(NAME, INSN, SZ, LD, ST, RM)                                                     \
    static unsigned NAME(const void *a, const void *b, void *out) {                        \
        unsigned fl;                                                                        \
        asm volatile(LD " ft0, 0(%1)\n\t" LD " ft1, 0(%2)\n\tcsrw fflags, zero\n\t"         \
                     INSN " ft2, ft0, ft1, " RM "\n\tcsrr %0, fflags\n\t" ST " ft2, 0(%3)"  \
                     : "=&r"(fl) : "r"(a), "r"(b), "r"(out) : "ft0", "ft1", "ft2", "memory"); \
        return fl;                                                                          \
    }
#define BIN_ALLRM(OP, INSN, SZ, LD, ST)                                                     \
    BIN(OP##_rne, INSN, SZ, LD, ST, "rne") BIN(OP##_rtz, INSN, SZ, LD, ST, "rtz")            \
    BIN(OP##_rdn, INSN, SZ, LD, ST, "rdn") BIN(OP##_rup, INSN, SZ, LD, ST, "rup")            \
    BIN(OP##_rmm, INSN, SZ, LD, ST, "rmm") BIN(OP##_dyn, INSN, SZ, LD, ST, "dyn")            \
    static unsigned (*const OP##_tab[NRM])(const void *, const void *, void *) = {           \
        OP##_rne, OP##_rtz, OP##_rdn, OP##_rup, OP##_rmm, OP##_dyn};

BIN_ALLRM(fadd_s, "fadd.s", 4, "flw", "fsw")
BIN_ALLRM(fsub_s, "fsub.s", 4, "flw", "fsw")
BIN_ALLRM(fmul_s, "fmul.s", 4, "flw", "fsw")
BIN_ALLRM(fdiv_s, "fdiv.s", 4, "flw", "fsw")
BIN_ALLRM(fadd_d, "fadd.d", 8, "fld", "fsd")
BIN_ALLRM(fsub_d, "fsub.d", 8, "fld", "fsd")
BIN_ALLRM(fmul_d, "fmul.d", 8, "fld", "fsd")
BIN_ALLRM(fdiv_d, "fdiv.d", 8, "fld", "fsd")

/* Ternary fused ops. */
#define TER(NAME, INSN, LD, ST, RM)                                                         \
    static unsigned NAME(const void *a, const void *b, const void *c, void *out) {         \
        unsigned fl;                                                                        \
        asm volatile(LD " ft0, 0(%1)\n\t" LD " ft1, 0(%2)\n\t" LD " ft3, 0(%3)\n\t"         \
                     "csrw fflags, zero\n\t" INSN " ft2, ft0, ft1, ft3, " RM "\n\t"          \
                     "csrr %0, fflags\n\t" ST " ft2, 0(%4)"                                 \
                     : "=&r"(fl) : "r"(a), "r"(b), "r"(c), "r"(out)                          \
                     : "ft0", "ft1", "ft2", "ft3", "memory");                                \
        return fl;                                                                          \
    }
#define TER_ALLRM(OP, INSN, LD, ST)                                                          \
    TER(OP##_rne, INSN, LD, ST, "rne") TER(OP##_rtz, INSN, LD, ST, "rtz")                    \
    TER(OP##_rdn, INSN, LD, ST, "rdn") TER(OP##_rup, INSN, LD, ST, "rup")                    \
    TER(OP##_rmm, INSN, LD, ST, "rmm") TER(OP##_dyn, INSN, LD, ST, "dyn")                    \
    static unsigned (*const OP##_tab[NRM])(const void *, const void *, const void *, void *) = { \
        OP##_rne, OP##_rtz, OP##_rdn, OP##_rup, OP##_rmm, OP##_dyn};
TER_ALLRM(fmadd_s, "fmadd.s", "flw", "fsw")
TER_ALLRM(fmsub_s, "fmsub.s", "flw", "fsw")
TER_ALLRM(fnmadd_s, "fnmadd.s", "flw", "fsw")
TER_ALLRM(fnmsub_s, "fnmsub.s", "flw", "fsw")
TER_ALLRM(fmadd_d, "fmadd.d", "fld", "fsd")
TER_ALLRM(fmsub_d, "fmsub.d", "fld", "fsd")
TER_ALLRM(fnmadd_d, "fnmadd.d", "fld", "fsd")
TER_ALLRM(fnmsub_d, "fnmsub.d", "fld", "fsd")

/* Unary float->float (fsqrt, fcvt.s.d, fcvt.d.s). */
#define UN(NAME, INSN, LD, ST, RM)                                                          \
    static unsigned NAME(const void *a, void *out) {                                       \
        unsigned fl;                                                                        \
        asm volatile(LD " ft0, 0(%1)\n\tcsrw fflags, zero\n\t" INSN " ft2, ft0" RM "\n\t"  \
                     "csrr %0, fflags\n\t" ST " ft2, 0(%2)"                                 \
                     : "=&r"(fl) : "r"(a), "r"(out) : "ft0", "ft2", "memory");               \
        return fl;                                                                          \
    }
#define UN_ALLRM(OP, INSN, LD, ST)                                                           \
    UN(OP##_rne, INSN, LD, ST, ", rne") UN(OP##_rtz, INSN, LD, ST, ", rtz")                  \
    UN(OP##_rdn, INSN, LD, ST, ", rdn") UN(OP##_rup, INSN, LD, ST, ", rup")                  \
    UN(OP##_rmm, INSN, LD, ST, ", rmm") UN(OP##_dyn, INSN, LD, ST, ", dyn")                  \
    static unsigned (*const OP##_tab[NRM])(const void *, void *) = {                         \
        OP##_rne, OP##_rtz, OP##_rdn, OP##_rup, OP##_rmm, OP##_dyn};
UN_ALLRM(fsqrt_s, "fsqrt.s", "flw", "fsw")
UN_ALLRM(fsqrt_d, "fsqrt.d", "fld", "fsd")
UN_ALLRM(fcvt_s_d, "fcvt.s.d", "fld", "fsw")
/* fcvt.d.s is exact: it has no rounding-mode operand in assembly. */
UN(fcvt_d_s_x, "fcvt.d.s", "flw", "fsd", "")
static unsigned (*const fcvt_d_s_tab[NRM])(const void *, void *) = {
    fcvt_d_s_x, fcvt_d_s_x, fcvt_d_s_x, fcvt_d_s_x, fcvt_d_s_x, fcvt_d_s_x};

/* float -> integer (saturating), result in an integer register. */
#define F2I(NAME, INSN, LD, RM)                                                             \
    static unsigned NAME(const void *a, unsigned long *out) {                              \
        unsigned fl; unsigned long r;                                                       \
        asm volatile(LD " ft0, 0(%2)\n\tcsrw fflags, zero\n\t" INSN " %1, ft0, " RM "\n\t"   \
                     "csrr %0, fflags" : "=&r"(fl), "=&r"(r) : "r"(a) : "ft0", "memory");    \
        *out = r; return fl;                                                                \
    }
#define F2I_ALLRM(OP, INSN, LD)                                                              \
    F2I(OP##_rne, INSN, LD, "rne") F2I(OP##_rtz, INSN, LD, "rtz") F2I(OP##_rdn, INSN, LD, "rdn") \
    F2I(OP##_rup, INSN, LD, "rup") F2I(OP##_rmm, INSN, LD, "rmm") F2I(OP##_dyn, INSN, LD, "dyn") \
    static unsigned (*const OP##_tab[NRM])(const void *, unsigned long *) = {                \
        OP##_rne, OP##_rtz, OP##_rdn, OP##_rup, OP##_rmm, OP##_dyn};
F2I_ALLRM(fcvt_w_s, "fcvt.w.s", "flw")
F2I_ALLRM(fcvt_wu_s, "fcvt.wu.s", "flw")
F2I_ALLRM(fcvt_w_d, "fcvt.w.d", "fld")
F2I_ALLRM(fcvt_wu_d, "fcvt.wu.d", "fld")
#if XLEN == 64
F2I_ALLRM(fcvt_l_s, "fcvt.l.s", "flw")
F2I_ALLRM(fcvt_lu_s, "fcvt.lu.s", "flw")
F2I_ALLRM(fcvt_l_d, "fcvt.l.d", "fld")
F2I_ALLRM(fcvt_lu_d, "fcvt.lu.d", "fld")
#endif

/* integer -> float. */
#define I2F(NAME, INSN, ST, RM)                                                             \
    static unsigned NAME(unsigned long a, void *out) {                                     \
        unsigned fl;                                                                        \
        asm volatile("csrw fflags, zero\n\t" INSN " ft2, %1" RM "\n\tcsrr %0, fflags\n\t"    \
                     ST " ft2, 0(%2)" : "=&r"(fl) : "r"(a), "r"(out) : "ft2", "memory");     \
        return fl;                                                                          \
    }
#define I2F_ALLRM(OP, INSN, ST)                                                              \
    I2F(OP##_rne, INSN, ST, ", rne") I2F(OP##_rtz, INSN, ST, ", rtz") I2F(OP##_rdn, INSN, ST, ", rdn") \
    I2F(OP##_rup, INSN, ST, ", rup") I2F(OP##_rmm, INSN, ST, ", rmm") I2F(OP##_dyn, INSN, ST, ", dyn") \
    static unsigned (*const OP##_tab[NRM])(unsigned long, void *) = {                        \
        OP##_rne, OP##_rtz, OP##_rdn, OP##_rup, OP##_rmm, OP##_dyn};
I2F_ALLRM(fcvt_s_w, "fcvt.s.w", "fsw")
I2F_ALLRM(fcvt_s_wu, "fcvt.s.wu", "fsw")
/* fcvt.d.w and fcvt.d.wu are exact: no rounding-mode operand. */
I2F(fcvt_d_w_x, "fcvt.d.w", "fsd", "")
I2F(fcvt_d_wu_x, "fcvt.d.wu", "fsd", "")
static unsigned (*const fcvt_d_w_tab[NRM])(unsigned long, void *) = {
    fcvt_d_w_x, fcvt_d_w_x, fcvt_d_w_x, fcvt_d_w_x, fcvt_d_w_x, fcvt_d_w_x};
static unsigned (*const fcvt_d_wu_tab[NRM])(unsigned long, void *) = {
    fcvt_d_wu_x, fcvt_d_wu_x, fcvt_d_wu_x, fcvt_d_wu_x, fcvt_d_wu_x, fcvt_d_wu_x};
#if XLEN == 64
I2F_ALLRM(fcvt_s_l, "fcvt.s.l", "fsw")
I2F_ALLRM(fcvt_s_lu, "fcvt.s.lu", "fsw")
I2F_ALLRM(fcvt_d_l, "fcvt.d.l", "fsd")
I2F_ALLRM(fcvt_d_lu, "fcvt.d.lu", "fsd")
#endif

/* Non-rounding ops. */
#define NR(NAME, INSN, LD, ST)                                                              \
    static unsigned NAME(const void *a, const void *b, void *out) {                        \
        unsigned fl;                                                                        \
        asm volatile(LD " ft0, 0(%1)\n\t" LD " ft1, 0(%2)\n\tcsrw fflags, zero\n\t"         \
                     INSN " ft2, ft0, ft1\n\tcsrr %0, fflags\n\t" ST " ft2, 0(%3)"          \
                     : "=&r"(fl) : "r"(a), "r"(b), "r"(out) : "ft0", "ft1", "ft2", "memory"); \
        return fl;                                                                          \
    }
#define CMP(NAME, INSN, LD)                                                                 \
    static unsigned NAME(const void *a, const void *b, void *out) {                        \
        unsigned fl; unsigned long r;                                                       \
        asm volatile(LD " ft0, 0(%2)\n\t" LD " ft1, 0(%3)\n\tcsrw fflags, zero\n\t"         \
                     INSN " %1, ft0, ft1\n\tcsrr %0, fflags"                                \
                     : "=&r"(fl), "=&r"(r) : "r"(a), "r"(b) : "ft0", "ft1", "memory");       \
        *(uint32_t *)out = (uint32_t)r; return fl;                                          \
    }
NR(fmin_s, "fmin.s", "flw", "fsw") NR(fmax_s, "fmax.s", "flw", "fsw")
NR(fsgnj_s, "fsgnj.s", "flw", "fsw") NR(fsgnjn_s, "fsgnjn.s", "flw", "fsw") NR(fsgnjx_s, "fsgnjx.s", "flw", "fsw")
NR(fmin_d, "fmin.d", "fld", "fsd") NR(fmax_d, "fmax.d", "fld", "fsd")
NR(fsgnj_d, "fsgnj.d", "fld", "fsd") NR(fsgnjn_d, "fsgnjn.d", "fld", "fsd") NR(fsgnjx_d, "fsgnjx.d", "fld", "fsd")
CMP(feq_s, "feq.s", "flw") CMP(flt_s, "flt.s", "flw") CMP(fle_s, "fle.s", "flw")
CMP(feq_d, "feq.d", "fld") CMP(flt_d, "flt.d", "fld") CMP(fle_d, "fle.d", "fld")

typedef unsigned (*bin_fn)(const void *, const void *, void *);

static void sweep_bin(const char *name, bin_fn const *tab, int nrm, int dbl) {
    for (int rm = 0; rm < nrm; rm++) {
        uint32_t h = FNV32_INIT, flagsor = 0;
        size_t n = dbl ? ND : NS;
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++) {
                uint64_t out = 0;
                unsigned fl = dbl ? tab[rm](&DV[i], &DV[j], &out) : tab[rm](&SV[i], &SV[j], &out);
                h = mix(h, out); h = mix(h, fl); flagsor |= fl;
                if (verbose)
                    printf("  %s.%s %zu %zu -> %0*llx fl=%02x\n", name, RM_NAMES[rm], i, j, dbl ? 16 : 8,
                           (unsigned long long)out, fl);
            }
        printf("%-9s %s hash=%08lx flags-or=%02lx\n", name, nrm == 1 ? "-  " : RM_NAMES[rm], (unsigned long)h,
               (unsigned long)flagsor);
    }
}

typedef unsigned (*ter_fn)(const void *, const void *, const void *, void *);
static void sweep_ter(const char *name, ter_fn const *tab, int dbl) {
    static const int pick[] = {0, 1, 2, 5, 6, 8, 10, 12, 13, 14};
    const size_t np = sizeof pick / sizeof pick[0];
    for (int rm = 0; rm < NRM; rm++) {
        uint32_t h = FNV32_INIT, flagsor = 0;
        for (size_t i = 0; i < np; i++)
            for (size_t j = 0; j < np; j++)
                for (size_t k = 0; k < np; k++) {
                    uint64_t out = 0;
                    unsigned fl = dbl ? tab[rm](&DV[pick[i]], &DV[pick[j]], &DV[pick[k]], &out)
                                      : tab[rm](&SV[pick[i]], &SV[pick[j]], &SV[pick[k]], &out);
                    h = mix(h, out); h = mix(h, fl); flagsor |= fl;
                }
        printf("%-9s %s hash=%08lx flags-or=%02lx\n", name, RM_NAMES[rm], (unsigned long)h, (unsigned long)flagsor);
    }
    /* the classic invalid case: inf * 0 + qNaN */
    uint64_t out = 0; unsigned fl;
    fl = dbl ? tab[0](&DV[10], &DV[0], &DV[12], &out) : tab[0](&SV[10], &SV[0], &SV[12], &out);
    printf("%-9s inf*0+qnan -> %0*llx fl=%02x\n", name, dbl ? 16 : 8, (unsigned long long)out, fl);
}

/* conversion inputs: specials plus halfway and saturation boundaries */
static const double CVT_IN[] = {0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994, 1e-320,
    2147483647.0, 2147483647.5, 2147483648.0, -2147483648.0, -2147483648.5, -2147483649.0, 4294967295.0,
    4294967295.5, 4294967296.0, -1.0, 9223372036854775807.0, 9.3e18, -9223372036854775808.0, -9.3e18,
    18446744073709551615.0, 1.9e19, 1e30, -1e30};

static void cvt_to_int(void) {
    typedef unsigned (*f2i_fn)(const void *, unsigned long *);
    struct { const char *name; f2i_fn const *tab; int dbl; } convs[] = {
        {"fcvt.w.s", fcvt_w_s_tab, 0}, {"fcvt.wu.s", fcvt_wu_s_tab, 0},
        {"fcvt.w.d", fcvt_w_d_tab, 1}, {"fcvt.wu.d", fcvt_wu_d_tab, 1},
#if XLEN == 64
        {"fcvt.l.s", fcvt_l_s_tab, 0}, {"fcvt.lu.s", fcvt_lu_s_tab, 0},
        {"fcvt.l.d", fcvt_l_d_tab, 1}, {"fcvt.lu.d", fcvt_lu_d_tab, 1},
#endif
    };
    const size_t nin = sizeof CVT_IN / sizeof CVT_IN[0];
    for (size_t c = 0; c < sizeof convs / sizeof convs[0]; c++) {
        for (size_t i = 0; i < nin + 4; i++) {
            uint64_t in64; uint32_t in32;
            if (i < nin) { double d = CVT_IN[i]; float f = (float)d; memcpy(&in64, &d, 8); memcpy(&in32, &f, 4); }
            else { in64 = DV[10 + (i - nin)]; in32 = SV[10 + (i - nin)]; }  /* +inf -inf qnan snan */
            printf("%-9s %0*llx:", convs[c].name, convs[c].dbl ? 16 : 8,
                   (unsigned long long)(convs[c].dbl ? in64 : in32));
            for (int rm = 0; rm < NRM; rm++) {
                unsigned long r; unsigned fl;
                if (rm == 5) set_frm(4);   /* dyn = rmm */
                fl = convs[c].dbl ? convs[c].tab[rm](&in64, &r) : convs[c].tab[rm](&in32, &r);
                printf(" %0*lx/%02x", XLEN / 4, r, fl);
            }
            printf("\n");
            set_frm(0);
        }
    }
}

static void cvt_from_int(void) {
    typedef unsigned (*i2f_fn)(unsigned long, void *);
    struct { const char *name; i2f_fn const *tab; int dbl; } convs[] = {
        {"fcvt.s.w", fcvt_s_w_tab, 0}, {"fcvt.s.wu", fcvt_s_wu_tab, 0},
        {"fcvt.d.w", fcvt_d_w_tab, 1}, {"fcvt.d.wu", fcvt_d_wu_tab, 1},
#if XLEN == 64
        {"fcvt.s.l", fcvt_s_l_tab, 0}, {"fcvt.s.lu", fcvt_s_lu_tab, 0},
        {"fcvt.d.l", fcvt_d_l_tab, 1}, {"fcvt.d.lu", fcvt_d_lu_tab, 1},
#endif
    };
    const unsigned long ins[] = {0, 1, (unsigned long)-1, 0x7fffffff, 0x80000000ul, 0x01000001, 0xffffffff,
                                 (unsigned long)-16777217L,
#if XLEN == 64
                                 0x7fffffffffffffffull, 0x8000000000000000ull, 0x0020000000000001ull,
                                 0xffffffffffffffffull, 0x00000000ffffffffull, 0xfffffffe00000001ull,
#endif
    };
    for (size_t c = 0; c < sizeof convs / sizeof convs[0]; c++)
        for (size_t i = 0; i < sizeof ins / sizeof ins[0]; i++) {
            printf("%-9s %0*lx:", convs[c].name, XLEN / 4, ins[i]);
            for (int rm = 0; rm < NRM; rm++) {
                uint64_t out = 0;
                if (rm == 5) set_frm(3);   /* dyn = rup */
                unsigned fl = convs[c].tab[rm](ins[i], &out);
                printf(" %0*llx/%02x", convs[c].dbl ? 16 : 8, (unsigned long long)out, fl);
            }
            printf("\n");
            set_frm(0);
        }
}

static void unary(void) {
    typedef unsigned (*un_fn)(const void *, void *);
    struct { const char *name; un_fn const *tab; int din, dout; } ops[] = {
        {"fsqrt.s", fsqrt_s_tab, 0, 0}, {"fsqrt.d", fsqrt_d_tab, 1, 1},
        {"fcvt.s.d", fcvt_s_d_tab, 1, 0}, {"fcvt.d.s", fcvt_d_s_tab, 0, 1}};
    for (size_t o = 0; o < 4; o++)
        for (size_t i = 0; i < NS; i++) {
            printf("%-8s %0*llx:", ops[o].name, ops[o].din ? 16 : 8,
                   (unsigned long long)(ops[o].din ? DV[i] : SV[i]));
            for (int rm = 0; rm < NRM; rm++) {
                uint64_t out = 0;
                if (rm == 5) set_frm(2);   /* dyn = rdn */
                unsigned fl = ops[o].tab[rm](ops[o].din ? (const void *)&DV[i] : (const void *)&SV[i], &out);
                printf(" %0*llx/%02x", ops[o].dout ? 16 : 8, (unsigned long long)out, fl);
            }
            printf("\n");
            set_frm(0);
        }
    /* fcvt.s.d of a value that rounds differently per mode */
    double third = 1.0 / 3.0; uint64_t tb; memcpy(&tb, &third, 8);
    printf("fcvt.s.d(1/3):");
    for (int rm = 0; rm < 5; rm++) { uint32_t o = 0; unsigned fl = fcvt_s_d_tab[rm](&tb, &o); printf(" %08lx/%02x", (unsigned long)o, fl); }
    printf("\n");
}

static void classify(void) {
    printf("fclass.s:");
    for (size_t i = 0; i < NS; i++) { unsigned long r; float f; memcpy(&f, &SV[i], 4);
        asm volatile("fclass.s %0, %1" : "=r"(r) : "f"(f)); printf(" %03lx", r); }
    printf("\nfclass.d:");
    for (size_t i = 0; i < ND; i++) { unsigned long r; double d; memcpy(&d, &DV[i], 8);
        asm volatile("fclass.d %0, %1" : "=r"(r) : "f"(d)); printf(" %03lx", r); }
    printf("\n");
}

static void nanbox(void) {
    /* A 64-bit pattern whose upper half is not all ones is not a valid single:
     * single-precision instructions must see it as the canonical NaN. */
    static const uint64_t pats[] = {0x000000003f800000ull, 0xffffffff3f800000ull, 0xfffffffe3f800000ull,
                                    0x7ff8000000000000ull};
    for (size_t i = 0; i < 4; i++) {
        uint32_t add, sgnj, mvx; unsigned long cls; uint64_t boxed;
        asm volatile("fld ft0, 0(%5)\n\tfadd.s ft1, ft0, ft0\n\tfsw ft1, 0(%0)\n\t"
                     "fsgnj.s ft2, ft0, ft0\n\tfsw ft2, 0(%1)\n\tfmv.x.w %3, ft0\n\tfclass.s %4, ft0\n\t"
                     "flw ft3, 0(%0)\n\tfsd ft3, 0(%2)"
                     : : "r"(&add), "r"(&sgnj), "r"(&boxed), "r"(0), "r"(0), "r"(&pats[i]) : "ft0", "ft1", "ft2", "ft3", "memory");
        asm volatile("fld ft0, 0(%2)\n\tfmv.x.w %0, ft0\n\tfclass.s %1, ft0" : "=r"(mvx), "=r"(cls) : "r"(&pats[i]) : "ft0");
        printf("nanbox %016llx: fadd.s=%08lx fsgnj.s=%08lx fmv.x.w=%08lx fclass.s=%03lx flw-boxed=%016llx\n",
               (unsigned long long)pats[i], (unsigned long)add, (unsigned long)sgnj, (unsigned long)mvx, cls,
               (unsigned long long)boxed);
    }
#if XLEN == 64
    unsigned long x;
    asm volatile("li t0, 0x12345678\n\tfmv.w.x ft0, t0\n\tfmv.x.d %0, ft0" : "=r"(x) : : "t0", "ft0");
    printf("fmv.w.x boxes: %016lx\n", x);
    asm volatile("li t0, -1\n\tfmv.w.x ft0, t0\n\tfmv.x.w %0, ft0" : "=r"(x) : : "t0", "ft0");
    printf("fmv.x.w sign-extends: %016lx\n", x);
#endif
}

int main(int argc, char **argv) {
    (void)argv;
#ifdef CFG_LINUX
    verbose = argc > 1;
#else
    verbose = argc > 2;
#endif
    sweep_bin("fadd.s", fadd_s_tab, NRM, 0); sweep_bin("fsub.s", fsub_s_tab, NRM, 0);
    sweep_bin("fmul.s", fmul_s_tab, NRM, 0); sweep_bin("fdiv.s", fdiv_s_tab, NRM, 0);
    sweep_bin("fadd.d", fadd_d_tab, NRM, 1); sweep_bin("fsub.d", fsub_d_tab, NRM, 1);
    sweep_bin("fmul.d", fmul_d_tab, NRM, 1); sweep_bin("fdiv.d", fdiv_d_tab, NRM, 1);
    bin_fn nr_s[] = {fmin_s, fmax_s, fsgnj_s, fsgnjn_s, fsgnjx_s, feq_s, flt_s, fle_s};
    bin_fn nr_d[] = {fmin_d, fmax_d, fsgnj_d, fsgnjn_d, fsgnjx_d, feq_d, flt_d, fle_d};
    const char *nr_n[] = {"fmin", "fmax", "fsgnj", "fsgnjn", "fsgnjx", "feq", "flt", "fle"};
    for (int k = 0; k < 8; k++) {
        char n[16];
        snprintf(n, sizeof n, "%s.s", nr_n[k]); sweep_bin(n, &nr_s[k], 1, 0);
        snprintf(n, sizeof n, "%s.d", nr_n[k]); sweep_bin(n, &nr_d[k], 1, 1);
    }
    /* explicit NaN/zero cases of fmin/fmax and compares */
    uint32_t o; unsigned fl;
    fl = fmin_s(&SV[12], &SV[5], &o); printf("fmin.s(qnan,1)=%08lx fl=%02x\n", (unsigned long)o, fl);
    fl = fmin_s(&SV[13], &SV[13], &o); printf("fmin.s(snan,snan)=%08lx fl=%02x\n", (unsigned long)o, fl);
    fl = fmax_s(&SV[1], &SV[0], &o); printf("fmax.s(-0,+0)=%08lx fl=%02x\n", (unsigned long)o, fl);
    fl = fmin_s(&SV[0], &SV[1], &o); printf("fmin.s(+0,-0)=%08lx fl=%02x\n", (unsigned long)o, fl);
    fl = feq_s(&SV[12], &SV[12], &o); printf("feq.s(qnan,qnan)=%lu fl=%02x\n", (unsigned long)o, fl);
    fl = flt_s(&SV[12], &SV[5], &o); printf("flt.s(qnan,1)=%lu fl=%02x\n", (unsigned long)o, fl);
    fl = feq_d(&DV[13], &DV[5], &o); printf("feq.d(snan,1)=%lu fl=%02x\n", (unsigned long)o, fl);
    sweep_ter("fmadd.s", fmadd_s_tab, 0); sweep_ter("fmsub.s", fmsub_s_tab, 0);
    sweep_ter("fnmadd.s", fnmadd_s_tab, 0); sweep_ter("fnmsub.s", fnmsub_s_tab, 0);
    sweep_ter("fmadd.d", fmadd_d_tab, 1); sweep_ter("fmsub.d", fmsub_d_tab, 1);
    sweep_ter("fnmadd.d", fnmadd_d_tab, 1); sweep_ter("fnmsub.d", fnmsub_d_tab, 1);
    unary();
    cvt_to_int();
    cvt_from_int();
    classify();
    nanbox();
    /* accrued flags: fflags accumulate across operations until cleared */
    unsigned long acc, fcsr;
    set_frm(1);
    asm volatile("csrw fflags, zero\n\tfdiv.s ft0, %2, %3\n\tfsqrt.s ft1, %4\n\tcsrr %0, fflags\n\tcsrr %1, fcsr"
                 : "=r"(acc), "=r"(fcsr) : "f"(1.0f), "f"(0.0f), "f"(-1.0f) : "ft0", "ft1");
    printf("accrued fflags=%02lx fcsr=%03lx\n", acc, fcsr);
    set_frm(0);
    asm volatile("csrw fflags, zero");
    return 0;
}
