//! The members of an archive about to be extracted, read from the disk in a live hook call:
//! the headers of an uncompressed tar file (seeking past each member's data) and the
//! central directory of a zip file (whose names are stored uncompressed, whatever the
//! compression of the data). A compressed tar file, a zip64 file or anything else is not
//! read: its members are unknown, and an extraction is then taken to reach everything in
//! the directory (`effects::contents`).

use std::io::{Read, Seek, SeekFrom};

use super::disk;

/// Most members read from one archive.
pub(super) const MAX_MEMBERS: usize = 10_000;

/// Largest zip central directory read.
const MAX_DIRECTORY: u64 = 16 * 1024 * 1024;

/// The member names of the archive at `path` (absolute), when it is an uncompressed tar or a
/// zip file whose list can be read; `None` otherwise. What was read (the list, and the
/// file's size and change time) goes into the action's digest.
pub(super) fn members(path: &str) -> Option<Vec<String>> {
    use std::os::unix::fs::MetadataExt;
    let mut file = std::fs::File::open(path).ok()?;
    let meta = file.metadata().ok().filter(|m| m.is_file());
    let Some(meta) = meta else {
        disk::note_read(path, b"\0unreadable archive");
        return None;
    };
    let mut magic = [0u8; 4];
    let n = file.read(&mut magic).ok()?;
    file.seek(SeekFrom::Start(0)).ok()?;
    let list = if n >= 4 && magic == *b"PK\x03\x04" || n >= 4 && magic == *b"PK\x05\x06" {
        zip(&mut file, meta.len())
    } else {
        tar(&mut file)
    };
    let fingerprint = format!(
        "{}:{}:{}:{}:{}",
        meta.len(),
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ctime(),
        meta.ctime_nsec()
    );
    let mut noted = fingerprint.into_bytes();
    match &list {
        Some(names) => {
            for n in names {
                noted.push(b'\n');
                noted.extend_from_slice(n.as_bytes());
            }
        }
        None => noted.extend_from_slice(b"\0unlisted"),
    }
    disk::note_read(path, &noted);
    list
}

/// Where a member lands when extracted into `dir` (a real, absolute path): a leading `/`
/// removed, as tar and unzip do, and the first `strip` components dropped; `..` is followed
/// (whether the extractor would refuse it or not). `None` for a member stripped away.
pub(super) fn landing(dir: &str, member: &str, strip: usize) -> Option<String> {
    let parts: Vec<&str> = member
        .split('/')
        .filter(|c| !c.is_empty() && *c != ".")
        .collect();
    if parts.len() <= strip {
        return None;
    }
    let rest = parts[strip..].join("/");
    Some(super::places::normalise(&format!("{dir}/{rest}")))
}

/// A tar file's member names, `None` when it is not an uncompressed tar file.
fn tar(file: &mut std::fs::File) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut block = [0u8; 512];
    // A GNU long name or a pax `path` for the next member.
    let mut long: Option<String> = None;
    let mut zeros = 0;
    while out.len() < MAX_MEMBERS {
        if file.read_exact(&mut block).is_err() {
            // A truncated file: what was listed, if anything.
            return (!out.is_empty()).then_some(out);
        }
        if block.iter().all(|&b| b == 0) {
            zeros += 1;
            if zeros == 2 {
                break;
            }
            continue;
        }
        zeros = 0;
        if !checksum_ok(&block) {
            return None;
        }
        let size = octal(&block[124..136])?;
        let kind = block[156];
        let data = size.div_ceil(512) * 512;
        match kind {
            // GNU long name, pax extended header: read their text (bounded).
            b'L' | b'x' if size <= 1024 * 1024 => {
                let mut text = vec![0u8; size as usize];
                file.read_exact(&mut text).ok()?;
                file.seek(SeekFrom::Current((data - size) as i64)).ok()?;
                if kind == b'L' {
                    let end = text.iter().position(|&b| b == 0).unwrap_or(text.len());
                    long = Some(String::from_utf8_lossy(&text[..end]).into_owned());
                } else if let Some(p) = pax_path(&text) {
                    long = Some(p);
                }
                continue;
            }
            // A global pax header, a GNU long link name: nothing of the next name.
            _ if matches!(kind, b'g' | b'K') => {
                file.seek(SeekFrom::Current(data as i64)).ok()?;
                continue;
            }
            _ => {}
        }
        let name = match long.take() {
            Some(n) => n,
            None => {
                let field = |range: std::ops::Range<usize>| {
                    let f = &block[range];
                    let end = f.iter().position(|&b| b == 0).unwrap_or(f.len());
                    String::from_utf8_lossy(&f[..end]).into_owned()
                };
                let name = field(0..100);
                let prefix = if &block[257..262] == b"ustar" {
                    field(345..500)
                } else {
                    String::new()
                };
                if prefix.is_empty() {
                    name
                } else {
                    format!("{prefix}/{name}")
                }
            }
        };
        out.push(name);
        // Links, directories and the like carry no data; a regular file's is skipped.
        if !matches!(kind, b'1' | b'2' | b'3' | b'4' | b'5' | b'6') {
            file.seek(SeekFrom::Current(data as i64)).ok()?;
        }
    }
    Some(out)
}

/// Whether a tar header's checksum field matches its bytes (the field counted as spaces).
fn checksum_ok(block: &[u8; 512]) -> bool {
    let Some(want) = octal(&block[148..156]) else {
        return false;
    };
    let sum: u64 = block
        .iter()
        .enumerate()
        .map(|(i, &b)| {
            if (148..156).contains(&i) {
                32
            } else {
                u64::from(b)
            }
        })
        .sum();
    sum == want
}

/// A tar number: octal text (NUL or space ended), or base-256 when the high bit is set.
fn octal(field: &[u8]) -> Option<u64> {
    if field.first().is_some_and(|b| b & 0x80 != 0) {
        let mut n: u64 = u64::from(field[0] & 0x7f);
        for &b in &field[1..] {
            n = n.checked_mul(256)?.checked_add(u64::from(b))?;
        }
        return Some(n);
    }
    let text: Vec<u8> = field
        .iter()
        .copied()
        .skip_while(|b| *b == b' ')
        .take_while(|b| (b'0'..=b'7').contains(b))
        .collect();
    if text.is_empty() {
        return Some(0);
    }
    u64::from_str_radix(std::str::from_utf8(&text).ok()?, 8).ok()
}

/// The `path` record of a pax extended header (`LEN path=VALUE\n` records).
fn pax_path(text: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(text);
    text.lines().find_map(|record| {
        let (_, kv) = record.split_once(' ')?;
        kv.strip_prefix("path=").map(str::to_string)
    })
}

/// A zip file's member names from its central directory, `None` when it cannot be read (no
/// end record, a zip64 file, a directory past the bound).
fn zip(file: &mut std::fs::File, len: u64) -> Option<Vec<String>> {
    // The end record is in the last 22 bytes plus a comment of at most 64 KiB.
    let tail_len = len.min(22 + 65_535);
    file.seek(SeekFrom::Start(len - tail_len)).ok()?;
    let mut tail = vec![0u8; tail_len as usize];
    file.read_exact(&mut tail).ok()?;
    let end = (0..tail.len().saturating_sub(21))
        .rev()
        .find(|&i| tail[i..i + 4] == *b"PK\x05\x06")?;
    let rec = &tail[end..];
    let u16_at = |b: &[u8], i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
    let u32_at = |b: &[u8], i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    let count = u16_at(rec, 10);
    let size = u32_at(rec, 12);
    let offset = u32_at(rec, 16);
    if count == 0xffff || size == 0xffff_ffff || offset == 0xffff_ffff {
        return None;
    }
    let (size, offset) = (u64::from(size), u64::from(offset));
    if size > MAX_DIRECTORY || offset + size > len {
        return None;
    }
    file.seek(SeekFrom::Start(offset)).ok()?;
    let mut dir = vec![0u8; size as usize];
    file.read_exact(&mut dir).ok()?;
    let mut out = Vec::new();
    let mut i = 0;
    while i + 46 <= dir.len() && out.len() < MAX_MEMBERS {
        if dir[i..i + 4] != *b"PK\x01\x02" {
            return None;
        }
        let name_len = usize::from(u16_at(&dir, i + 28));
        let extra = usize::from(u16_at(&dir, i + 30));
        let comment = usize::from(u16_at(&dir, i + 32));
        let name = dir.get(i + 46..i + 46 + name_len)?;
        out.push(String::from_utf8_lossy(name).replace('\\', "/"));
        i += 46 + name_len + extra + comment;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ustar header for `name` with `size` bytes of data after it.
    fn header(name: &str, size: usize, kind: u8) -> Vec<u8> {
        let mut h = vec![0u8; 512];
        h[..name.len()].copy_from_slice(name.as_bytes());
        h[100..107].copy_from_slice(b"0000644");
        h[124..135].copy_from_slice(format!("{size:011o}").as_bytes());
        h[156] = kind;
        h[257..262].copy_from_slice(b"ustar");
        h[148..156].copy_from_slice(b"        ");
        let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
        h[148..155].copy_from_slice(format!("{sum:06o}\0").as_bytes());
        h
    }

    #[test]
    fn a_tar_files_members_are_listed_without_reading_their_data() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.tar");
        let mut bytes = header("src/a.rs", 700, b'0');
        bytes.extend(vec![b'x'; 1024]);
        bytes.extend(header(".claude/", 0, b'5'));
        bytes.extend(header(".claude/settings.json", 3, b'0'));
        bytes.extend(vec![b'{'; 512]);
        bytes.extend(vec![0u8; 1024]);
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(
            members(path.to_str().unwrap()).unwrap(),
            ["src/a.rs", ".claude/", ".claude/settings.json"]
        );
        // Compressed, or not an archive: not listed.
        std::fs::write(&path, [0x1f, 0x8b, 8, 0, 0, 0, 0, 0]).unwrap();
        assert_eq!(members(path.to_str().unwrap()), None);
        std::fs::write(&path, b"hello world").unwrap();
        assert_eq!(members(path.to_str().unwrap()), None);
    }

    #[test]
    fn a_zip_files_members_come_from_its_central_directory() {
        // Two stored members, written by hand: local headers, central directory, end.
        let mut z: Vec<u8> = Vec::new();
        let mut central: Vec<u8> = Vec::new();
        for name in ["ok.txt", ".github/hooks/x.json"] {
            let offset = z.len() as u32;
            z.extend(b"PK\x03\x04");
            z.extend([
                20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            ]);
            z.extend((name.len() as u16).to_le_bytes());
            z.extend([0, 0]);
            z.extend(name.as_bytes());
            central.extend(b"PK\x01\x02");
            central.extend([0u8; 24]);
            central.extend((name.len() as u16).to_le_bytes());
            central.extend([0u8; 12]);
            central.extend(offset.to_le_bytes());
            central.extend(name.as_bytes());
        }
        let cd_offset = z.len() as u32;
        z.extend(&central);
        z.extend(b"PK\x05\x06");
        z.extend([0, 0, 0, 0, 2, 0, 2, 0]);
        z.extend((central.len() as u32).to_le_bytes());
        z.extend(cd_offset.to_le_bytes());
        z.extend([0, 0]);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.zip");
        std::fs::write(&path, &z).unwrap();
        assert_eq!(
            members(path.to_str().unwrap()).unwrap(),
            ["ok.txt", ".github/hooks/x.json"]
        );
    }

    #[test]
    fn members_land_under_the_directory_stripped_and_normalised() {
        assert_eq!(landing("/p", "a/b", 0).as_deref(), Some("/p/a/b"));
        assert_eq!(landing("/p", "/etc/x", 0).as_deref(), Some("/p/etc/x"));
        assert_eq!(
            landing("/p", "top/.claude/s.json", 1).as_deref(),
            Some("/p/.claude/s.json")
        );
        assert_eq!(landing("/p", "top", 1), None);
        assert_eq!(
            landing("/p/sub", "../.claude/x", 0).as_deref(),
            Some("/p/.claude/x")
        );
    }
}
