#!/usr/bin/python3
"""A minimal stand-in for the Neutron API, for the test rig (scripts/openstack). NOT Neutron.

usage: neutron_stub.py PORT

Servers in the rig are created with "networks": "none", so Nova never asks Neutron to allocate
anything; but deleting a server always lists its ports (GET /v2.0/ports?device_id=...) and
fails the delete when nothing answers. This answers every GET with an empty collection named
after the path and every DELETE with 204, on 127.0.0.1 only. Real networks, ports and floating
IPs would need neutron-server.
"""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlparse


class Handler(BaseHTTPRequestHandler):
    def _send(self, status, body=None):
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):  # noqa: N802 (http.server naming)
        path = urlparse(self.path).path.rstrip("/")
        if path in ("", "/"):
            self._send(200, {"versions": [{"id": "v2.0", "status": "CURRENT", "links": []}]})
            return
        collection = path.rsplit("/", 1)[-1].replace("-", "_")
        if "." in collection:
            collection = collection.split(".", 1)[0]
        self._send(200, {collection: []})

    def do_DELETE(self):  # noqa: N802
        self._send(204)

    def do_POST(self):  # noqa: N802
        self._send(501, {"NeutronError": {"message": "the test rig's Neutron stub creates nothing"}})

    do_PUT = do_POST

    def log_message(self, fmt, *args):
        sys.stderr.write("%s\n" % (fmt % args))


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
    server.daemon_threads = True
    server.serve_forever()


if __name__ == "__main__":
    main()
