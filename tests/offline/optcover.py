#!/usr/bin/env python3
# tests/offline/optcover.py TOP - every option a tool documents (its -h,
# its man page's OPTIONS) is run by some test of a tier (tests/offline,
# tests/host, tests/vm/guest.sh), or is in the exemption list below with
# its reason. Prints TAP, one line per tool; exit 1 on a miss.
#
# A test line runs tool T with option O when it names T and O is a word of
# it: T as a word (bin/T, $BIN/T, "run T", a guest's "T -c"), or a shell
# variable of that file set to a path or name of T (TC=$FTNET_TOP/bin/T),
# or the variable of a "for V in ... T ..." loop of that file (the line
# runs for each). "-$fam" in a loop over 4 and 6 is -4 and -6. Static and
# generous (a line that names T and O in a comment counts), but a
# documented option no test line names at all is found.
import os
import re
import subprocess
import sys

top = sys.argv[1]
tools = sorted(t for t in os.listdir(os.path.join(top, "bin"))
               if os.access(os.path.join(top, "bin", t), os.X_OK))

# Options of the tools module (tools/common) that every tool having them
# gets from the same code, tested in some tools only: (option, where).
COMMON = {
    "--max-series": "tools/common/counter.c's key cap, the same for every counter: run with "
                    "tcpretrans -c (offline/tcpretrans.sh), parsed for tcpretrans, tcptop and "
                    "netreport (offline/options.sh), its default cap under load in host/bound.sh",
}
# tool: {option: reason}: documented options no test runs yet. Each is
# debt (issue 24), said here so the list shrinks and no new one is added
# silently; an entry whose option is tested now fails until it goes.
TODO = "no test yet (issue 24)"
EXEMPT = {
}

OPT = re.compile(r"(?<![\w-])(--[a-z][a-z-]*|-[A-Za-z0-9])(?![\w-])")


def documented(tool):
    opts = set()
    # the wrapper's self-check: an option documented and never run
    extra = os.environ.get("FTNET_OPTCOVER_EXTRA", "")
    if extra.startswith(tool + ":"):
        opts.add(extra.split(":", 1)[1])
    h = subprocess.run([os.path.join(top, "bin", tool), "-h"], capture_output=True, text=True).stdout
    for line in h.splitlines():
        m = re.match(r"^  (-[A-Za-z0-9](?:, -[A-Za-z0-9])*|--[a-z][a-z-]*)\b", line)
        if m:
            opts.update(o.strip() for o in m.group(1).split(","))
    man = os.path.join(top, "man", tool + ".8")
    if os.path.exists(man):
        sect, prev_tp = None, False
        for line in open(man, encoding="utf-8", errors="replace"):
            if line.startswith(".SH"):
                sect = line[3:].strip().strip('"')
            elif sect == "OPTIONS" and prev_tp and re.match(r"^\.B[IR]? ", line):
                plain = line.replace("\\-", "-")
                opts.update(re.findall(r"(?<![\w-])(--[a-z][a-z-]*|-[A-Za-z0-9])(?![\w-])", plain))
            prev_tp = line.startswith(".TP")
    return opts


def test_files():
    for d in ("tests/offline", "tests/host"):
        for f in sorted(os.listdir(os.path.join(top, d))):
            if f.endswith((".sh", ".inc")) and f != "optcover.sh":   # (its self-check)
                yield os.path.join(top, d, f)
    yield os.path.join(top, "tests/vm/guest.sh")


used = {t: set() for t in tools}
tool_re = "|".join(re.escape(t) for t in sorted(tools, key=len, reverse=True))
for path in test_files():
    text = open(path, encoding="utf-8", errors="replace").read()
    # one pass in file order: variables naming tools (TC=.../bin/tcpconnect,
    # T=$BIN/$t inside a loop), the loops open (for t in A B; ... done:
    # each tool of the list), shell functions that run a tool (run() {
    # ... "$T" ... }: a call of one runs it with the call's options)
    var, loops, func, cur, fams, loop_words = {}, [], {}, None, [], []

    def named(line):
        names = set(re.findall(r"(?<![\w.-])(%s)(?![\w-])" % tool_re, line))
        scope = dict(var)
        for v, ts in loops:
            scope[v] = ts
        for v, ts in scope.items():
            if re.search(r"\$\{?%s\b" % re.escape(v), line):
                names |= ts
        # "${proto}top" in a loop over tcp udp: tcptop and udptop
        for v, words in loop_words:
            for suffix in re.findall(r"\$\{%s\}(\w+)" % re.escape(v), line):
                names |= {w + suffix for w in words} & set(tools)
        return names

    for line in text.splitlines():
        m = re.match(r"^\s*(\w+)\s*\(\)\s*\{", line)
        if m:
            cur = m.group(1)
            func[cur] = set()
        elif cur and re.match(r"^\}", line):
            cur = None
        for m in re.finditer(r"\bfor\s+(\w+)\s+in\s+([^;\n]*)", line):
            words = set(m.group(2).split())
            # words naming tools, also through an open loop's variable
            # (for t in ${proto}top ${proto}snoop, inside for proto in tcp udp)
            loops.append((m.group(1), (words & set(tools)) | named(m.group(2))))
            loop_words.append((m.group(1), words))
            fams.append(m.group(1) if words >= {"4", "6"} else None)
        m = re.match(r"^\s*(?:local\s+)?([A-Za-z_]\w*)=(\S+)\s*$", line)
        if m:
            ts = named(m.group(2))
            if ts:
                var[m.group(1)] = ts
        names = named(line)
        if cur:
            func[cur] |= names
        m = re.match(r"^\s*(\w+)\s", line)
        if m and m.group(1) != cur and func.get(m.group(1)):
            names |= func[m.group(1)]
        if names:
            opts = set(OPT.findall(line))
            for f in fams:
                if f and re.search(r"-\$\{?%s\b" % re.escape(f), line):
                    opts |= {"-4", "-6"}
            for t in names:
                used[t] |= opts
        if re.match(r"^\s*done\b", line) or re.search(r";\s*done\b", line):
            if loops:
                loops.pop()
                fams.pop()
                loop_words.pop()

n = fail = 0
for t in tools:
    doc = documented(t)
    miss = sorted(o for o in doc - used[t] if o not in EXEMPT.get(t, {}) and o not in COMMON)
    stale = sorted(o for o in EXEMPT.get(t, {}) if o not in doc or o in used[t])
    n += 1
    ok = not miss and not stale
    fail += not ok
    print("%sok %d - %s: its %d documented options are run by a test%s" %
          ("" if ok else "not ", n, t, len(doc),
           " (exempt: %s)" % ", ".join(sorted(EXEMPT[t])) if t in EXEMPT else ""))
    if miss:
        print("#   run by no test: %s" % " ".join(miss))
    if stale:
        print("#   exempt but tested now, or no longer documented: %s" % " ".join(stale))
print("1..%d" % n)
sys.exit(1 if fail else 0)
