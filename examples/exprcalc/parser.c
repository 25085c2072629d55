#include "parser.h"
#include "lexer.h"
#include <string.h>

typedef struct { lexer lx; token cur; int error; int64_t x; } parser;

static void advance(parser *p) { p->cur = lexer_next(&p->lx); if (p->cur.kind == TOK_ERROR) p->error = 1; }
static int64_t expr(parser *p, int min_prec);

static int prec(const token *t) {
    if (t->kind != TOK_OP) return -1;
    const char *o = t->text;
    if (!strcmp(o, "||")) return 1;
    if (!strcmp(o, "&&")) return 2;
    if (!strcmp(o, "|")) return 3;
    if (!strcmp(o, "^")) return 4;
    if (!strcmp(o, "&")) return 5;
    if (!strcmp(o, "==") || !strcmp(o, "!=")) return 6;
    if (!strcmp(o, "<") || !strcmp(o, ">") || !strcmp(o, "<=") || !strcmp(o, ">=")) return 7;
    if (!strcmp(o, "<<") || !strcmp(o, ">>")) return 8;
    if (!strcmp(o, "+") || !strcmp(o, "-")) return 9;
    if (!strcmp(o, "*") || !strcmp(o, "/") || !strcmp(o, "%")) return 10;
    return -1;
}

static int64_t apply(parser *p, const char *o, int64_t a, int64_t b) {
    switch (o[0]) {
    case '+': return a + b;
    case '-': return a - b;
    case '*': return a * b;
    case '/': if (b == 0) { p->error = 1; return 0; } return a / b;
    case '%': if (b == 0) { p->error = 1; return 0; } return a % b;
    case '^': return a ^ b;
    case '=': return a == b;
    case '!': return a != b;
    case '&': return o[1] ? (a && b) : (a & b);
    case '|': return o[1] ? (a || b) : (a | b);
    case '<': return o[1] == '<' ? (int64_t)((uint64_t)a << (b & 63)) : o[1] ? a <= b : a < b;
    case '>': return o[1] == '>' ? a >> (b & 63) : o[1] ? a >= b : a > b;
    }
    p->error = 1;
    return 0;
}

static int64_t call(parser *p, const char *name) {
    int64_t args[4]; int n = 0;
    advance(p);   /* ( */
    if (p->cur.kind != TOK_RPAREN)
        for (;;) {
            int64_t v = expr(p, 0);
            if (n < 4) args[n++] = v;
            if (p->cur.kind == TOK_COMMA) { advance(p); continue; }
            break;
        }
    if (p->cur.kind != TOK_RPAREN) { p->error = 1; return 0; }
    advance(p);
    if (!strcmp(name, "min") && n == 2) return args[0] < args[1] ? args[0] : args[1];
    if (!strcmp(name, "max") && n == 2) return args[0] > args[1] ? args[0] : args[1];
    if (!strcmp(name, "abs") && n == 1) return args[0] < 0 ? -args[0] : args[0];
    if (!strcmp(name, "pow") && n == 2) { int64_t r = 1; for (int64_t i = 0; i < args[1]; i++) r *= args[0]; return r; }
    p->error = 1;
    return 0;
}

static int64_t primary(parser *p) {
    token t = p->cur;
    if (t.kind == TOK_NUM) { advance(p); return t.value; }
    if (t.kind == TOK_IDENT) {
        advance(p);
        if (p->cur.kind == TOK_LPAREN) return call(p, t.text);
        if (!strcmp(t.text, "x")) return p->x;
        p->error = 1;
        return 0;
    }
    if (t.kind == TOK_LPAREN) {
        advance(p);
        int64_t v = expr(p, 0);
        if (p->cur.kind != TOK_RPAREN) p->error = 1; else advance(p);
        return v;
    }
    if (t.kind == TOK_OP && (t.text[0] == '-' || t.text[0] == '!') && !t.text[1]) {
        advance(p);
        int64_t v = primary(p);
        return t.text[0] == '-' ? -v : !v;
    }
    p->error = 1;
    return 0;
}

static int64_t expr(parser *p, int min_prec) {
    int64_t lhs = primary(p);
    while (!p->error) {
        int pr = prec(&p->cur);
        if (pr < 0 || pr < min_prec) break;
        char op[4]; strcpy(op, p->cur.text);
        advance(p);
        int64_t rhs = expr(p, pr + 1);
        lhs = apply(p, op, lhs, rhs);
    }
    return lhs;
}

eval_result evaluate(const char *src, int64_t x) {
    parser p;
    lexer_init(&p.lx, src);
    p.error = 0; p.x = x;
    advance(&p);
    int64_t v = expr(&p, 0);
    if (p.cur.kind != TOK_END) p.error = 1;
    return (eval_result){!p.error, v};
}
