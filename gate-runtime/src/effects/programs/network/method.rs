//! What an HTTP request does to the resource it names: a `DELETE` (any spelling a client
//! takes: `curl -X DELETE`, `-XDELETE`, `--request delete`, `http DELETE`), or a request that
//! sends to an endpoint named by a destroying verb (`POST …/_delete_by_query`,
//! `…/api/v2/delete?bucket=…`), removes state the server keeps: `cloud_delete` at `remote`.
//! A read (`GET`, `HEAD`) of such an endpoint removes nothing.

use super::super::super::Sink;
use super::super::generic::{verb_of, Verb};
use gate_spec::effect::{Act, Place};

/// Record the removal a request makes, if it makes one: `method` as given (any case),
/// `sends` whether it sends a body or a changing method, `urls` what it names.
pub(super) fn removal(method: Option<&str>, sends: bool, urls: &[&str], out: &mut Sink) {
    let deletes = method.is_some_and(|m| m.eq_ignore_ascii_case("DELETE"))
        || sends && urls.iter().any(|u| destroying_endpoint(u));
    if deletes {
        out.place(Act::CloudDelete, Place::Remote);
    }
}

/// Whether the last segment of a URL's path is a destroying verb (`_delete_by_query`,
/// `delete`, `purge`), not a resource that happens to hold one (`/deleted-items/3`).
fn destroying_endpoint(url: &str) -> bool {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let after_host = path.split_once("://").map_or(path, |(_, rest)| rest);
    let Some((_, tail)) = after_host.split_once('/') else {
        return false;
    };
    let last = tail.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    let word = last.trim_start_matches('_');
    !word.is_empty()
        && word
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-'))
        && verb_of(word) == Some(Verb::Destroy)
}

#[cfg(test)]
mod tests {
    use super::super::super::testing::{effects, has};

    #[test]
    fn a_delete_request_removes_what_it_names() {
        for line in [
            "curl -X DELETE https://api.example.com/items/3",
            "curl -XDELETE http://localhost:9200/_all",
            "curl -s -XDELETE \"$BASE/_all\"",
            "curl --request delete https://api.example.com/x",
            "curl -u elastic:pw -X DELETE \"$ES:9200/$1?pretty\"",
            "curl -H \"${header}\" -XDELETE ${url}",
            "http DELETE https://api.example.com/x/1",
            "xh delete https://api.example.com/x/1",
        ] {
            assert!(
                has(line, "cloud_delete@remote"),
                "{line}: {:?}",
                effects(line)
            );
        }
    }

    #[test]
    fn a_request_sent_to_a_destroying_endpoint_removes() {
        for line in [
            "curl -XPOST 'https://localhost:9200/logs/_delete_by_query' -d '{}'",
            "curl -X POST \"http://localhost:8086/api/v2/delete?org=o&bucket=b\" -d '{}'",
            "curl -d '{}' https://api.example.com/v1/cache/purge",
        ] {
            assert!(
                has(line, "cloud_delete@remote"),
                "{line}: {:?}",
                effects(line)
            );
        }
    }

    #[test]
    fn reads_and_ordinary_sends_remove_nothing() {
        for line in [
            "curl -X GET https://api.example.com/_cat/indices?pretty",
            "curl https://api.example.com/delete",
            "curl -I https://api.example.com/items/delete",
            "curl -XPUT --data @idx.json http://localhost:9200/logs",
            "curl -X POST https://api.example.com/deleted-items/3/restore",
            "curl -d 'a=1' https://api.example.com/v1/messages",
            "http GET https://api.example.com/delete",
        ] {
            assert!(
                !has(line, "cloud_delete@remote"),
                "{line}: {:?}",
                effects(line)
            );
        }
    }
}
