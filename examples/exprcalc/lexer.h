/* A table-driven lexer (explicit state machine) for arithmetic expressions. */
#ifndef EXAMPLE_LEXER_H
#define EXAMPLE_LEXER_H
#include <stdint.h>

typedef enum { TOK_NUM, TOK_IDENT, TOK_OP, TOK_LPAREN, TOK_RPAREN, TOK_COMMA, TOK_END, TOK_ERROR } tok_kind;
typedef struct { tok_kind kind; int64_t value; char text[16]; } token;
typedef struct { const char *src; int pos; } lexer;

void lexer_init(lexer *lx, const char *src);
token lexer_next(lexer *lx);
#endif
