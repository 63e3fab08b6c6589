#!/usr/bin/python3
"""Serves Keystone or Placement for the test rig (scripts/openstack) on 127.0.0.1.

usage: wsgi_server.py keystone|placement PORT CONFIG [OIDC_TOKENS_JSON]

The pbr-generated keystone-wsgi-public / placement-api scripts serve one request at a time;
every other service validates tokens against Keystone, so this server takes a thread per request.

For Keystone it also plays the part Apache + mod_auth_openidc play in production on the OIDC
federation path (/v3/OS-FEDERATION/identity_providers/<idp>/protocols/<protocol>/auth): it checks
the caller's `Authorization: Bearer` access token against OIDC_TOKENS_JSON ({token: claims}, what
the IAM would have issued) and hands the claims to Keystone as OIDC_* request variables. Claims
sent by the client itself are always removed, so they cannot be forged.
"""
import json
import os
import re
import socketserver
import sys
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

FEDERATED_AUTH = re.compile(r"^/v3/OS-FEDERATION/identity_providers/[^/]+/protocols/[^/]+/auth$")


class ThreadingWSGIServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True
    allow_reuse_address = True


class Handler(WSGIRequestHandler):
    def log_message(self, fmt, *args):
        sys.stderr.write("%s %s\n" % (self.address_string(), fmt % args))


class OidcFront:
    def __init__(self, app, tokens_file):
        self.app = app
        self.tokens_file = tokens_file

    def _claims(self, environ):
        auth = environ.get("HTTP_AUTHORIZATION", "")
        if not auth.lower().startswith("bearer "):
            return None
        with open(self.tokens_file, encoding="utf-8") as f:
            return json.load(f).get(auth[7:].strip())

    def __call__(self, environ, start_response):
        for key in [k for k in environ if k.startswith("HTTP_OIDC")]:
            del environ[key]
        if FEDERATED_AUTH.match(environ.get("PATH_INFO", "")):
            claims = self._claims(environ)
            if claims is None:
                body = b'{"error": {"code": 401, "title": "Unauthorized", "message": "invalid or missing OIDC access token"}}'
                start_response("401 Unauthorized", [
                    ("Content-Type", "application/json"),
                    ("Content-Length", str(len(body))),
                    ("WWW-Authenticate", 'Bearer error="invalid_token"'),
                ])
                return [body]
            for name, value in claims.items():
                environ["HTTP_OIDC_" + name.upper()] = str(value)
        return self.app(environ, start_response)


def main():
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    service, port, config = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    tokens_file = sys.argv[4] if len(sys.argv) > 4 else None
    # The applications read their own command line through oslo.config: leave them none.
    sys.argv = sys.argv[:1]
    if service == "keystone":
        os.environ["OS_KEYSTONE_CONFIG_FILES"] = config
        from keystone.server.wsgi import initialize_public_application

        app = OidcFront(initialize_public_application(), tokens_file)
    elif service == "placement":
        os.environ["OS_PLACEMENT_CONFIG_DIR"] = os.path.dirname(config)
        from placement.wsgi import init_application

        app = init_application()
    else:
        raise SystemExit(__doc__)
    server = make_server("127.0.0.1", port, app, server_class=ThreadingWSGIServer, handler_class=Handler)
    sys.stderr.write("%s listening on 127.0.0.1:%d\n" % (service, port))
    sys.stderr.flush()
    server.serve_forever()


if __name__ == "__main__":
    main()
