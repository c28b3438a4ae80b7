//! A JSON object read into a list of entries in file order (VRM's `expressions.preset`,
//! `humanBones`, … are objects whose order tools such as three-vrm preserve).

use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};

/// A JSON object as `(key, value)` pairs in file order. Duplicate keys are an error.
#[derive(Clone, Debug, PartialEq)]
pub struct OrderedMap<T>(pub Vec<(String, T)>);

impl<T> Default for OrderedMap<T> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<T> OrderedMap<T> {
    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&T> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Entries in file order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &T)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }
}

impl<T: Serialize> Serialize for OrderedMap<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for OrderedMap<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = OrderedMap<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
                let mut out: Vec<(String, T)> = Vec::new();
                while let Some(k) = m.next_key::<String>()? {
                    if out.iter().any(|(n, _)| *n == k) {
                        return Err(de::Error::custom(format!("key `{k}` appears twice")));
                    }
                    let v = m.next_value()?;
                    out.push((k, v));
                }
                Ok(OrderedMap(out))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_order_and_rejects_duplicates() {
        let m: OrderedMap<u32> = serde_json::from_str(r#"{"b":1,"a":2}"#).unwrap();
        assert_eq!(m.0, vec![("b".into(), 1), ("a".into(), 2)]);
        assert_eq!(m.get("a"), Some(&2));
        assert!(serde_json::from_str::<OrderedMap<u32>>(r#"{"a":1,"a":2}"#).is_err());
        assert_eq!(serde_json::to_string(&m).unwrap(), r#"{"b":1,"a":2}"#);
    }
}
