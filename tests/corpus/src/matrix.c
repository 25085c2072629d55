/* Matrix kernels: integer and double matrix multiply, transpose, LU-free determinant via
 * Gaussian elimination, a 2-D stencil. */
#include "common.h"

#define N 32
static int32_t A[N][N], B[N][N], C[N][N];
static double DA[N][N], DB[N][N], DC[N][N];

int main(void) {
    uint32_t s = 4242;
    for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) {
        A[i][j] = (int32_t)(xs32(&s) % 201) - 100; B[i][j] = (int32_t)(xs32(&s) % 201) - 100;
        DA[i][j] = (double)A[i][j] / 7.0; DB[i][j] = (double)B[i][j] / 13.0;
    }
    for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) {
        int32_t acc = 0; for (int k = 0; k < N; k++) acc += A[i][k] * B[k][j]; C[i][j] = acc;
    }
    printf("imatmul hash=%08lx c00=%ld c[31][31]=%ld\n", (unsigned long)fnv1a32(FNV32_INIT, C, sizeof C), (long)C[0][0],
           (long)C[N-1][N-1]);
    for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) {
        double acc = 0; for (int k = 0; k < N; k++) acc += DA[i][k] * DB[k][j]; DC[i][j] = acc;
    }
    printf("dmatmul hash=%08lx c00=%.12f\n", (unsigned long)fnv1a32(FNV32_INIT, DC, sizeof DC), DC[0][0]);
    /* determinant of a small well-conditioned matrix by elimination with partial pivoting */
    double M[8][8]; for (int i = 0; i < 8; i++) for (int j = 0; j < 8; j++) M[i][j] = (i == j ? 10.0 : 0.0) + DA[i][j];
    double det = 1.0;
    for (int c = 0; c < 8; c++) {
        int p = c; for (int r = c + 1; r < 8; r++) if ((M[r][c] < 0 ? -M[r][c] : M[r][c]) > (M[p][c] < 0 ? -M[p][c] : M[p][c])) p = r;
        if (p != c) { for (int k = 0; k < 8; k++) { double t = M[c][k]; M[c][k] = M[p][k]; M[p][k] = t; } det = -det; }
        det *= M[c][c];
        for (int r = c + 1; r < 8; r++) { double f = M[r][c] / M[c][c]; for (int k = c; k < 8; k++) M[r][k] -= f * M[c][k]; }
    }
    printf("det=%.10e\n", det);
    /* transpose in place and a 5-point stencil */
    for (int i = 0; i < N; i++) for (int j = i + 1; j < N; j++) { int32_t t = A[i][j]; A[i][j] = A[j][i]; A[j][i] = t; }
    static int32_t S[N][N];
    for (int it = 0; it < 10; it++) {
        for (int i = 1; i < N - 1; i++) for (int j = 1; j < N - 1; j++)
            S[i][j] = (A[i][j] * 4 + A[i-1][j] + A[i+1][j] + A[i][j-1] + A[i][j+1]) / 8;
        for (int i = 1; i < N - 1; i++) for (int j = 1; j < N - 1; j++) A[i][j] = S[i][j];
    }
    printf("stencil hash=%08lx\n", (unsigned long)fnv1a32(FNV32_INIT, A, sizeof A));
    return 0;
}
