#include "lexer.h"

enum state { S_START, S_NUM, S_HEX, S_IDENT, S_OP2, S_DONE };
enum cls { C_DIGIT, C_ALPHA, C_SPACE, C_OP, C_LP, C_RP, C_COMMA, C_END, C_X, C_OTHER };

static enum cls classify(char c) {
    if (c >= '0' && c <= '9') return C_DIGIT;
    if (c == 'x') return C_X;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') return C_ALPHA;
    switch (c) {
    case ' ': case '\t': case '\n': return C_SPACE;
    case '+': case '-': case '*': case '/': case '%': case '<': case '>': case '&': case '|': case '^': case '=':
    case '!': return C_OP;
    case '(': return C_LP;
    case ')': return C_RP;
    case ',': return C_COMMA;
    case 0: return C_END;
    default: return C_OTHER;
    }
}

void lexer_init(lexer *lx, const char *src) { lx->src = src; lx->pos = 0; }

static int hexval(char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; }

token lexer_next(lexer *lx) {
    token t = {TOK_ERROR, 0, {0}};
    enum state st = S_START;
    int len = 0;
    while (st != S_DONE) {
        char c = lx->src[lx->pos];
        enum cls k = classify(c);
        switch (st) {
        case S_START:
            if (k == C_SPACE) { lx->pos++; break; }
            if (k == C_DIGIT) {
                t.kind = TOK_NUM; t.value = c - '0'; lx->pos++;
                st = (c == '0' && lx->src[lx->pos] == 'x') ? (lx->pos++, S_HEX) : S_NUM;
                break;
            }
            if (k == C_ALPHA || k == C_X) { t.kind = TOK_IDENT; t.text[len++] = c; lx->pos++; st = S_IDENT; break; }
            if (k == C_OP) { t.kind = TOK_OP; t.text[len++] = c; lx->pos++; st = S_OP2; break; }
            lx->pos += k != C_END;
            t.kind = k == C_LP ? TOK_LPAREN : k == C_RP ? TOK_RPAREN : k == C_COMMA ? TOK_COMMA : k == C_END ? TOK_END : TOK_ERROR;
            st = S_DONE;
            break;
        case S_NUM:
            if (k == C_DIGIT) { t.value = t.value * 10 + (c - '0'); lx->pos++; } else st = S_DONE;
            break;
        case S_HEX:
            if (k == C_DIGIT || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')) { t.value = t.value * 16 + hexval(c); lx->pos++; }
            else st = S_DONE;
            break;
        case S_IDENT:
            if ((k == C_ALPHA || k == C_DIGIT || k == C_X) && len < 15) { t.text[len++] = c; lx->pos++; } else st = S_DONE;
            break;
        case S_OP2: {
            char p = t.text[0];
            if ((p == '<' && c == '<') || (p == '>' && c == '>') || (p == '=' && c == '=') || (p == '!' && c == '=') ||
                (p == '<' && c == '=') || (p == '>' && c == '=') || (p == '&' && c == '&') || (p == '|' && c == '|')) {
                t.text[len++] = c; lx->pos++;
            }
            st = S_DONE;
            break;
        }
        case S_DONE: break;
        }
    }
    t.text[len] = 0;
    return t;
}
