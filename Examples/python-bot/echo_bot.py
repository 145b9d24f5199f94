#!/usr/bin/env python3
"""An echo bot on Hush's daemon socket, in plain Python: no Hush code.

It subscribes to the account's events and answers every incoming message
from a contact with "echo: TEXT". Run `hush daemon` for the account first,
then:

    python3 echo_bot.py --home ~/.hush

The daemon speaks JSON-RPC 2.0, one JSON object per line, on the Unix socket
daemon.sock in the account's directory (docs/DAEMON-API.md). Only processes
of the user who runs the daemon are answered.
"""
import argparse
import itertools
import json
import os
import socket
import sys

_ids = itertools.count(1)


class Daemon:
    """One connection to the daemon's socket."""

    def __init__(self, home):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(os.path.join(home, "daemon.sock"))
        self.reader = self.sock.makefile("r", encoding="utf-8")

    def call(self, method, **params):
        """Calls a method; returns its result, or raises with the daemon's error."""
        request_id = next(_ids)
        line = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        self.sock.sendall(line.encode("utf-8") + b"\n")
        for message in self.messages():
            if message.get("id") != request_id:
                continue  # a notification of an earlier subscription
            if "error" in message:
                raise RuntimeError("%s failed: %s" % (method, message["error"]["message"]))
            return message["result"]
        raise RuntimeError("the daemon closed the connection")

    def messages(self):
        """Every message the daemon sends, until it closes the connection."""
        for line in self.reader:
            yield json.loads(line)

    def close(self):
        self.reader.close()
        self.sock.close()


def main():
    parser = argparse.ArgumentParser(description="Answer every message with its echo.")
    parser.add_argument("--home", default=os.environ.get("HUSH_HOME", os.path.expanduser("~/.hush")))
    parser.add_argument("--count", type=int, default=0, help="stop after answering this many messages (0: never)")
    arguments = parser.parse_args()

    events = Daemon(arguments.home)
    events.call("events.subscribe")
    print("echo bot: listening", flush=True)
    answered = 0
    for message in events.messages():
        if message.get("method") != "event":
            continue
        event = message["params"]
        # Messages of contacts (not requests from strangers, not our own).
        if event.get("event") != "message" or event.get("direction") != "in" or "group" in event:
            continue
        sender = Daemon(arguments.home)
        try:
            sent = sender.call("messages.send", to=event["contact"], text="echo: " + event["body"])
            print("echo bot: answered %s (message %s)" % (event["contact"], sent["id"]), flush=True)
        finally:
            sender.close()
        answered += 1
        if arguments.count and answered >= arguments.count:
            break
    events.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
