"""Runs a command and reports its peak resident memory: `peak_rss.py <command...>`.

The benchmark starts engines through this small launcher because Linux charges a child
with its parent's memory high-water mark at fork and exec: started straight from the
benchmark (a Python process holding torch), every engine would report at least the
benchmark's own RSS. Here the engine is forked from a process of a few MB, so wait4's
ru_maxrss is the engine's own peak. Prints {"peak_rss_mb": ...} as the last line on
stderr and exits with the command's status.
"""

import json
import os
import sys


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: peak_rss.py <command> [args...]", file=sys.stderr)
        return 2
    pid = os.fork()
    if pid == 0:
        try:
            os.execv(argv[1], argv[1:])
        finally:
            os._exit(127)
    _, status, usage = os.wait4(pid, 0)
    print(json.dumps({"peak_rss_mb": usage.ru_maxrss / 1024}), file=sys.stderr, flush=True)
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
