/* Dhrystone 2.1 (R. P. Weicker, "Dhrystone: A Synthetic Systems Programming Benchmark",
 * CACM 27(10), 1984; C version 2.1, 1988), written for this corpus from the benchmark's
 * published structure: the record type, Proc_1 .. Proc_8, Func_1 .. Func_3, strcpy and
 * strcmp of 30-character strings inside the Number_Of_Runs loop, and the final values the
 * benchmark defines, printed with what they should be.
 *
 * Ground rules of the benchmark: separate compilation of "Pack_1" (main, Proc_1 .. Proc_5)
 * and "Pack_2" (Proc_6 .. Proc_8, Func_1 .. Func_3), no procedure merging.  This corpus
 * builds one file, so the Pack_2 entry points called from Pack_1 are `noipa`: main cannot
 * inline them or specialise them, as with two translation units.  Func_3 is called only
 * inside Pack_2 and stays inlinable there, as it would be.
 *
 * Number_Of_Runs is 100, as in PicoRV32's dhrystone/dhry_1.c, whose published CPI
 * (README.md, "Cycles per Instruction Performance") crates/fwprof-cli/tests/documented_core.rs
 * compares against.  Like that program, the loop is bracketed by rdcycle/rdinstret reads;
 * they always execute, but their values are printed only when the last argument is
 * `--counters` (QEMU's counters are host time, so the default output never shows them).
 * Exits 1 if a final value differs from the one the benchmark defines. */
#include "common.h"
#include <stdlib.h>

#define Number_Of_Runs 100

typedef enum { Ident_1, Ident_2, Ident_3, Ident_4, Ident_5 } Enumeration;
typedef int One_Thirty;
typedef int One_Fifty;
typedef char Capital_Letter;
typedef int Boolean;
typedef char Str_30[31];
typedef int Arr_1_Dim[50];
typedef int Arr_2_Dim[50][50];

typedef struct record {
    struct record *Ptr_Comp;
    Enumeration Discr;
    union {
        struct {
            Enumeration Enum_Comp;
            int Int_Comp;
            char Str_Comp[31];
        } var_1;
        struct {
            Enumeration E_Comp_2;
            char Str_2_Comp[31];
        } var_2;
        struct {
            char Ch_1_Comp;
            char Ch_2_Comp;
        } var_3;
    } variant;
} Rec_Type, *Rec_Pointer;

#define PACK_2 __attribute__((noipa))

/* Pack_1 globals. */
Rec_Pointer Ptr_Glob, Next_Ptr_Glob;
int Int_Glob;
Boolean Bool_Glob;
char Ch_1_Glob, Ch_2_Glob;
int Arr_1_Glob[50];
int Arr_2_Glob[50][50];

void Proc_1(Rec_Pointer Ptr_Val_Par);
void Proc_2(One_Fifty *Int_Par_Ref);
void Proc_3(Rec_Pointer *Ptr_Ref_Par);
void Proc_4(void);
void Proc_5(void);
PACK_2 void Proc_6(Enumeration Enum_Val_Par, Enumeration *Enum_Ref_Par);
PACK_2 void Proc_7(One_Fifty Int_1_Par_Val, One_Fifty Int_2_Par_Val, One_Fifty *Int_Par_Ref);
PACK_2 void Proc_8(Arr_1_Dim Arr_1_Par_Ref, Arr_2_Dim Arr_2_Par_Ref, int Int_1_Par_Val, int Int_2_Par_Val);
PACK_2 Enumeration Func_1(Capital_Letter Ch_1_Par_Val, Capital_Letter Ch_2_Par_Val);
PACK_2 Boolean Func_2(Str_30 Str_1_Par_Ref, Str_30 Str_2_Par_Ref);
Boolean Func_3(Enumeration Enum_Par_Val);

/* The counters PicoRV32's dhrystone reads around the loop (its time() and insn()).  The
 * "memory" clobber keeps the loop's stores on their side of the read. */
static inline unsigned long read_cycle(void) {
    unsigned long v;
    asm volatile("rdcycle %0" : "=r"(v) : : "memory");
    return v;
}
static inline unsigned long read_instret(void) {
    unsigned long v;
    asm volatile("rdinstret %0" : "=r"(v) : : "memory");
    return v;
}

static int mismatches;

static void check_int(const char *name, int got, int want) {
    printf("%-21s%d\n", name, got);
    printf("        should be:   %d\n", want);
    mismatches += got != want;
}

static void check_char(const char *name, char got, char want) {
    printf("%-21s%c\n", name, got);
    printf("        should be:   %c\n", want);
    mismatches += got != want;
}

static void check_str(const char *name, const char *got, const char *want) {
    printf("%-21s%s\n", name, got);
    printf("        should be:   %s\n", want);
    mismatches += strcmp(got, want) != 0;
}

int main(int argc, char **argv) {
    One_Fifty Int_1_Loc;
    One_Fifty Int_2_Loc;
    One_Fifty Int_3_Loc;
    char Ch_Index;
    Enumeration Enum_Loc;
    Str_30 Str_1_Loc;
    Str_30 Str_2_Loc;
    int Run_Index;
    /* Bare metal: argv[1] is the program name; Linux: argv[0]. */
    int show_counters = argc >= 2 && strcmp(argv[argc - 1], "--counters") == 0;

    Next_Ptr_Glob = (Rec_Pointer)malloc(sizeof(Rec_Type));
    Ptr_Glob = (Rec_Pointer)malloc(sizeof(Rec_Type));
    Ptr_Glob->Ptr_Comp = Next_Ptr_Glob;
    Ptr_Glob->Discr = Ident_1;
    Ptr_Glob->variant.var_1.Enum_Comp = Ident_3;
    Ptr_Glob->variant.var_1.Int_Comp = 40;
    strcpy(Ptr_Glob->variant.var_1.Str_Comp, "DHRYSTONE PROGRAM, SOME STRING");
    strcpy(Str_1_Loc, "DHRYSTONE PROGRAM, 1'ST STRING");
    Arr_2_Glob[8][7] = 10; /* version 2.1: defined before the loop */

    printf("\nDhrystone Benchmark, Version 2.1 (Language: C)\n\n");
    printf("Program compiled without 'register' attribute\n\n");
    printf("Execution starts, %d runs through Dhrystone\n", Number_Of_Runs);

    unsigned long begin_cycles = read_cycle();
    unsigned long begin_insns = read_instret();

    for (Run_Index = 1; Run_Index <= Number_Of_Runs; ++Run_Index) {
        Proc_5();
        Proc_4();
        /* Ch_1_Glob == 'A', Ch_2_Glob == 'B', Bool_Glob == true */
        Int_1_Loc = 2;
        Int_2_Loc = 3;
        strcpy(Str_2_Loc, "DHRYSTONE PROGRAM, 2'ND STRING");
        Enum_Loc = Ident_2;
        Bool_Glob = !Func_2(Str_1_Loc, Str_2_Loc);
        /* Bool_Glob == 1 */
        while (Int_1_Loc < Int_2_Loc) { /* body executed once */
            Int_3_Loc = 5 * Int_1_Loc - Int_2_Loc;
            /* Int_3_Loc == 7 */
            Proc_7(Int_1_Loc, Int_2_Loc, &Int_3_Loc);
            /* Int_3_Loc == 7 */
            Int_1_Loc += 1;
        }
        /* Int_1_Loc == 3, Int_2_Loc == 3, Int_3_Loc == 7 */
        Proc_8(Arr_1_Glob, Arr_2_Glob, Int_1_Loc, Int_3_Loc);
        /* Int_Glob == 5 */
        Proc_1(Ptr_Glob);
        for (Ch_Index = 'A'; Ch_Index <= Ch_2_Glob; ++Ch_Index) { /* body executed twice */
            if (Enum_Loc == Func_1(Ch_Index, 'C')) { /* never true */
                Proc_6(Ident_1, &Enum_Loc);
                strcpy(Str_2_Loc, "DHRYSTONE PROGRAM, 3'RD STRING");
                Int_2_Loc = Run_Index;
                Int_Glob = Run_Index;
            }
        }
        /* Int_1_Loc == 3, Int_2_Loc == 3, Int_3_Loc == 7 */
        Int_2_Loc = Int_2_Loc * Int_1_Loc;
        Int_1_Loc = Int_2_Loc / Int_3_Loc;
        Int_2_Loc = 7 * (Int_2_Loc - Int_3_Loc) - Int_1_Loc;
        /* Int_1_Loc == 1, Int_2_Loc == 13, Int_3_Loc == 7 */
        Proc_2(&Int_1_Loc);
        /* Int_1_Loc == 5 */
    }

    unsigned long end_cycles = read_cycle();
    unsigned long end_insns = read_instret();

    printf("Execution ends\n\n");
    printf("Final values of the variables used in the benchmark:\n\n");
    check_int("Int_Glob:", Int_Glob, 5);
    check_int("Bool_Glob:", Bool_Glob, 1);
    check_char("Ch_1_Glob:", Ch_1_Glob, 'A');
    check_char("Ch_2_Glob:", Ch_2_Glob, 'B');
    check_int("Arr_1_Glob[8]:", Arr_1_Glob[8], 7);
    check_int("Arr_2_Glob[8][7]:", Arr_2_Glob[8][7], Number_Of_Runs + 10);
    printf("Ptr_Glob->\n");
    /* The benchmark prints the pointer itself ("implementation-dependent"); this corpus
     * prints no addresses, only that both records point to the same place. */
    check_int("  Ptr_Comp same:", Ptr_Glob->Ptr_Comp == Next_Ptr_Glob->Ptr_Comp, 1);
    check_int("  Discr:", Ptr_Glob->Discr, 0);
    check_int("  Enum_Comp:", Ptr_Glob->variant.var_1.Enum_Comp, 2);
    check_int("  Int_Comp:", Ptr_Glob->variant.var_1.Int_Comp, 17);
    check_str("  Str_Comp:", Ptr_Glob->variant.var_1.Str_Comp, "DHRYSTONE PROGRAM, SOME STRING");
    printf("Next_Ptr_Glob->\n");
    check_int("  Discr:", Next_Ptr_Glob->Discr, 0);
    check_int("  Enum_Comp:", Next_Ptr_Glob->variant.var_1.Enum_Comp, 1);
    check_int("  Int_Comp:", Next_Ptr_Glob->variant.var_1.Int_Comp, 18);
    check_str("  Str_Comp:", Next_Ptr_Glob->variant.var_1.Str_Comp, "DHRYSTONE PROGRAM, SOME STRING");
    check_int("Int_1_Loc:", Int_1_Loc, 5);
    check_int("Int_2_Loc:", Int_2_Loc, 13);
    check_int("Int_3_Loc:", Int_3_Loc, 7);
    check_int("Enum_Loc:", Enum_Loc, 1);
    check_str("Str_1_Loc:", Str_1_Loc, "DHRYSTONE PROGRAM, 1'ST STRING");
    check_str("Str_2_Loc:", Str_2_Loc, "DHRYSTONE PROGRAM, 2'ND STRING");
    printf("\n%s: %d final values differ from the benchmark's\n",
           mismatches ? "WRONG" : "correct", mismatches);

    if (show_counters) {
        /* Unsigned differences: the low words of RV32 counters may wrap. */
        unsigned long cycles = end_cycles - begin_cycles;
        unsigned long insns = end_insns - begin_insns;
        printf("loop: %lu cycles, %lu instructions (rdcycle, rdinstret)\n", cycles, insns);
        if (cycles != 0 && insns != 0) {
            unsigned long cpi_x1000 = 1000ul * cycles / insns;
            /* 1757 Dhrystones per second is 1 DMIPS (VAX 11/780). */
            unsigned long per_mhz = Number_Of_Runs * 1000000ul / cycles;
            unsigned long dmips_x1000 = 1000ul * per_mhz / 1757;
            printf("CPI: %lu.%03lu, Dhrystones per second per MHz: %lu, DMIPS/MHz: %lu.%03lu\n",
                   cpi_x1000 / 1000, cpi_x1000 % 1000, per_mhz, dmips_x1000 / 1000, dmips_x1000 % 1000);
        }
    }
    return mismatches ? 1 : 0;
}

/* ---- Pack_1 ---- */

void Proc_1(Rec_Pointer Ptr_Val_Par) { /* executed once per run */
    Rec_Pointer Next_Record = Ptr_Val_Par->Ptr_Comp; /* == Next_Ptr_Glob */

    *Ptr_Val_Par->Ptr_Comp = *Ptr_Glob;
    Ptr_Val_Par->variant.var_1.Int_Comp = 5;
    Next_Record->variant.var_1.Int_Comp = Ptr_Val_Par->variant.var_1.Int_Comp;
    Next_Record->Ptr_Comp = Ptr_Val_Par->Ptr_Comp;
    Proc_3(&Next_Record->Ptr_Comp);
    /* Ptr_Val_Par->Ptr_Comp->Ptr_Comp == Ptr_Glob->Ptr_Comp */
    if (Next_Record->Discr == Ident_1) { /* executed */
        Next_Record->variant.var_1.Int_Comp = 6;
        Proc_6(Ptr_Val_Par->variant.var_1.Enum_Comp, &Next_Record->variant.var_1.Enum_Comp);
        Next_Record->Ptr_Comp = Ptr_Glob->Ptr_Comp;
        Proc_7(Next_Record->variant.var_1.Int_Comp, 10, &Next_Record->variant.var_1.Int_Comp);
    } else { /* not executed */
        *Ptr_Val_Par = *Ptr_Val_Par->Ptr_Comp;
    }
}

void Proc_2(One_Fifty *Int_Par_Ref) { /* *Int_Par_Ref == 1, becomes 4 */
    One_Fifty Int_Loc;
    Enumeration Enum_Loc;

    Int_Loc = *Int_Par_Ref + 10;
    do { /* executed once */
        if (Ch_1_Glob == 'A') { /* executed */
            Int_Loc -= 1;
            *Int_Par_Ref = Int_Loc - Int_Glob;
            Enum_Loc = Ident_1;
        }
    } while (Enum_Loc != Ident_1);
}

void Proc_3(Rec_Pointer *Ptr_Ref_Par) { /* Ptr_Ref_Par becomes Ptr_Glob */
    if (Ptr_Glob != NULL) /* executed */
        *Ptr_Ref_Par = Ptr_Glob->Ptr_Comp;
    Proc_7(10, Int_Glob, &Ptr_Glob->variant.var_1.Int_Comp);
}

void Proc_4(void) {
    Boolean Bool_Loc;

    Bool_Loc = Ch_1_Glob == 'A';
    Bool_Glob = Bool_Loc | Bool_Glob;
    Ch_2_Glob = 'B';
}

void Proc_5(void) {
    Ch_1_Glob = 'A';
    Bool_Glob = 0;
}

/* ---- Pack_2 ---- */

PACK_2 void Proc_6(Enumeration Enum_Val_Par, Enumeration *Enum_Ref_Par) {
    /* Enum_Val_Par == Ident_3, *Enum_Ref_Par becomes Ident_2 */
    *Enum_Ref_Par = Enum_Val_Par;
    if (!Func_3(Enum_Val_Par)) /* not executed */
        *Enum_Ref_Par = Ident_4;
    switch (Enum_Val_Par) {
    case Ident_1:
        *Enum_Ref_Par = Ident_1;
        break;
    case Ident_2:
        if (Int_Glob > 100)
            *Enum_Ref_Par = Ident_1;
        else
            *Enum_Ref_Par = Ident_4;
        break;
    case Ident_3: /* executed */
        *Enum_Ref_Par = Ident_2;
        break;
    case Ident_4:
        break;
    case Ident_5:
        *Enum_Ref_Par = Ident_3;
        break;
    }
}

PACK_2 void Proc_7(One_Fifty Int_1_Par_Val, One_Fifty Int_2_Par_Val, One_Fifty *Int_Par_Ref) {
    /* executed three times per run: (2, 3) -> 7; (6, 10) -> 18; (10, 5) -> 17 */
    One_Fifty Int_Loc;

    Int_Loc = Int_1_Par_Val + 2;
    *Int_Par_Ref = Int_2_Par_Val + Int_Loc;
}

PACK_2 void Proc_8(Arr_1_Dim Arr_1_Par_Ref, Arr_2_Dim Arr_2_Par_Ref, int Int_1_Par_Val, int Int_2_Par_Val) {
    /* Int_1_Par_Val == 3, Int_2_Par_Val == 7 */
    One_Fifty Int_Index;
    One_Fifty Int_Loc;

    Int_Loc = Int_1_Par_Val + 5;
    Arr_1_Par_Ref[Int_Loc] = Int_2_Par_Val;
    Arr_1_Par_Ref[Int_Loc + 1] = Arr_1_Par_Ref[Int_Loc];
    Arr_1_Par_Ref[Int_Loc + 30] = Int_Loc;
    for (Int_Index = Int_Loc; Int_Index <= Int_Loc + 1; ++Int_Index)
        Arr_2_Par_Ref[Int_Loc][Int_Index] = Int_Loc;
    Arr_2_Par_Ref[Int_Loc][Int_Loc - 1] += 1;
    Arr_2_Par_Ref[Int_Loc + 20][Int_Loc] = Arr_1_Par_Ref[Int_Loc];
    Int_Glob = 5;
}

PACK_2 Enumeration Func_1(Capital_Letter Ch_1_Par_Val, Capital_Letter Ch_2_Par_Val) {
    /* executed three times per run: ('R', 'Y') from Func_2, ('A', 'C') and ('B', 'C')
     * from main; all return Ident_1 */
    Capital_Letter Ch_1_Loc;
    Capital_Letter Ch_2_Loc;

    Ch_1_Loc = Ch_1_Par_Val;
    Ch_2_Loc = Ch_1_Loc;
    if (Ch_2_Loc != Ch_2_Par_Val) /* executed */
        return Ident_1;
    Ch_1_Glob = Ch_1_Loc; /* not executed */
    return Ident_2;
}

PACK_2 Boolean Func_2(Str_30 Str_1_Par_Ref, Str_30 Str_2_Par_Ref) {
    /* Str_1_Par_Ref == "DHRYSTONE PROGRAM, 1'ST STRING",
     * Str_2_Par_Ref == "DHRYSTONE PROGRAM, 2'ND STRING": returns false */
    One_Thirty Int_Loc;
    Capital_Letter Ch_Loc = 0; /* set in the loop below, which always runs */

    Int_Loc = 2;
    while (Int_Loc <= 2) /* body executed once */
        if (Func_1(Str_1_Par_Ref[Int_Loc], Str_2_Par_Ref[Int_Loc + 1]) == Ident_1) {
            Ch_Loc = 'A';
            Int_Loc += 1;
        }
    if (Ch_Loc >= 'W' && Ch_Loc < 'Z') /* not executed */
        Int_Loc = 7;
    if (Ch_Loc == 'R') /* not executed */
        return 1;
    if (strcmp(Str_1_Par_Ref, Str_2_Par_Ref) > 0) { /* not executed */
        Int_Loc += 7;
        Int_Glob = Int_Loc;
        return 1;
    }
    return 0;
}

Boolean Func_3(Enumeration Enum_Par_Val) { /* Enum_Par_Val == Ident_3: returns true */
    Enumeration Enum_Loc;

    Enum_Loc = Enum_Par_Val;
    if (Enum_Loc == Ident_3)
        return 1;
    return 0;
}
