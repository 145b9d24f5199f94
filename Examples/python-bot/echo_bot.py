#!/usr/bin/env python3
"""An echo bot on Hush's daemon socket, in plain Python: no Hush code.

It subscribes to the account's events and answers every incoming message
from a contact with "echo: TEXT". Run `hush daemon` for the account first,
then:

    python3 echo_bot.py --home ~/.hush

Nothing is lost while the bot is down, and nothing is answered twice: it
subscribes under a name, so the daemon replays every event after the last
one the bot acknowledged; it acknowledges an event only after answering it;
and each answer carries an idempotency key made from the event's seq, so an
answer sent just before a crash (but not acknowledged) is not sent again.

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
    parser.add_argument("--name", default="echo-bot", help="the name the daemon keeps this bot's place under")
    arguments = parser.parse_args()

    events = Daemon(arguments.home)
    control = Daemon(arguments.home)
    cursor = control.call("events.cursor", subscriber=arguments.name)
    if cursor["acknowledged"] is None:
        # First run: start from now, and register the name so pruning waits for this bot.
        control.call("events.ack", subscriber=arguments.name, through=cursor["latest"])
    events.call("events.subscribe", subscriber=arguments.name)
    print("echo bot: listening", flush=True)
    answered = 0
    for message in events.messages():
        if message.get("method") == "events.resume":
            print("echo bot: events were pruned; resuming after %s" % message["params"]["after"], file=sys.stderr)
            return 1
        if message.get("method") != "event":
            continue
        event = message["params"]
        seq = event.get("seq")
        # Messages of contacts (not requests from strangers, not our own).
        if event.get("event") == "message" and event.get("direction") == "in" and "group" not in event:
            sent = control.call("messages.send", to=event["contact"], text="echo: " + event["body"],
                                idempotencyKey="%s-%s" % (arguments.name, seq))
            print("echo bot: answered %s (message %s)" % (event["contact"], sent["id"]), flush=True)
            answered += 1
        if seq is not None:
            control.call("events.ack", subscriber=arguments.name, through=seq)
            print("echo bot: acknowledged through %s" % seq, flush=True)
        if arguments.count and answered >= arguments.count:
            break
    events.close()
    control.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
