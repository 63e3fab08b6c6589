"""What the rig's fake hypervisor (orch_gpu_fake.py) makes of a server, so that native
contextualisation has a machine to configure: NOT a VM, NOT Neutron, NOT cloud-init.

* address(): a loopback address of its own per server (127.N.x.y, N from the rig's SSH port so
  two rigs on one machine differ), reported through Nova's network info cache where Neutron's
  port would be, both as the fixed and as the floating address;
* boot(): what cloud-init would do with the server's user data, as far as SSH goes: the
  `ssh_authorized_keys` of every `users` entry of its #cloud-config (plain, or a part of a MIME
  multipart message) become the only keys a real OpenSSH sshd on that address accepts, for
  those user names (which must exist on this machine: the test configures the orchestrator's
  SSH user accordingly). The server's "disk" is DIR/root, given to logins as ORCH_VM_DIR.
  Returns when sshd accepts connections, so an ACTIVE server is reachable.
* halt(): stops that sshd and removes DIR.

The SSH port is the same for every server: ORCH_RIG_SSH_PORT (set by scripts/openstack/start).
"""
import base64
import email
import os
import shutil
import signal
import socket
import subprocess
import time

import yaml

from nova.network import model

BOOT_LIMIT_S = 20


def ssh_port():
    return int(os.environ["ORCH_RIG_SSH_PORT"])


def address(instance_id):
    index = int(instance_id)
    return "127.%d.%d.%d" % (100 + ssh_port() % 150, index // 250 % 250 + 1, index % 250 + 2)


def network_info(instance_uuid, ip):
    # The same address is also the server's floating IP: templates read public_address (their
    # outputs, the SSH address), which a real cloud gives through Neutron's floating IPs.
    floating = model.IP(address=ip, version=4, type="floating")
    subnet = model.Subnet(cidr="127.0.0.0/8", version=4,
                          ips=[model.FixedIP(address=ip, version=4, type="fixed", floating_ips=[floating])])
    network = model.Network(id="orch-loopback", label="orch-loopback", subnets=[subnet])
    vif = model.VIF(id="vif-" + instance_uuid, address="fa:16:3e:00:00:01", network=network,
                    type="other", active=True)
    return model.NetworkInfo([vif])


def _cloud_configs(user_data):
    """The #cloud-config documents of the user data (base64 as Nova keeps it)."""
    if not user_data:
        return []
    text = base64.b64decode(user_data).decode("utf-8", "replace")
    if text.startswith("#cloud-config"):
        return [text]
    message = email.message_from_string(text)
    if not message.is_multipart():
        return []
    return [part.get_payload() for part in message.walk()
            if part.get_content_type() == "text/cloud-config"]


def _logins(user_data):
    """(user names, public keys) the cloud-configs' users entries ask for."""
    names, keys = [], []
    for document in _cloud_configs(user_data):
        config = yaml.safe_load(document) or {}
        for user in config.get("users") or []:
            if not isinstance(user, dict) or not user.get("ssh_authorized_keys"):
                continue
            names.append(str(user["name"]))
            keys.extend(str(key) for key in user["ssh_authorized_keys"])
    return names, keys


def _accepts(ip, port):
    try:
        with socket.create_connection((ip, port), timeout=1):
            return True
    except OSError:
        return False


def boot(vm_dir, ip, user_data):
    names, keys = _logins(user_data)
    os.makedirs(os.path.join(vm_dir, "root"), exist_ok=True)
    os.makedirs("/run/sshd", exist_ok=True)  # sshd's privilege separation directory
    host_key = os.path.join(vm_dir, "host_key")
    if not os.path.exists(host_key):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", host_key], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(os.path.join(vm_dir, "authorized_keys"), "w", encoding="utf-8") as f:
        f.write("".join(key + "\n" for key in keys))
    port = ssh_port()
    config = os.path.join(vm_dir, "sshd_config")
    with open(config, "w", encoding="utf-8") as f:
        f.write("ListenAddress %s:%d\nHostKey %s\nPidFile %s/sshd.pid\nAuthorizedKeysFile %s/authorized_keys\n"
                "StrictModes no\nUsePAM no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
                "PubkeyAuthentication yes\nPermitRootLogin prohibit-password\nAllowUsers %s\n"
                "SetEnv ORCH_VM_DIR=%s/root\nSubsystem sftp /usr/lib/openssh/sftp-server\nLogLevel VERBOSE\n"
                % (ip, port, host_key, vm_dir, vm_dir, " ".join(names) or "nobody-at-all", vm_dir))
    with open(os.path.join(vm_dir, "sshd.log"), "ab") as log:
        process = subprocess.Popen(["/usr/sbin/sshd", "-D", "-e", "-f", config], stdin=subprocess.DEVNULL,
                                   stdout=log, stderr=log, start_new_session=True)
    with open(os.path.join(vm_dir, "vm.pid"), "w", encoding="utf-8") as f:
        f.write("%d\n" % process.pid)
    give_up = time.monotonic() + BOOT_LIMIT_S
    while not _accepts(ip, port):
        if process.poll() is not None or time.monotonic() > give_up:
            halt(vm_dir)
            raise RuntimeError("sshd on %s:%d did not start" % (ip, port))
        time.sleep(0.05)


def halt(vm_dir):
    try:
        with open(os.path.join(vm_dir, "vm.pid"), encoding="utf-8") as f:
            pid = int(f.read().strip())
    except (OSError, ValueError):
        pid = None
    if pid is not None:
        try:
            os.kill(pid, signal.SIGTERM)
            for _ in range(100):
                os.kill(pid, 0)
                try:
                    os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    pass
                time.sleep(0.05)
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    shutil.rmtree(vm_dir, ignore_errors=True)
