#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""promnames.py - the metric and label names of Prometheus rules and a
Grafana dashboard against the files ftnet's tools really wrote.

    promnames.py [--known 'NAME{l1,l2}']... [--emit-rules OUT]
                 [--dashboard JSON] [--unit-tests T.yml]... RULES.yml... -- FILE.prom...

Every expression (each rule's expr, each dashboard target and variable
query) may name only a metric that is in the FILEs, a recording rule of
RULES, or a --known one (node_exporter's metrics, listed by the caller);
each label it matches, groups by or removes must be one that metric has
(or a target label: instance, job); an = matcher on a metric of the FILEs
must name a value they hold. promtool checks the syntax: --emit-rules
writes the dashboard's expressions, its variables made values, as a rule
file for `promtool check rules`. --unit-tests: every recording rule is
evaluated in those files' tests and every alert expected to fire there.
One line per problem on stdout, exit 1 if any. No PyYAML (a fresh Debian
has python3, not python3-yaml): the rule files are read in the form
examples/prometheus/ keeps them (record:/alert: lines, expr: a line or a
'>' block).
"""
import json
import re
import sys

TARGET = {"instance", "job", "__name__"}
AGGR = {"sum", "min", "max", "avg", "group", "stddev", "stdvar", "count",
        "count_values", "bottomk", "topk", "quantile"}
GROUPING = {"by", "without", "on", "ignoring", "group_left", "group_right"}
BINARY = {"and", "or", "unless", "bool", "offset", "atan2"}
# Grafana's variables: the instance picker is a regex, intervals a range
VARS = [(re.compile(r"\$__(rate_interval|interval|range)\b"), "5m"),
        (re.compile(r"\$\{?instance\}?|\[\[instance\]\]"), ".*")]

TOKEN = re.compile(r'''\s+|(?P<str>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`)'''
                   r'''|(?P<id>[A-Za-z_:][A-Za-z0-9_:]*)|(?P<num>[0-9][0-9A-Za-z.]*)'''
                   r'''|(?P<op>=~|!~|!=|==|>=|<=|[-+*/%^=<>{}()\[\],])''')


def tokens(expr):
    out, pos = [], 0
    while pos < len(expr):
        m = TOKEN.match(expr, pos)
        if not m:
            raise ValueError("cannot read %r at %r" % (expr, expr[pos:pos + 20]))
        pos = m.end()
        for kind in ("str", "id", "num", "op"):
            if m.group(kind) is not None:
                out.append((kind, m.group(kind)))
    return out


def unquote(s):
    return json.loads('"' + s[1:-1] + '"') if s[0] != '`' else s[1:-1]


def scan(expr):
    """(selectors, grouping): selectors [(name, [(label, op, value)])],
    grouping [(keyword, label)]"""
    t = tokens(expr)
    sels, groups, i = [], [], 0
    while i < len(t):
        kind, v = t[i]
        nxt = t[i + 1][1] if i + 1 < len(t) else None
        if kind == "op" and v == "[":           # a range or subquery
            while i < len(t) and t[i][1] != "]":
                i += 1
        elif kind == "id" and v in GROUPING and nxt == "(":
            i += 2
            while i < len(t) and t[i][1] != ")":
                if t[i][0] == "id":
                    groups.append((v, t[i][1]))
                i += 1
        elif kind == "id" and (v in AGGR or v in BINARY or v in GROUPING or nxt == "("):
            pass                                # an operator or a function
        elif kind == "id":
            matchers = []
            if nxt == "{":
                i += 2
                while i < len(t) and t[i][1] != "}":
                    if t[i][0] == "id" and i + 2 < len(t):
                        matchers.append((t[i][1], t[i + 1][1], unquote(t[i + 2][1])))
                        i += 3
                    else:
                        i += 1
            sels.append((v, matchers))
        i += 1
    return sels, groups


def read_prom(path, labels, values):
    for line in open(path, encoding="utf-8"):
        if line.startswith("#") or not line.strip():
            continue
        m = re.match(r'([A-Za-z_:][A-Za-z0-9_:]*)(\{(.*)\})?\s', line)
        name = m.group(1)
        labels.setdefault(name, set())
        for lm in re.finditer(r'([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"', m.group(3) or ""):
            labels[name].add(lm.group(1))
            values.setdefault((name, lm.group(1)), set()).add(lm.group(2))


def read_rules(path):
    """[(kind, name, expr)] of a rule file in examples/prometheus/'s form"""
    rules, lines, i = [], open(path, encoding="utf-8").read().split("\n"), 0
    kind = name = None
    while i < len(lines):
        m = re.match(r'\s*- (record|alert): *(\S+)', lines[i])
        if m:
            kind, name = m.groups()
        m = re.match(r'(\s*)expr: *(.*)$', lines[i])
        if m and kind:
            if m.group(2).strip() in (">", "|", ">-", "|-"):
                body, ind = [], len(m.group(1))
                while i + 1 < len(lines) and (not lines[i + 1].strip() or
                                              len(lines[i + 1]) - len(lines[i + 1].lstrip()) > ind):
                    i += 1
                    body.append(lines[i].strip())
                expr = " ".join(b for b in body if b)
            else:
                expr = m.group(2).strip()
                if expr[:1] in "'\"":
                    expr = expr[1:-1]
            rules.append((kind, name, expr))
            kind = None
        i += 1
    return rules


def main(argv):
    known, emit, dash, units, rule_files, proms = {}, None, None, [], [], []
    args = iter(argv)
    for a in args:
        if a == "--known":
            m = re.match(r'([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})?$', next(args))
            known[m.group(1)] = set(filter(None, (m.group(2) or "").split(",")))
        elif a == "--emit-rules":
            emit = next(args)
        elif a == "--dashboard":
            dash = next(args)
        elif a == "--unit-tests":
            units.append(next(args))
        elif a == "--":
            proms = list(args)
        else:
            rule_files.append(a)
    labels, values, problems = {}, {}, []
    for p in proms:
        read_prom(p, labels, values)
    written = set(labels)
    for k, v in known.items():
        labels.setdefault(k, set()).update(v)

    def check(where, expr):
        try:
            sels, groups = scan(expr)
        except ValueError as e:
            problems.append("%s: %s" % (where, e))
            return set()
        seen = set()
        for name, matchers in sels:
            if name not in labels:
                problems.append("%s: metric %s: not written by the tools, not a rule, not --known" % (where, name))
                continue
            seen |= labels[name]
            for l, op, v in matchers:
                if l not in labels[name] | TARGET:
                    problems.append("%s: %s has no label %s" % (where, name, l))
                elif op == "=" and name in written and l not in TARGET and \
                        v not in values.get((name, l), set()):
                    problems.append('%s: no %s{%s="%s"} in the files' % (where, name, l, v))
        for kw, l in groups:
            if l not in seen | TARGET:
                problems.append("%s: %s (%s): no metric of the expression has that label" % (where, kw, l))
        # a recording rule's labels: its inputs' but those summed away
        out = seen - {l for kw, l in groups if kw == "without"}
        by = {l for kw, l in groups if kw == "by"}
        return (out & by if by else out) | {"instance", "job"}

    names = {"record": [], "alert": []}
    nexpr = 0
    for f in rule_files:
        for kind, name, expr in read_rules(f):
            out = check("%s: %s" % (f, name), expr)
            nexpr += 1
            names[kind].append(name)
            if kind == "record":
                labels[name] = out
    if not names["record"] and not names["alert"]:
        problems.append("no rule read from %s" % " ".join(rule_files))
    dexprs = []
    if dash:
        d = json.load(open(dash, encoding="utf-8"))

        def walk(o, path):
            if isinstance(o, dict):
                if isinstance(o.get("expr"), str):
                    dexprs.append((path + "/" + o.get("refId", "?"), o["expr"]))
                if isinstance(o.get("title"), str) and o is not d:
                    path += ": " + o["title"]
                for v in o.values():
                    walk(v, path)
            elif isinstance(o, list):
                for x in o:
                    walk(x, path)
        walk(d, dash)
        for v in d.get("templating", {}).get("list", []):
            q = v.get("query")
            q = q.get("query") if isinstance(q, dict) else q
            m = re.match(r'label_values\(\s*([^,]+),\s*([A-Za-z_]\w*)\s*\)$', q or "")
            if v.get("type") == "query":
                if not m:
                    problems.append("%s: variable %s: not label_values(METRIC, LABEL): %r" % (dash, v.get("name"), q))
                else:
                    dexprs.append(("%s: variable %s" % (dash, v["name"]), m.group(1)))
                    sels, _ = scan(m.group(1))
                    if sels and m.group(2) not in labels.get(sels[0][0], set()) | TARGET:
                        problems.append("%s: variable %s: no label %s" % (dash, v["name"], m.group(2)))
        if not dexprs:
            problems.append("%s: no expression found" % dash)
        for i, (where, e) in enumerate(dexprs):
            for rx, val in VARS:
                e = rx.sub(val, e)
            if "$" in e:
                problems.append("%s: a variable this check does not know: %s" % (where, e))
            dexprs[i] = (where, e)
            check(where, e)
            nexpr += 1
    if emit:
        with open(emit, "w", encoding="utf-8") as f:
            f.write("groups:\n  - name: dashboard\n    rules:\n")
            for i, (where, e) in enumerate(dexprs):
                f.write("      - record: dashboard:expr_%d\n        expr: %s\n" % (i, json.dumps(e)))
    # each recording rule evaluated and each alert expected in a unit test
    if units:
        text = "\n".join(open(u, encoding="utf-8").read() for u in units)
        for r in names["record"]:
            if not re.search(r'expr: .*\b%s\b' % re.escape(r), text):
                problems.append("recording rule %s: no promql_expr_test evaluates it" % r)
        for a in names["alert"]:
            if not re.search(r'alertname: %s\n\s*eval_time: \S+\n\s*exp_alerts:\n\s*- exp_labels' % re.escape(a), text):
                problems.append("alert %s: no alert_rule_test expects it to fire" % a)
    for p in problems:
        print(p)
    print("# %d expressions, %d recording rules, %d alerts, %d metrics from %d files"
          % (nexpr, len(names["record"]), len(names["alert"]), len(written), len(proms)), file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
