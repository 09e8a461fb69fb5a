#!/usr/bin/env python3
# tests/helpers/netdev_times_compat.py IN OUT - perf's netdev-times.py (IN,
# as Debian's perf 6.1 ships it) written to OUT with its skb:consume_skb
# and skb:kfree_skb handlers taking the fields newer kernels give them,
# otherwise unchanged. The 6.1 script dies at the first consume_skb on the
# 6.18 kernel (TypeError: the event gained `location`); kfree_skb's fields
# are skbaddr, location, rx_sk, protocol, reason there (6.1's script takes
# skbaddr, protocol, location). Exit 1 when IN does not have the handlers
# as expected (nothing written).
import re
import sys

s = open(sys.argv[1]).read()
s, n1 = re.subn(r'def skb__consume_skb\(name, context, cpu, sec, nsec, pid, comm, callchain, skbaddr\):',
                'def skb__consume_skb(name, context, cpu, sec, nsec, pid, comm, callchain, skbaddr, *_new):', s)
s, n2 = re.subn(r'def skb__kfree_skb\(name, context, cpu, sec, nsec, pid, comm, callchain,\s*skbaddr, protocol, location\):',
                'def skb__kfree_skb(name, context, cpu, sec, nsec, pid, comm, callchain,\n\t\t\tskbaddr, location, *_new, protocol=0):', s)
if n1 != 1 or n2 != 1:
    sys.stderr.write("netdev_times_compat: handlers not found in %s\n" % sys.argv[1])
    sys.exit(1)
open(sys.argv[2], 'w').write(s)
