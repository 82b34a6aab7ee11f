#!/usr/bin/env python3
"""A webhook receiver for the tests (tests/webhooks.rs runs it): a real local HTTP server
that checks every delivery with the PyPI `standardwebhooks` verifier (an implementation
no one here wrote), then prints one JSON line per request on stdout and answers.

The first line printed is {"port": N}. Each request gives
{"id", "timestamp", "status", "verified", "error", "event"}: the `webhook-id` and
`webhook-timestamp` headers, the status it answered, whether the signature held, and the
body as parsed JSON. It answers 500 to the first --fail-first requests, 400 to a bad
signature, and 204 otherwise, after --delay-ms.
"""

import argparse
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

from standardwebhooks.webhooks import Webhook, WebhookVerificationError


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--secret", required=True, help="whsec_… as the service has it")
    parser.add_argument("--fail-first", type=int, default=0)
    parser.add_argument("--delay-ms", type=int, default=0)
    args = parser.parse_args()
    verifier = Webhook(args.secret)
    seen = {"requests": 0}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            length = int(self.headers.get("content-length", "0"))
            body = self.rfile.read(length)
            headers = {k.lower(): v for k, v in self.headers.items()}
            seen["requests"] += 1
            verified, error = True, None
            try:
                verifier.verify(body, headers)
            except WebhookVerificationError as e:
                verified, error = False, str(e)
            if seen["requests"] <= args.fail_first:
                status = 500
            elif not verified:
                status = 400
            else:
                status = 204
            if args.delay_ms:
                time.sleep(args.delay_ms / 1000)
            self.send_response(status)
            self.send_header("content-length", "0")
            self.end_headers()
            try:
                event = json.loads(body)
            except ValueError:
                event = None
            line = {
                "id": headers.get("webhook-id"),
                "timestamp": headers.get("webhook-timestamp"),
                "status": status,
                "verified": verified,
                "error": error,
                "event": event,
            }
            print(json.dumps(line), flush=True)

        def log_message(self, *_):
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    print(json.dumps({"port": server.server_address[1]}), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
