#!/usr/bin/env python3
"""A benchmark driver's view of Lacuna: start `lacuna serve --stdio` once, then check candidate snippets against a
hole (the first is wrong, as a model's first try often is), run the host with the accepted one, and stop.

    python3 examples/service/client.py            # uses `lacuna` on PATH, or $LACUNA

Only the standard library: JSON-RPC 2.0 is one JSON object per line each way.
"""

import itertools
import json
import os
import subprocess
import sys

HOST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "primes", "host.rs")


class Lacuna:
    """A `lacuna serve --stdio` child process."""

    def __init__(self, binary):
        self.process = subprocess.Popen(
            [binary, "serve", "--stdio", "--workers", "1"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.ids = itertools.count(1)

    def call(self, method, **params):
        request_id = next(self.ids)
        request = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        # One request at a time here, so the next line is its answer (a driver with several in flight matches ids).
        answer = json.loads(self.process.stdout.readline())
        assert answer["id"] == request_id, answer
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']['message']}")
        return answer["result"]

    def close(self):
        self.call("shutdown")
        self.process.stdin.close()
        return self.process.wait()


def main():
    lacuna = Lacuna(os.environ.get("LACUNA", "lacuna"))
    print("health:", lacuna.call("health")["status"])
    attempts = [
        # Wrong: a vector of booleans where `Vec<i64>` is expected.
        "xs.iter().map(|x| *x > 1).collect()",
        "xs.iter().copied().filter(|&x| x > 1 && (2..x).all(|d| x % d != 0)).collect()",
    ]
    accepted = None
    for attempt, snippet in enumerate(attempts, 1):
        verdict = lacuna.call("check", host=HOST, snippet=snippet)
        if verdict["accepted"]:
            print(f"attempt {attempt}: accepted by {verdict['decided_by']} as {verdict['expected_type']}")
            accepted = snippet
            break
        first = verdict["diagnostics"][0]
        print(f"attempt {attempt}: rejected: error[{first['code']}]: {first['message']}")
    if accepted is None:
        return 1
    ran = lacuna.call("run", host=HOST, snippets={"1": accepted})
    print("run printed:", ran["stdout"].strip(), "exit status", ran["exit_status"])
    return lacuna.close()


if __name__ == "__main__":
    sys.exit(main())
