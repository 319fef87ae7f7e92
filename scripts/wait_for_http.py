"""Wait until a URL answers 200 (a server just started): scripts/wait_for_http.py URL [SECONDS]."""

import sys
import time
import urllib.error
import urllib.request


def main() -> int:
    url = sys.argv[1]
    deadline = time.monotonic() + float(sys.argv[2] if len(sys.argv) > 2 else 30)
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return 0
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        if time.monotonic() > deadline:
            print(f"{url} did not answer 200 in time", file=sys.stderr)
            return 1
        time.sleep(0.2)


if __name__ == "__main__":
    sys.exit(main())
