#!/usr/bin/python3
"""Creates what the orchestrator's OpenStack tests use, through the services' own REST APIs.

usage: bootstrap.py DIR identity|resources

Run by scripts/openstack/start: `identity` once Keystone answers (the Nova services need their
users before they start), `resources` once Nova and Glance answer. Idempotent (finds before it
creates).
Creates: the service catalog (compute, placement, image, network), project and
user "demo" (role member), an application credential of demo, OIDC federation (identity provider
"orch-iam" trusting issuer https://iam.orch.test/, protocol "openid", a mapping that puts every
federated user in group federated-users with role member on demo), flavors m1.small, gpu.v100
(pci_passthrough:alias v100:1) and gpu.v100x3 (v100:3, more GPUs than the hypervisor has), and a
1 KiB raw image. Then waits until the fake GPU hypervisor is registered, mapped to the cell and its
two PCI devices are known. Writes DIR/rig.json for the tests (mode 0600: it holds passwords).
"""
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

if len(sys.argv) != 3 or sys.argv[2] not in ("identity", "resources"):
    sys.exit(__doc__)
DIR = sys.argv[1]
ENV = {}
with open(os.path.join(DIR, "ports.env"), encoding="utf-8") as f:
    for line in f:
        key, _, value = line.strip().partition("=")
        ENV[key] = value

KEYSTONE = "http://127.0.0.1:%s/v3" % ENV["KEYSTONE_PORT"]
NOVA = "http://127.0.0.1:%s/v2.1" % ENV["NOVA_PORT"]
GLANCE = "http://127.0.0.1:%s" % ENV["GLANCE_PORT"]
PLACEMENT = "http://127.0.0.1:%s" % ENV["PLACEMENT_PORT"]
NEUTRON = "http://127.0.0.1:%s" % ENV["NEUTRON_PORT"]
ISSUER = "https://iam.orch.test/"


def call(method, url, body=None, token=None, headers=None, raw=None, ok=(200, 201, 202, 204)):
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header("Content-Type", "application/octet-stream" if raw is not None else "application/json")
    req.add_header("Accept", "application/json")
    if token:
        req.add_header("X-Auth-Token", token)
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            text = resp.read()
            return resp.status, resp.headers, (json.loads(text) if text else {})
    except urllib.error.HTTPError as e:
        text = e.read()
        if e.code in ok:
            return e.code, e.headers, (json.loads(text) if text else {})
        raise SystemExit("%s %s -> %d %s" % (method, url, e.code, text[:500].decode(errors="replace")))


def admin_token():
    body = {"auth": {"identity": {"methods": ["password"], "password": {"user": {
        "name": "admin", "domain": {"id": "default"}, "password": ENV["ADMIN_PASSWORD"]}}},
        "scope": {"project": {"name": "admin", "domain": {"id": "default"}}}}}
    _, headers, _ = call("POST", KEYSTONE + "/auth/tokens", body)
    return headers["X-Subject-Token"]


def find_or_create(token, collection, key, name, body, query="name"):
    _, _, found = call("GET", "%s/%s?%s=%s" % (KEYSTONE, collection, query, name), token=token)
    if found[collection]:
        return found[collection][0]
    return call("POST", "%s/%s" % (KEYSTONE, collection), {key: body}, token)[2][key]


def grant(token, project_id, user_id, role_id):
    call("PUT", "%s/projects/%s/users/%s/roles/%s" % (KEYSTONE, project_id, user_id, role_id), token=token)


def catalog(token):
    for kind, name, url in (("compute", "nova", NOVA), ("placement", "placement", PLACEMENT),
                            ("image", "glance", GLANCE), ("network", "neutron", NEUTRON)):
        service = find_or_create(token, "services", "service", name, {"name": name, "type": kind})
        _, _, eps = call("GET", "%s/endpoints?service_id=%s" % (KEYSTONE, service["id"]), token=token)
        have = {e["interface"] for e in eps["endpoints"]}
        for interface in ("public", "internal", "admin"):
            if interface not in have:
                call("POST", KEYSTONE + "/endpoints", {"endpoint": {
                    "service_id": service["id"], "interface": interface, "url": url,
                    "region_id": "RegionOne"}}, token)


def identities(token):
    roles = {r["name"]: r["id"] for r in call("GET", KEYSTONE + "/roles", token=token)[2]["roles"]}
    demo = find_or_create(token, "projects", "project", "demo", {"name": "demo", "domain_id": "default"})
    password = ENV["DEMO_PASSWORD"]
    user = find_or_create(token, "users", "user", "demo",
                          {"name": "demo", "domain_id": "default", "password": password})
    grant(token, demo["id"], user["id"], roles["member"])
    return demo, user, password, roles


def application_credential(user, password, demo):
    body = {"auth": {"identity": {"methods": ["password"], "password": {"user": {
        "id": user["id"], "password": password}}}, "scope": {"project": {"id": demo["id"]}}}}
    _, headers, _ = call("POST", KEYSTONE + "/auth/tokens", body)
    token = headers["X-Subject-Token"]
    url = "%s/users/%s/application_credentials" % (KEYSTONE, user["id"])
    for cred in call("GET", url, token=token)[2]["application_credentials"]:
        if cred["name"] == "orch-tests":
            call("DELETE", "%s/%s" % (url, cred["id"]), token=token)
    # Roles named explicitly: by default Keystone copies the token's roles, which include "reader"
    # (implied by "member", not assigned), and then refuses the credential now and then.
    cred = call("POST", url, {"application_credential": {"name": "orch-tests", "roles": [{"name": "member"}]}},
                token)[2]
    return cred["application_credential"]


def federation(token, demo, roles):
    group = find_or_create(token, "groups", "group", "federated-users",
                           {"name": "federated-users", "domain_id": "default"})
    call("PUT", "%s/projects/%s/groups/%s/roles/%s" % (KEYSTONE, demo["id"], group["id"], roles["member"]),
         token=token)
    base = KEYSTONE + "/OS-FEDERATION"
    call("PUT", base + "/identity_providers/orch-iam",
         {"identity_provider": {"enabled": True, "remote_ids": [ISSUER]}}, token, ok=(201, 409))
    rules = [{"local": [{"user": {"name": "{0}", "type": "ephemeral"}},
                        {"group": {"id": group["id"]}}],
              "remote": [{"type": "HTTP_OIDC_SUB"}, {"type": "HTTP_OIDC_ISS", "any_one_of": [ISSUER]}]}]
    call("PUT", base + "/mappings/orch-iam-mapping", {"mapping": {"rules": rules}}, token, ok=(201, 409))
    call("PUT", base + "/identity_providers/orch-iam/protocols/openid",
         {"protocol": {"mapping_id": "orch-iam-mapping"}}, token, ok=(201, 409))


def flavors(token):
    wanted = [("m1.small", 1, 512, 1, {}), ("gpu.v100", 2, 2048, 10, {"pci_passthrough:alias": "v100:1"}),
              ("gpu.v100x3", 2, 2048, 10, {"pci_passthrough:alias": "v100:3"})]
    existing = {f["name"]: f for f in call("GET", NOVA + "/flavors/detail?is_public=None", token=token)[2]["flavors"]}
    out = {}
    for name, vcpus, ram, disk, specs in wanted:
        flavor = existing.get(name) or call("POST", NOVA + "/flavors", {"flavor": {
            "name": name, "vcpus": vcpus, "ram": ram, "disk": disk}}, token)[2]["flavor"]
        if specs:
            call("POST", "%s/flavors/%s/os-extra_specs" % (NOVA, flavor["id"]), {"extra_specs": specs}, token)
        out[name] = {"id": flavor["id"], "name": name}
    return out


def image(token):
    found = call("GET", GLANCE + "/v2/images?name=orch-test-image", token=token)[2]["images"]
    img = found[0] if found else call("POST", GLANCE + "/v2/images", {
        "name": "orch-test-image", "disk_format": "raw", "container_format": "bare",
        "visibility": "public"}, token)[2]
    if img["status"] == "queued":
        call("PUT", "%s/v2/images/%s/file" % (GLANCE, img["id"]), token=token, raw=b"\0" * 1024)
    return {"id": img["id"], "name": img["name"]}


def psql(database, query):
    out = subprocess.run(["/usr/lib/postgresql/15/bin/psql", "-h", "127.0.0.1", "-p", ENV["PG_PORT"], "-U",
                          "postgres", "-d", database, "-Atc", query], check=True, capture_output=True, text=True)
    return out.stdout.strip()


def nova_alive():
    for name in ("nova-api", "nova-conductor", "nova-scheduler", "nova-compute"):
        try:
            with open(os.path.join(DIR, "pids", name + ".pid"), encoding="utf-8") as f:
                os.kill(int(f.read().strip()), 0)
        except (OSError, ValueError):
            raise SystemExit("%s is not running (see DIR/log/%s.out)" % (name, name))


def wait_for_hypervisor(token, limit=120):
    deadline = time.time() + limit
    while time.time() < deadline:
        nova_alive()
        hypervisors = call("GET", NOVA + "/os-hypervisors/detail", token=token)[2]["hypervisors"]
        up = [h for h in hypervisors if h.get("state") == "up" and h.get("status") == "enabled"]
        if up and psql("nova_api", "SELECT count(*) FROM host_mappings") != "0" and \
                psql("nova", "SELECT count(*) FROM pci_devices WHERE deleted = 0") == "2":
            return
        time.sleep(1)
    raise SystemExit("the fake GPU hypervisor did not register within %d s (see DIR/log/nova-compute.log)" % limit)


def write_private_json(name, value):
    path = os.path.join(DIR, name)
    fd = os.open(path + ".tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(value, f, indent=1)
    os.replace(path + ".tmp", path)


def identity_phase(token):
    catalog(token)
    demo, user, password, roles = identities(token)
    federation(token, demo, roles)
    cred = application_credential(user, password, demo)
    with open(os.path.join(DIR, "oidc", "tokens.json"), encoding="utf-8") as f:
        access_token = next(iter(json.load(f)))
    write_private_json("identity.json", {
        "auth_url": KEYSTONE, "region": "RegionOne", "compute_url": NOVA, "image_url": GLANCE,
        "project": {"id": demo["id"], "name": "demo", "domain": "Default"},
        "user": {"id": user["id"], "name": "demo", "password": password, "domain": "Default"},
        "admin": {"name": "admin", "password": ENV["ADMIN_PASSWORD"], "project": "admin"},
        "app_credential": {"id": cred["id"], "secret": cred["secret"]},
        "oidc": {"identity_provider": "orch-iam", "protocol": "openid", "issuer": ISSUER,
                 "access_token": access_token},
    })


def resources_phase(token):
    with open(os.path.join(DIR, "identity.json"), encoding="utf-8") as f:
        rig = json.load(f)
    rig["flavors"] = flavors(token)
    rig["image"] = image(token)
    rig["ssh_port"] = int(ENV["SSH_PORT"])  # every server's sshd, on the server's own address
    rig["instances_path"] = os.path.join(DIR, "nova", "instances")  # each server's directory (orch_vm.py)
    wait_for_hypervisor(token)
    write_private_json("rig.json", rig)


def main():
    token = admin_token()
    if sys.argv[2] == "identity":
        identity_phase(token)
    else:
        resources_phase(token)


if __name__ == "__main__":
    main()
