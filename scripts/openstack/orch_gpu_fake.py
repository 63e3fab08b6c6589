"""A Nova fake hypervisor with two PCI GPUs whose servers are reachable SSH hosts, for the
orchestrator's OpenStack test rig.

Nova's fake driver boots nothing; this one also reports two NVIDIA Tesla V100 devices
(vendor 10de, product 1db4) as passthrough-capable PCI devices. With the matching
[pci] device_spec/alias in nova.conf and the PciPassthroughFilter, a flavor carrying
pci_passthrough:alias=v100:N is scheduled against them for real: two single-GPU servers fit,
a third (or one asking for three GPUs) gets "No valid host was found".

Each server also gets what native contextualisation needs from a VM (orch_vm.py): a loopback
address of its own in Nova's `addresses` (standing in for Neutron) and a real OpenSSH sshd on
it accepting the keys its user data's cloud-config names (standing in for cloud-init), started
before the server turns ACTIVE and stopped when it is destroyed.
"""
import os

from oslo_serialization import jsonutils

from nova.virt import fake

import orch_vm

GPU_COUNT = 2


def _gpu(index):
    slot = "0000:81:%02x.0" % index
    return {
        "address": slot,
        "dev_id": "pci_" + slot.replace(":", "_").replace(".", "_"),
        "vendor_id": "10de",
        "product_id": "1db4",
        "dev_type": "type-PCI",
        "label": "label_10de_1db4",
        "numa_node": None,
        "parent_addr": None,
    }


class GpuFakeDriver(fake.SmallFakeDriver):
    vcpus = 8
    memory_mb = 16384
    local_gb = 200

    def get_available_resource(self, nodename):
        resources = super().get_available_resource(nodename)
        if resources:
            resources["pci_passthrough_devices"] = jsonutils.dumps([_gpu(i) for i in range(GPU_COUNT)])
        return resources

    def spawn(self, context, instance, image_meta, injected_files, admin_password, allocations,
              network_info=None, block_device_info=None, power_on=True, accel_info=None):
        super().spawn(context, instance, image_meta, injected_files, admin_password, allocations,
                      network_info, block_device_info, power_on, accel_info)
        address = orch_vm.address(instance.id)
        # Servers are created with networks "none", so Nova asked Neutron for nothing and its
        # cache is empty; the address goes where Neutron's port would have put it, which is what
        # the API's `addresses` shows (the periodic cache heal is off in nova.conf).
        instance.info_cache.network_info = orch_vm.network_info(instance.uuid, address)
        instance.info_cache.save()
        orch_vm.boot(self._vm_dir(instance), address, instance.user_data)

    def destroy(self, context, instance, network_info, block_device_info=None, destroy_disks=True,
                destroy_secrets=True):
        orch_vm.halt(self._vm_dir(instance))
        super().destroy(context, instance, network_info, block_device_info, destroy_disks, destroy_secrets)

    @staticmethod
    def _vm_dir(instance):
        return os.path.join(fake.CONF.instances_path, instance.uuid)
