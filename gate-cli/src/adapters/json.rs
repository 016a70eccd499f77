//! A borrowed JSON tree for reading payloads: strings without escapes borrow from the input,
//! objects are key/value lists searched in place (no hashing, no map per object).
//!
//! `serde_json::Value` with the `preserve_order` feature (which `gate install` needs) makes
//! every object an `IndexMap` hashed with SipHash and every key and string an allocation;
//! a payload's reader looks up a dozen keys and copies a few strings, so a tree that keeps
//! the input's bytes where it can is much cheaper to build and to free. It is parsed by
//! serde_json itself ([`serde_json::from_slice`] into [`Node`]), so what is accepted and every
//! error message are serde_json's, exactly as for a `Value`. Lookups follow a `Value`'s: of
//! repeated keys the last one counts.

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Number, Value};
use std::borrow::Cow;
use std::fmt;

/// One JSON value, borrowing from the text it was parsed from (or from a [`Value`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Node<'a> {
    Null,
    Bool(bool),
    Number(Number),
    String(Cow<'a, str>),
    Array(Vec<Node<'a>>),
    Object(Object<'a>),
}

/// A JSON object: its members in input order, repeated keys kept (lookups take the last).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Object<'a>(Vec<(Cow<'a, str>, Node<'a>)>);

impl<'a> Node<'a> {
    /// Parse JSON text, as `serde_json::from_slice::<Value>` would (same errors).
    pub fn parse(text: &'a [u8]) -> Result<Node<'a>, serde_json::Error> {
        // The whole text checked as UTF-8 at once is far cheaper than each string on its
        // own (what parsing bytes does); parsing a `str` is otherwise the same parser, with
        // the same positions in its errors. Text that is not UTF-8 is never JSON: parsing
        // the bytes finds the same error a `Value` does.
        match std::str::from_utf8(text) {
            Ok(text) => Node::parse_str(text),
            Err(_) => Node::read(serde_json::Deserializer::from_slice(text)),
        }
    }

    /// Parse JSON text held in a string (same errors as `serde_json::from_str::<Value>`).
    pub fn parse_str(text: &'a str) -> Result<Node<'a>, serde_json::Error> {
        Node::read(serde_json::Deserializer::from_str(text))
    }

    /// What `serde_json::from_slice` / `from_str` do, with room for a payload's members
    /// made once (a payload has a dozen; grown from nothing, its list is allocated 3 times).
    fn read<R: serde_json::de::Read<'a>>(
        mut de: serde_json::Deserializer<R>,
    ) -> Result<Node<'a>, serde_json::Error> {
        let node = (&mut de).deserialize_any(NodeVisitor {
            members: TOP_LEVEL_MEMBERS,
            lifetime: std::marker::PhantomData,
        })?;
        de.end()?;
        Ok(node)
    }

    /// A view of a `Value`, borrowing its strings.
    pub fn from_value(value: &'a Value) -> Node<'a> {
        match value {
            Value::Null => Node::Null,
            Value::Bool(b) => Node::Bool(*b),
            Value::Number(n) => Node::Number(n.clone()),
            Value::String(s) => Node::String(Cow::Borrowed(s)),
            Value::Array(items) => Node::Array(items.iter().map(Node::from_value).collect()),
            Value::Object(map) => Node::Object(Object(
                map.iter()
                    .map(|(k, v)| (Cow::Borrowed(k.as_str()), Node::from_value(v)))
                    .collect(),
            )),
        }
    }

    /// The owned `Value` the same text parses to (repeated keys: the last value, at the
    /// first key's place, as serde_json builds it).
    pub fn to_value(&self) -> Value {
        match self {
            Node::Null => Value::Null,
            Node::Bool(b) => Value::Bool(*b),
            Node::Number(n) => Value::Number(n.clone()),
            Node::String(s) => Value::String(s.to_string()),
            Node::Array(items) => Value::Array(items.iter().map(Node::to_value).collect()),
            Node::Object(object) => {
                let mut map = Map::new();
                for (k, v) in &object.0 {
                    map.insert(k.to_string(), v.to_value());
                }
                Value::Object(map)
            }
        }
    }

    /// The member `key` of an object (`None` for anything else), like `Value::get`.
    pub fn get(&self, key: &str) -> Option<&Node<'a>> {
        self.as_object()?.get(key)
    }

    pub fn as_object(&self) -> Option<&Object<'a>> {
        match self {
            Node::Object(object) => Some(object),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Node<'a>]> {
        match self {
            Node::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Node::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Node::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Node::Number(n) => n.as_i64(),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Node::Null)
    }

    pub fn is_string(&self) -> bool {
        matches!(self, Node::String(_))
    }

    pub fn is_object(&self) -> bool {
        matches!(self, Node::Object(_))
    }
}

impl<'a> Object<'a> {
    /// The value of `key`; of repeated keys, the last (as in a parsed `Value`).
    pub fn get(&self, key: &str) -> Option<&Node<'a>> {
        self.0.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.0.iter().any(|(k, _)| k == key)
    }

    /// An object of one member.
    pub fn single(key: &'a str, value: Node<'a>) -> Object<'a> {
        Object(vec![(Cow::Borrowed(key), value)])
    }

    /// Members in input order, repeated keys included.
    pub fn members(&self) -> impl Iterator<Item = (&str, &Node<'a>)> {
        self.0.iter().map(|(k, v)| (k.as_ref(), v))
    }
}

/// Members room is made for in the outermost object (nested ones grow from nothing: a
/// payload of many small objects must not cost a large block each).
const TOP_LEVEL_MEMBERS: usize = 16;

impl<'de: 'a, 'a> Deserialize<'de> for Node<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Node<'a>, D::Error> {
        deserializer.deserialize_any(NodeVisitor {
            members: 0,
            lifetime: std::marker::PhantomData,
        })
    }
}

/// Builds a [`Node`] from whatever serde_json's parser reports (the visits a `Value` gets).
struct NodeVisitor<'a> {
    /// Room made for an object's members before the first is read.
    members: usize,
    lifetime: std::marker::PhantomData<&'a ()>,
}

impl<'de: 'a, 'a> Visitor<'de> for NodeVisitor<'a> {
    type Value = Node<'a>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Node<'a>, E> {
        Ok(Node::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Node<'a>, E> {
        Ok(Node::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Node<'a>, E> {
        Ok(Node::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Node<'a>, E> {
        Ok(Number::from_f64(v).map_or(Node::Null, Node::Number))
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Node<'a>, E> {
        Ok(Node::String(Cow::Borrowed(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Node<'a>, E> {
        Ok(Node::String(Cow::Owned(v.to_string())))
    }

    fn visit_string<E>(self, v: String) -> Result<Node<'a>, E> {
        Ok(Node::String(Cow::Owned(v)))
    }

    fn visit_none<E>(self) -> Result<Node<'a>, E> {
        Ok(Node::Null)
    }

    fn visit_unit<E>(self) -> Result<Node<'a>, E> {
        Ok(Node::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Node<'a>, D::Error> {
        Deserialize::deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node<'a>, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Node::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node<'a>, A::Error> {
        let mut members = Vec::with_capacity(self.members);
        while let Some(key) = map.next_key_seed(KeySeed(std::marker::PhantomData))? {
            members.push((key, map.next_value()?));
        }
        Ok(Node::Object(Object(members)))
    }
}

/// An object key, borrowed when it has no escape (read as a `Value`'s keys are: a string).
struct KeySeed<'a>(std::marker::PhantomData<&'a ()>);

impl<'de: 'a, 'a> DeserializeSeed<'de> for KeySeed<'a> {
    type Value = Cow<'a, str>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Cow<'a, str>, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de: 'a, 'a> Visitor<'de> for KeySeed<'a> {
    type Value = Cow<'a, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string key")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Cow<'a, str>, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Cow<'a, str>, E> {
        Ok(Cow::Owned(v.to_string()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Cow<'a, str>, E> {
        Ok(Cow::Owned(v))
    }
}

/// The text with every `\uXXXX` escape of a lone UTF-16 surrogate (one not part of a
/// high-low pair) replaced by `\ufffd`, or `None` when it has none. Escaped backslashes are
/// skipped, so `\\ud800` (a backslash, then text) is left alone. Linear in the input.
pub fn replace_lone_surrogates(text: &[u8]) -> Option<Vec<u8>> {
    fn escape_at(text: &[u8], i: usize) -> Option<u16> {
        let hex = text.get(i + 2..i + 6)?;
        if text.get(i) != Some(&b'\\') || text.get(i + 1) != Some(&b'u') {
            return None;
        }
        u16::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()
    }
    let is_high = |u: u16| (0xD800..0xDC00).contains(&u);
    let is_low = |u: u16| (0xDC00..0xE000).contains(&u);
    let mut out: Option<Vec<u8>> = None;
    let mut i = 0;
    let mut copied = 0;
    while i < text.len() {
        if text[i] != b'\\' {
            i += 1;
            continue;
        }
        match escape_at(text, i) {
            Some(u) if is_high(u) && escape_at(text, i + 6).is_some_and(is_low) => i += 12,
            Some(u) if is_high(u) || is_low(u) => {
                let buf = out.get_or_insert_with(|| Vec::with_capacity(text.len()));
                buf.extend_from_slice(&text[copied..i]);
                buf.extend_from_slice(b"\\ufffd");
                i += 6;
                copied = i;
            }
            // Any other escape (`\\`, `\"`, `\n`, `\u0041`): skip the backslash and the
            // character it escapes.
            _ => i += 2,
        }
    }
    let mut buf = out?;
    buf.extend_from_slice(&text[copied..]);
    Some(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_borrow_unless_escaped() {
        let text = br#"{"a":"plain","b\u0021":"esc\"aped","n":[1,-2,3.5,null,true]}"#;
        let node = Node::parse(text).unwrap();
        let object = node.as_object().unwrap();
        assert!(matches!(
            object.get("a"),
            Some(Node::String(Cow::Borrowed("plain")))
        ));
        assert!(matches!(object.get("b!"), Some(Node::String(Cow::Owned(s))) if s == "esc\"aped"));
        assert_eq!(
            node.to_value(),
            serde_json::from_slice::<Value>(text).unwrap()
        );
    }

    #[test]
    fn repeated_keys_read_the_last_value_at_the_first_place() {
        let text = br#"{"k":1,"x":0,"k":2}"#;
        let node = Node::parse(text).unwrap();
        assert_eq!(node.get("k").and_then(Node::as_i64), Some(2));
        let value = node.to_value();
        assert_eq!(value, serde_json::from_slice::<Value>(text).unwrap());
        let keys: Vec<&String> = value.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["k", "x"]);
    }

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        let fixed = replace_lone_surrogates(br#"{"a":"x\ud800y","b":"\udc00","c":"\\ud800"}"#)
            .expect("repaired");
        assert_eq!(
            fixed,
            br#"{"a":"x\ufffdy","b":"\ufffd","c":"\\ud800"}"#.to_vec()
        );
        // A valid pair and an escaped backslash stay; nothing to repair.
        assert_eq!(
            replace_lone_surrogates(br#"{"a":"\ud83d\ude00 \\ud800"}"#),
            None
        );
        // A high surrogate at the very end, and one followed by another high one.
        assert_eq!(
            replace_lone_surrogates(br#""\ud800\ud801\udc00""#).expect("repaired"),
            br#""\ufffd\ud801\udc00""#.to_vec()
        );
        let v: Value = serde_json::from_slice(&fixed).expect("parses");
        assert_eq!(v["a"], "x\u{fffd}y");
    }

    #[test]
    fn errors_are_serde_json_errors() {
        for text in [
            &b"not json"[..],
            b"{\"a\":1,}",
            b"{\"a\":1e400}",
            b"{\"a\":\"\xff\"}",
            b"{\"a\":\"\\ud800\"}",
            b"{\"a\":1} trailing",
            b"",
            &[b'['; 200],
        ] {
            let ours = Node::parse(text).map(|n| n.to_value());
            let theirs = serde_json::from_slice::<Value>(text);
            assert_eq!(
                ours.map_err(|e| e.to_string()),
                theirs.map_err(|e| e.to_string()),
                "{}",
                String::from_utf8_lossy(text)
            );
        }
    }
}
