/*
 * unit.h - shared helpers of the unit tests (cmocka): each test_*.c file
 * exports one group runner, called from main.c.
 */
#ifndef NOMIC_UNIT_H
#define NOMIC_UNIT_H
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <cmocka.h>

#include "game.h"

int run_value_tests(void);
int run_objfmt_tests(void);
int run_lang_tests(void);
int run_eval_tests(void);
int run_store_tests(void);
int run_deps_tests(void);
int run_mathexpr_tests(void);
int run_idset_tests(void);
int run_meter_tests(void);
int run_hash_tests(void);
int run_pool_tests(void);
int run_sugar_tests(void);
int run_phrase_tests(void);
int run_mailin_tests(void);
int run_fault_tests(void);

/* A game in memory loaded from `set`; fails the test if it does not load. */
Game *unit_game(const char *set);
/* Sends `body` from `sender` at `time`; returns the outcome's status. */
const char *unit_move(Game *g, const char *sender, long time, const char *body);
/* The value of attribute `name` of the first object of `type` ("" if none). */
const char *unit_attr(Game *g, const char *type, const char *name);
#endif
