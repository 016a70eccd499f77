//! The programs of `commands/files.toml` through the whole effect model: every spelling of
//! the removers, the mode, owner and attribute changes, and the makers (the data's own
//! examples check each form; these check the mechanism around it).

use super::testing::{effects, has};

#[test]
fn rm_targets_every_spelling() {
    assert!(has("rm -rf ~", "delete@home"));
    assert!(has("rm --rec --forc /", "delete@root"));
    assert!(has("rm -r -f /", "delete@root"));
    assert!(has("rm -Rf --no-preserve-root /", "delete@root"));
    assert!(has("cd / && rm -rf *", "delete@root"));
    assert!(has("cd src; rm -rf ../..", "delete@home"));
    assert!(has("rm -rf {/,~}", "delete@root"));
    assert!(has("sudo rm -rf -- ~/", "delete@home"));
    assert!(has("rm -rf /home/u/proj/target", "delete@outputs"));
    assert!(has("rm .cl*/settings.json", "delete@gate"));
    assert!(has("/bin/rm -rf $HOME", "delete@home"));
    assert!(has("env X=1 rm -rf ~/*", "delete@home"));
    assert!(has("bash -c 'rm -rf ~'", "delete@home"));
    assert!(has("rm -rf . ", "delete@project"));
    assert!(has("rm -rf ./*", "delete@project"));
    assert!(has("rm -rf .git", "delete@vcs"));
    assert!(has("rm ~/.ssh/id_rsa", "delete@secrets"));
    assert!(has("rm -f ~/.bashrc", "delete@dotfiles"));
    assert!(has("rm -rf /etc", "delete@system"));
    assert!(has("rm -rf /tmp/build", "delete@temp"));
    assert!(has("rm -rf \"$DIR\"/", "delete@unknown"));
    assert!(has("rm -- -rf", "delete@source"));
    assert_eq!(effects("rm -f src/a.rs"), vec!["delete@source"]);
    assert_eq!(effects("rm -rf node_modules"), vec!["delete@outputs"]);
}

#[test]
fn node_and_desktop_removers() {
    assert!(has("rimraf ~", "delete@home"));
    assert!(has("npx rimraf --glob 'dist/**' ~/", "delete@home"));
    assert!(has("trash-put ~/.ssh", "delete@secrets"));
    assert_eq!(effects("rimraf node_modules"), ["delete@outputs"]);
}

#[test]
fn rmdir_unlink() {
    // An empty directory removed: a write of what held it.
    assert_eq!(effects("rmdir build"), vec!["write@outputs"]);
    assert_eq!(effects("rmdir -p a/b/c"), vec!["write@source"]);
    assert!(has("rmdir --ignore-fail-on-non-empty ~/x", "write@outside"));
    assert_eq!(effects("rmdir ~"), vec!["write@home"]);
    assert_eq!(effects("rmdir .claude"), vec!["write@gate"]);
    assert_eq!(effects("unlink ~/.zshrc"), vec!["delete@dotfiles"]);
    assert_eq!(
        effects("sudo unlink /usr/bin/python"),
        vec!["delete@system"]
    );
}

#[test]
fn shred_and_secure_delete() {
    assert!(has("shred -u ~/.ssh/id_ed25519", "delete@secrets"));
    assert!(has("shred -n 3 -z -u secrets.txt", "delete@source"));
    assert!(has("shred --iterations=7 --remove .env", "delete@secrets"));
    assert!(has("shred -vfz /dev/sda", "overwrite@device"));
    assert!(has("shred src/a.rs", "overwrite@source"));
    assert!(has("srm -rf ~/Documents", "delete@outside"));
    assert!(has("wipe -rf /", "delete@root"));
    assert!(has("sudo wipe -kq /dev/sdb", "overwrite@device"));
}

#[test]
fn chmod_mode_is_not_a_path() {
    assert_eq!(effects("chmod 755 run.sh"), vec!["permissions@source"]);
    assert_eq!(effects("chmod +x run.sh"), vec!["permissions@source"]);
    assert_eq!(effects("chmod -x run.sh"), vec!["permissions@source"]);
    assert_eq!(effects("chmod -R -w src"), vec!["permissions@source"]);
    assert_eq!(effects("chmod u+rwx,go-w a b"), vec!["permissions@source"]);
    assert!(has("chmod -R 777 /", "permissions@root"));
    assert!(has("sudo chmod -R 000 ~", "permissions@home"));
    assert!(has("chmod --recursive a+rwx ~/", "permissions@home"));
    // Credentials made private keep nothing from their owner and give nobody else
    // anything: no permissions change there; shutting the owner out, or opening them
    // to others, is one.
    for line in [
        "chmod 600 ~/.ssh/id_ed25519",
        "chmod 700 ~/.ssh",
        "chmod 0400 ~/.ssh/id_rsa",
        "chmod go-rwx ~/.ssh",
        "chmod -R go-rwx ~/.ssh",
        "chmod u=rw,go= .env",
        "sudo chmod 600 ${HOME}/.aws/credentials",
        "chmod 600 ~/.ssh/authorized_keys",
        "chmod 644 ~/.ssh/id_ed25519.pub",
    ] {
        assert_eq!(effects(line), Vec::<String>::new(), "{line}");
    }
    for line in [
        "chmod -R a-rwx ~/.ssh",
        "chmod 000 ~/.ssh/id_rsa",
        "chmod -R 600 ~/.ssh",
        "chmod u-r .env",
        "chmod 644 ~/.ssh/id_rsa",
        "chmod o+r ~/.aws/credentials",
        "chmod g=u ~/.ssh/id_rsa",
        "chmod $MODE ~/.ssh/id_rsa",
        "chmod 000 ~/.ssh/id_rsa.pub",
    ] {
        assert!(
            has(line, "permissions@secrets"),
            "{line}: {:?}",
            effects(line)
        );
    }
    // Elsewhere a private mode is still a permissions change.
    assert!(has("chmod -R 700 /etc", "permissions@system"));
    assert!(has("chmod -Rf 777 /etc", "permissions@system"));
    assert!(has(
        "chmod --reference=a.txt ~/.bashrc",
        "permissions@dotfiles"
    ));
    assert!(has("chmod --reference=a.txt ~/.bashrc", "read@source"));
    assert!(has("chmod 4755 /usr/bin/x", "permissions@system"));
    assert!(has("chmod 644 .claude/settings.json", "permissions@gate"));
    assert!(!has("chmod 755 run.sh", "permissions@project"));
}

#[test]
fn conventional_modes_of_the_whole_project_are_administration() {
    // Only the owner gaining is no change of who may do what, anywhere.
    for line in ["chmod -R u+rwX .", "sudo chmod -R u+w \"$DIR\""] {
        assert!(effects(line).is_empty(), "{line}: {:?}", effects(line));
    }
    for line in [
        "sudo chmod -R 755 .",
        "sudo find . -type f -exec chmod 664 {} \\;",
        "sudo find . -type d -exec chmod 775 {} +",
    ] {
        assert!(has(line, "admin@project"), "{line}: {:?}", effects(line));
        assert!(!has(line, "permissions@project"), "{line}");
    }
    for line in [
        "chmod -R 777 .",
        "sudo chmod -R a+w .",
        "chmod -R 000 .",
        "chmod -R u+s .",
    ] {
        assert!(
            has(line, "permissions@project"),
            "{line}: {:?}",
            effects(line)
        );
    }
    assert!(has("chmod 755 /etc", "permissions@system"));
}

#[test]
fn public_modes_on_locally_installed_software_are_administration() {
    for line in [
        "sudo chmod +x /usr/local/bin/docker-compose",
        "chmod 755 /var/www",
        "sudo chmod -R a+rX /srv",
        "sudo chmod 755 /opt",
    ] {
        assert_eq!(effects(line), ["admin@system"], "{line}");
    }
    for line in [
        "sudo chmod 4755 /usr/local/bin/helper",
        "sudo chmod -R 777 /var/www",
        "sudo chmod 750 /srv",
        "sudo chmod +x /usr/bin/tool",
        "chmod 644 /etc/shadow",
    ] {
        assert_eq!(effects(line), ["permissions@system"], "{line}");
    }
}

#[test]
fn ones_own_dotfiles_given_back_are_administration() {
    for line in [
        "sudo chown -R $USER ~/.npm",
        "sudo chown -R $(whoami) ~/.npm",
        "sudo chown -R \"$(id -u):$(id -g)\" ~/.docker",
        "sudo chown -R $USER:$USER /home/$USER/.cache/x ~/.gradle",
    ] {
        assert!(has(line, "admin@dotfiles"), "{line}: {:?}", effects(line));
        assert!(!has(line, "permissions@dotfiles"), "{line}");
    }
    for line in [
        "sudo chown -R root ~/.npm",
        "sudo chown -R $(id -u jenkins) ~/.npm",
        "chgrp -R staff ~/.npm",
    ] {
        assert!(
            has(line, "permissions@dotfiles"),
            "{line}: {:?}",
            effects(line)
        );
    }
}

#[test]
fn chown_chgrp_owner_is_not_a_path() {
    assert_eq!(effects("chown u:u file"), vec!["permissions@source"]);
    assert!(has("sudo chown -R root:root /", "permissions@root"));
    assert!(has("chown -R $USER ~", "permissions@home"));
    assert!(has(
        "chown --recursive nobody ~/.ssh",
        "permissions@secrets"
    ));
    assert!(has("chown --from=root u /etc/x", "permissions@system"));
    assert!(has("chgrp -R staff .", "permissions@project"));
    assert!(has(
        "chgrp --reference=/etc/passwd ~/x",
        "permissions@outside"
    ));
    assert!(!has("chown root /tmp/x", "permissions@root"));
}

#[test]
fn chattr_setfacl_chflags() {
    assert_eq!(
        effects("chattr +i /etc/resolv.conf"),
        vec!["permissions@system"]
    );
    assert_eq!(
        effects("sudo chattr -i ~/.bashrc"),
        vec!["permissions@dotfiles"]
    );
    assert!(has("chattr -R +i /", "permissions@root"));
    assert!(has("chattr -v 2 =e f", "permissions@source"));
    assert!(has("setfacl -m u:bob:rwx ~/.ssh", "permissions@secrets"));
    assert!(has("setfacl -R -b /", "permissions@root"));
    assert!(has("setfacl --modify=g:x:r ~", "permissions@home"));
    assert!(has("setfacl --restore=acl.txt", "permissions@unknown"));
    assert!(has("chflags -R schg /etc", "permissions@system"));
    assert!(has(
        "chcon -t httpd_sys_content_t /var/www",
        "permissions@system"
    ));
}

#[test]
fn touch_mkdir_mktemp() {
    assert_eq!(effects("touch a.txt"), vec!["write@source"]);
    assert_eq!(
        effects("touch -d yesterday -r ref a"),
        vec!["read@source", "write@source"]
    );
    assert!(has("touch ~/.bashrc", "write@dotfiles"));
    assert_eq!(effects("mkdir -p build/x"), vec!["write@outputs"]);
    assert!(has("mkdir --mode=700 ~/.ssh", "write@secrets"));
    assert!(has("mkdir -m 755 /usr/local/x", "write@system"));
    assert_eq!(effects("mktemp -d"), vec!["write@temp"]);
    assert_eq!(effects("mktemp -u"), Vec::<String>::new());
    assert_eq!(effects("mktemp -p /tmp x.XXXX"), vec!["write@temp"]);
    assert_eq!(
        effects("mktemp --tmpdir=build x.XXX"),
        vec!["write@outputs"]
    );
    assert!(has("mkfifo /tmp/p", "write@temp"));
}

#[test]
fn truncate_and_fallocate() {
    assert_eq!(effects("truncate -s 0 app.log"), vec!["overwrite@source"]);
    assert!(has("truncate -s0 ~/.bash_history", "overwrite@dotfiles"));
    assert!(has("truncate --size=0 /var/log/syslog", "overwrite@system"));
    assert!(has("truncate --si 0 .env", "overwrite@secrets"));
    assert_eq!(effects("truncate -s +1M a.img"), vec!["write@source"]);
    assert!(has("truncate -r ref.bin ~/x", "overwrite@outside"));
    assert_eq!(effects("fallocate -l 1G swap.img"), vec!["write@source"]);
    assert!(has(
        "fallocate -p -o 0 -l 1M ~/.bashrc",
        "overwrite@dotfiles"
    ));
}

#[test]
fn a_private_mode_on_ones_own_dotfiles_is_what_they_should_have() {
    for line in [
        "chmod 600 ~/.config/app/config.yml",
        "chmod go-rwx ~/.bashrc",
        "chmod 0600 ~/.bash_history",
        "chmod u=rw,go= ~/.npmrc",
        "chmod -R go-rwx ~/.local/share/app",
        "chmod 700 ~/.local/bin/tool",
    ] {
        assert!(
            !effects(line).iter().any(|e| e.starts_with("permissions@")),
            "{line}: {:?}",
            effects(line)
        );
    }
    // Opening them, shutting the owner out, or a mode that may give the group what it had
    // not (`0440` after `600`) is still a change there; so is a private mode elsewhere.
    for (line, want) in [
        ("chmod 644 ~/.bashrc", "permissions@dotfiles"),
        ("chmod 0440 ~/.bashrc", "permissions@dotfiles"),
        ("chmod 000 ~/.bashrc", "permissions@dotfiles"),
        ("chmod -R 600 ~/.local/share/app", "permissions@dotfiles"),
        ("chmod g=u ~/.bashrc", "permissions@dotfiles"),
        ("chmod 600 /etc/passwd", "permissions@system"),
        ("chmod 600 \"$F\"", "permissions@unknown"),
        ("chmod 700 ~", "permissions@home"),
    ] {
        assert!(has(line, want), "{line}: {:?}", effects(line));
    }
}

#[test]
fn a_projects_credentials_given_to_the_systems_owner_expose_nothing() {
    for line in [
        "sudo chown root:root ca.cer client.cer client.key",
        "chown root:root certs/server.key",
        "sudo chown -R 0:0 .env",
    ] {
        assert!(
            !has(line, "permissions@secrets"),
            "{line}: {:?}",
            effects(line)
        );
    }
    for line in [
        "sudo chown root:root ~/.ssh/id_rsa",
        "sudo chown nobody client.key",
        "sudo chown root:docker client.key",
        "sudo chgrp root client.key",
        "sudo chown root:root /etc/ssl/private/x.key",
    ] {
        assert!(
            effects(line).iter().any(|e| e.starts_with("permissions@")),
            "{line}: {:?}",
            effects(line)
        );
    }
    assert!(has(
        "sudo chown root:root ~/.ssh/id_rsa",
        "permissions@secrets"
    ));
}
