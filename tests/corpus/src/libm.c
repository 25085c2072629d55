/* libm: sin cos tan exp log log10 pow sqrt fmod atan2 cbrt hypot floor ceil round trunc
 * frexp ldexp modf expm1 log1p sinh tanh asin acos, in double and float.  Prints bits. */
#include "common.h"
#include <math.h>

static uint64_t db(double d) { uint64_t b; memcpy(&b, &d, 8); return b; }
static uint32_t fb(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }

static volatile double xs[] = {0.0, -0.0, 0.5, 1.0, -1.0, 2.0, 3.141592653589793, 10.0, -7.3, 100.25,
                               1e-5, 700.0, -745.0, 1e300, 0.7853981633974483};
#define NX (sizeof xs / sizeof xs[0])

#define D1(f) do { double r = f(x); h = fnv1a32(h, &r, 8); if (verbose || i == 4) printf("  %s(%g)=%016llx\n", #f, x, (unsigned long long)db(r)); } while (0)
#define F1(f) do { float r = f((float)x); h = fnv1a32(h, &r, 4); if (verbose || i == 4) printf("  %s(%g)=%08lx\n", #f, x, (unsigned long)fb(r)); } while (0)

int main(int argc, char **argv) {
    int verbose = argc > 2;   /* bare metal argv[1] is the program name; pass one extra arg */
    (void)argv;
    uint32_t h = FNV32_INIT;
    for (unsigned i = 0; i < NX; i++) {
        double x = xs[i];
        uint32_t h0 = h;
        D1(sin); D1(cos); D1(tan); D1(exp); D1(log); D1(log10); D1(log2); D1(sqrt); D1(cbrt);
        D1(floor); D1(ceil); D1(round); D1(trunc); D1(expm1); D1(log1p); D1(sinh); D1(cosh); D1(tanh);
        D1(atan); D1(fabs); D1(rint); D1(nearbyint);
        if (fabs(x) <= 1.0) { D1(asin); D1(acos); }
        F1(sinf); F1(cosf); F1(expf); F1(logf); F1(sqrtf); F1(floorf); F1(atanf); F1(tanhf);
        double p = pow(x, 1.5), q = pow(2.0, x), m = fmod(x, 0.75), a2 = atan2(x, -1.5), hy = hypot(x, 3.0);
        float pf = powf((float)x, 2.5f), mf = fmodf((float)x, 0.3f);
        int ex; double fr = frexp(x, &ex); double ip; double fp = modf(x, &ip);
        double ld = ldexp(x, 7), rem = remainder(x, 2.0);
        h = fnv1a32(h, &p, 8); h = fnv1a32(h, &q, 8); h = fnv1a32(h, &m, 8); h = fnv1a32(h, &a2, 8);
        h = fnv1a32(h, &hy, 8); h = fnv1a32(h, &pf, 4); h = fnv1a32(h, &mf, 4); h = fnv1a32(h, &fr, 8);
        h = fnv1a32(h, &ex, 4); h = fnv1a32(h, &fp, 8); h = fnv1a32(h, &ip, 8); h = fnv1a32(h, &ld, 8);
        h = fnv1a32(h, &rem, 8);
        printf("x=%-22.17g pow=%016llx exp2=%016llx fmod=%016llx atan2=%016llx hypot=%016llx powf=%08lx frexp=%d h=%08lx\n",
               x, (unsigned long long)db(p), (unsigned long long)db(q), (unsigned long long)db(m),
               (unsigned long long)db(a2), (unsigned long long)db(hy), (unsigned long)fb(pf), ex,
               (unsigned long)(h ^ h0));
    }
    printf("libm hash=%08lx\n", (unsigned long)h);
    printf("readable: sin(1)=%.15f exp(1)=%.15f log(10)=%.15f pow(2,0.5)=%.15f\n", sin(1.0), exp(1.0), log(10.0),
           pow(2.0, 0.5));
    printf("specials: log(0)=%g log(-1)=%g sqrt(-1)=%g exp(1000)=%g pow(0,-1)=%g fmod(1,0)=%g\n", log(0.0),
           log(-1.0) != log(-1.0) ? 1.0 : 0.0, sqrt(-1.0) != sqrt(-1.0) ? 1.0 : 0.0, exp(1000.0), pow(0.0, -1.0),
           fmod(1.0, 0.0) != fmod(1.0, 0.0) ? 1.0 : 0.0);
    return 0;
}
