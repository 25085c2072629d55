/*
 * fwprof-fpu: thin, stateless entry points over Berkeley SoftFloat 3e
 * (RISCV specialization). Each function sets the thread-local rounding mode,
 * clears the thread-local exception flags, performs one operation and ORs the
 * raised flags into *fl. SoftFloat's flag bits (inexact=1, underflow=2,
 * overflow=4, infinite=8, invalid=16) and rounding-mode numbers (0..4) equal
 * RISC-V's fflags bits and rm encodings (Unprivileged ISA 20191213, §11.2),
 * so both pass through unchanged.
 */
#include <stdbool.h>
#include <stdint.h>
#include "platform.h"
#include "softfloat.h"

#define BEGIN(rm) softfloat_roundingMode = (rm); softfloat_exceptionFlags = 0
#define END(fl) *(fl) |= (uint8_t) softfloat_exceptionFlags

#define BIN(name, W, op)                                                       \
    uint##W##_t fwsf_f##W##_##name(uint##W##_t a, uint##W##_t b, uint8_t rm,   \
                                   uint8_t *fl) {                             \
        float##W##_t x, y, z;                                                  \
        x.v = a;                                                               \
        y.v = b;                                                               \
        BEGIN(rm);                                                             \
        z = f##W##_##op(x, y);                                                 \
        END(fl);                                                               \
        return z.v;                                                            \
    }

#define CMP(name, W, op)                                                       \
    uint8_t fwsf_f##W##_##name(uint##W##_t a, uint##W##_t b, uint8_t *fl) {    \
        float##W##_t x, y;                                                     \
        bool r;                                                                \
        x.v = a;                                                               \
        y.v = b;                                                               \
        BEGIN(softfloat_round_near_even);                                      \
        r = f##W##_##op(x, y);                                                 \
        END(fl);                                                               \
        return r ? 1 : 0;                                                      \
    }

#define TOINT(name, W, T, op)                                                  \
    T fwsf_f##W##_##name(uint##W##_t a, uint8_t rm, uint8_t *fl) {             \
        float##W##_t x;                                                        \
        T r;                                                                   \
        x.v = a;                                                               \
        BEGIN(rm);                                                             \
        r = (T) f##W##_##op(x, rm, true);                                      \
        END(fl);                                                               \
        return r;                                                              \
    }

#define FROMINT(name, W, T, op)                                                \
    uint##W##_t fwsf_f##W##_##name(T v, uint8_t rm, uint8_t *fl) {             \
        float##W##_t z;                                                        \
        BEGIN(rm);                                                             \
        z = op(v);                                                             \
        END(fl);                                                               \
        return z.v;                                                            \
    }

#define ALL(W)                                                                 \
    BIN(add, W, add)                                                           \
    BIN(sub, W, sub)                                                           \
    BIN(mul, W, mul)                                                           \
    BIN(div, W, div)                                                           \
    CMP(eq, W, eq)                                                             \
    CMP(lt, W, lt)                                                             \
    CMP(le, W, le)                                                             \
    TOINT(to_i32, W, int32_t, to_i32)                                          \
    TOINT(to_u32, W, uint32_t, to_ui32)                                        \
    TOINT(to_i64, W, int64_t, to_i64)                                          \
    TOINT(to_u64, W, uint64_t, to_ui64)                                        \
    FROMINT(from_i32, W, int32_t, i32_to_f##W)                                 \
    FROMINT(from_u32, W, uint32_t, ui32_to_f##W)                               \
    FROMINT(from_i64, W, int64_t, i64_to_f##W)                                 \
    FROMINT(from_u64, W, uint64_t, ui64_to_f##W)                               \
    uint##W##_t fwsf_f##W##_sqrt(uint##W##_t a, uint8_t rm, uint8_t *fl) {     \
        float##W##_t x, z;                                                     \
        x.v = a;                                                               \
        BEGIN(rm);                                                             \
        z = f##W##_sqrt(x);                                                    \
        END(fl);                                                               \
        return z.v;                                                            \
    }                                                                          \
    uint##W##_t fwsf_f##W##_fma(uint##W##_t a, uint##W##_t b, uint##W##_t c,   \
                                uint8_t rm, uint8_t *fl) {                    \
        float##W##_t x, y, w, z;                                               \
        x.v = a;                                                               \
        y.v = b;                                                               \
        w.v = c;                                                               \
        BEGIN(rm);                                                             \
        z = f##W##_mulAdd(x, y, w);                                            \
        END(fl);                                                               \
        return z.v;                                                            \
    }

ALL(32)
ALL(64)

uint64_t fwsf_f32_to_f64(uint32_t a, uint8_t *fl) {
    float32_t x;
    float64_t z;
    x.v = a;
    BEGIN(softfloat_round_near_even);
    z = f32_to_f64(x);
    END(fl);
    return z.v;
}

uint32_t fwsf_f64_to_f32(uint64_t a, uint8_t rm, uint8_t *fl) {
    float64_t x;
    float32_t z;
    x.v = a;
    BEGIN(rm);
    z = f64_to_f32(x);
    END(fl);
    return z.v;
}
