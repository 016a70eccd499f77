//! Copying a file or a directory tree exactly (bytes, permission bits, symbolic links) into
//! the backup store and back, within a byte budget and a deadline; and the walk that sizes a
//! tree first, so that an action over the cap is refused before anything is copied.

use std::fs;
use std::io;
use std::path::Path;
use std::time::Instant;

/// What a tree holds: regular files and their bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Size {
    pub files: u64,
    pub bytes: u64,
}

/// Why a tree cannot be copied.
#[derive(Debug)]
pub enum CopyError {
    /// More than the byte or file budget.
    TooLarge(Size),
    /// The deadline passed.
    Deadline,
    /// A file that is not a regular file, a directory or a symbolic link.
    Special(String),
    Io(io::Error),
}

impl From<io::Error> for CopyError {
    fn from(e: io::Error) -> Self {
        CopyError::Io(e)
    }
}

impl std::fmt::Display for CopyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CopyError::TooLarge(s) => write!(
                f,
                "it is larger than gate may copy for one action ({} files, {} bytes so far)",
                s.files, s.bytes
            ),
            CopyError::Deadline => {
                f.write_str("the copy could not finish within the hook's deadline")
            }
            CopyError::Special(p) => write!(f, "{p} is a special file gate cannot copy"),
            CopyError::Io(e) => write!(f, "the copy failed: {e}"),
        }
    }
}

/// The limits one copy works within.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    pub max_bytes: u64,
    pub max_files: u64,
    pub deadline: Instant,
}

/// Adds the size of `path` (not following symbolic links) to `size`, failing as soon as the
/// budget is exceeded or a special file is met.
pub fn measure(path: &Path, budget: &Budget, size: &mut Size) -> Result<(), CopyError> {
    let meta = fs::symlink_metadata(path)?;
    let ft = meta.file_type();
    size.files += 1;
    if ft.is_file() {
        size.bytes += meta.len();
    } else if ft.is_dir() {
        for entry in fs::read_dir(path)? {
            measure(&entry?.path(), budget, size)?;
        }
    } else if !ft.is_symlink() {
        return Err(CopyError::Special(path.display().to_string()));
    }
    if size.bytes > budget.max_bytes || size.files > budget.max_files {
        return Err(CopyError::TooLarge(*size));
    }
    if Instant::now() > budget.deadline {
        return Err(CopyError::Deadline);
    }
    Ok(())
}

/// Copies `from` to `to` (which must not exist) with its permission bits; a directory's own
/// bits are set after its contents, so a read-only directory is still filled.
pub fn copy_tree(from: &Path, to: &Path, deadline: Instant) -> Result<(), CopyError> {
    if Instant::now() > deadline {
        return Err(CopyError::Deadline);
    }
    let meta = fs::symlink_metadata(from)?;
    let ft = meta.file_type();
    if ft.is_symlink() {
        symlink(&fs::read_link(from)?, to)?;
    } else if ft.is_file() {
        // `fs::copy` copies the permission bits (and uses a reflink or `copy_file_range`
        // where the file system has it).
        fs::copy(from, to)?;
        fs::set_permissions(to, meta.permissions())?;
    } else if ft.is_dir() {
        fs::create_dir(to)?;
        for entry in fs::read_dir(from)? {
            let entry = entry?;
            copy_tree(&entry.path(), &to.join(entry.file_name()), deadline)?;
        }
        fs::set_permissions(to, meta.permissions())?;
    } else {
        return Err(CopyError::Special(from.display().to_string()));
    }
    Ok(())
}

/// Removes whatever is at `path` (a file, a link or a whole tree), making read-only
/// directories writable first so that their contents can go.
pub fn remove(path: &Path) -> io::Result<()> {
    let meta = match fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    if meta.file_type().is_dir() {
        let mut perms = meta.permissions();
        set_owner_writable(&mut perms);
        fs::set_permissions(path, perms)?;
        for entry in fs::read_dir(path)? {
            remove(&entry?.path())?;
        }
        fs::remove_dir(path)
    } else {
        fs::remove_file(path)
    }
}

#[cfg(unix)]
fn set_owner_writable(perms: &mut fs::Permissions) {
    use std::os::unix::fs::PermissionsExt;
    perms.set_mode(perms.mode() | 0o700);
}

#[cfg(not(unix))]
fn set_owner_writable(perms: &mut fs::Permissions) {
    perms.set_readonly(false);
}

#[cfg(unix)]
fn symlink(target: &Path, link: &Path) -> io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

#[cfg(not(unix))]
fn symlink(_target: &Path, link: &Path) -> io::Result<()> {
    Err(io::Error::other(format!(
        "{}: symbolic links are copied on Unix only",
        link.display()
    )))
}

/// The permission bits of `meta` (0 where the platform has none).
pub fn mode_of(meta: &fs::Metadata) -> u32 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode() & 0o7777
    }
    #[cfg(not(unix))]
    {
        u32::from(meta.permissions().readonly())
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;
    use std::time::Duration;

    fn budget(max_bytes: u64) -> Budget {
        Budget {
            max_bytes,
            max_files: 1000,
            deadline: Instant::now() + Duration::from_secs(30),
        }
    }

    #[test]
    fn a_tree_is_copied_with_its_bytes_modes_and_links_and_removed_read_only_or_not() {
        let tmp = std::env::temp_dir().join(format!("gate-copy-{}", std::process::id()));
        let _ = remove(&tmp);
        let src = tmp.join("src");
        fs::create_dir_all(src.join("sub")).unwrap();
        fs::write(src.join("a"), b"alpha").unwrap();
        fs::write(src.join("sub/x"), b"x").unwrap();
        fs::set_permissions(src.join("sub/x"), fs::Permissions::from_mode(0o751)).unwrap();
        std::os::unix::fs::symlink("a", src.join("link")).unwrap();
        fs::set_permissions(src.join("sub"), fs::Permissions::from_mode(0o555)).unwrap();
        let mut size = Size::default();
        measure(&src, &budget(100), &mut size).unwrap();
        assert_eq!(size, Size { files: 5, bytes: 6 });
        assert!(matches!(
            measure(&src, &budget(3), &mut Size::default()),
            Err(CopyError::TooLarge(_))
        ));
        let dst = tmp.join("dst");
        copy_tree(&src, &dst, budget(0).deadline).unwrap();
        assert_eq!(fs::read(dst.join("sub/x")).unwrap(), b"x");
        let mode = |p: &Path| fs::symlink_metadata(p).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode(&dst.join("sub/x")), 0o751);
        assert_eq!(mode(&dst.join("sub")), 0o555);
        assert_eq!(fs::read_link(dst.join("link")).unwrap(), Path::new("a"));
        remove(&tmp).unwrap();
        assert!(!tmp.exists());
    }
}
