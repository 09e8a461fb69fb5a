// SPDX-License-Identifier: GPL-2.0
/* test_check.c - the tools module's monitoring thresholds (check.c:
 * netreport --warn/--crit) and the JSON writer's arrays of objects
 * (netreport's one document). */
#include "ftnet.h"
#include "common.h"
#include "tap.h"

#include <errno.h>

static void test_parse(void)
{
	static const struct { const char *s; const char *name; int op; double v; int rate; } good[] = {
		{ "RetransSegs>100/s", "RetransSegs", TOOL_TH_GT, 100, 1 },
		{ "Tcp.RetransSegs>=5", "Tcp.RetransSegs", TOOL_TH_GE, 5, 0 },
		{ " Softnet.dropped < 0.5/s ", "Softnet.dropped", TOOL_TH_LT, 0.5, 1 },
		{ "traced.drops<=0", "traced.drops", TOOL_TH_LE, 0, 0 },
		{ "Dev.eth0.rx_drop>1e3", "Dev.eth0.rx_drop", TOOL_TH_GT, 1000, 0 },
		{ "Dev.veth-a.rx_drop>0", "Dev.veth-a.rx_drop", TOOL_TH_GT, 0, 0 },
	};
	static const char *const bad[] = {
		"", "RetransSegs", "RetransSegs>", ">5", "RetransSegs=5", "RetransSegs>>5",
		"RetransSegs>-1", "RetransSegs>+1", "RetransSegs>0x10", "RetransSegs>inf", "RetransSegs>nan",
		"RetransSegs>1/m", "RetransSegs>1/s/s", "RetransSegs>1 2", "Retrans Segs>1", "a/b>1",
		"RetransSegs>1e999",
	};
	struct tool_threshold t;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		int err = tool_threshold_parse(good[i].s, &t);

		ok(!err && !strcmp(t.name, good[i].name) && t.op == good[i].op && t.value == good[i].v &&
		   t.rate == good[i].rate, "threshold '%s' parsed", good[i].s);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		is_int(tool_threshold_parse(bad[i], &t), -EINVAL, bad[i]);
	char longname[200];
	memset(longname, 'a', sizeof(longname));
	strcpy(longname + sizeof(longname) - 4, ">1");
	is_int(tool_threshold_parse(longname, &t), -EINVAL, "a name longer than 95 characters");
}

static void test_list(void)
{
	struct tool_threshold *v = NULL;
	size_t n = 0;

	is_int(tool_thresholds_parse("A>1,B<=2/s", &v, &n), 0, "list of two parsed");
	is_int(tool_thresholds_parse("C>=3", &v, &n), 0, "a second list appended");
	ok(n == 3 && !strcmp(v[0].name, "A") && !strcmp(v[1].name, "B") && v[1].rate &&
	   !strcmp(v[2].name, "C"), "three thresholds in order");
	is_int(tool_thresholds_parse("D>1,", &v, &n), -EINVAL, "a trailing comma");
	is_int(tool_thresholds_parse("D>1,,E>2", &v, &n), -EINVAL, "an empty element");
	is_int(tool_thresholds_parse("", &v, &n), -EINVAL, "an empty list");
	is_int(n, 3, "a list that fails adds nothing");
	free(v);
}

static void test_hit(void)
{
	struct tool_threshold t;
	double x;

	tool_threshold_parse("X>100/s", &t);
	ok(!tool_threshold_hit(&t, 1000, 10, &x) && x == 100, "100/s is not > 100/s");
	ok(tool_threshold_hit(&t, 1001, 10, &x), "100.1/s > 100/s");
	ok(!tool_threshold_hit(&t, 1000, 0, &x) && x == 0, "no time: rate 0");
	tool_threshold_parse("X>=7", &t);
	ok(tool_threshold_hit(&t, 7, 1, NULL) && !tool_threshold_hit(&t, 6, 1, NULL), ">= at the bound");
	tool_threshold_parse("X<1", &t);
	ok(tool_threshold_hit(&t, 0, 1, NULL) && !tool_threshold_hit(&t, 1, 1, NULL), "< below");
	tool_threshold_parse("X<=-0", &t);
	tool_threshold_parse("X<=0", &t);
	ok(tool_threshold_hit(&t, -3, 1, NULL), "<= with a negative delta (a gauge)");
	is_str(tool_threshold_op(&t), "<=", "operator text");
	is_str(tool_check_status_name(TOOL_CHECK_OK), "OK", "state 0");
	is_str(tool_check_status_name(TOOL_CHECK_WARNING), "WARNING", "state 1");
	is_str(tool_check_status_name(TOOL_CHECK_CRITICAL), "CRITICAL", "state 2");
	is_str(tool_check_status_name(TOOL_CHECK_UNKNOWN), "UNKNOWN", "state 3");
	is_str(tool_check_status_name(7), "UNKNOWN", "any other: UNKNOWN");
}

static void test_json_arrays(void)
{
	char *out = NULL;
	size_t len;
	FILE *f = open_memstream(&out, &len);
	struct tool_json j;

	tool_json_begin(&j, f);
	tool_json_str(&j, "a", "x");
	tool_json_arr_begin(&j, "rows");
	for (int i = 0; i < 2; i++) {
		tool_json_elem_begin(&j);
		tool_json_int(&j, "i", i);
		tool_json_obj_begin(&j, "o");
		tool_json_int(&j, "k", 1);
		tool_json_obj_end(&j);
		tool_json_obj_end(&j);
	}
	tool_json_arr_end(&j);
	tool_json_arr_begin(&j, "empty");
	tool_json_arr_end(&j);
	tool_json_int(&j, "b", 2);
	tool_json_bool(&j, "t", 1);
	tool_json_bool(&j, "f", 0);
	tool_json_end(&j);
	fclose(f);
	is_str(out, "{\"a\":\"x\",\"rows\":[{\"i\":0,\"o\":{\"k\":1}},{\"i\":1,\"o\":{\"k\":1}}],"
	       "\"empty\":[],\"b\":2,\"t\":true,\"f\":false}\n", "json: arrays of objects, an empty array, keys after, booleans");
	free(out);
}

/* values of the evaluation test: A 50 (over 10 s: 5/s), B 3, no C */
static int value(void *ctx, const char *name, double *v, const char **why)
{
	(void)ctx;
	if (!strcmp(name, "A") || !strcmp(name, "B")) {
		*v = name[0] == 'A' ? 50 : 3;
		return 0;
	}
	*why = "no such counter";
	return -ENOENT;
}

static int evaluate(const char *warn, const char *crit, struct tool_str *sum, struct tool_str *perf)
{
	struct tool_threshold *th[2] = { NULL, NULL };
	size_t nth[2] = { 0, 0 };
	int status;

	memset(sum, 0, sizeof(*sum));
	memset(perf, 0, sizeof(*perf));
	if (warn)
		tool_thresholds_parse(warn, &th[0], &nth[0]);
	if (crit)
		tool_thresholds_parse(crit, &th[1], &nth[1]);
	status = tool_check_evaluate(th, nth, 10, value, NULL, sum, perf);
	free(th[0]);
	free(th[1]);
	return status;
}

static void test_evaluate(void)
{
	struct tool_str sum, perf;

	is_int(evaluate("A>100", "A>200", &sum, &perf), TOOL_CHECK_OK, "nothing crossed: OK");
	is_str(tool_str_get(&sum), "no threshold crossed (2 checked)", "OK summary");
	is_str(tool_str_get(&perf), " 'A'=50", "each name's value once, from its critical test");
	tool_str_free(&sum);
	tool_str_free(&perf);
	is_int(evaluate("A>=5/s,B>2", "A>100", &sum, &perf), TOOL_CHECK_WARNING, "a warning crossed");
	is_str(tool_str_get(&sum), "A 5/s >= 5/s (warning), B 3 > 2 (warning)", "warning summary, rates");
	tool_str_free(&sum);
	tool_str_free(&perf);
	is_int(evaluate("B>2", "B>=3", &sum, &perf), TOOL_CHECK_CRITICAL, "critical wins over warning");
	is_str(tool_str_get(&sum), "B 3 >= 3 (critical), B 3 > 2 (warning)", "critical first");
	tool_str_free(&sum);
	tool_str_free(&perf);
	is_int(evaluate(NULL, "C>1,A>1", &sum, &perf), TOOL_CHECK_UNKNOWN, "a missing value: UNKNOWN, over CRITICAL");
	is_str(tool_str_get(&sum), "C unknown (no such counter), A 50 > 1 (critical)", "the missing one says why");
	tool_str_free(&sum);
	tool_str_free(&perf);
}

int main(void)
{
	tool_init("test_check", 0);
	test_parse();
	test_list();
	test_hit();
	test_evaluate();
	test_json_arrays();
	printf("1..%d\n", tap_n);
	return tap_fail ? 1 : 0;
}
