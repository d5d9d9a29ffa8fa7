/**
 * Resolves host paths and device names to the whole disks on their I/O path, from the host's mount
 * table ({@code <procfs>/1/mountinfo}), sysfs and the device-node names under devfs.
 *
 * <p>The semantics follow systemd's {@code lookup_block_device}, {@code block_get_whole_disk} and
 * its walk over {@code slaves/}: a partition stands for its disk, a device-mapper or md device for
 * every disk beneath it. Loop, ram and zram devices are whole disks with no slaves, so a mount on
 * {@code /dev/loop0} resolves to loop0 itself, not to the disk holding its backing file: io.max on
 * loop0 throttles the loop device, and the kernel charges the backing file's I/O to the loop
 * worker, not to the pod.
 */
package dev.ioqos.device;
