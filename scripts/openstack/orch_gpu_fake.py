"""A Nova fake hypervisor with two PCI GPUs, for the orchestrator's OpenStack test rig.

Nova's fake driver boots nothing; this one also reports two NVIDIA Tesla V100 devices
(vendor 10de, product 1db4) as passthrough-capable PCI devices. With the matching
[pci] device_spec/alias in nova.conf and the PciPassthroughFilter, a flavor carrying
pci_passthrough:alias=v100:N is scheduled against them for real: two single-GPU servers fit,
a third (or one asking for three GPUs) gets "No valid host was found".
"""
from oslo_serialization import jsonutils

from nova.virt import fake

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
