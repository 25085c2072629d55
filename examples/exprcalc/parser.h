/* Recursive-descent (precedence climbing) evaluator over the lexer's tokens, with
 * variables and a few built-in functions. */
#ifndef EXAMPLE_PARSER_H
#define EXAMPLE_PARSER_H
#include <stdint.h>
typedef struct { int ok; int64_t value; } eval_result;
eval_result evaluate(const char *expr, int64_t x);
#endif
