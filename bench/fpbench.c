/* Floating-point-heavy workload for speed comparisons of the F/D
 * implementation (fwprof-fpu): n-body in double (sqrt, div, fused
 * multiply-add candidates) for 10^5 steps, then a 32x32 float matrix
 * product 60 times: 8.2e7 RV64 instructions (-O2).
 *   farm-bench --vs "OLD/fwprof run -- bench/fpbench.rv64-linux.elf" -- NEW/fwprof run -- bench/fpbench.rv64-linux.elf */
#include <stdio.h>
#include <math.h>
#define N 5
static double px[N],py[N],pz[N],vx[N],vy[N],vz[N],m[N];
static void advance(double dt){
  for(int i=0;i<N;i++) for(int j=i+1;j<N;j++){
    double dx=px[i]-px[j],dy=py[i]-py[j],dz=pz[i]-pz[j];
    double d2=dx*dx+dy*dy+dz*dz, mag=dt/(d2*sqrt(d2));
    vx[i]-=dx*m[j]*mag; vy[i]-=dy*m[j]*mag; vz[i]-=dz*m[j]*mag;
    vx[j]+=dx*m[i]*mag; vy[j]+=dy*m[i]*mag; vz[j]+=dz*m[i]*mag; }
  for(int i=0;i<N;i++){px[i]+=dt*vx[i];py[i]+=dt*vy[i];pz[i]+=dt*vz[i];}
}
static float A[32][32],B[32][32],C[32][32];
int main(void){
  for(int i=0;i<N;i++){px[i]=i;py[i]=i*0.5;pz[i]=-i;vx[i]=0.1*i;vy[i]=0;vz[i]=0.01;m[i]=1.0+i;}
  for(int s=0;s<100000;s++) advance(0.001);
  for(int i=0;i<32;i++)for(int j=0;j<32;j++){A[i][j]=(float)(i+j)/7.0f;B[i][j]=(float)(i-j)/3.0f;}
  for(int r=0;r<60;r++) for(int i=0;i<32;i++)for(int j=0;j<32;j++){float s=0;for(int k=0;k<32;k++)s+=A[i][k]*B[k][j];C[i][j]=s+C[i][j]*0.5f;}
  printf("%.9f %.6f\n", px[0]+py[1]+vz[2], (double)C[3][4]);
  return 0;
}
