#!/usr/bin/python3
"""Runs one Nova program of the test rig (scripts/openstack) in this interpreter.

usage: nova_service.py api|conductor|scheduler|compute|init-db NOVA_CONF

Nova's daemons are plain Python entry points of python3-nova; running them from here avoids the
nova-* Debian packages (which would pull in libvirt and start system services). `compute` loads
the fake GPU hypervisor orch_gpu_fake.py from this folder: Nova imports compute drivers only from
the nova.virt package, so the module is registered there before the compute starts. `init-db`
migrates the API, cell0 and cell1 databases and maps the cells in one process (four nova-manage
runs would each pay Nova's start-up time again).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def register_gpu_driver():
    sys.path.insert(0, HERE)
    import orch_gpu_fake  # noqa: E402

    sys.modules["nova.virt.orch_gpu_fake"] = orch_gpu_fake


def init_db(conf):
    from nova import config, objects
    from nova.cmd import manage

    config.parse_args(["nova-manage", "--config-file", conf])
    objects.register_all()
    manage.ApiDbCommands().sync()
    cells = manage.CellV2Commands()
    cell0_url = config.CONF.database.connection.rsplit("/", 1)[0] + "/nova_cell0"
    cells.map_cell0(database_connection=cell0_url)
    # 0 = created, 2 = a cell with this transport/database exists already (a rerun).
    if cells.create_cell(name="cell1", verbose=True) not in (0, 2):
        raise SystemExit("nova: creating cell1 failed")
    manage.DbCommands().sync()
    return 0


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    program, conf = sys.argv[1], sys.argv[2]
    import nova.cmd  # noqa: F401  (eventlet monkey-patching must come before any other nova import)

    if program == "init-db":
        return init_db(conf)
    if program == "compute":
        register_gpu_driver()
    modules = {"api": "nova.cmd.api", "conductor": "nova.cmd.conductor",
               "scheduler": "nova.cmd.scheduler", "compute": "nova.cmd.compute"}
    if program not in modules:
        raise SystemExit(__doc__)
    module = __import__(modules[program], fromlist=["main"])
    sys.argv = ["nova-" + program, "--config-file", conf]
    return module.main()


if __name__ == "__main__":
    sys.exit(main())
