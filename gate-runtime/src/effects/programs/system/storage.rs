//! Storage: mounts and swap (`mount`, `umount`, `swapon`, `diskutil unmount`) as `mount`,
//! `swapoff` as `service`;
//! formatting, partitioning, wiping and destroying volumes (`mkfs*`, `wipefs`, `fdisk`,
//! `parted`, `blkdiscard`, `cryptsetup luksFormat`, `zpool destroy`, `lvremove`, `pvcreate`, `mdadm
//! --zero-superblock`, …) as `device`, with the device as written when the line names one.
//! Listings (`fdisk -l`, `parted -l`, `lsblk`) do nothing.

use std::borrow::Cow;

use super::super::super::getopt::{self, Grammar};
use super::super::super::{Cmd, Sink};
use super::operands;

/// `wipefs` (util-linux): `-a` or an `-o OFFSET` erases signatures, `-n` only says which.
const WIPEFS: Grammar = Grammar {
    short: "abfhinpqJV",
    short_value: "oOt",
    long: &[
        "all",
        "backup",
        "force",
        "help",
        "json",
        "noheadings",
        "no-act",
        "parsable",
        "quiet",
        "version",
        "lock",
    ],
    long_value: &["offset", "output", "types"],
    posix: false,
};
use gate_spec::effect::Act;

pub(super) fn model(cmd: &Cmd<'_, '_>, out: &mut Sink) -> bool {
    let p = cmd.program;
    let args = cmd.args;
    let has = |names: &[&str]| args.iter().any(|a| names.contains(&&**a));
    match p {
        "mount" => {
            let ops = operands(
                args,
                &[
                    "-t",
                    "--types",
                    "-o",
                    "--options",
                    "-O",
                    "--test-opts",
                    "-L",
                    "--label",
                    "-U",
                    "--uuid",
                    "-N",
                    "--namespace",
                    "--source",
                    "--target",
                    "--target-prefix",
                    "-B",
                ],
            );
            let acts = !ops.is_empty()
                || has(&[
                    "-a",
                    "--all",
                    "--bind",
                    "--rbind",
                    "--move",
                    "-M",
                    "--make-private",
                    "--make-shared",
                ])
                || args.iter().any(|a| {
                    a.contains("remount") || a.starts_with("--source") || a.starts_with("--target")
                });
            let listing = has(&[
                "-l",
                "--show-labels",
                "-h",
                "--help",
                "-V",
                "--version",
                "-f",
                "--fake",
            ]) && ops.is_empty();
            if acts && !listing {
                out.none(Act::Mount);
                // `-o remount,rw /`: the mount's options (read-only or not, exec, suid) are
                // the access mode of every file under its mount point.
                let remount = args.iter().any(|a| {
                    let a = a.strip_prefix("-o").unwrap_or(a);
                    a.split([',', '=']).any(|o| o == "remount") && !a.starts_with("--")
                });
                if remount {
                    if let Some(point) = ops.last() {
                        out.path(Act::Permissions, point);
                    }
                }
            }
        }
        "umount" | "eject" | "fusermount" | "fusermount3" | "swapoff" => {
            if !has(&["-h", "--help", "-V", "--version"])
                && (p != "fusermount" && p != "fusermount3" || has(&["-u", "-uz", "-z"]))
            {
                // Turning swap off takes memory from every process: a system service
                // stopped, not a file system unmounted.
                let act = if p == "swapoff" {
                    Act::Service
                } else {
                    Act::Mount
                };
                // What is unmounted, where the line names it as a path (`umount -l /`
                // takes every file under it away from every process).
                let points: Vec<&str> = args
                    .iter()
                    .map(|a| &**a)
                    .filter(|a| !a.starts_with('-') && a.starts_with(['/', '~', '.', '$']))
                    .filter(|a| !a.starts_with("/dev/") && act == Act::Mount)
                    .collect();
                if points.is_empty() {
                    out.none(act);
                }
                for point in points {
                    out.path(act, point);
                }
            }
        }
        "swapon" => {
            if !has(&["-s", "--summary", "--show", "-h", "--help"])
                && !args.iter().any(|a| a.starts_with("--show"))
                && !args.is_empty()
            {
                out.none(Act::Mount);
            }
        }
        "losetup" => {
            if has(&["-d", "--detach", "-D", "--detach-all"]) {
                out.none(Act::Mount);
            }
        }
        _ if p.starts_with("mkfs")
            || p.starts_with("newfs")
            || matches!(
                p,
                "mke2fs" | "mkswap" | "mkdosfs" | "mkntfs" | "mkexfatfs" | "mkudffs"
            ) =>
        {
            // `-F` is a flag (force) except for the FAT tools, where it takes the FAT size.
            let fat = p.contains("fat") || p.contains("dos") || p.contains("msdos");
            let args: Vec<Cow<'_, str>> =
                args.iter().filter(|a| fat || *a != "-F").cloned().collect();
            let ops = operands(
                &args,
                &[
                    "-t",
                    "-L",
                    "-n",
                    "-b",
                    "-c",
                    "-C",
                    "-E",
                    "-g",
                    "-G",
                    "-i",
                    "-I",
                    "-j",
                    "-J",
                    "-l",
                    "-m",
                    "-M",
                    "-N",
                    "-o",
                    "-O",
                    "-r",
                    "-T",
                    "-U",
                    "-e",
                    "-z",
                    "-d",
                    "-s",
                    "-F",
                    "-S",
                    "--type",
                    "--label",
                    "--uuid",
                    "--pagesize",
                    "--features",
                    "--sectorsize",
                    "--nodesize",
                    "--data",
                    "--metadata",
                    "--csum",
                    "--checksum",
                ],
            );
            format_target(ops.first().copied(), out);
        }
        "wipefs" => {
            let a = getopt::read(&WIPEFS, args);
            let erases = a.any(&["a", "all"]) || a.values(&["o", "offset"]).next().is_some();
            if erases && !a.any(&["n", "no-act"]) {
                let ops: Vec<&str> = a.operands.iter().map(|o| &**o).collect();
                device(&ops, out);
            }
        }
        "blkdiscard" | "sg_format" => device(
            &operands(args, &["-o", "--offset", "-l", "--length", "-p", "--step"]),
            out,
        ),
        "fdisk" | "gdisk" | "cfdisk" | "cgdisk" => {
            if !has(&[
                "-l",
                "--list",
                "-h",
                "--help",
                "-V",
                "--version",
                "-x",
                "--list-details",
            ]) {
                device(
                    &operands(
                        args,
                        &[
                            "-b",
                            "-c",
                            "-C",
                            "-H",
                            "-S",
                            "-u",
                            "-L",
                            "-o",
                            "--sector-size",
                            "--output",
                            "-t",
                            "--type",
                            "-w",
                            "--wipe",
                            "-W",
                            "--wipe-partitions",
                        ],
                    ),
                    out,
                );
            }
        }
        "sfdisk" => {
            let reads = has(&[
                "-l",
                "--list",
                "-d",
                "--dump",
                "-J",
                "--json",
                "-s",
                "--show-size",
                "-g",
                "--show-geometry",
                "-V",
                "--verify",
                "-n",
                "--no-act",
                "--list-free",
                "-F",
                "-r",
                "--reorder-",
                "--help",
            ]);
            if !reads {
                device(
                    &operands(
                        args,
                        &[
                            "-N",
                            "--partno",
                            "-X",
                            "--label",
                            "-O",
                            "--backup-file",
                            "-w",
                            "--wipe",
                            "-W",
                            "--wipe-partitions",
                            "--part-type",
                            "--part-label",
                            "--part-uuid",
                            "--part-attrs",
                            "-o",
                            "--output",
                            "-u",
                            "--unit",
                        ],
                    ),
                    out,
                );
            }
        }
        "sgdisk" => {
            // Only printing options: nothing changes.
            let changes = args.iter().any(|a| {
                let a: &str = a;
                !matches!(
                    a,
                    "-p" | "--print"
                        | "-i"
                        | "-v"
                        | "--verify"
                        | "-P"
                        | "--pretend"
                        | "-L"
                        | "--list-types"
                        | "-V"
                        | "--version"
                        | "-h"
                        | "--help"
                ) && a.starts_with('-')
                    && !a.starts_with("-i=")
                    && !a.starts_with("--info")
            }) && !has(&["-P", "--pretend"]);
            if changes {
                device(&operands(args, &[]), out);
            }
        }
        "parted" => {
            let ops = operands(args, &["-a", "--align"]);
            let listing = has(&["-l", "--list", "-h", "--help", "-v", "--version"]);
            // `parted DEV print` only reads; any other command (or none: interactive) writes.
            let script: Vec<&str> = ops.iter().skip(1).copied().collect();
            let only_print = !script.is_empty()
                && script.iter().all(|c| {
                    matches!(
                        *c,
                        "print"
                            | "p"
                            | "unit"
                            | "s"
                            | "B"
                            | "MB"
                            | "GB"
                            | "MiB"
                            | "GiB"
                            | "free"
                            | "list"
                            | "all"
                            | "align-check"
                            | "opt"
                            | "min"
                            | "help"
                            | "quit"
                    )
                });
            if !listing && !only_print {
                device(&ops[..ops.len().min(1)], out);
            }
        }
        "hdparm" => {
            let destructive = args.iter().any(|a| {
                a.starts_with("--security-erase")
                    || a.starts_with("--trim-sector-ranges")
                    || a.starts_with("--write-sector")
                    || a.starts_with("--make-bad-sector")
                    || a.starts_with("--fwdownload")
                    || a == "--dco-restore"
                    || a == "--security-set-pass"
                    || a == "-N"
            });
            if destructive {
                device(
                    &operands(
                        args,
                        &[
                            "--security-erase",
                            "--security-erase-enhanced",
                            "--security-set-pass",
                            "--user-master",
                            "--write-sector",
                            "--make-bad-sector",
                            "--fwdownload",
                            "--trim-sector-ranges",
                            "-N",
                        ],
                    ),
                    out,
                );
            }
        }
        "cryptsetup" => {
            let ops = operands(
                args,
                &[
                    "-c",
                    "--cipher",
                    "-s",
                    "--key-size",
                    "-h",
                    "--hash",
                    "-d",
                    "--key-file",
                    "-S",
                    "--key-slot",
                    "--type",
                    "--pbkdf",
                    "-i",
                    "--iter-time",
                    "--label",
                    "--uuid",
                    "--header",
                    "--sector-size",
                    "-l",
                    "--keyfile-size",
                    "--keyfile-offset",
                    "--new-keyfile",
                    "--token-id",
                ],
            );
            if let Some((verb, rest)) = ops.split_first() {
                if matches!(
                    *verb,
                    "luksFormat" | "erase" | "luksErase" | "luksKillSlot" | "reencrypt" | "format"
                ) {
                    device(&rest[..rest.len().min(1)], out);
                }
            }
        }
        "zpool" => {
            let ops = operands(args, &["-o", "-O", "-R", "-m", "-t"]);
            if matches!(
                ops.first().copied(),
                Some(
                    "destroy"
                        | "labelclear"
                        | "create"
                        | "split"
                        | "initialize"
                        | "trim"
                        | "replace"
                        | "detach"
                        | "remove"
                        | "offline"
                        | "export"
                )
            ) {
                let destructive = matches!(
                    ops.first().copied(),
                    Some("destroy" | "labelclear" | "create" | "initialize" | "replace")
                );
                if destructive {
                    device(&ops[1..], out);
                } else if matches!(
                    ops.first().copied(),
                    Some("export" | "offline" | "detach" | "remove" | "split")
                ) {
                    out.none(Act::Mount);
                }
            }
        }
        "zfs" => {
            let ops = operands(args, &["-o", "-t", "-s", "-S"]);
            // `-n`: a dry run.
            let dry = args
                .iter()
                .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('n'));
            match ops.first().copied() {
                Some("destroy" | "rollback") if !dry => out.none(Act::Device),
                Some("unmount" | "umount") => out.none(Act::Mount),
                _ => {}
            }
        }
        // `pvcreate` writes a volume label over the start of each device it is given.
        "lvremove" | "vgremove" | "pvremove" | "pvcreate" | "lvreduce" | "vgreduce" => {
            if !has(&["-t", "--test", "--help", "-h"]) {
                device(
                    &operands(args, &["-S", "--select", "--config", "--reportformat"]),
                    out,
                );
            }
        }
        "lvresize" => {
            let shrinks = args.iter().any(|a| {
                a.starts_with("-L-")
                    || a.starts_with("-l-")
                    || a.starts_with("--size=-")
                    || a.starts_with("--extents=-")
                    || a == "-"
            }) || args.windows(2).any(|w| {
                (w[0] == "-L" || w[0] == "-l" || w[0] == "--size") && w[1].starts_with('-')
            });
            if shrinks {
                device(&operands(args, &["-L", "-l", "--size", "--extents"]), out);
            }
        }
        "mdadm" => {
            let destructive = has(&[
                "--zero-superblock",
                "--create",
                "-C",
                "--remove",
                "--fail",
                "-f",
                "--stop",
                "-S",
                "--grow",
                "-G",
            ]) || args
                .iter()
                .any(|a| a.starts_with("--create") || a.starts_with("--zero"));
            if destructive {
                device(
                    &operands(
                        args,
                        &[
                            "-l",
                            "--level",
                            "-n",
                            "--raid-devices",
                            "-c",
                            "--chunk",
                            "-x",
                            "--spare-devices",
                            "-e",
                            "--metadata",
                            "--name",
                            "-N",
                            "--homehost",
                            "--bitmap",
                            "-b",
                            "--layout",
                            "-p",
                        ],
                    ),
                    out,
                );
            }
        }
        "badblocks" => {
            if has(&["-w"])
                || args
                    .iter()
                    .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('w'))
            {
                device(
                    &operands(args, &["-b", "-c", "-e", "-d", "-i", "-o", "-p", "-t"])[..1.min(
                        operands(args, &["-b", "-c", "-e", "-d", "-i", "-o", "-p", "-t"]).len(),
                    )],
                    out,
                );
            }
        }
        "nvme" => {
            let ops = operands(
                args,
                &[
                    "-n",
                    "--namespace-id",
                    "-s",
                    "--ses",
                    "-a",
                    "--sanact",
                    "-l",
                    "--lbaf",
                ],
            );
            if matches!(
                ops.first().copied(),
                Some(
                    "format"
                        | "sanitize"
                        | "delete-ns"
                        | "detach-ns"
                        | "fw-download"
                        | "write-zeroes"
                )
            ) {
                device(&ops[1..], out);
            }
        }
        "diskutil" => {
            let ops = operands(args, &[]);
            match ops.first().copied() {
                Some(
                    "eraseDisk" | "eraseVolume" | "partitionDisk" | "zeroDisk" | "randomDisk"
                    | "secureErase" | "reformat" | "eraseCD" | "splitPartition" | "mergePartitions"
                    | "resizeVolume",
                ) => {
                    out.none(Act::Device);
                    for d in ops.iter().skip(1).filter(|d| d.starts_with("/dev/")) {
                        out.path(Act::Device, d);
                    }
                }
                Some("apfs")
                    if ops.get(1).is_some_and(|v| {
                        matches!(
                            *v,
                            "deleteContainer" | "deleteVolume" | "eraseVolume" | "deleteSnapshot"
                        )
                    }) =>
                {
                    out.none(Act::Device)
                }
                Some("unmount" | "unmountDisk" | "umount" | "umountDisk" | "eject") => {
                    out.none(Act::Mount)
                }
                _ => {}
            }
        }
        "lsblk" | "blkid" | "findmnt" | "df" => {}
        _ => return false,
    }
    true
}

/// `device` on each operand that names a device (an image file is overwritten instead),
/// and `device` with no location when none does.
/// What a file-system maker writes: its first operand. A device node, or a name that may
/// hold one (`$DEV`, a glob), is the device; any other path is an image file made or
/// overwritten where it resolves (`mkfs.erofs image.erofs root/`, `mkfs.ext4 disk.img`):
/// the tools open what they are given, relative to the working directory, not under
/// `/dev`.
fn format_target(op: Option<&str>, out: &mut Sink) {
    match op {
        Some(op) if !op.starts_with("/dev/") && !op.contains(['$', '`', '*', '?', '[']) => {
            out.path(Act::Overwrite, op)
        }
        Some(op) => device(&[op], out),
        None => out.none(Act::Device),
    }
}

fn device(ops: &[&str], out: &mut Sink) {
    let mut named = false;
    for op in ops {
        let path_like = op.starts_with('/')
            || op.starts_with("./")
            || op.starts_with("../")
            || op.starts_with('~')
            || op.starts_with('$')
            || [".img", ".iso", ".raw", ".qcow2", ".bin", ".vhd", ".vmdk"]
                .iter()
                .any(|e| op.ends_with(e));
        if path_like {
            // A device node, or a name that may hold one, is the device; an image file is
            // an ordinary file overwritten.
            let act = if op.starts_with("/dev/") || op.starts_with('$') {
                Act::Device
            } else {
                Act::Overwrite
            };
            out.path(act, op);
            named = true;
        }
    }
    if !named || ops.iter().any(|o| o.starts_with('$') || o.contains('*')) {
        out.none(Act::Device);
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::testing::{effects, has};

    #[test]
    fn mounts_and_swap() {
        assert_eq!(effects("swapoff -a"), vec!["service@none"]);
        assert_eq!(effects("sudo swapoff /swapfile"), vec!["service@none"]);
        for line in [
            "mount /dev/sdb1 /mnt",
            "mount -a",
            "mount --bind /a /b",
            "mount -t tmpfs tmpfs /tmp",
            "swapon /swapfile",
            "eject /dev/sr0",
            "losetup -D",
            "diskutil unmountDisk /dev/disk2",
            "zfs unmount tank/home",
        ] {
            assert_eq!(effects(line), vec!["mount@none"], "{line}");
        }
        // What is unmounted, where it is.
        assert_eq!(effects("umount /mnt"), vec!["mount@system"]);
        assert_eq!(effects("fusermount -u ~/mnt"), vec!["mount@outside"]);
        assert_eq!(effects("sudo umount -l /"), vec!["mount@root"]);
        assert_eq!(effects("umount -f /home"), vec!["mount@home"]);
        assert_eq!(effects("umount -R /var"), vec!["mount@system"]);
        // Remounting changes the access mode of everything under the mount point.
        for (line, place) in [
            ("sudo mount -o remount,rw /", "permissions@root"),
            ("mount -o remount,ro /", "permissions@root"),
            ("sudo mount -o rw,remount /", "permissions@root"),
            ("mount -o remount,exec /tmp", "permissions@temp"),
            ("mount -oremount,rw /boot", "permissions@system"),
        ] {
            assert!(has(line, place), "{line}: {:?}", effects(line));
            assert!(has(line, "mount@none"), "{line}");
        }
        for line in [
            "mount",
            "mount -l",
            "swapon --show",
            "swapon -s",
            "findmnt",
            "lsblk",
            "blkid",
            "df -h",
        ] {
            assert_eq!(effects(line), Vec::<String>::new(), "{line}");
        }
    }

    #[test]
    fn devices_named() {
        for line in [
            "mkfs.ext4 /dev/sda1",
            "sudo mkfs -t ext4 /dev/sdb",
            "mkfs.xfs -f /dev/nvme0n1p2",
            "mke2fs -L data /dev/sdc1",
            "mkswap /dev/sda2",
            "mkfs.vfat -F 32 /dev/sdd1",
            "wipefs -a /dev/sda",
            "wipefs --all --force /dev/sdb",
            "wipefs -fa /dev/sdc",
            "wipefs --al /dev/sdd",
            "wipefs -o 0x438 /dev/sde1",
            "fdisk /dev/sda",
            "sfdisk /dev/sda < layout",
            "gdisk /dev/nvme0n1",
            "sgdisk --zap-all /dev/sda",
            "sgdisk -Z /dev/sdb",
            "parted /dev/sda mklabel gpt",
            "parted -s /dev/sda rm 1",
            "parted /dev/sdb",
            "blkdiscard /dev/nvme0n1",
            "hdparm --security-erase p /dev/sda",
            "cryptsetup luksFormat /dev/sdb1",
            "sudo cryptsetup -q luksFormat --type luks2 /dev/sdc",
            "cryptsetup erase /dev/sda2",
            "mdadm --zero-superblock /dev/sdb1",
            "lvremove /dev/vg0/lv0",
            "pvremove /dev/sdb",
            "pvcreate /dev/sdc",
            "sudo pvcreate -ff /dev/mapper/crypt",
            "badblocks -wsv /dev/sdb",
            "nvme format /dev/nvme0n1",
            "diskutil eraseDisk APFS X /dev/disk2",
            "newfs_msdos /dev/disk3s1",
            "mdadm --create /dev/md0 --level=1 --raid-devices=2 /dev/sd[ab]1",
        ] {
            assert!(has(line, "device@device"), "{line}: {:?}", effects(line));
        }
        assert!(has("mkfs.ext4 disk.img", "overwrite@source"));
        assert_eq!(
            effects("mkfs.erofs image.erofs root/"),
            vec!["overwrite@source"]
        );
        assert_eq!(effects("mkfs.ext4 /tmp/fs.img"), vec!["overwrite@temp"]);
        assert!(has("mkfs.ext4 /dev/sda1", "device@device"));
        assert!(has("mkfs.btrfs /dev/nvme0n1*", "device@none"));
        assert!(!has("mkfs.ext4 disk.img", "device@none"));
        assert_eq!(effects("mkfs.ext4 -F test.img"), vec!["overwrite@source"]);
        assert!(has("mkfs.vfat -F 32 /dev/sdd1", "device@device"));
    }

    #[test]
    fn devices_unnamed() {
        for line in [
            "zpool destroy tank",
            "zfs destroy -r tank/data",
            "zfs rollback tank@snap",
            "lvremove -f vg0/lv0",
            "vgremove vg0",
            "mkfs.ext4 $DEV",
            "diskutil apfs deleteContainer disk2",
        ] {
            assert!(has(line, "device@none"), "{line}: {:?}", effects(line));
        }
    }

    #[test]
    fn device_listings_are_harmless() {
        for line in [
            "fdisk -l",
            "sudo fdisk -l /dev/sda",
            "sfdisk -l /dev/sda",
            "sfdisk -d /dev/sda",
            "sgdisk -p /dev/sda",
            "parted -l",
            "parted /dev/sda print",
            "parted -s /dev/sda unit MiB print",
            "hdparm -I /dev/sda",
            "wipefs /dev/sda",
            "wipefs -n -a /dev/sda",
            "zfs list",
            "zpool status",
            "lvremove --test vg/lv",
            "nvme list",
            "diskutil list",
            "cryptsetup status x",
            "zfs destroy -n tank/x",
        ] {
            assert_eq!(effects(line), Vec::<String>::new(), "{line}");
        }
    }
}
