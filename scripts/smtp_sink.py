#!/usr/bin/env python3
"""An SMTP server for the tests (tests/notify.rs runs it): aiosmtpd, a real SMTP
implementation no one here wrote, on 127.0.0.1, taking every message and printing it as
one JSON line on stdout.

The first line printed is {"port": N}. Each message gives {"from", "to", "subject",
"body"}: the envelope sender and recipients, the decoded Subject header and the decoded
text body.
"""

import asyncio
import email
import email.policy
import json
import socket
import sys

from aiosmtpd.controller import Controller


class Sink:
    async def handle_DATA(self, server, session, envelope):
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        body = message.get_body(preferencelist=("plain",))
        print(
            json.dumps(
                {
                    "from": envelope.mail_from,
                    "to": envelope.rcpt_tos,
                    "subject": str(message["subject"]),
                    "body": body.get_content() if body is not None else "",
                },
                ensure_ascii=False,
            ),
            flush=True,
        )
        return "250 Message accepted for delivery"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def main():
    port = free_port()
    controller = Controller(Sink(), hostname="127.0.0.1", port=port)
    controller.start()
    print(json.dumps({"port": port}), flush=True)
    try:
        sys.stdin.read()  # runs until the test closes stdin or kills it
    finally:
        controller.stop()


if __name__ == "__main__":
    main()
